/**
 * SUM of INT, SMALLINT and TINYINT is of the argument's type in Flink, its running sum Java's
 * addition in that width: it wraps (`2147483647 + 2147483647` is `-2`), in tumbling and hopping
 * windows, an unwindowed GROUP BY, over a changelog (retract), DISTINCT, and two-phase (merge),
 * against a plain computation of the wrapped sums (fast-check). AVG's sum is a BIGINT in Flink:
 * it does not wrap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { queryChanges } from './query-changes.js';

type Cell = number | null;
interface Reading {
  k: string;
  i: Cell;
  s: Cell;
  t: Cell;
  ts: number;
}

const int32 = (x: number) => x | 0;
const int16 = (x: number) => (x << 16) >> 16;
const int8 = (x: number) => (x << 24) >> 24;

const COLUMNS = [
  { name: 'k', type: 'STRING' },
  { name: 'i', type: 'INT' },
  { name: 's', type: 'SMALLINT' },
  { name: 't', type: 'TINYINT' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
];

async function finalRows(
  readings: readonly Reading[],
  queries: readonly string[],
  options: { parallelism: number; batchSize: number; settings?: string },
): Promise<string[][]> {
  const changes = await queryChanges(
    {
      name: 'v',
      rows: readings.map((r) => [r.k, r.i, r.s, r.t, r.ts]),
      columns: COLUMNS,
      watermark: { column: 'ts', expression: "ts - INTERVAL '1' MINUTE" },
    },
    queries,
    options,
  );
  return changes.map((c) => materialize(c, (row) => JSON.stringify(row)).sort());
}

/** Wrapped SUM of the non-NULL values, NULL when there are none. */
function sum(values: readonly Cell[], wrap: (x: number) => number): Cell {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => wrap(a + b), 0);
}

describe('SUM of INT, SMALLINT and TINYINT', () => {
  it('wraps as Java does, where the sum is also compared', async () => {
    const rows: Reading[] = [
      { k: 'a', i: 2147483647, s: 32767, t: 127, ts: 1000 },
      { k: 'a', i: 2147483647, s: 32767, t: 127, ts: 2000 },
    ];
    const [grouped, windowed] = await finalRows(
      rows,
      [
        'SELECT SUM(i), i + i, SUM(i) > 2147483647, SUM(s), SUM(t), AVG(i) FROM v GROUP BY i',
        `SELECT SUM(i), SUM(i) > 2147483647, SUM(s), SUM(t)
           FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '10' SECOND))
           GROUP BY window_start, window_end`,
      ],
      { parallelism: 1, batchSize: 16 },
    );
    // Flink: -2, -2, FALSE; SMALLINT 32767 + 32767 is -2, TINYINT 127 + 127 is -2.
    expect(grouped).toEqual([JSON.stringify([-2, -2, false, -2, -2, 2147483647])]);
    expect(windowed).toEqual([JSON.stringify([-2, false, -2, -2])]);
  });

  it('wraps in add, retract and merge alike, as a plain wrapped sum', async () => {
    const near = (max: number) =>
      fc.option(
        fc.oneof(
          fc.integer({ min: -max - 1, max }),
          fc.integer({ min: max - 3, max }),
          fc.integer({ min: -max - 1, max: -max + 2 }),
        ),
        { nil: null, freq: 8 },
      );
    const readingArb = fc.record({
      k: fc.constantFrom('a', 'b', 'c'),
      i: near(2147483647),
      s: near(32767),
      t: near(127),
      ts: fc.integer({ min: 0, max: 39_999 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(readingArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom(1, 2),
        fc.boolean(),
        async (readings, parallelism, twoPhase) => {
          const settings = twoPhase
            ? `SET 'table.exec.mini-batch.enabled' = 'true';
               SET 'table.exec.mini-batch.allow-latency' = '1 h';
               SET 'table.exec.mini-batch.size' = '5';
               SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';`
            : undefined;
          const [grouped, tumbling, hopping, retracted] = await finalRows(
            readings,
            [
              'SELECT k, SUM(i), SUM(s), SUM(t), SUM(DISTINCT i), SUM(DISTINCT t), AVG(i) FROM v GROUP BY k',
              `SELECT k, window_start, SUM(i), SUM(s), SUM(t)
                 FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '10' SECOND))
                 GROUP BY k, window_start, window_end`,
              `SELECT window_start, SUM(i), SUM(s), SUM(t)
                 FROM TABLE(HOP(TABLE v, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
                 GROUP BY window_start, window_end`,
              // SUM over an updating input: each key's sum retracted as it changes.
              `SELECT SUM(si), SUM(ss), SUM(st), SUM(DISTINCT st) FROM (
                 SELECT k, SUM(i) AS si, SUM(s) AS ss, SUM(t) AS st FROM v GROUP BY k)`,
            ],
            { parallelism, batchSize: 4, settings },
          );

          const byKey = new Map<string, Reading[]>();
          for (const r of readings) byKey.set(r.k, [...(byKey.get(r.k) ?? []), r]);
          const keySums = [...byKey].map(([k, rs]) => {
            const is = rs.map((r) => r.i);
            const present = is.filter((v): v is number => v !== null);
            return {
              k,
              i: sum(is, int32),
              s: sum(
                rs.map((r) => r.s),
                int16,
              ),
              t: sum(
                rs.map((r) => r.t),
                int8,
              ),
              distinctI: sum([...new Set(present)], int32),
              distinctT: sum([...new Set(rs.map((r) => r.t).filter((v) => v !== null))], int8),
              // A BIGINT sum, its quotient truncated: no wrap.
              avg:
                present.length === 0
                  ? null
                  : Math.trunc(present.reduce((a, b) => a + b, 0) / present.length),
            };
          });
          expect(grouped).toEqual(
            keySums
              .map((g) => JSON.stringify([g.k, g.i, g.s, g.t, g.distinctI, g.distinctT, g.avg]))
              .sort(),
          );

          const windows = (size: number, slide: number, keyed: boolean) => {
            const groups = new Map<string, { key: unknown[]; rows: Reading[] }>();
            for (const r of readings) {
              const last = Math.floor(r.ts / slide) * slide;
              for (let start = last; start > r.ts - size; start -= slide) {
                const key = keyed ? [r.k, start] : [start];
                const id = JSON.stringify(key);
                const g = groups.get(id) ?? { key, rows: [] };
                g.rows.push(r);
                groups.set(id, g);
              }
            }
            return [...groups.values()]
              .map(({ key, rows }) =>
                JSON.stringify([
                  ...key,
                  sum(
                    rows.map((r) => r.i),
                    int32,
                  ),
                  sum(
                    rows.map((r) => r.s),
                    int16,
                  ),
                  sum(
                    rows.map((r) => r.t),
                    int8,
                  ),
                ]),
              )
              .sort();
          };
          expect(tumbling).toEqual(windows(10_000, 10_000, true));
          expect(hopping).toEqual(windows(20_000, 10_000, false));

          expect(retracted).toEqual([
            JSON.stringify([
              sum(
                keySums.map((g) => g.i),
                int32,
              ),
              sum(
                keySums.map((g) => g.s),
                int16,
              ),
              sum(
                keySums.map((g) => g.t),
                int8,
              ),
              sum([...new Set(keySums.map((g) => g.t).filter((v) => v !== null))], int8),
            ]),
          ]);
        },
      ),
      { seed: 32, numRuns: 25 },
    );
  });
});
