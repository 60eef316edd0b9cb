/**
 * MATCH_RECOGNIZE ordered by a processing-time attribute (a `PROCTIME()` column), as Flink
 * runs it: rows are matched in arrival order (not by any rowtime), the rows of one millisecond
 * sorted by the further ORDER BY keys, WITHIN measured on the processing-time clock, and
 * MATCH_PROCTIME() is the clock at the match. A scripted source moves a manual clock between
 * rows, so every time here is exact.
 */
import { describe, expect, it } from 'vitest';
import {
  CollectSink,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { ClockScript } from '../helpers/clock-script.js';

/** A row `[k, v, ts]` to emit, or a processing time to move the clock to. */
type Step = readonly [string, number, number] | number;

/** The query's rows over the script, as displayed. */
async function run(steps: readonly Step[], match: string, parallelism = 1): Promise<string[]> {
  const clock = new ManualClock(1_000);
  const env = new StreamEnvironment({ parallelism, batchSize: 1, clock });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('raw', env.fromSource(new ClockScript(clock, steps, { endTicks: 5 })), {
    columns: [
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'INT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: 'ts' },
  });
  const table = tEnv.sqlQuery(
    `SELECT * FROM (SELECT k, v, ts, PROCTIME() AS pt FROM raw) MATCH_RECOGNIZE (${match}) AS T`,
  );
  const sink = new CollectSink<Row>();
  table.toDataStream().sinkTo(sink);
  await env.execute('match-recognize in processing time');
  return sink.values.map((r) => table.display(r).join(',')).sort();
}

const A_THEN_B = (within: string, order = 'pt') => `
  PARTITION BY k
  ORDER BY ${order}
  MEASURES A.v AS av, B.v AS bv, MATCH_PROCTIME() AS matched_at
  PATTERN (A B) ${within}
  DEFINE A AS A.v = 1, B AS B.v = 2`;

/** Epoch ms as the TIMESTAMP_LTZ MATCH_PROCTIME() shows in the session zone (UTC). */
const at = (ms: number) => new Date(ms).toISOString().replace('Z', '');

describe('MATCH_RECOGNIZE ORDER BY a processing-time attribute', () => {
  it('matches rows in arrival order, whatever their rowtime', async () => {
    // Key x: its B row has the earlier rowtime, but arrives after A: a match in processing time
    // (in event time, ordered by ts, B would come first and nothing would match).
    // Key y: B arrives before A: no match, although A's rowtime is earlier.
    const steps: Step[] = [
      ['x', 1, 50_000],
      1_200,
      ['x', 2, 10_000],
      ['y', 2, 60_000],
      1_300,
      ['y', 1, 20_000],
    ];
    expect(await run(steps, A_THEN_B(''))).toEqual([`x,1,2,${at(1_200)}`]);
    expect(await run(steps, A_THEN_B('', 'ts'))).toEqual([]);
  });

  it('measures WITHIN on the processing-time clock', async () => {
    // Key p: B 400 ms after A. Key q: B 1,500 ms after A (rowtimes 1 ms apart: the rowtime
    // plays no part). Key r: a partial match whose window ran out before its key's next row.
    const steps: Step[] = [
      ['p', 1, 0],
      ['q', 1, 0],
      ['r', 1, 0],
      1_400,
      ['p', 2, 0],
      2_500,
      ['q', 2, 1],
      ['r', 1, 0],
      2_900,
      ['r', 2, 0],
    ];
    expect(await run(steps, A_THEN_B("WITHIN INTERVAL '1' SECOND"))).toEqual([
      `p,1,2,${at(1_400)}`,
      `r,1,2,${at(2_900)}`,
    ]);
    expect(await run(steps, A_THEN_B("WITHIN INTERVAL '2' SECOND"))).toEqual([
      `p,1,2,${at(1_400)}`,
      `q,1,2,${at(2_500)}`,
      `r,1,2,${at(2_900)}`,
    ]);
    // And at parallelism 2, each key on its subtask.
    expect(await run(steps, A_THEN_B("WITHIN INTERVAL '1' SECOND"), 2)).toEqual([
      `p,1,2,${at(1_400)}`,
      `r,1,2,${at(2_900)}`,
    ]);
  });

  it('orders the rows of one millisecond by the further ORDER BY keys', async () => {
    // B (v = 2) arrives before A (v = 1) in the same millisecond: in arrival order no match;
    // ORDER BY pt, v sorts A first, as Flink's comparator does in processing time: the rows
    // wait until the clock has left their millisecond (here when it moves to 1,500).
    const steps: Step[] = [['z', 2, 0], ['z', 1, 0], 1_500];
    expect(await run(steps, A_THEN_B(''))).toEqual([]);
    expect(await run(steps, A_THEN_B('', 'pt, v'))).toEqual([`z,1,2,${at(1_500)}`]);
  });

  it('MATCH_ROWTIME() is the processing time of the match, a TIMESTAMP(3) without a watermark', async () => {
    const clock = new ManualClock(1_000);
    const env = new StreamEnvironment({ parallelism: 1, clock });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('raw', env.fromSource(new ClockScript<Row>(clock, [])), {
      columns: [
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'INT' },
      ],
    });
    const table = tEnv.sqlQuery(`SELECT * FROM (SELECT k, v, PROCTIME() AS pt FROM raw)
      MATCH_RECOGNIZE (ORDER BY pt MEASURES MATCH_ROWTIME() AS mt PATTERN (A) DEFINE A AS v > 0)`);
    expect(table.columns).toEqual([{ name: 'mt', type: 'TIMESTAMP(3) NOT NULL' }]);
    expect(
      tEnv.explainSql(`SELECT * FROM (SELECT k, v, PROCTIME() AS pt FROM raw)
      MATCH_RECOGNIZE (ORDER BY pt MEASURES MATCH_ROWTIME() AS mt PATTERN (A) DEFINE A AS v > 0)`),
    ).not.toContain('*ROWTIME*');
  });

  it('refuses an ORDER BY that does not start with a time attribute, or a descending one', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('raw', env.fromArray<Row>([]), {
      columns: [
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'INT' },
      ],
    });
    const query = (order: string) =>
      tEnv.sqlQuery(`SELECT * FROM (SELECT k, v, PROCTIME() AS pt FROM raw)
        MATCH_RECOGNIZE (ORDER BY ${order} MEASURES A.v AS av PATTERN (A) DEFINE A AS v > 0)`);
    expect(() => query('v, pt')).toThrow(SqlError);
    expect(() => query('v, pt')).toThrow(
      "ORDER BY of MATCH_RECOGNIZE must start with a time attribute; 'v' is not one",
    );
    expect(() => query('pt DESC')).toThrow('ORDER BY of MATCH_RECOGNIZE must be ascending on time');
  });
});
