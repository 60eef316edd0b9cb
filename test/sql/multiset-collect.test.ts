/**
 * The MULTISET type and the COLLECT aggregate, as Flink has them.
 *
 * Ported from Flink:
 * - flink-table-planner AggregateITCase.scala: testUnboundedGroupByCollect (under the
 *   mini-batch, local-global and split-distinct modes, with a COLLECT(DISTINCT ...) column
 *   added), testUnboundedGroupByCollectWithObject (its Scala `List(12, "45.6")` elements as
 *   ROWs, shown as Flink casts a ROW to text: `(12, 45.6)`).
 * - flink-table-planner OverAggregateITCase.scala: testProcTimeDistinctBoundedPartitionedRowsOver,
 *   its COLLECT(DISTINCT e) column (flink-over-scenarios.test.ts has the others).
 * - flink-table-runtime CollectAggFunction.java: a count per element, NULLs left out, a
 *   retraction takes one out, merged by adding counts (two-phase).
 * - flink-table-common MultisetType.java: `MULTISET<t>` and its synonym `t MULTISET`.
 * - flink-table-planner MapAndMultisetToStringCastRule.java: `{a=2, b=1}`, a NULL as `NULL`.
 * - flink-table-planner ScalarOperatorGens.scala generateEquals: MULTISETs compare as maps of
 *   element to count (`=`, `<>`); ExprCodeGenerator's CARDINALITY takes an ARRAY or a MAP only,
 *   and a MULTISET is not comparable (no `<`, no ORDER BY).
 * - flink-formats/flink-json JsonRowDataSerDeSchemaTest testSerDe: a MULTISET<STRING> field as
 *   a JSON object of element to count (`{"element":2}`).
 *
 * Flink prints a MULTISET from a HashMap, in no set order (its tests compare them sorted, as
 * `assertMapStrEquals` does): here each `{...}` is sorted before comparing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { SQL_VALUE_SERIALIZER } from '../../src/sql/planner/row-serializer.js';
import {
  runScenario,
  scenarioRows,
  sorted,
  TUPLE_DATA_3,
  TUPLE_DATA_5,
  valuesView,
} from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';
import { normalized, windowRows } from './flink-window-data.js';
import { changesJob, throughSavepoint } from './savepoint-helpers.js';

beforeAll(registerValuesConnector);

const ABC = [
  ['a', 'INT'],
  ['b', 'BIGINT'],
  ['c', 'STRING'],
] as const;

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';`;
const LOCAL_GLOBAL = `${MINI_BATCH}\nSET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';`;
const MODES = [
  ['mini-batch off', ''],
  ['mini-batch on', MINI_BATCH],
  ['local-global', LOCAL_GLOBAL],
  ['split-distinct', `${LOCAL_GLOBAL}\nSET 'table.optimizer.distinct-agg.split.enabled' = 'true';`],
] as const;

/** Each MULTISET's `{e=n, ...}` with its entries sorted (an element's text may hold `, `). */
function sortEntries(text: string): string {
  return text.replace(/\{([^{}]*)\}/g, (_, body: string) =>
    body === ''
      ? '{}'
      : `{${body
          .split(/(?<==-?\d+), /)
          .sort()
          .join(', ')}}`,
  );
}

async function rows(setup: string, query: string, parallelism = 2): Promise<string[]> {
  return sorted((await scenarioRows(setup, query, { parallelism })).map(sortEntries));
}

/** A table over the values connector: insert-only, or a changelog in `mode`. */
function valuesTable(
  name: string,
  columns: string,
  data: readonly (readonly unknown[])[],
  mode = 'I',
): string {
  return `CREATE TABLE ${name} (${columns})
    WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(data)}', 'changelog-mode' = '${mode}');`;
}

describe('COLLECT in an unwindowed GROUP BY (AggregateITCase)', () => {
  for (const [mode, settings] of MODES) {
    it(`testUnboundedGroupByCollect, ${mode}`, async () => {
      const t = `${valuesView('MyTable', ABC, TUPLE_DATA_3)}\n${settings}`;
      expect(
        await rows(t, 'SELECT b, COLLECT(a), COLLECT(DISTINCT MOD(a, 3)) FROM MyTable GROUP BY b'),
      ).toEqual(
        sorted([
          '1,{1=1},{1=1}',
          '2,{2=1, 3=1},{0=1, 2=1}',
          '3,{4=1, 5=1, 6=1},{0=1, 1=1, 2=1}',
          '4,{10=1, 7=1, 8=1, 9=1},{0=1, 1=1, 2=1}',
          '5,{11=1, 12=1, 13=1, 14=1, 15=1},{0=1, 1=1, 2=1}',
          '6,{16=1, 17=1, 18=1, 19=1, 20=1, 21=1},{0=1, 1=1, 2=1}',
        ]),
      );
    });
  }

  it('testUnboundedGroupByCollectWithObject: ROW elements', async () => {
    const t = valuesTable('MyTable', 'a INT, b INT, c ROW<x INT, y STRING>', [
      [1, 1, [12, '45.6']],
      [2, 2, [12, '45.612']],
      [3, 2, [13, '41.6']],
      [4, 3, [14, '45.2136']],
      [5, 3, [18, '42.6']],
    ]);
    expect(await rows(t, 'SELECT b, COLLECT(c) FROM MyTable GROUP BY b')).toEqual([
      '1,{(12, 45.6)=1}',
      '2,{(12, 45.612)=1, (13, 41.6)=1}',
      '3,{(14, 45.2136)=1, (18, 42.6)=1}',
    ]);
  });

  it('counts repeated elements, skips NULLs, and COLLECT(DISTINCT) with FILTER', async () => {
    const t = valuesTable('T', 'k STRING, v INT', [
      ['x', 1],
      ['x', 1],
      ['x', null],
      ['x', 2],
      ['y', null],
      ['y', 3],
      ['y', 3],
    ]);
    expect(
      await rows(
        t,
        `SELECT k, COLLECT(v), COLLECT(DISTINCT v), COLLECT(v) FILTER (WHERE v > 1),
          CAST(COLLECT(v) AS STRING) FROM T GROUP BY k`,
      ),
    ).toEqual(['x,{1=2, 2=1},{1=1, 2=1},{2=1},{1=2, 2=1}', 'y,{3=2},{3=1},{3=2},{3=2}']);
    // Every row of a group filtered out, or only NULLs: the empty MULTISET, never NULL.
    expect(
      await rows(t, 'SELECT k, COLLECT(v) FILTER (WHERE v > 5) FROM T WHERE v IS NULL GROUP BY k'),
    ).toEqual(['x,{}', 'y,{}']);
  });

  it('of MULTISET values: equal ones are one element, whatever their order', async () => {
    const t = valuesTable('T', 'k INT, c STRING', [
      [1, 'a'],
      [1, 'b'],
      [2, 'b'],
      [2, 'a'],
      [3, 'a'],
    ]);
    const m = '(SELECT k, COLLECT(c) AS m FROM T GROUP BY k)';
    expect(
      await rows(t, `SELECT COUNT(DISTINCT m), COUNT(m), CAST(COLLECT(m) AS STRING) FROM ${m}`, 1),
    ).toEqual(['2,3,{{a=1, b=1}=2, {a=1}=1}']);
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(t);
    expect(() => tEnv.sqlQuery(`SELECT MAX(m) FROM ${m}`)).toThrow(
      'MAX of MULTISET<STRING> NOT NULL is not supported',
    );
  });

  it('retracts over a changelog, as CollectAggFunction.retract', async () => {
    const t = valuesTable(
      'src',
      'id INT, c STRING',
      [
        ['+I', 1, 'a'],
        ['+I', 1, 'b'],
        ['+I', 1, 'a'],
        ['-D', 1, 'a'],
        ['+I', 2, 'a'],
        ['+I', 2, 'b'],
        ['-U', 2, 'b'],
        ['+U', 2, 'c'],
        ['+I', 3, 'z'],
        ['-D', 3, 'z'],
      ],
      'I,UA,UB,D',
    );
    const [result] = await runScenario(t, ['SELECT id, COLLECT(c) FROM src GROUP BY id'], {
      parallelism: 1,
    });
    expect(result?.rows.map(sortEntries)).toEqual(['1,{a=1, b=1}', '2,{a=1, c=1}']);
    // The group whose last row left is deleted, not left as an empty MULTISET.
    expect(result?.changes.at(-1)).toBe('-D(3,{z=1})');
  });

  it('over an updating aggregation: each count moves between elements', async () => {
    const t = valuesView('MyTable', ABC, TUPLE_DATA_3);
    expect(
      await rows(
        t,
        `SELECT cnt, COLLECT(b), COLLECT(c) FROM (
          SELECT b, COUNT(*) AS cnt, MOD(b, 2) AS c FROM MyTable GROUP BY b) GROUP BY cnt`,
      ),
    ).toEqual(
      sorted([
        '1,{1=1},{1=1}',
        '2,{2=1},{0=1}',
        '3,{3=1},{1=1}',
        '4,{4=1},{0=1}',
        '5,{5=1},{1=1}',
        '6,{6=1},{0=1}',
      ]),
    );
    expect(
      await rows(
        t,
        `SELECT par, COLLECT(cnt) FROM (
          SELECT b, MOD(b, 2) AS par, COUNT(*) AS cnt FROM MyTable GROUP BY b) GROUP BY par`,
      ),
    ).toEqual(['0,{2=1, 4=1, 6=1}', '1,{1=1, 3=1, 5=1}']);
  });
});

describe('COLLECT in windows', () => {
  it('window TVF: TUMBLE and HOP, with DISTINCT and FILTER', async () => {
    const tumble = await windowRows(
      `SELECT name, window_start, COLLECT(\`string\`), COLLECT(DISTINCT \`int\`) FILTER (WHERE \`int\` > 1)
      FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
      GROUP BY name, window_start, window_end`,
    );
    expect(tumble.map(sortEntries)).toEqual(
      normalized([
        // The second row at 00:04 comes after the watermark passed 00:05: late, left out.
        'a,2020-10-10 00:00:00.000,{Comment#1=2, Hi=1},{2=1, 5=1}',
        'a,2020-10-10 00:00:05.000,{Comment#2=1},{3=1}',
        'b,2020-10-10 00:00:05.000,{Hello=1, Hi=1},{3=1, 6=1}',
        'b,2020-10-10 00:00:15.000,{Hi=1},{4=1}',
        'b,2020-10-10 00:00:30.000,{Comment#3=1},{}',
        'null,2020-10-10 00:00:30.000,{},{7=1}',
      ]),
    );
    const hop = await windowRows(
      `SELECT window_start, COLLECT(name)
      FROM TABLE(HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
      GROUP BY window_start, window_end`,
    );
    expect(hop.map(sortEntries)).toEqual(
      normalized([
        '2020-10-09 23:59:55.000,{a=4}',
        '2020-10-10 00:00:00.000,{a=6, b=2}',
        '2020-10-10 00:00:05.000,{a=1, b=2}',
        '2020-10-10 00:00:10.000,{b=1}',
        '2020-10-10 00:00:15.000,{b=1}',
        '2020-10-10 00:00:25.000,{b=1}',
        '2020-10-10 00:00:30.000,{b=1}',
      ]),
    );
  });

  it('legacy group window: GROUP BY TUMBLE(...)', async () => {
    const legacy = await windowRows(
      `SELECT name, TUMBLE_START(rowtime, INTERVAL '10' SECOND), COLLECT(\`int\`)
      FROM T1 GROUP BY name, TUMBLE(rowtime, INTERVAL '10' SECOND)`,
    );
    expect(legacy.map(sortEntries)).toEqual(
      normalized([
        'a,2020-10-10 00:00:00.000,{1=1, 2=2, 3=1, 5=2}',
        'b,2020-10-10 00:00:00.000,{3=1, 6=1}',
        'b,2020-10-10 00:00:10.000,{4=1}',
        'b,2020-10-10 00:00:30.000,{1=1}',
        'null,2020-10-10 00:00:30.000,{7=1}',
      ]),
    );
  });

  it('OVER (OverAggregateITCase testProcTimeDistinctBoundedPartitionedRowsOver)', async () => {
    const frame = 'PARTITION BY a ORDER BY proctime ROWS BETWEEN 3 PRECEDING AND CURRENT ROW';
    const t = `CREATE TABLE MyTable (a INT, b BIGINT, c INT, d STRING, e BIGINT, proctime AS PROCTIME())
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(TUPLE_DATA_5)}');`;
    const [result] = await runScenario(
      t,
      [
        `SELECT a, SUM(DISTINCT e) OVER (${frame}), MIN(DISTINCT e) OVER (${frame}),
          COLLECT(DISTINCT e) OVER (${frame}) FROM MyTable`,
      ],
      { parallelism: 1, batchSize: 1 },
    );
    expect(result?.rows.map(sortEntries)).toEqual(
      sorted([
        '1,1,1,{1=1}',
        '2,2,2,{2=1}',
        '2,3,1,{1=1, 2=1}',
        '3,2,2,{2=1}',
        '3,2,2,{2=1}',
        '3,5,2,{2=1, 3=1}',
        '4,2,2,{2=1}',
        '4,3,1,{1=1, 2=1}',
        '4,3,1,{1=1, 2=1}',
        '4,3,1,{1=1, 2=1}',
        '5,1,1,{1=1}',
        '5,4,1,{1=1, 3=1}',
        '5,4,1,{1=1, 3=1}',
        '5,6,1,{1=1, 2=1, 3=1}',
        '5,5,2,{2=1, 3=1}',
      ]),
    );
  });
});

describe('the MULTISET type', () => {
  const t = valuesView('MyTable', ABC, TUPLE_DATA_3);

  it('in DDL and CAST: MULTISET<t> and t MULTISET, NULL, its text', async () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`CREATE TABLE m (x MULTISET<INT>, y STRING MULTISET NOT NULL,
      z MULTISET<ROW<a INT, b STRING> NOT NULL>)
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues([])}');`);
    expect(tEnv.sqlQuery('SELECT * FROM m').columns.map((c) => c.type)).toEqual([
      'MULTISET<INT>',
      'MULTISET<STRING> NOT NULL',
      'MULTISET<ROW<`a` INT, `b` STRING> NOT NULL>',
    ]);
    expect(
      await rows(
        t,
        `SELECT CAST(NULL AS INT MULTISET), CAST(COLLECT(b) AS MULTISET<DOUBLE>),
          CAST(COLLECT(b) AS VARCHAR(8)), COLLECT(CAST(NULL AS INT)) FROM MyTable`,
      ),
    ).toEqual(['null,{1.0=1, 2.0=2, 3.0=3, 4.0=4, 5.0=5, 6.0=6},{1=1, 2=,{}']);
  });

  it('= and <> compare elements and counts, whatever their order; NULL gives NULL', async () => {
    expect(
      await rows(
        t,
        `SELECT b, COLLECT(MOD(a, 2)) = COLLECT(MOD(a + 2, 2)), COLLECT(a) <> COLLECT(a + 1),
          COLLECT(b) = COLLECT(CAST(b AS INT)), COLLECT(a) = CAST(NULL AS INT MULTISET)
        FROM MyTable WHERE b <= 3 GROUP BY b`,
      ),
    ).toEqual(['1,true,true,true,null', '2,true,true,true,null', '3,true,true,true,null']);
    // The same elements reached in another order.
    expect(
      await rows(
        t,
        `SELECT x = y, x <> y FROM (
          SELECT COLLECT(a) FILTER (WHERE a <= 3) AS x, COLLECT(4 - a) FILTER (WHERE a <= 3) AS y
          FROM MyTable)`,
      ),
    ).toEqual(['true,false']);
  });

  it('refuses what Flink refuses, with the position', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(t);
    const refused = (sql: string, message: string) =>
      expect(() => tEnv.sqlQuery(sql)).toThrow(message);
    const m = '(SELECT b, COLLECT(a) AS m FROM MyTable GROUP BY b)';
    refused(`SELECT CARDINALITY(m) FROM ${m}`, 'column 8: CARDINALITY needs an ARRAY or a MAP');
    refused(`SELECT m < m FROM ${m}`, 'cannot compare MULTISET<INT NOT NULL> NOT NULL');
    refused(
      `SELECT COUNT(*) FROM ${m} GROUP BY m`,
      'column 83: a MULTISET (MULTISET<INT NOT NULL> NOT NULL) cannot be used in GROUP BY',
    );
    tEnv.executeSql(`CREATE TABLE ms (id INT, x MULTISET<INT>, proctime AS PROCTIME())
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues([])}');`);
    refused(
      'SELECT id FROM ms ORDER BY x LIMIT 2',
      'column 28: a MULTISET (MULTISET<INT>) cannot be used in ORDER BY',
    );
    refused(
      `SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY x ORDER BY proctime) AS r
        FROM ms) WHERE r = 1`,
      'column 60: a MULTISET (MULTISET<INT>) cannot be used in PARTITION BY',
    );
    refused(
      'SELECT id, COUNT(*) OVER (PARTITION BY x ORDER BY proctime) FROM ms',
      'column 40: a MULTISET (MULTISET<INT>) cannot be used in PARTITION BY',
    );
    refused(`SELECT DISTINCT m FROM ${m}`, 'column 17: a MULTISET');
    refused('SELECT CAST(COLLECT(a) AS MAP<INT, INT>) FROM MyTable', 'cannot cast MULTISET');
    refused(`SELECT m = ARRAY[1] FROM ${m}`, 'cannot compare MULTISET<INT NOT NULL> NOT NULL');
  });

  it('JSON_STRING and JSON_OBJECT write it as an object of element to count', async () => {
    expect(
      await rows(
        t,
        `SELECT JSON_STRING(COLLECT(b)), JSON_OBJECT('m' VALUE COLLECT(c))
        FROM MyTable WHERE b <= 2`,
        1,
      ),
    ).toEqual(['{"1":1,"2":2},{"m":{"Hi":1,"Hello":1,"Hello world":1}}']);
  });

  it('checkpoints as a MAP value does', () => {
    const value = new Map<unknown, number>([
      ['a', 2],
      [[1, 'x'], 1],
    ]);
    const json = JSON.parse(JSON.stringify(SQL_VALUE_SERIALIZER.toJson(value)));
    expect(SQL_VALUE_SERIALIZER.fromJson(json, SQL_VALUE_SERIALIZER.version)).toEqual(value);
  });
});

describe('the json format (JsonRowDataSerDeSchemaTest testSerDe multiSet)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weir-multiset-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function linesUnder(path: string): string[] {
    return readdirSync(path, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && !e.name.startsWith('.') && !e.name.startsWith('_'))
      .flatMap((e) => readFileSync(join(e.parentPath, e.name), 'utf8').split('\n'))
      .filter((l) => l !== '')
      .sort();
  }

  it('reads and writes a MULTISET as an object of element to count; INSERT INTO from COLLECT', async () => {
    const input = join(dir, 'in.json');
    writeFileSync(
      input,
      [
        '{"id":1,"ts":"2020-01-01 00:00:01","multiSet":{"element":2,"other":1}}',
        '{"id":2,"ts":"2020-01-01 00:00:02","multiSet":{}}',
        '{"id":3,"ts":"2020-01-01 00:00:03","multiSet":null}',
        '',
      ].join('\n'),
    );
    const output = join(dir, 'out');
    const collected = join(dir, 'collected');
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    const result = tEnv.executeSql(`
      CREATE TABLE src (id INT, ts TIMESTAMP(3), multiSet MULTISET<STRING>,
        WATERMARK FOR ts AS ts)
        WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
      CREATE TABLE snk (id INT, multiSet MULTISET<STRING>)
        WITH ('connector' = 'filesystem', 'path' = '${output}', 'format' = 'json');
      CREATE TABLE bag (k INT, ids MULTISET<INT>)
        WITH ('connector' = 'filesystem', 'path' = '${collected}', 'format' = 'json');
      EXECUTE STATEMENT SET BEGIN
        INSERT INTO snk SELECT id, multiSet FROM src;
        INSERT INTO bag SELECT 1, COLLECT(MOD(id, 2))
          FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
          GROUP BY window_start, window_end;
      END;`);
    await result.job?.result;
    expect(linesUnder(output)).toEqual([
      '{"id":1,"multiSet":{"element":2,"other":1}}',
      '{"id":2,"multiSet":{}}',
      '{"id":3,"multiSet":null}',
    ]);
    expect(linesUnder(collected).map((l) => JSON.parse(l))).toEqual([
      { k: 1, ids: { '0': 1, '1': 2 } },
    ]);
  }, 30_000);
});

describe('COLLECT against a count per element (fast-check)', () => {
  const rowsArb = fc.array(
    fc.tuple(
      fc.constantFrom('a', 'b', 'c'),
      fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
    ),
    { minLength: 1, maxLength: 40 },
  );

  /** The batch answer: each group's count per non-NULL element, over the rows left. */
  function expected(live: readonly (readonly [string, number | null])[]): string[] {
    const groups = new Map<string, Map<number, number>>();
    for (const [k, v] of live) {
      const counts = groups.get(k) ?? new Map<number, number>();
      groups.set(k, counts);
      if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    return sorted(
      [...groups].map(
        ([k, counts]) =>
          `${k},${sortEntries(`{${[...counts].map(([v, n]) => `${v}=${n}`).join(', ')}}`)}`,
      ),
    );
  }

  it('over shuffled inserts', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArb.chain((rs) => fc.shuffledSubarray(rs, { minLength: rs.length })),
        async (shuffled) => {
          const t = valuesTable('T', 'k STRING, v INT', shuffled);
          expect(await rows(t, 'SELECT k, COLLECT(v) FROM T GROUP BY k')).toEqual(
            expected(shuffled),
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('over a changelog that deletes some rows again', async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArb,
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        async (inserted, deletes) => {
          const changes: (readonly unknown[])[] = [];
          const live: (readonly [string, number | null])[] = [];
          inserted.forEach((r, i) => {
            changes.push(['+I', ...r]);
            if (deletes[i] === true) changes.push(['-D', ...r]);
            else live.push(r);
          });
          const t = valuesTable('T', 'k STRING, v INT', changes, 'I,D');
          expect(await rows(t, 'SELECT k, COLLECT(v) FROM T GROUP BY k')).toEqual(expected(live));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('COLLECT through a savepoint', () => {
  const events = 300;
  const eventAt = (i: number): [number, number] => [i % 4, (i * 7) % 5];
  const queries = [
    `SELECT k, CAST(COLLECT(v) AS STRING), CAST(COLLECT(DISTINCT v) FILTER (WHERE v > 1) AS STRING)
     FROM t GROUP BY k`,
    // Each key's count changes as rows arrive: the outer COLLECT takes the old counts out.
    'SELECT CAST(COLLECT(c) AS STRING) FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)',
  ];

  it('restored part-way, ends as an uninterrupted run and a count per element', async () => {
    const restored = await throughSavepoint(
      'weir-multiset-collect-',
      queries.length,
      (out, checkpoints, rate) =>
        changesJob({ out, checkpoints, rate, parallelism: 1, events, eventAt, queries }),
      60,
    );
    const text = (counts: Map<number, number>) =>
      sortEntries(`{${[...counts].map(([v, n]) => `${v}=${n}`).join(', ')}}`);
    const byKey = new Map<number, Map<number, number>>();
    for (let i = 0; i < events; i++) {
      const [k, v] = eventAt(i);
      const counts = byKey.get(k) ?? new Map<number, number>();
      byKey.set(k, counts);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    const first = [...byKey].map(([k, counts]) =>
      JSON.stringify([
        k,
        text(counts),
        text(new Map([...counts.keys()].filter((v) => v > 1).map((v) => [v, 1]))),
      ]),
    );
    const sizes = new Map<number, number>();
    for (const counts of byKey.values()) {
      const n = [...counts.values()].reduce((a, b) => a + b, 0);
      sizes.set(n, (sizes.get(n) ?? 0) + 1);
    }
    expect(
      restored.map((rs) =>
        rs
          .map((r) =>
            JSON.stringify(
              (JSON.parse(r) as unknown[]).map((c) => (typeof c === 'string' ? sortEntries(c) : c)),
            ),
          )
          .sort(),
      ),
    ).toEqual([first.sort(), [JSON.stringify([text(sizes)])]]);
  }, 120_000);
});
