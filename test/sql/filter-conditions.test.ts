/**
 * FILTER (WHERE ...) conditions repeated over several aggregate calls (as Nexmark q15-q17 repeat
 * each price rank's condition) are evaluated once per row and shared: the results equal a batch
 * computation that tests each call's condition on its own, for an updating GROUP BY, one over
 * another GROUP BY's changelog (rows taken back out) and a window aggregation, with NULLs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finalRowsAndChanges, valuesView } from './query-changes.js';

type Cell = number | null;
type Input = readonly (readonly [Cell, Cell])[];

const CALLS = `COUNT(*) FILTER (WHERE v < 3) AS low,
  COUNT(*) FILTER (WHERE v >= 3) AS high,
  SUM(v) FILTER (WHERE v < 3) AS low_sum,
  COUNT(DISTINCT v) FILTER (WHERE v < 3) AS low_values,
  COUNT(DISTINCT v) FILTER (WHERE v >= 3) AS high_values,
  COUNT(DISTINCT v) AS all_values,
  MAX(v) FILTER (WHERE v >= 3) AS high_max`;

const QUERIES = [
  `SELECT k, ${CALLS} FROM t GROUP BY k`,
  // Over a GROUP BY's changelog: retractions go through the same shared conditions.
  `SELECT k, COUNT(*) FILTER (WHERE n < 3) AS few, COUNT(*) FILTER (WHERE n < 3 AND k > 0) AS few_pos,
     SUM(n) FILTER (WHERE n < 3) AS few_sum
   FROM (SELECT k, v, COUNT(*) AS n FROM t GROUP BY k, v) GROUP BY k`,
];

function groups<K>(rows: Input, keyOf: (r: readonly [Cell, Cell]) => K): Map<K, Cell[]> {
  const out = new Map<K, Cell[]>();
  for (const r of rows) out.set(keyOf(r), [...(out.get(keyOf(r)) ?? []), r[1]]);
  return out;
}

function firstOracle(rows: Input): string[] {
  return [...groups(rows, (r) => r[0])]
    .map(([k, vs]) => {
      const low = vs.filter((v): v is number => v !== null && v < 3);
      const high = vs.filter((v): v is number => v !== null && v >= 3);
      const all = vs.filter((v): v is number => v !== null);
      return JSON.stringify([
        k,
        low.length,
        high.length,
        low.length === 0 ? null : low.reduce((a, b) => a + b, 0),
        new Set(low).size,
        new Set(high).size,
        new Set(all).size,
        high.length === 0 ? null : Math.max(...high),
      ]);
    })
    .sort();
}

function secondOracle(rows: Input): string[] {
  const inner = [...groups(rows, (r) => JSON.stringify(r))].map(([text, vs]) => ({
    k: (JSON.parse(text) as [Cell, Cell])[0],
    n: vs.length,
  }));
  const byK = new Map<Cell, number[]>();
  for (const { k, n } of inner) byK.set(k, [...(byK.get(k) ?? []), n]);
  return [...byK]
    .map(([k, ns]) => {
      const few = ns.filter((n) => n < 3);
      return JSON.stringify([
        k,
        few.length,
        k !== null && k > 0 ? few.length : 0,
        few.length === 0 ? null : few.reduce((a, b) => a + b, 0),
      ]);
    })
    .sort();
}

async function run(rows: Input, batchSize: number): Promise<string[][]> {
  return (await finalRowsAndChanges(valuesView(rows), QUERIES, { parallelism: 1, batchSize })).rows;
}

const cell = (max: number) => fc.option(fc.integer({ min: 0, max }), { freq: 6 });

describe('FILTER conditions shared by aggregate calls', () => {
  it('equal a batch computation testing each call on its own', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell(3), cell(6)), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 16 }),
        async (rows, batchSize) => {
          const [first, second] = await run(rows, batchSize);
          expect(first).toEqual(firstOracle(rows));
          expect(second).toEqual(secondOracle(rows));
        },
      ),
      { seed: 17, numRuns: 20 },
    );
  }, 120_000);
});
