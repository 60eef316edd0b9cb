/**
 * `IS NOT DISTINCT FROM` as a join key, as Flink takes it: a NULL-safe equality, on which NULL
 * matches NULL, in interval joins (Flink's IntervalJoinITCase.testRowTimeInnerJoinWithIsNotDistinctFrom,
 * its rows and expected result) and in regular joins of every type (against a nested-loop join),
 * alone or beside `=` keys, on which NULL still matches nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { joinKey } from '../../src/sql/planner/join-planner.js';
import {
  INTERVAL_JOIN_LEFT,
  INTERVAL_JOIN_RIGHT,
  type KeyIdRowtime,
} from './flink-scenario-runner.js';
import { finalRows } from './query-changes.js';

type Cell = number | null;
type Pair = readonly [Cell, Cell];

const INTERVAL_JOIN = `SELECT t2.key, t2.id, t1.id
FROM T1 AS t1 JOIN T2 AS t2 ON
  t1.key IS NOT DISTINCT FROM t2.key AND
    t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND
    t2.rowtime + INTERVAL '6' SECOND`;

async function intervalJoin(query: string): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  const rows = (data: readonly KeyIdRowtime[]) =>
    env.fromArray(data.map(([key, id, rowtime]) => ({ key, id, rowtime })));
  const schema = {
    columns: [
      { name: 'key', type: 'STRING' },
      { name: 'id', type: 'STRING' },
      { name: 'rowtime', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '0.001' SECOND" },
  };
  tEnv.fromDataStream('T1', rows(INTERVAL_JOIN_LEFT), schema);
  tEnv.fromDataStream('T2', rows(INTERVAL_JOIN_RIGHT), schema);
  const table = tEnv.sqlQuery(query);
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  await env.execute('interval join');
  return sink.values.map((c) => `${c.kind} ${table.display(c.value).join(',')}`).sort();
}

/** The join of `l` and `r` by nested loops on their first cells, NULL matching NULL where `nullSafe`. */
function joinOracle(
  l: readonly Pair[],
  r: readonly Pair[],
  type: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL',
  nullSafe: boolean,
  alsoV: boolean,
): string[] {
  const out: unknown[][] = [];
  const matchedRight = new Set<number>();
  const keyMatch = (a: Cell, b: Cell) => (a === null ? nullSafe && b === null : a === b);
  for (const a of l) {
    let matched = false;
    r.forEach((b, j) => {
      if (keyMatch(a[0], b[0]) && (!alsoV || (a[1] !== null && a[1] === b[1]))) {
        out.push([...a, ...b]);
        matched = true;
        matchedRight.add(j);
      }
    });
    if (!matched && (type === 'LEFT' || type === 'FULL')) out.push([...a, null, null]);
  }
  if (type === 'RIGHT' || type === 'FULL')
    r.forEach((b, j) => {
      if (!matchedRight.has(j)) out.push([null, null, ...b]);
    });
  return out.map((row) => JSON.stringify(row)).sort();
}

function view(name: string, rows: readonly Pair[]): string {
  const cell = (c: Cell) => (c === null ? 'CAST(NULL AS INT)' : String(c));
  const values = rows.map(([k, v]) => `(${cell(k)}, ${cell(v)})`).join(', ');
  return `CREATE TEMPORARY VIEW ${name} AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES ${values});`;
}

describe('IS NOT DISTINCT FROM as a join key', () => {
  it("gives Flink's rows for testRowTimeInnerJoinWithIsNotDistinctFrom, and = leaves out the NULL key", async () => {
    const expected = [
      'A,RIGHT6,LEFT1',
      'A,RIGHT6,LEFT2',
      'A,RIGHT6,LEFT3',
      'A,RIGHT6,LEFT5',
      'A,RIGHT6,LEFT6',
      'B,RIGHT7,LEFT4',
      '<NULL>,RIGHT10,LEFT8',
    ];
    expect(await intervalJoin(INTERVAL_JOIN)).toEqual(expected.map((r) => `+I ${r}`).sort());
    expect(await intervalJoin(INTERVAL_JOIN.replace('IS NOT DISTINCT FROM', '='))).toEqual(
      expected
        .filter((r) => !r.startsWith('<NULL>'))
        .map((r) => `+I ${r}`)
        .sort(),
    );
  }, 60_000);

  it('plans the interval join on it, not a refusal for want of an equality', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const schema = {
      columns: [
        { name: 'key', type: 'STRING' },
        { name: 'id', type: 'STRING' },
        { name: 'rowtime', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'rowtime', expression: 'rowtime' },
    };
    tEnv.fromDataStream('T1', env.fromArray([]), schema);
    tEnv.fromDataStream('T2', env.fromArray([]), schema);
    expect(tEnv.explainSql(INTERVAL_JOIN)).toMatch(/interval-join "interval join"/);
    // IS DISTINCT FROM is no key: as in Flink, an interval join without one, which checks it
    // on each pair.
    const keyless = tEnv.explainSql(
      INTERVAL_JOIN.replace('IS NOT DISTINCT FROM', 'IS DISTINCT FROM'),
    );
    expect(keyless).toMatch(/interval-join "interval join"/);
    expect(keyless).not.toContain('regular-join');
  });

  const table = fc.array(
    fc.tuple(fc.option(fc.integer({ min: 0, max: 2 })), fc.option(fc.integer({ min: 0, max: 2 }))),
    { minLength: 1, maxLength: 7 },
  );
  const TYPES = ['INNER', 'LEFT', 'RIGHT', 'FULL'] as const;

  it('regular joins of every type equal a nested-loop join where NULL matches NULL, beside = keys', async () => {
    await fc.assert(
      fc.asyncProperty(table, table, fc.constantFrom(1, 2), async (l, r, parallelism) => {
        const cases = TYPES.flatMap((type) => [
          { type, nullSafe: true, alsoV: false, on: 'l.k IS NOT DISTINCT FROM r.k' },
          { type, nullSafe: false, alsoV: false, on: 'l.k = r.k' },
          { type, nullSafe: true, alsoV: true, on: 'r.k IS NOT DISTINCT FROM l.k AND l.v = r.v' },
        ]);
        const rows = await finalRows(
          `${view('l', l)}\n${view('r', r)}`,
          cases.map((c) => `SELECT l.k, l.v, r.k, r.v FROM l ${c.type} JOIN r ON ${c.on}`),
          parallelism,
        );
        cases.forEach((c, i) => {
          expect(rows[i], `${c.type} JOIN ON ${c.on}`).toEqual(
            joinOracle(l, r, c.type, c.nullSafe, c.alsoV),
          );
        });
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it('keys NULL apart from every non-NULL value: shared on both sides when NULL-safe, never under =', () => {
    const first = (row: Row) => row[0];
    const second = (row: Row) => row[1];
    // One NULL-safe key: NULL is the same on both sides, and no string's key.
    const safeL = joinKey([first], 'left', [true]);
    const safeR = joinKey([first], 'right', [true]);
    expect(safeL([null])).toBe(safeR([null]));
    for (const v of ['', 'n', 'n\u0001', '\u0000null left', 'null', 0, 1n, false])
      expect(safeL([v])).not.toBe(safeR([null]));
    // One = key: NULL keys of the two sides differ, and no string (not even the NULL key's
    // own text) shares them.
    const eqL = joinKey([first], 'left');
    const eqR = joinKey([first], 'right');
    expect(eqL([null])).not.toBe(eqR([null]));
    expect(eqL(['\u0000null right'])).not.toBe(eqR([null]));
    expect(eqR(['\u0000null left'])).not.toBe(eqL([null]));
    expect(eqL(['a'])).toBe(eqR(['a']));
    // Several keys, one of them NULL-safe: a string holding the separator cannot shift the
    // values, and a NULL under = still keys apart.
    const twoL = joinKey([first, second], 'left', [true, false]);
    const twoR = joinKey([first, second], 'right', [true, false]);
    expect(twoL([null, 'x'])).toBe(twoR([null, 'x']));
    expect(twoL(['x', null])).not.toBe(twoR(['x', null]));
    expect(twoL(['a\u0001sb', 'c'])).not.toBe(twoR(['a', 'b\u0001sc']));
    expect(twoL(['a\u0001n\u0001', 'c'])).not.toBe(twoR(['a', null]));
    expect(twoL(['a\u0001', 'b'])).toBe(twoR(['a\u0001', 'b']));
  });
});
