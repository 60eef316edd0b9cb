/**
 * JSON_OBJECTAGG and JSON_ARRAYAGG against a plain computation over random rows, also over a
 * changelog (their retraction), ARRAY_AGG's IGNORE NULLS, ROW equality's three-valued `=` and
 * value `<>`, and the refusals Flink makes (FILTER on them, a duplicate key at run time).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { queryChanges } from './query-changes.js';

interface Item {
  readonly id: number;
  readonly k: string;
  readonly v: number | null;
  readonly ts: number;
}

const BASE = Date.UTC(2026, 0, 1);

async function run(items: readonly Item[], queries: readonly string[], parallelism: number) {
  const changes = await queryChanges(
    {
      name: 'r',
      rows: items.map((r) => [r.id, r.k, r.v, r.ts]),
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'INT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: 'ts' },
    },
    queries,
    { parallelism, batchSize: 5 },
  );
  return changes.map((c: Change<Row>[]) => materialize(c, (row) => JSON.stringify(row)).sort());
}

const items = fc
  .array(
    fc.record({
      k: fc.constantFrom('a', 'b', 'c', 'd'),
      v: fc.option(fc.integer({ min: -9, max: 9 })),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((rs) => rs.map((r, id) => ({ id, k: r.k, v: r.v, ts: BASE + id * 1000 })));

const groupBy = <T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return groups;
};

describe('JSON_OBJECTAGG and JSON_ARRAYAGG', () => {
  it('equal a plain computation per group, over inserts and over a changelog', async () => {
    await fc.assert(
      fc.asyncProperty(items, fc.constantFrom(1, 2), async (rows, parallelism) => {
        const [objects, arrays, counts, countArrays] = await run(
          rows,
          [
            'SELECT k, JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE v), JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE v ABSENT ON NULL) FROM r GROUP BY k',
            'SELECT k, JSON_ARRAYAGG(v), JSON_ARRAYAGG(v NULL ON NULL) FROM r GROUP BY k',
            'SELECT JSON_OBJECTAGG(KEY k VALUE c) FROM (SELECT k, COUNT(*) AS c FROM r GROUP BY k)',
            'SELECT JSON_ARRAYAGG(c) FROM (SELECT k, COUNT(*) AS c FROM r GROUP BY k)',
          ],
          parallelism,
        );
        const groups = groupBy(rows, (r) => r.k);
        const object = (rs: readonly Item[], absent: boolean) =>
          `{${rs
            .filter((r) => !absent || r.v !== null)
            .map((r) => [String(r.id), r.v] as const)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([id, v]) => `"${id}":${v}`)
            .join(',')}}`;
        expect(objects).toEqual(
          [...groups]
            .map(([k, rs]) => JSON.stringify([k, object(rs, false), object(rs, true)]))
            .sort(),
        );
        // In arrival order per group: the same at parallelism 2, where a key's rows stay in order.
        expect(arrays).toEqual(
          [...groups]
            .map(([k, rs]) =>
              JSON.stringify([
                k,
                JSON.stringify(rs.map((r) => r.v).filter((v) => v !== null)),
                JSON.stringify(rs.map((r) => r.v)),
              ]),
            )
            .sort(),
        );
        const finalCounts = [...groups].map(([k, rs]) => [k, rs.length] as const).sort();
        expect(counts).toEqual([
          JSON.stringify([`{${finalCounts.map(([k, c]) => `"${k}":${c}`).join(',')}}`]),
        ]);
        // Retracted counts leave the array; the order of the rest depends on the updates.
        const [text] = JSON.parse((countArrays as string[])[0] as string) as [string];
        expect((JSON.parse(text) as number[]).sort()).toEqual(finalCounts.map(([, c]) => c).sort());
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('fails the job on a duplicate key, naming it, and refuses FILTER as Flink does', async () => {
    const rows: Item[] = [
      { id: 1, k: 'a', v: 1, ts: BASE },
      { id: 2, k: 'a', v: 2, ts: BASE + 1 },
    ];
    await expect(run(rows, ['SELECT JSON_OBJECTAGG(KEY k VALUE v) FROM r'], 1)).rejects.toThrow(
      /JSON_OBJECTAGG: key 'a' is already present/,
    );
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(
      "CREATE TABLE s (k STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')",
    );
    expect(() => tEnv.sqlQuery('SELECT JSON_ARRAYAGG(v) FILTER (WHERE v > 0) FROM s')).toThrow(
      /line 1, column 8: FILTER does not apply to JSON_ARRAYAGG/,
    );
    expect(() =>
      tEnv.sqlQuery('SELECT ARRAY_AGG(v IGNORE NULLS) FILTER (WHERE v > 0) FROM s'),
    ).toThrow(/FILTER does not apply to ARRAY_AGG with IGNORE NULLS/);
    expect(() =>
      tEnv.sqlQuery('SELECT JSON_ARRAYAGG(v) OVER (PARTITION BY k ORDER BY PROCTIME()) FROM s'),
    ).toThrow(/JSON_ARRAYAGG is not supported in OVER windows/);
    expect(() => tEnv.sqlQuery('SELECT JSON_ARRAYAGG(v ORDER BY k) FROM s')).toThrow(
      /JSON_ARRAYAGG\(\.\.\. ORDER BY \.\.\.\) is not supported/,
    );
  });
});

describe('ARRAY_AGG with IGNORE NULLS and ROW equality', () => {
  it('ARRAY_AGG IGNORE NULLS keeps the non-NULL values in arrival order, NULL for none', async () => {
    const rows: Item[] = [
      { id: 1, k: 'a', v: null, ts: BASE },
      { id: 2, k: 'a', v: 3, ts: BASE + 1 },
      { id: 3, k: 'b', v: null, ts: BASE + 2 },
      { id: 4, k: 'a', v: null, ts: BASE + 3 },
      { id: 5, k: 'a', v: 1, ts: BASE + 4 },
    ];
    const [out] = await run(
      rows,
      ['SELECT k, ARRAY_AGG(v IGNORE NULLS), ARRAY_AGG(v RESPECT NULLS) FROM r GROUP BY k'],
      1,
    );
    expect(out).toEqual(
      [
        ['a', [3, 1], [null, 3, null, 1]],
        ['b', null, [null]],
      ].map((r) => JSON.stringify(r)),
    );
  });

  it('compares rows field by field with =, and as values (NULLs equal) with <>', async () => {
    const rows: Item[] = [
      { id: 1, k: 'a', v: null, ts: BASE },
      { id: 2, k: 'b', v: 2, ts: BASE + 1 },
    ];
    const [out] = await run(
      rows,
      [
        "SELECT id, (k, v) = (k, v), (k, v) <> (k, v), ROW(k, v) = ROW('a', 2), ROW(k, v) <> ROW('a', 2), (v, 1) = (v, 2) FROM r",
      ],
      1,
    );
    expect(out).toEqual(
      [
        [1, null, false, null, true, false],
        [2, true, false, false, true, false],
      ].map((r) => JSON.stringify(r)),
    );
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(
      "CREATE TABLE s (k STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')",
    );
    expect(() => tEnv.sqlQuery('SELECT (k, v) = (k, v, 1) FROM s')).toThrow(
      /cannot compare a ROW of 2 fields with a ROW of 3 fields \(=\)/,
    );
  });
});
