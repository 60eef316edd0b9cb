/**
 * A window join of two grouping-only window aggregations (Nexmark q8's shape) reads the
 * aggregations' input rows and keeps each window's distinct rows once itself, in one window
 * operator. Its rows must be those of the plan with the aggregations (forced here by a HAVING
 * that every group passes): over rows with duplicates, NULLs, disorder and late rows, for
 * every window TVF and join type, at parallelism 1 and 2. The join judges a late row by its
 * own input's watermark, as the aggregation would, whichever input's watermark reaches it
 * first. At 2 the input has no late rows: there whether a row is late depends, in either
 * plan, on how the two source subtasks' channels interleave.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { queryChanges } from './query-changes.js';
import { EV_COLUMNS, EV_WATERMARK, evArb, rowsOf, withoutLateRows } from './window-events.js';

const TVFS = [
  "TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND)",
  "HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)",
  "CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)",
] as const;
const JOINS = ['JOIN', 'LEFT JOIN', 'FULL JOIN'] as const;

/** q8's shape; `having` forces the plan through the window aggregations. */
function query(tvf: string, join: string, having: string): string {
  return `SELECT P.k, P.name, P.starttime, A.k, A.starttime
FROM (
  SELECT k, name, window_start AS starttime, window_end AS endtime
  FROM TABLE(${tvf}) WHERE kind = 0
  GROUP BY k, name, window_start, window_end ${having}
) P
${join} (
  SELECT k, window_start AS starttime, window_end AS endtime
  FROM TABLE(${tvf}) WHERE kind = 1
  GROUP BY k, window_start, window_end ${having}
) A
ON P.k = A.k AND P.starttime = A.starttime AND P.endtime = A.endtime`;
}

describe('window join of grouping-only window aggregations', () => {
  it('plans one window join over the input rows, without the aggregations', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(`CREATE TABLE ev (kind INT, k BIGINT, name STRING, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '1.5' SECOND) WITH ('connector' = 'datagen')`);
    const distinct = tEnv.explainSql(query(TVFS[0], 'JOIN', ''));
    expect(distinct).toContain('window-join "window inner join"');
    expect(distinct).not.toContain('window aggregate');
    const aggregated = tEnv.explainSql(query(TVFS[0], 'JOIN', 'HAVING COUNT(*) > 0'));
    expect(aggregated.match(/window aggregate/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('gives the rows of the plan with the aggregations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(evArb(4), { minLength: 1, maxLength: 60 }),
        fc.constantFrom(...TVFS),
        fc.constantFrom(...JOINS),
        fc.constantFrom(1, 2),
        async (generated, tvf, join, parallelism) => {
          const evs = parallelism === 1 ? generated : withoutLateRows(generated);
          // One row per batch: the watermark follows each row, so lateness is deterministic at
          // parallelism 1.
          const [distinct, aggregated] = await queryChanges(
            { name: 'ev', rows: evs, columns: EV_COLUMNS, watermark: EV_WATERMARK },
            [query(tvf, join, ''), query(tvf, join, 'HAVING COUNT(*) > 0')],
            { parallelism, batchSize: 1 },
          );
          expect(rowsOf(distinct ?? [])).toEqual(rowsOf(aggregated ?? []));
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
