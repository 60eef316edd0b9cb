/**
 * Unwindowed GROUP BY scenarios of Flink's AggregateITCase (streaming): DISTINCT aggregates,
 * FILTER, MIN/MAX and LISTAGG over retractions, SUM/AVG of DECIMAL with their result scales,
 * GROUP BY of a GROUP BY, HAVING. Flink's
 * expected final rows, with and without mini-batch.
 */
import { describe, expect, it } from 'vitest';
import {
  runScenario,
  scenarioRows,
  sorted,
  TUPLE_DATA_3,
  TUPLE_DATA_5,
  valuesView,
} from './flink-scenario-runner.js';

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';`;
const MODES = [
  ['off', ''],
  ['on', MINI_BATCH],
] as const;

const ABC = [
  ['a', 'INT'],
  ['b', 'BIGINT'],
  ['c', 'STRING'],
] as const;

/** Flink's (a, b, c) rows of testGroupByAgg and others. */
const SMALL_ROWS: readonly (readonly [number, number, string])[] = [
  [1, 1, 'A'],
  [2, 2, 'B'],
  [3, 2, 'B'],
  [4, 3, 'C'],
  [5, 3, 'C'],
  [6, 3, 'C'],
  [7, 4, 'B'],
  [8, 4, 'A'],
  [9, 4, 'D'],
  [10, 4, 'E'],
  [11, 5, 'A'],
  [12, 5, 'B'],
];
const SMALL = valuesView('T', ABC, SMALL_ROWS);
const TUPLES = valuesView('MyTable', ABC, TUPLE_DATA_3);

/** Flink's `TestData.tupleData5`: (d INT, e BIGINT, f INT, g STRING, h BIGINT). */
const TABLE5_COLUMNS = [
  ['d', 'INT'],
  ['e', 'BIGINT'],
  ['f', 'INT'],
  ['g', 'STRING'],
  ['h', 'BIGINT'],
] as const;

// Flink's GroupingSetsITCase is ported in grouping-sets.test.ts.

describe.each(MODES)("Flink's AggregateITCase (mini-batch %s)", (_, set) => {
  it('empty input, MAX/MIN over retractions with a condition, no GROUP BY', async () => {
    const ab = (rows: readonly (readonly [number, number])[], names = ['a', 'b']) =>
      valuesView(
        'T',
        names.map((n) => [n, 'INT'] as const),
        rows,
      );
    expect(
      await scenarioRows(
        `${ab([
          [1, 1],
          [2, 2],
          [3, 3],
        ])}\n${set}`,
        'select sum(a), avg(a), min(a), count(a), count(1) from T where a > 9999 group by b',
      ),
    ).toEqual([]);
    expect(
      await scenarioRows(
        `${ab([
          [1, 1],
          [2, 2],
          [3, 3],
        ])}\n${set}`,
        'select sum(a), avg(a), min(a), count(a), count(1) from T',
      ),
    ).toEqual(['6,2,1,3,3']);
    const max = ab(
      [
        [1, 10],
        [1, 10],
        [2, 5],
        [1, 10],
      ],
      ['id', 'price'],
    );
    expect(
      await scenarioRows(
        `${max}\n${set}`,
        'SELECT MAX(price) FROM (SELECT id, count(*) as c, price FROM T GROUP BY id, price) WHERE c > 0 and c < 3',
        { parallelism: 1 },
      ),
    ).toEqual(['5']);
    const min = ab(
      [
        [1, 5],
        [2, 6],
        [1, 5],
      ],
      ['id', 'price'],
    );
    expect(
      await scenarioRows(
        `${min}\n${set}`,
        'SELECT MIN(price) FROM (SELECT id, count(*) as c, price FROM T GROUP BY id, price) WHERE c < 2',
        { parallelism: 1 },
      ),
    ).toEqual(['6']);
  });

  it('DISTINCT aggregates of expressions, and over an updating GROUP BY', async () => {
    const [distinct, unbounded] = await runScenario(`${TUPLES}\n${set}`, [
      'SELECT b, SUM(DISTINCT (a * 3)), COUNT(DISTINCT SUBSTRING(c FROM 1 FOR 2)), COUNT(DISTINCT c) FROM MyTable GROUP BY b',
      'SELECT b, COUNT(a) FROM MyTable GROUP BY b',
    ]);
    expect(distinct?.rows).toEqual(
      sorted(['1,3,1,1', '2,15,1,2', '3,45,3,3', '4,102,1,4', '5,195,1,5', '6,333,1,6']),
    );
    expect(unbounded?.rows).toEqual(sorted(['1,1', '2,2', '3,3', '4,4', '5,5', '6,6']));

    const retracting = valuesView('T', ABC, [
      [1, 1, 'A'],
      [1, 1, 'A'],
      [1, 1, 'A'],
      [2, 2, 'B'],
      [3, 2, 'B'],
      [4, 3, 'C'],
      [5, 3, 'C'],
      [6, 3, 'C'],
      [7, 4, 'B'],
      [8, 4, 'A'],
      [9, 4, 'D'],
      [10, 4, 'E'],
      [11, 5, 'A'],
      [12, 5, 'B'],
    ]);
    expect(
      await scenarioRows(
        `${retracting}\n${set}`,
        `SELECT count(distinct cnt), sum(distinct cnt), max(distinct cnt), min(distinct cnt),
           avg(distinct cnt), count(distinct max_a)
         FROM (SELECT b, count(a) as cnt, max(a) as max_a FROM T GROUP BY b)`,
        { parallelism: 1 },
      ),
    ).toEqual(['3,9,4,2,3,5']);
  });

  it('COUNT DISTINCT of every type with NULLs', async () => {
    const ids = [1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5];
    const ints = [1, 2, null, 4, 5, 6, 7, null, null, 10, 11, 11, 13, 14, 15];
    const chars = ['A', 'B', null, 'D', 'E', 'F', 'H', null, null, 'K', 'L', 'L', 'N', 'O', 'P'];
    const pad = (n: number) => String(n).padStart(2, '0');
    const rows = ids.map((id, i) => {
      const v = ints[i] ?? null;
      return v === null
        ? `(${id}, CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS DATE), CAST(NULL AS TIME), CAST(NULL AS DECIMAL(10, 0)), CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS STRING))`
        : `(${id}, TIMESTAMP '1970-01-01 00:00:${pad(v)}', DATE '1970-01-${pad(v)}', TIME '00:00:${pad(v)}', CAST(${v} AS DECIMAL(10, 0)), ${v}, CAST(${v} AS BIGINT), '${chars[i]}')`;
    });
    // Flink shuffles the rows: the order must not matter.
    const shuffled = [...rows.slice(7), ...rows.slice(0, 7).reverse()];
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES ${shuffled.join(', ')}) AS T(id, a, b, c, d, e, f, g);\n${set}`;
    expect(
      await scenarioRows(
        setup,
        'SELECT id, count(distinct a), count(distinct b), count(distinct c), count(distinct d), count(distinct e), count(distinct f), count(distinct g) FROM T GROUP BY id',
      ),
    ).toEqual(
      sorted([
        '1,1,1,1,1,1,1,1',
        '2,1,1,1,1,1,1,1',
        '3,3,3,3,3,3,3,3',
        '4,2,2,2,2,2,2,2',
        '5,4,4,4,4,4,4,4',
      ]),
    );
  });

  it('more than 64 DISTINCT aggregates with FILTER', async () => {
    // Flink's 100 filters over 5050 rows, cut to 66 filters over fewer rows: b = i holds
    // (66 - i) % 7 distinct values of a, each twice.
    const count = (i: number) => (66 - i) % 7;
    const rows: [number, number][] = [];
    for (let i = 0; i < 66; i++) for (let j = 0; j < count(i); j++) rows.push([j, i], [j, i]);
    const setup = `${valuesView(
      'T',
      [
        ['a', 'INT'],
        ['b', 'INT'],
      ],
      rows,
    )}\n${set}`;
    const distincts = Array.from(
      { length: 66 },
      (_, i) => `count(distinct a) filter (where b = ${i})`,
    );
    expect(await scenarioRows(setup, `SELECT ${distincts.join(', ')} FROM T`)).toEqual([
      Array.from({ length: 66 }, (_, i) => count(i)).join(','),
    ]);
  });

  it('GROUP BY, COUNT of a nullable IF, and a GROUP BY of a GROUP BY', async () => {
    const [groups, nullableIf, nested] = await runScenario(`${SMALL}\n${set}`, [
      'SELECT b, count(c), sum(a) FROM T GROUP BY b',
      `select b, count(1), count(if(c in ('A', 'B'), cast(null as integer), 1)) as cnt,
         count(if(c not in ('A', 'B'), 1, cast(null as integer))) as cnt1 from T group by b`,
      'SELECT sum(b), count(a), max(a), min(a), c FROM (SELECT b, count(c) as c, sum(a) as a FROM T GROUP BY b) GROUP BY c',
    ]);
    expect(groups?.rows).toEqual(sorted(['1,1,1', '2,2,5', '3,3,15', '4,4,34', '5,2,23']));
    expect(nullableIf?.rows).toEqual(
      sorted(['1,1,0,0', '2,2,0,0', '3,3,3,3', '4,4,2,2', '5,2,0,0']),
    );
    expect(nested?.rows).toEqual(sorted(['1,1,1,1,1', '3,1,15,15,3', '4,1,34,34,4', '7,2,23,5,2']));
  });

  it('SUM and AVG of DECIMAL keep their result scale', async () => {
    const [sums, avgs] = await runScenario(set, [
      'select sum(cast(1.03520274 as DECIMAL(32, 8))), sum(cast(12345.035202748654 AS DECIMAL(30, 20))), sum(cast(12.345678901234567 AS DECIMAL(25, 22)))',
      'select avg(cast(1.03520274 as DECIMAL(32, 8))), avg(cast(12345.035202748654 AS DECIMAL(30, 20))), avg(cast(12.345678901234567 AS DECIMAL(25, 22)))',
    ]);
    expect(sums?.rows).toEqual(['1.03520274,12345.03520274865400000000,12.3456789012345670000000']);
    expect(avgs?.rows).toEqual(['1.03520274,12345.03520274865400000000,12.3456789012345670000000']);
    const doubles = (values: number[]) =>
      `${valuesView(
        'T',
        [['a', 'DOUBLE']],
        values.map((v) => [v]),
      )}\n${set}`;
    expect(
      await scenarioRows(
        doubles([1.11111111, 1.11111111]),
        'select sum(cast(a as decimal(32, 8))) from T',
      ),
    ).toEqual(['2.22222222']);
    expect(
      await scenarioRows(
        doubles([2.22222222, 3.33333333]),
        'select avg(cast(a as decimal(32, 8))) from T',
      ),
    ).toEqual(['2.77777778']);
  });

  it('DECIMAL SUM, MIN and MAX over retractions; MIN/MAX of strings and CHAR', async () => {
    const decimals = (values: number[]) =>
      `${valuesView(
        'T',
        [['d', 'DECIMAL(7, 2)']],
        values.map((v) => [v]),
      )}\n${set}`;
    expect(
      await scenarioRows(
        decimals([1, 2, 2, 3]),
        'select c, sum(d) from (select d, count(d) c from T group by d) group by c',
      ),
    ).toEqual(sorted(['1,4.00', '2,2.00']));
    expect(
      await scenarioRows(
        decimals([1, 2, 2, 4, 3]).replace("'d'", "'a'").replaceAll(' AS d', ' AS a'),
        'select cnt, min(a), max(a) from (select a, count(a) as cnt from T group by a) group by cnt',
      ),
    ).toEqual(sorted(['1,1.00,4.00', '2,2.00,2.00']));
    const strings = `${valuesView('T', ABC, [
      [1, 1, 'A'],
      [2, 2, 'B'],
      [3, 2, 'BC'],
      [4, 3, 'C'],
      [5, 3, 'CD'],
      [6, 3, 'DE'],
      [7, 4, 'EF'],
      [8, 4, 'FG'],
      [9, 4, 'HI'],
      [10, 4, 'IJ'],
    ])}\n${set}`;
    expect(
      await scenarioRows(
        strings,
        'SELECT b, min(c), max(c) FROM (SELECT a, b, listagg(c) as c FROM T GROUP BY a, b) GROUP BY b',
      ),
    ).toEqual(sorted(['1,A,A', '2,B,BC', '3,C,DE', '4,EF,IJ']));
    const hundred = `${valuesView(
      'T',
      ABC,
      Array.from({ length: 100 }, (_, i) => [i % 10, i, String(i)]),
    )}\n${set}`;
    expect(
      await scenarioRows(hundred, 'SELECT a, min(b), max(c), min(c) FROM T GROUP BY a'),
    ).toEqual(
      sorted([
        '0,0,90,0',
        '1,1,91,1',
        '2,2,92,12',
        '3,3,93,13',
        '4,4,94,14',
        '5,5,95,15',
        '6,6,96,16',
        '7,7,97,17',
        '8,8,98,18',
        '9,9,99,19',
      ]),
    );
    const chars = `${valuesView(
      'src',
      [
        ['id', 'INT'],
        ['ch', 'CHAR(1)'],
      ],
      [
        [1, 'a'],
        [1, 'b'],
        [2, 'd'],
        [2, 'c'],
      ],
    )}\n${set}`;
    expect(
      await scenarioRows(chars, 'select id, count(*), min(ch), max(ch) from src group by id'),
    ).toEqual(sorted(['1,2,a,b', '2,2,c,d']));
  });

  it('aggregates after UNION ALL, with FILTER clauses, and pruned aggregates', async () => {
    const unionRows: (readonly [number, number, string])[] = [
      [1, 1, 'Hello'],
      [2, 2, 'Hello'],
      [2, 3, 'Hello'],
      [3, 4, 'Hello'],
      [3, 5, 'Hello'],
      [7, 6, 'Hello'],
      [7, 7, 'Hello World'],
      [7, 8, 'Hello World'],
      [10, 20, 'Hello World'],
    ];
    const cols = [
      ['a', 'BIGINT'],
      ['b', 'INT'],
      ['c', 'STRING'],
    ] as const;
    const union = `${valuesView('T1', cols, unionRows)}\n${valuesView('T2', cols, unionRows)}\n${set}`;
    expect(
      await scenarioRows(
        union,
        'SELECT a, sum(b), count(distinct c) FROM (SELECT * FROM T1 UNION ALL SELECT * FROM T2) GROUP BY a',
      ),
    ).toEqual(sorted(['1,2,1', '2,10,1', '3,18,1', '7,42,2', '10,40,1']));

    const filters = `${valuesView(
      'T',
      [...ABC, ['d', 'BOOLEAN']],
      [
        [1, 5, 'B', true],
        [1, 4, 'C', false],
        [1, 2, 'A', true],
        [2, 1, 'A', true],
        [2, 2, 'B', false],
        [1, 6, 'A', true],
        [2, 2, 'B', false],
        [3, 5, 'B', true],
        [2, 3, 'C', true],
        [2, 3, 'D', true],
      ],
    )}\n${set}`;
    expect(
      await scenarioRows(
        filters,
        "SELECT a, sum(b) filter (where c = 'A'), count(distinct c) filter (where d is true), max(b) FROM T GROUP BY a",
      ),
    ).toEqual(sorted(['1,8,2,6', '2,1,3,3', '3,null,1,5']));

    const [multi] = await runScenario(`${TUPLES}\n${set}`, [
      `SELECT b, SUM(DISTINCT (a * 3)), COUNT(DISTINCT SUBSTRING(c FROM 1 FOR 2)), COUNT(DISTINCT c),
         COUNT(DISTINCT c) filter (where MOD(a, 3) = 0), COUNT(DISTINCT c) filter (where MOD(a, 3) = 1)
       FROM MyTable GROUP BY b`,
    ]);
    expect(multi?.rows).toEqual(
      sorted([
        '1,3,1,1,0,1',
        '2,15,1,2,1,0',
        '3,45,3,3,1,1',
        '4,102,1,4,1,2',
        '5,195,1,5,2,1',
        '6,333,1,6,2,2',
      ]),
    );

    const pruned = `${valuesView('T', ABC, [
      [1, 1, 'Hi'],
      [2, 2, 'Hello'],
      [3, 2, 'Hello world'],
    ])}\n${set}`;
    expect(
      await scenarioRows(
        pruned,
        'select a from (select b, max(a) as a, count(*), max(c) as c from T group by b) T1',
      ),
    ).toEqual(['1', '3']);
    const constantKey = `${valuesView('MyTable', ABC, SMALL_ROWS.slice(0, 5))}\n${set}`;
    expect(
      await scenarioRows(
        constantKey,
        'select c, max(b) from (select b, c, true as f from MyTable) t group by c, f',
      ),
    ).toEqual(sorted(['A,1', 'B,2', 'C,3']));
  });

  it('COUNT DISTINCT over a UNION ALL of one source, LISTAGG of one group, STDDEV and VAR_POP', async () => {
    const src = `${valuesView(
      'src',
      [
        ['a', 'STRING'],
        ['b', 'STRING'],
        ['c', 'STRING'],
        ['d', 'STRING'],
      ],
      Array.from({ length: 100 }, (_, i) => ['1', '1', String(i % 50), '1']),
    )}\n${set}`;
    expect(
      await scenarioRows(
        src,
        `SELECT a, b, COUNT(distinct c) as uv FROM (
           SELECT a, b, c, d FROM src where b <> ''
           UNION ALL
           SELECT a, 'ALL' as b, c, d FROM src where b <> '') t
         GROUP BY a, b`,
      ),
    ).toEqual(sorted(['1,1,50', '1,ALL,50']));
    const his = `${valuesView(
      'MyTable',
      ABC,
      Array.from({ length: 10 }, (_, i) => [i, 1, 'Hi']),
    )}\n${set}`;
    expect(
      await scenarioRows(his, "SELECT listagg(c), listagg(c, '-') FROM MyTable GROUP BY c"),
    ).toEqual([`${Array(10).fill('Hi').join(',')},${Array(10).fill('Hi').join('-')}`]);
    const doubles = `${valuesView(
      'MyTable',
      [
        ['a', 'DOUBLE'],
        ['b', 'BIGINT'],
        ['c', 'STRING'],
      ],
      Array.from({ length: 10 }, (_, i) => [i, 1, 'Hi']),
    )}\n${set}`;
    expect(
      await scenarioRows(doubles, 'SELECT STDDEV_SAMP(a), STDDEV_POP(a) FROM MyTable GROUP BY c'),
    ).toEqual(['3.0276503540974917,2.8722813232690143']);
    const ints = `${valuesView('MyTable', ABC, [
      [2900, 1, 'Hi'],
      [2500, 1, 'Hi'],
      [2600, 1, 'Hi'],
      [3100, 1, 'Hello'],
      [11000, 1, 'Hello'],
    ])}\n${set}`;
    expect(await scenarioRows(ints, 'SELECT VAR_POP(a) FROM MyTable GROUP BY c')).toEqual(
      sorted(['15602500', '28889']),
    );
  });

  it('GROUP BY and DISTINCT of ARRAYs', async () => {
    const [byArray, distinctArray, countArray] = await runScenario(set, [
      'SELECT b, sum(a) FROM (VALUES (1, array[1, 2]), (2, array[1, 2]), (5, array[3, 4])) T(a, b) GROUP BY b',
      'SELECT DISTINCT b FROM (VALUES (2, array[1, 2]), (2, array[2, 3]), (2, array[1, 2]), (5, array[3, 4])) T(a, b)',
      'SELECT a, COUNT(DISTINCT b) FROM (VALUES (2, array[1, 2]), (2, array[2, 3]), (2, array[1, 2]), (5, array[3, 4])) T(a, b) GROUP BY a',
    ]);
    expect(byArray?.rows).toEqual(sorted(['[1, 2],3', '[3, 4],5']));
    expect(distinctArray?.rows).toEqual(sorted(['[1, 2]', '[2, 3]', '[3, 4]']));
    expect(countArray?.rows).toEqual(sorted(['2,2', '5,1']));
  });

  it('JSON_OBJECTAGG and JSON_ARRAYAGG with other aggregates', async () => {
    const table5 = `${valuesView('Table5', TABLE5_COLUMNS, TUPLE_DATA_5)}\n${set}`;
    const [all, grouped] = await runScenario(
      table5,
      [
        'SELECT MAX(d), JSON_OBJECTAGG(g VALUE d), JSON_ARRAYAGG(d), JSON_ARRAYAGG(g) FROM Table5 WHERE d <= 3',
        'SELECT d, JSON_OBJECTAGG(g VALUE f), JSON_ARRAYAGG(g), JSON_ARRAYAGG(f), max(f) FROM Table5 WHERE d <= 3 GROUP BY d',
      ],
      { parallelism: 1 },
    );
    expect(all?.rows).toEqual([
      '3,{"ABC":3,"BCD":3,"Hallo":1,"Hallo Welt":2,"Hallo Welt wie":2,"Hallo Welt wie gehts?":3},[1,2,2,3,3,3],["Hallo","Hallo Welt","Hallo Welt wie","Hallo Welt wie gehts?","ABC","BCD"]',
    ]);
    expect(grouped?.rows).toEqual(
      sorted([
        '3,{"ABC":4,"BCD":5,"Hallo Welt wie gehts?":3},["Hallo Welt wie gehts?","ABC","BCD"],[3,4,5],5',
        '1,{"Hallo":0},["Hallo"],[0],0',
        '2,{"Hallo Welt":1,"Hallo Welt wie":2},["Hallo Welt","Hallo Welt wie"],[1,2],2',
      ]),
    );
  });

  it('LISTAGG over retractions, of NULLs, and DISTINCT', async () => {
    const xy = `${valuesView(
      'T',
      [
        ['x', 'STRING'],
        ['y', 'STRING'],
      ],
      [
        ['1', 'a'],
        ['1', 'b'],
        ['1', null],
        ['1', 'a'],
      ],
    )}
    CREATE VIEW view1 AS SELECT x, y, CAST(COUNT(1) AS VARCHAR) AS ct FROM T GROUP BY x, y;\n${set}`;
    expect(
      await scenarioRows(
        xy,
        `select x, '[' || LISTAGG(CONCAT_WS('=', y, ct), ';') || ']' AS list1,
           '[' || LISTAGG(CONCAT_WS('=', y, ct)) || ']' AS list2 FROM view1 GROUP BY x`,
        { parallelism: 1 },
      ),
    ).toEqual(['1,[b=1;1;a=2],[b=1,1,a=2]']);
    const nulls = `${valuesView(
      'T',
      [
        ['id', 'INT'],
        ['len', 'INT'],
        ['content', 'STRING'],
      ],
      [
        [1, 1, null],
        [2, 1, null],
        [3, 1, null],
      ],
    )}\n${set}`;
    const [withSep, withoutSep] = await runScenario(nulls, [
      "SELECT len, listagg(content, '#') FROM T GROUP BY len",
      'SELECT len, listagg(content) FROM T GROUP BY len',
    ]);
    expect(withSep?.rows).toEqual(['1,null']);
    expect(withoutSep?.rows).toEqual(['1,null']);
    const distinct = `${valuesView('MyTable', ABC, [
      [1, 1, 'A'],
      [2, 2, 'B'],
      [3, 2, 'B'],
      [4, 3, 'C'],
      [5, 3, 'C'],
      [6, 3, 'A'],
      [7, 4, 'EF'],
      [1, 1, 'A'],
      [8, 4, 'EF'],
      [8, 4, null],
    ])}\n${set}`;
    expect(
      await scenarioRows(distinct, "SELECT b, LISTAGG(DISTINCT c, '#') FROM MyTable GROUP BY b", {
        parallelism: 1,
      }),
    ).toEqual(sorted(['1,A', '2,B', '3,C#A', '4,EF']));
  });
});
