/**
 * Window semi and anti joins (EXISTS, IN, NOT EXISTS, NOT IN correlated on window_start and
 * window_end of two window TVFs) against a batch computation per window with SQL's NULL
 * semantics (fast-check): over rows with duplicates, NULLs and disorder, TUMBLE and HOP, at
 * parallelism 1 and 2. The input has no late rows (each row is ahead of every earlier row's
 * watermark), so every row is in the result or kept out by the join alone. Also EXPLAIN.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { queryChanges } from './query-changes.js';
import {
  EV_COLUMNS,
  EV_WATERMARK,
  type Ev,
  evArb,
  rowsOf,
  withoutLateRows,
} from './window-events.js';

/** A window TVF and the windows it gives a timestamp, as [start, end) pairs. */
interface Tvf {
  readonly sql: string;
  readonly windows: (ts: number) => [number, number][];
}

const TVFS: readonly Tvf[] = [
  {
    sql: "TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND)",
    windows: (ts) => {
      const start = ts - (((ts % 3000) + 3000) % 3000);
      return [[start, start + 3000]];
    },
  },
  {
    sql: "HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)",
    windows: (ts) => {
      const last = ts - (((ts % 2000) + 2000) % 2000);
      const out: [number, number][] = [];
      for (let start = last; start > ts - 6000; start -= 2000) out.push([start, start + 6000]);
      return out;
    },
  },
];

type Test = 'EXISTS' | 'NOT EXISTS' | 'IN' | 'NOT IN';
const TESTS: readonly Test[] = ['EXISTS', 'NOT EXISTS', 'IN', 'NOT IN'];

const ON_WINDOW = 'L.window_start = R.window_start AND L.window_end = R.window_end';

function query(tvf: Tvf, test: Test): string {
  const left = `SELECT L.k, L.name, L.ts, L.window_start
FROM (SELECT * FROM TABLE(${tvf.sql}) WHERE kind = 0) L WHERE`;
  if (test === 'EXISTS' || test === 'NOT EXISTS')
    return `${left} ${test} (SELECT * FROM TABLE(${tvf.sql}) R
  WHERE R.kind = 1 AND ${ON_WINDOW} AND L.k = R.k)`;
  return `${left} L.name ${test} (SELECT R.name FROM TABLE(${tvf.sql}) R
  WHERE R.kind = 1 AND ${ON_WINDOW})`;
}

/** What a batch query gives: per left row and window, the test over that window's right rows. */
function oracle(evs: readonly Ev[], tvf: Tvf, test: Test): string[] {
  const out: string[] = [];
  const rights = evs.filter((e) => e.kind === 1);
  for (const l of evs.filter((e) => e.kind === 0)) {
    for (const [start, end] of tvf.windows(l.ts)) {
      const inWindow = rights.filter((r) =>
        tvf.windows(r.ts).some(([s, e]) => s === start && e === end),
      );
      let keep: boolean;
      if (test === 'EXISTS') keep = inWindow.some((r) => r.k === l.k);
      else if (test === 'NOT EXISTS') keep = !inWindow.some((r) => r.k === l.k);
      else if (test === 'IN') keep = l.name !== null && inWindow.some((r) => r.name === l.name);
      // NOT IN: a NULL on either side makes the comparison unknown, so the row is not kept.
      else keep = !inWindow.some((r) => l.name === null || r.name === null || r.name === l.name);
      if (keep) out.push(JSON.stringify([l.k, l.name, l.ts, start]));
    }
  }
  return out.sort();
}

describe('window semi and anti joins', () => {
  it('give the rows of a batch computation per window (fast-check, parallelism 1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(evArb(3), { minLength: 1, maxLength: 50 }),
        fc.constantFrom(...TVFS),
        fc.constantFrom(1, 2),
        async (generated, tvf, parallelism) => {
          const evs = withoutLateRows(generated);
          const results = await queryChanges(
            { name: 'ev', rows: evs, columns: EV_COLUMNS, watermark: EV_WATERMARK },
            TESTS.map((test) => query(tvf, test)),
            { parallelism, batchSize: 1 },
          );
          TESTS.forEach((test, i) => {
            expect(rowsOf(results[i] ?? []), test).toEqual(oracle(evs, tvf, test));
          });
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);

  it('EXPLAIN shows the window join type, its keys and its condition', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(`CREATE TABLE ev (kind INT, k BIGINT, name STRING, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '1.5' SECOND) WITH ('connector' = 'datagen')`);
    const [tumble, hop] = TVFS as [Tvf, Tvf];
    const exists = tEnv.explainSql(query(tumble, 'EXISTS'));
    expect(exists).toMatch(
      /window-join "WINDOW SEMI JOIN \(EXISTS\) on \[.*window_start = .*window_start, .*window_end = .*window_end, .*k = .*k\]"/,
    );
    expect(exists).not.toContain('keyed-co-process');
    const notIn = tEnv.explainSql(query(hop, 'NOT IN'));
    expect(notIn).toMatch(
      /window-join "WINDOW ANTI JOIN \(NOT IN, null-aware\) on \[.*\] \+ a condition on each pair"/,
    );
  });
});
