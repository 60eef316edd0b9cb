/**
 * The random events of the window join property tests (window-join-distinct,
 * window-semi-anti-join): a table `ev` of kinds, keys, NULL-able names and rowtimes with a
 * watermark 1.5 s behind, and how their results are compared.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Change, Row } from '../../src/index.js';

export interface Ev {
  kind: number;
  k: number;
  name: string | null;
  ts: number;
}

export const BASE = Date.UTC(2026, 0, 1);

export const EV_COLUMNS = [
  { name: 'kind', type: 'INT' },
  { name: 'k', type: 'BIGINT' },
  { name: 'name', type: 'STRING' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
];
export const EV_WATERMARK = { column: 'ts', expression: "ts - INTERVAL '1.5' SECOND" };

/** Insert-only results as sorted JSON rows (BIGINTs as numbers). */
export const rowsOf = (changes: readonly Change<Row>[]): string[] => {
  expect(changes.every((c) => c.kind === '+I')).toBe(true);
  return changes
    .map((c) => JSON.stringify(c.value, (_, v) => (typeof v === 'bigint' ? Number(v) : v)))
    .sort();
};

/** Events of kind 0 or 1, keys 1 to `keys`, within 16 s of BASE. */
export const evArb = (keys: number): fc.Arbitrary<Ev> =>
  fc.record({
    kind: fc.integer({ min: 0, max: 1 }),
    k: fc.integer({ min: 1, max: keys }),
    name: fc.option(fc.constantFrom('ann', 'bob'), { nil: null }),
    ts: fc.integer({ min: BASE, max: BASE + 16_000 }),
  });

/** The rows no earlier row's watermark (`ts - 1.5 s`) has passed. */
export function withoutLateRows(evs: readonly Ev[]): Ev[] {
  let watermark = Number.NEGATIVE_INFINITY;
  const kept: Ev[] = [];
  for (const ev of evs) {
    if (ev.ts <= watermark) continue;
    kept.push(ev);
    watermark = Math.max(watermark, ev.ts - 1_500);
  }
  return kept;
}
