/**
 * SUM(DISTINCT) and AVG(DISTINCT) against a batch computation over the distinct non-NULL
 * values of each group: in TUMBLE and HOP windows (HOP merges the partial accumulators of its
 * slices) and in an unwindowed GROUP BY, with FILTER, over rows with repeated values and NULLs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { queryChanges } from './query-changes.js';

interface Click {
  user: string;
  amount: number | null;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);

async function run(clicks: readonly Click[], queries: readonly string[], parallelism: number) {
  const changes = await queryChanges(
    {
      name: 'clicks',
      rows: [...clicks].sort((a, b) => a.ts - b.ts),
      columns: [
        { name: 'user', type: 'STRING' },
        { name: 'amount', type: 'BIGINT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: 'ts' },
    },
    queries,
    { parallelism, batchSize: 4 },
  );
  return changes.map((c) => materialize(c, (row) => JSON.stringify(row)).sort());
}

/** [SUM(DISTINCT), AVG(DISTINCT) truncated as Flink's BIGINT AVG, COUNT(DISTINCT)] of the values. */
function distinctAggregates(values: readonly (number | null)[]): (number | null)[] {
  const distinct = [...new Set(values.filter((v): v is number => v !== null))];
  if (distinct.length === 0) return [null, null, 0];
  const sum = distinct.reduce((a, b) => a + b, 0);
  return [sum, Math.trunc(sum / distinct.length), distinct.length];
}

function windowed(
  clicks: readonly Click[],
  size: number,
  slide: number,
  where: (c: Click) => boolean,
): string[] {
  const groups = new Map<string, { user: string; start: number; values: (number | null)[] }>();
  for (const c of clicks) {
    for (let start = Math.floor(c.ts / slide) * slide; start > c.ts - size; start -= slide) {
      const key = `${c.user}/${start}`;
      const g = groups.get(key) ?? { user: c.user, start, values: [] };
      if (where(c)) g.values.push(c.amount);
      groups.set(key, g);
    }
  }
  return [...groups.values()]
    .map((g) => JSON.stringify([g.user, ...distinctAggregates(g.values), g.start, g.start + size]))
    .sort();
}

const clickArb = fc.record({
  user: fc.constantFrom('a', 'b'),
  amount: fc.option(fc.integer({ min: -5, max: 9 }), { freq: 5 }),
  ts: fc.integer({ min: BASE, max: BASE + 12_000 }),
});

describe('SUM(DISTINCT) and AVG(DISTINCT)', () => {
  it('aggregate the distinct non-NULL values of windows and groups', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(clickArb, { minLength: 1, maxLength: 50 }),
        fc.constantFrom(1, 2),
        async (clicks, parallelism) => {
          const select =
            'user, SUM(DISTINCT amount), AVG(DISTINCT amount), COUNT(DISTINCT amount), window_start, window_end';
          const [tumble, hop, grouped, filtered] = await run(
            clicks,
            [
              `SELECT ${select} FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '4' SECOND))
               GROUP BY user, window_start, window_end`,
              `SELECT ${select}
               FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
               GROUP BY user, window_start, window_end`,
              `SELECT user, SUM(DISTINCT amount), AVG(DISTINCT amount), COUNT(DISTINCT amount)
               FROM clicks GROUP BY user`,
              `SELECT user, SUM(DISTINCT amount) FILTER (WHERE amount > 3),
                 AVG(DISTINCT amount) FILTER (WHERE amount > 3),
                 COUNT(DISTINCT amount) FILTER (WHERE amount > 3)
               FROM clicks GROUP BY user`,
            ],
            parallelism,
          );
          expect(tumble).toEqual(windowed(clicks, 4_000, 4_000, () => true));
          expect(hop).toEqual(windowed(clicks, 6_000, 2_000, () => true));
          const byUser = (where: (c: Click) => boolean) =>
            [...new Set(clicks.map((c) => c.user))]
              .map((u) =>
                JSON.stringify([
                  u,
                  ...distinctAggregates(
                    clicks.filter((c) => c.user === u && where(c)).map((c) => c.amount),
                  ),
                ]),
              )
              .sort();
          expect(grouped).toEqual(byUser(() => true));
          expect(filtered).toEqual(byUser((c) => c.amount !== null && c.amount > 3));
        },
      ),
      { seed: 14, numRuns: 20 },
    );
  }, 120_000);
});
