import type { EnvironmentOptions } from '../../src/index.js';

/**
 * The keyed state backend a test job runs with: the disk backend in the
 * `disk-state` project of vitest.config.ts (WEIR_TEST_STATE_BACKEND=disk),
 * else the default heap backend. Spread into the environment's options.
 */
export function testStateBackend(): Pick<EnvironmentOptions, 'stateBackend'> {
  return process.env.WEIR_TEST_STATE_BACKEND === 'disk' ? { stateBackend: { kind: 'disk' } } : {};
}

/**
 * How many runs a property test makes: a quarter on the disk backend, whose
 * per-subtask store costs each of the many small jobs a few milliseconds.
 */
export function propertyRuns(runs: number): number {
  return process.env.WEIR_TEST_STATE_BACKEND === 'disk' ? Math.ceil(runs / 4) : runs;
}
