/**
 * MIN, MAX, COUNT(DISTINCT), SUM(DISTINCT) and AVG(DISTINCT) over a changing input keep each
 * group's distinct values with
 * their counts (Flink's retracting accumulators), not the group's rows: their results over
 * random changelogs equal a batch computation over the final input (fast-check, parallelism 1
 * and 2), their state holds one entry per distinct value however many rows come and go, a
 * job stopped part-way and restored from its savepoint ends as an uninterrupted run, and a
 * savepoint of the former format is refused naming both serializers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change, Row } from '../../src/index.js';
import { aggregateOverV } from './aggregate-over-v.js';
import { queryChanges } from './query-changes.js';
import {
  changesJob,
  keyValueQueriesJob,
  throughSavepoint,
  untilCommitted,
} from './savepoint-helpers.js';

const BASE = Date.UTC(2026, 0, 1);

// The inner GROUP BY updates each key's sum (and deletes it while it is not positive): the
// outer aggregates see -U/+U and -D changes.
const INNER = 'SELECT k, SUM(v) AS s, MAX(v) AS mv FROM r GROUP BY k HAVING SUM(v) > 0';
const OUTER = [
  `SELECT MOD(k, 2), MIN(s), MAX(s), COUNT(DISTINCT s), COUNT(DISTINCT mv) FILTER (WHERE s > 5), MIN(CAST(s AS STRING)), SUM(DISTINCT s), AVG(DISTINCT mv) FROM (${INNER}) GROUP BY MOD(k, 2)`,
  `SELECT MIN(s), MAX(mv), COUNT(DISTINCT s), COUNT(*) FROM (${INNER})`,
];

describe('MIN, MAX, COUNT, SUM and AVG (DISTINCT) over a changelog', () => {
  it('equal a batch computation over the final rows of the changing input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ k: fc.integer({ min: 0, max: 7 }), v: fc.integer({ min: -6, max: 9 }) }),
          { minLength: 1, maxLength: 80 },
        ),
        fc.constantFrom(1, 2),
        async (rows, parallelism) => {
          const changes = await queryChanges(
            {
              name: 'r',
              rows: rows.map((r, i) => [r.k, r.v, BASE + i]),
              columns: [
                { name: 'k', type: 'INT' },
                { name: 'v', type: 'INT' },
                { name: 'ts', type: 'TIMESTAMP(3)' },
              ],
              watermark: { column: 'ts', expression: 'ts' },
            },
            OUTER,
            { parallelism, batchSize: 4 },
          );
          const [byParity, all] = changes.map((c: Change<Row>[]) =>
            materialize(c, (row) => JSON.stringify(row)).sort(),
          );
          // The batch computation: the inner query's final rows, then the outer aggregates.
          const sums = new Map<number, { s: number; mv: number }>();
          for (const { k, v } of rows) {
            const g = sums.get(k) ?? { s: 0, mv: v };
            sums.set(k, { s: g.s + v, mv: Math.max(g.mv, v) });
          }
          const inner = [...sums].filter(([, g]) => g.s > 0);
          const outer = (group: typeof inner) => {
            const s = group.map(([, g]) => g.s);
            const big = group.filter(([, g]) => g.s > 5).map(([, g]) => g.mv);
            const distinct = (values: number[]) => [...new Set(values)];
            const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
            const mvs = distinct(group.map(([, g]) => g.mv));
            return [
              Math.min(...s),
              Math.max(...s),
              new Set(s).size,
              new Set(big).size,
              s.map(String).sort()[0],
              total(distinct(s)),
              // AVG of INT is an INT, truncated toward zero, as Flink's.
              Math.trunc(total(mvs) / mvs.length),
            ];
          };
          const parities = [0, 1]
            .map((p) => inner.filter(([k]) => k % 2 === p))
            .filter((g) => g.length > 0);
          expect(byParity).toEqual(
            parities
              .map((g) => JSON.stringify([(g[0] as [number, unknown])[0] % 2, ...outer(g)]))
              .sort(),
          );
          expect(all).toEqual(
            // A global aggregation whose rows all left takes its row back (-D), as Flink's.
            inner.length === 0
              ? []
              : [
                  JSON.stringify([
                    Math.min(...inner.map(([, g]) => g.s)),
                    Math.max(...inner.map(([, g]) => g.mv)),
                    new Set(inner.map(([, g]) => g.s)).size,
                    inner.length,
                  ]),
                ],
          );
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('keep one state entry per distinct value, whatever the number of rows', () => {
    const fn = aggregateOverV(
      ['MIN(v)', 'MAX(v)', 'COUNT(DISTINCT v)', 'SUM(DISTINCT v)', 'AVG(DISTINCT v)'],
      true,
    );
    expect(fn.retract).toBeDefined();
    let acc = fn.createAccumulator();
    // 10,000 rows of 5 distinct values, then all but the rows of 3 and 4 retracted.
    for (let i = 0; i < 10_000; i++) acc = fn.add([i % 5], acc);
    const full = JSON.stringify(acc).length;
    expect(fn.getResult(acc)).toEqual([0, 4, 5, 10, 2]);
    for (let i = 0; i < 10_000; i++)
      if (i % 5 < 3) acc = (fn.retract as NonNullable<typeof fn.retract>)([i % 5], acc);
    expect(fn.getResult(acc)).toEqual([3, 4, 2, 7, 3]);
    // A few hundred bytes for 5 values: the state does not grow with the 10,000 rows.
    expect(full).toBeLessThan(1000);
    expect(JSON.stringify(acc).length).toBeLessThan(full);
  });

  it('restored part-way from a savepoint, end as an uninterrupted run', async () => {
    const restored = await throughSavepoint(
      'weir-retracting-aggregates-',
      1,
      keyValueQueriesJob(
        [
          'SELECT MIN(c), MAX(c), COUNT(DISTINCT c), COUNT(DISTINCT k), SUM(DISTINCT c), AVG(DISTINCT k) FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)',
        ],
        300,
        (i) => [i % 7, i],
      ),
      60,
    );
    // 300 rows over 7 keys: counts 43 (keys 0..5) and 42 (key 6).
    expect(restored).toEqual([[JSON.stringify([42, 43, 2, 7, 85, 3])]]);
  }, 120_000);

  it('refuse a savepoint of the former format (rows kept, json accumulators), naming both', async () => {
    // The same operator with an aggregate that still keeps the group's rows writes its
    // accumulators as the former MIN did: `json`, beside the rows.
    const job = (query: string, out: string, checkpoints: string, rate: number | undefined) =>
      changesJob({
        out,
        checkpoints,
        rate,
        parallelism: 1,
        events: 300,
        eventAt: (i) => [i % 7, i],
        queries: [`SELECT ${query} FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)`],
      });
    const dir = await mkdtemp(join(tmpdir(), 'weir-value-counts-format-'));
    try {
      const first = job('FIRST_VALUE(c)', join(dir, 'out'), join(dir, 'cp-1'), 60).executeAsync(
        'former',
      );
      await untilCommitted(join(dir, 'out', 'q0'));
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      const restored = job('MIN(c)', join(dir, 'out2'), join(dir, 'cp-2'), undefined).executeAsync(
        'value counts',
        { restoreFrom: savepoint },
      ).result;
      await expect(restored).rejects.toThrow(
        /state 'group' of operator '[^']+': the snapshot was written with serializer 'json' \(version 1\) but the state is declared with serializer 'weir\.group\(weir\.sql\.value-counts\)'/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
