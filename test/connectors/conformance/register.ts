import { describe, it } from 'vitest';
import type { ConformanceCheck } from '../../../src/testing/index.js';

/** Registers each conformance check of one implementation as a test. */
export function conformance(name: string, checks: readonly ConformanceCheck[], timeout = 60_000) {
  describe(name, () => {
    for (const check of checks) it(check.name, () => check.run(), timeout);
  });
}
