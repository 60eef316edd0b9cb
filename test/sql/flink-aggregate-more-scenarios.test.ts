/**
 * More of Flink's AggregateITCase (streaming), the test methods that
 * `flink-aggregate-scenarios.test.ts` does not port: Flink's data, queries and expected final
 * rows (after the changelog), under Flink's test parameters as Weir's SET options: mini-batch
 * off and on, local-global (two-phase) aggregation, and the split of distinct aggregates.
 *
 * Ported (each `it` names Flink's method):
 * - testShufflePojo: GROUP BY a TypeScript scalar function of a column (Flink's returns a POJO,
 *   here the INT itself: the grouping is the same).
 * - testDistinctAggWithNullValues: Flink's CntNullNonNull UDAF as a TypeScript aggregate, called
 *   with DISTINCT (NULL one distinct value).
 * - testPrecisionForSumWithRetractAggregationOnDecimal, testDifferentTypesSumWithRetract,
 *   testRetractMinMaxWithChar: SUM of DECIMAL / every numeric type and MIN/MAX of CHAR over a
 *   retracting source (the values connector's `I,D` and `I,UA,UB,D` modes).
 * - testWindowWithUnboundedAgg: an unbounded GROUP BY over a TUMBLE group window's results.
 * - testGroupBySingleValue: Flink's scalar subqueries (`x < (SELECT ...)`), without Flink's
 *   SINGLE_VALUE check that the subquery yields at most one row (see scalar-subquery.ts).
 * - testVarArgsNoGroupBy, testVarArgsWithGroupBy, testLongVarargsAgg: TypeScript aggregates
 *   (Weir's declare fixed arguments: Flink's varargs become 3 and 260 declared arguments).
 * - testUserDefinedObjectAgg: a TypeScript aggregate whose result (a ROW, Flink's a POJO) is
 *   aggregated again by another.
 * - testAggregationCodeSplit: 47 SUM(CASE ...) aggregates of one GROUP BY.
 * - testOverloadedAccumulator: Flink's one UDAF overloaded for BIGINT and STRING is two
 *   TypeScript aggregates here (Weir's functions are not overloaded).
 * - testCoalesceOnGroupingSets, testBooleanColumnOnGroupingSets: GROUPING SETS.
 * - testCountStar: COUNT(*) of a table with a PROCTIME() column.
 * - testLagAggFunction: LAG over a processing-time OVER window.
 *
 * Not ported:
 * - testUnboundedGroupByCollect, testUnboundedGroupByCollectWithObject: ported in
 *   multiset-collect.test.ts. testCollectOnClusteredFields: UNNEST of a MULTISET and Scala
 *   UDFs over it (Weir SQL does not UNNEST a MULTISET yet).
 * - testEmptyInputAggregationWithoutGroupBy: @Disabled in Flink (FLINK-12215).
 * - testPojoField: a Java POJO accumulator and result type (no POJO types in Weir SQL).
 * - testGenericTypesWithoutStateClean: Table API only, asserts nothing.
 * - testListAgg: its LISTAGG half is ported in flink-aggregate-scenarios.test.ts; the rest
 *   calls Flink's internal ListAggWithRetractAggFunction classes by name.
 * - The methods ported in flink-aggregate-scenarios.test.ts (testEmptyInputAggregation,
 *   testMax/MinAggRetractWithCondition, testAggregationWithoutWatermark, testDistinctGroupBy,
 *   testCountDistinct, testDistinctWithRetract, testDistinctAggregateMoreThan64,
 *   testPrecisionForSum/AvgAggregationOnDecimal, testGroupByAgg, testCountWithNullableIfCall,
 *   testNestedGroupByAgg, testUnboundedGroupBy, testListAggWithRetraction / WithNullData /
 *   WithoutDelimiterTreatNull / WithDistinct, testDecimalSum, testAggAfterUnion,
 *   testMinMaxWithBinaryString, testBigDataOfMinMaxWithBinaryString, testAggWithFilterClause,
 *   testMinMaxWithDecimal, testMinMaxWithChar, testSTDDEV, testVAR_POP,
 *   testCountDistinctWithBinaryRowSource, testDistinctWithMultiFilter, testPruneUselessAggCall,
 *   testConstantGroupKeyWithUpsertSink, testGroupByArrayType, testDistinctArrayType,
 *   testCountDistinctArrayType, testJsonArrayAggAndJsonObjectAggWithOtherAggs,
 *   testGroupJsonArrayAggAndJsonObjectAggWithOtherAggs).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  defineAggregateFunction,
  defineScalarFunction,
  type StreamEnvironment,
  type TableEnvironment,
} from '../../src/index.js';
import {
  runScenario,
  type ScenarioOptions,
  scenarioRows,
  sorted,
  TUPLE_DATA_3,
  TUPLE_DATA_5,
  valuesView,
} from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';`;
const LOCAL_GLOBAL = `${MINI_BATCH}
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';`;
const SPLIT_DISTINCT = `${LOCAL_GLOBAL}
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';`;
/** Flink's AggMode x MiniBatchMode parameters. */
const MODES = [
  ['mini-batch off', ''],
  ['mini-batch on', MINI_BATCH],
  ['local-global', LOCAL_GLOBAL],
  ['split-distinct', SPLIT_DISTINCT],
] as const;

const ABC = [
  ['a', 'INT'],
  ['b', 'BIGINT'],
  ['c', 'STRING'],
] as const;

/** A DECIMAL value as the values connector carries it: its unscaled bigint at `scale`. */
function unscaled(value: string, scale: number): bigint {
  const [whole = '0', fraction = ''] = value.split('.');
  return BigInt(`${whole}${fraction.padEnd(scale, '0')}`);
}

/** Flink's `emps` rows of the grouping-sets cases. */
const EMPS = `CREATE TEMPORARY VIEW emps AS SELECT * FROM (VALUES
  (CAST(100 AS BIGINT), 'Fred', 10, CAST(NULL AS STRING), CAST(NULL AS STRING), CAST(40 AS BIGINT), 25, TRUE, FALSE),
  (CAST(110 AS BIGINT), 'Eric', 20, 'M', 'San Francisco', CAST(3 AS BIGINT), 80, CAST(NULL AS BOOLEAN), FALSE),
  (CAST(110 AS BIGINT), 'John', 40, 'M', 'Vancouver', CAST(2 AS BIGINT), CAST(NULL AS INT), FALSE, TRUE),
  (CAST(120 AS BIGINT), 'Wilma', 20, 'F', CAST(NULL AS STRING), CAST(1 AS BIGINT), 5, CAST(NULL AS BOOLEAN), TRUE),
  (CAST(130 AS BIGINT), 'Alice', 40, 'F', 'Vancouver', CAST(2 AS BIGINT), CAST(NULL AS INT), FALSE, TRUE)
) AS T(empno, name, deptno, gender, city, empid, age, slacker, manager);`;

/** Flink's CountNullNonNull: how many non-NULL values, and how many NULLs. */
const countNullNonNull = defineAggregateFunction<{ nonNull: number; nulls: number }>({
  arguments: ['STRING'],
  result: 'STRING',
  createAccumulator: () => ({ nonNull: 0, nulls: 0 }),
  accumulate(acc, value: string | null) {
    if (value === null) acc.nulls++;
    else acc.nonNull++;
    return acc;
  },
  retract(acc, value: string | null) {
    if (value === null) acc.nulls--;
    else acc.nonNull--;
    return acc;
  },
  merge: (a, b) => ({ nonNull: a.nonNull + b.nonNull, nulls: a.nulls + b.nulls }),
  getValue: (acc) => `${acc.nonNull}|${acc.nulls}`,
});

/** Flink's VarArgsAggFunction: the sum of a BIGINT and of the integers its strings hold. */
const varArgs = defineAggregateFunction<{ sum: number }>({
  arguments: ['BIGINT', 'STRING', 'STRING'],
  result: 'BIGINT',
  createAccumulator: () => ({ sum: 0 }),
  accumulate(acc, value: number | null, ...strings: (string | null)[]) {
    acc.sum += value ?? 0;
    for (const s of strings) acc.sum += s === null ? 0 : Number.parseInt(s, 10);
    return acc;
  },
  retract(acc, value: number | null, ...strings: (string | null)[]) {
    acc.sum -= value ?? 0;
    for (const s of strings) acc.sum -= s === null ? 0 : Number.parseInt(s, 10);
    return acc;
  },
  merge: (a, b) => ({ sum: a.sum + b.sum }),
  getValue: (acc) => acc.sum,
});

/** Flink's VarSumAggFunction with its 260 arguments declared. */
const varSum = defineAggregateFunction<{ sum: number }>({
  arguments: Array.from({ length: 260 }, () => 'INT'),
  result: 'BIGINT',
  createAccumulator: () => ({ sum: 0 }),
  accumulate(acc, ...values: (number | null)[]) {
    for (const v of values) acc.sum += v ?? 0;
    return acc;
  },
  merge: (a, b) => ({ sum: a.sum + b.sum }),
  getValue: (acc) => acc.sum,
});

/** Flink's UserDefinedObjectUDAF: the last name, as an object (here a ROW). */
const userDefinedObject = defineAggregateFunction<{ name: string | null }>({
  arguments: ['STRING'],
  result: 'ROW<name STRING>',
  createAccumulator: () => ({ name: null }),
  accumulate(acc, name: string | null) {
    acc.name = name;
    return acc;
  },
  getValue: (acc) => [acc.name],
});

/** Flink's UserDefinedObjectUDAF2: the name of the last object. */
const userDefinedObject2 = defineAggregateFunction<{ name: string | null }>({
  arguments: ['ROW<name STRING>'],
  result: 'STRING',
  createAccumulator: () => ({ name: null }),
  accumulate(acc, row: readonly unknown[] | null) {
    acc.name = row === null ? null : (row[0] as string | null);
    return acc;
  },
  retract: (acc) => acc,
  getValue: (acc) => acc.name,
});

/** Flink's OverloadedMaxFunction, one TypeScript aggregate per overload. */
const overloadedMax = <T extends number | string>(type: 'BIGINT' | 'STRING') =>
  defineAggregateFunction<{ max: T | null }>({
    arguments: [type],
    result: type,
    createAccumulator: () => ({ max: null }),
    accumulate(acc, value: T | null) {
      if (value !== null && (acc.max === null || value > acc.max)) acc.max = value;
      return acc;
    },
    merge: (a, b) => (a.max === null || (b.max !== null && b.max > a.max) ? b : a),
    getValue: (acc) => acc.max,
  });

/** Flink's MyToPojoFunc, giving its INT argument (Flink wraps it in a POJO). */
const pojoFunc = defineScalarFunction({
  arguments: ['INT'],
  result: 'INT',
  eval: (b: number | null) => b,
});

const functions = (_env: StreamEnvironment, tEnv: TableEnvironment): void => {
  tEnv.createTemporarySystemFunction('pojoFunc', pojoFunc);
  tEnv.createTemporarySystemFunction('CntNullNonNull', countNullNonNull);
  tEnv.createTemporarySystemFunction('func', varArgs);
  tEnv.createTemporarySystemFunction('var_sum', varSum);
  tEnv.createTemporarySystemFunction('user_define_object', userDefinedObject);
  tEnv.createTemporarySystemFunction('user_define_object2', userDefinedObject2);
  tEnv.createTemporarySystemFunction('OverloadedMaxLong', overloadedMax<number>('BIGINT'));
  tEnv.createTemporarySystemFunction('OverloadedMaxString', overloadedMax<string>('STRING'));
};

describe.each(MODES)("Flink's AggregateITCase, more (%s)", (_, set) => {
  const rows = (setup: string, query: string, options: ScenarioOptions = {}) =>
    scenarioRows(`${setup}\n${set}`, query, { tables: functions, ...options });

  it('testShufflePojo', async () => {
    const t = valuesView(
      'T',
      [
        ['a', 'INT'],
        ['b', 'INT'],
      ],
      [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
    );
    expect(
      await rows(
        t,
        'select sum(a), avg(a), min(a), count(a), count(1) from T group by pojoFunc(b)',
      ),
    ).toEqual(sorted(['1,1,1,1,1', '2,2,2,1,1', '3,3,3,1,1']));
  });

  it('testDistinctAggWithNullValues', async () => {
    const t = valuesView('T', ABC, [
      [1, 1, 'A'],
      [2, 2, 'B'],
      [3, 2, 'B'],
      [4, 3, 'C'],
      [5, 3, 'C'],
      [6, 3, null],
      [7, 3, 'C'],
      [8, 4, 'B'],
      [9, 4, null],
      [10, 4, null],
      [11, 4, 'A'],
      [12, 4, 'D'],
      [13, 4, null],
      [14, 4, 'E'],
      [15, 5, 'A'],
      [16, 5, null],
      [17, 5, 'B'],
    ]);
    expect(
      await rows(t, 'SELECT b, count(*), CntNullNonNull(DISTINCT c) FROM T GROUP BY b'),
    ).toEqual(sorted(['1,1,1|0', '2,2,1|0', '3,4,1|1', '4,7,4|1', '5,3,2|1']));
  });

  it('testPrecisionForSumWithRetractAggregationOnDecimal', async () => {
    const row = (kind: '+I' | '-D', a: string, b: string, c: string, d: string) =>
      [kind, unscaled(a, 8), unscaled(b, 20), unscaled(c, 20), d] as const;
    // Flink writes Scala doubles (`12345.035202748654.bigDecimal`): the decimals are those
    // doubles' shortest text, as here (and as its expected sums have them).
    const v1 = ['1.03520274', '12345.035202748653', '12.345678901234567'] as const;
    const v2 = ['2.13520275', '21245.542202748653', '242.78594201234566'] as const;
    const v3 = ['1.11111111', '11111.111111111111', '111.11111111111111'] as const;
    const id = registerValues([
      row('+I', ...v1, 'a'),
      row('+I', ...v1, 'b'),
      row('-D', ...v1, 'b'),
      row('+I', ...v2, 'a'),
      row('+I', ...v3, 'b'),
      row('+I', ...v3, 'a'),
      row('-D', ...v3, 'b'),
      row('+I', ...v2, 'a'),
    ]);
    const t = `CREATE TABLE T (a DECIMAL(32, 8), b DECIMAL(32, 20), c DECIMAL(32, 20), d STRING)
      WITH ('connector' = 'flink-values', 'data-id' = '${id}', 'changelog-mode' = 'I,D');`;
    expect(await rows(t, 'SELECT sum(a), sum(b), sum(c) FROM T GROUP BY d')).toEqual([
      '6.41671935,65947.23071935707000000000,609.02867403703699700000',
    ]);
  });

  it('testDifferentTypesSumWithRetract', async () => {
    const row = (kind: '+I' | '-D', n: number) => [kind, n, n, n, n, n, n, 'a'] as const;
    const id = registerValues([
      row('+I', 1),
      row('+I', 2),
      row('-D', 1),
      row('+I', 3),
      row('-D', 2),
      row('+I', 1),
      row('-D', 3),
      row('+I', 2),
      row('+I', 3),
    ]);
    const t = `CREATE TABLE T (a TINYINT, b SMALLINT, c INT, d BIGINT, e FLOAT, f DOUBLE, g STRING)
      WITH ('connector' = 'flink-values', 'data-id' = '${id}', 'changelog-mode' = 'I,D');`;
    expect(
      await rows(t, 'SELECT sum(a), sum(b), sum(c), sum(d), sum(e), sum(f) FROM T GROUP BY g'),
    ).toEqual(['6,6,6,6,6.0,6.0']);
  });

  it('testRetractMinMaxWithChar', async () => {
    const id = registerValues([
      ['+I', 1, 'a'],
      ['+I', 1, 'b'],
      ['+I', 1, 'c'],
      ['-D', 1, 'c'],
      ['-D', 1, 'a'],
      ['+I', 2, 'a'],
      ['+I', 2, 'b'],
      ['+I', 2, 'c'],
      ['-U', 2, 'b'],
      ['+U', 2, 'd'],
      ['-U', 2, 'a'],
      ['+U', 2, 'b'],
    ]);
    const t = `CREATE TABLE src (\`id\` INT, \`char\` CHAR(1))
      WITH ('connector' = 'flink-values', 'data-id' = '${id}', 'changelog-mode' = 'I,UA,UB,D');`;
    expect(
      await rows(t, 'select `id`, count(*), min(`char`), max(`char`) from src group by `id`'),
    ).toEqual(sorted(['1,1,b,b', '2,3,b,d']));
  });

  it('testWindowWithUnboundedAgg', async () => {
    // tupleData5 as (rowtime, a, c, d, e): its second column is the rowtime in ms, the
    // watermark right at it.
    const tables: ScenarioOptions['tables'] = (env, tEnv) => {
      functions(env, tEnv);
      tEnv.fromDataStream(
        'MyTable',
        env.fromArray(TUPLE_DATA_5.map(([a, b, c, d, e]) => [b, a, c, d, e])),
        {
          columns: [
            { name: 'rowtime', type: 'TIMESTAMP(3)' },
            { name: 'a', type: 'INT' },
            { name: 'c', type: 'INT' },
            { name: 'd', type: 'STRING' },
            { name: 'e', type: 'BIGINT' },
          ],
          watermark: { column: 'rowtime', expression: 'rowtime' },
        },
      );
    };
    const inner = `SELECT a, SUM(DISTINCT e) b, MIN(DISTINCT e) c, COUNT(DISTINCT e) d
      FROM MyTable GROUP BY a, TUMBLE(rowtime, INTERVAL '0.005' SECOND)`;
    expect(
      await rows('', `SELECT c, MAX(a), COUNT(DISTINCT d) FROM (${inner}) GROUP BY c`, {
        tables,
      }),
    ).toEqual(sorted(['1,5,3', '2,5,2']));
  });

  it('testGroupBySingleValue', async () => {
    const data: (readonly [number, number, string])[] = [
      [1, 1, 'A'],
      [2, 2, 'B'],
      [3, 2, 'B'],
      [4, 3, 'C'],
      [5, 3, 'C'],
      ...Array.from({ length: 8 }, (): readonly [number, number, string] => [6, 3, 'C']),
      [7, 4, 'B'],
      [8, 4, 'A'],
      [9, 4, 'D'],
      [10, 4, 'E'],
      [11, 5, 'A'],
      [12, 5, 'B'],
    ];
    const t = `${valuesView('T1', ABC, data)}\n${valuesView('T2', ABC, data)}`;
    expect(
      await rows(t, 'SELECT * FROM T2 WHERE T2.a < (SELECT count(*) * 0.3 FROM T1)', {
        parallelism: 1,
      }),
    ).toEqual(sorted(['1,1,A', '2,2,B', '3,2,B', '4,3,C', '5,3,C']));
    const tc = "CREATE TEMPORARY VIEW tc AS SELECT CAST('AA' AS CHAR(3)) AS a;";
    expect(await rows(tc, 'SELECT * FROM tc WHERE tc.a = (SELECT a FROM tc)')).toEqual(['AA ']);
  });

  it('testVarArgsNoGroupBy, testVarArgsWithGroupBy', async () => {
    const t = valuesView(
      'MyTable',
      [
        ['id', 'INT'],
        ['s', 'BIGINT'],
        ['s1', 'STRING'],
        ['s2', 'STRING'],
      ],
      [
        [1, 1, '5', '3'],
        [1, 22, '15', '13'],
        [3, 33, '25', '23'],
      ],
    );
    expect(await rows(t, 'SELECT func(s, s1, s2) FROM MyTable', { parallelism: 1 })).toEqual([
      '140',
    ]);
    expect(await rows(t, 'SELECT id, func(s, s1, s2) FROM MyTable group by id')).toEqual(
      sorted(['1,59', '3,81']),
    );
  });

  it('testLongVarargsAgg', async () => {
    const t = valuesView(
      'MyTable',
      [
        ['a', 'INT'],
        ['b', 'INT'],
      ],
      [
        [1, 1],
        [2, 2],
      ],
    );
    const args = Array.from({ length: 260 }, () => 'b').join(',');
    expect(await rows(t, `SELECT a, var_sum(${args}) from MyTable group by a`)).toEqual(
      sorted(['1,260', '2,520']),
    );
  });

  it('testUserDefinedObjectAgg', async () => {
    const t = valuesView(
      'MyTable',
      [
        ['a', 'INT'],
        ['b', 'STRING'],
      ],
      [
        [1, 'Sam'],
        [1, 'Jerry'],
        [2, 'Ali'],
        [3, 'Grace'],
        [3, 'Lucas'],
      ],
    );
    expect(
      await rows(
        t,
        `select t1.a, user_define_object2(t1.d) from
           (SELECT a, user_define_object(b) as d FROM MyTable GROUP BY a) t1
         group by t1.a`,
        { parallelism: 1 },
      ),
    ).toEqual(sorted(['1,Jerry', '2,Ali', '3,Lucas']));
  });

  it('testAggregationCodeSplit', async () => {
    const t = valuesView('MyTable', ABC, TUPLE_DATA_3.slice(0, 3));
    const sums = Array.from(
      { length: 47 },
      (_, k) =>
        `SUM(CASE WHEN a IS NOT NULL AND a > ${k + 3} THEN 0 WHEN a < 0 THEN 0 ELSE ${k + 3} END)`,
    );
    const [result] = await runScenario(
      `${t}\n${set}`,
      [`select ${sums.join(',')} from MyTable group by b, c`],
      { tables: functions },
    );
    const expected = Array.from({ length: 47 }, (_, k) => k + 3).join(',');
    // Flink counts 3 raw results, one per group.
    expect(result?.changes).toHaveLength(3);
    expect(result?.rows).toEqual([expected, expected, expected]);
  });

  it('testOverloadedAccumulator', async () => {
    const t = valuesView(
      'T',
      [
        ['a', 'STRING'],
        ['b', 'BIGINT'],
      ],
      [
        ['x', 1],
        ['x', 2],
        ['x', 3],
        ['y', 1],
        ['y', 2],
        ['z', 3],
      ],
    );
    const [byA, byB] = await runScenario(
      `${t}\n${set}`,
      [
        'SELECT a, OverloadedMaxLong(b) FROM T GROUP BY a',
        'SELECT b, OverloadedMaxString(a) FROM T GROUP BY b',
      ],
      { tables: functions },
    );
    expect(byA?.rows).toEqual(sorted(['x,3', 'y,2', 'z,3']));
    expect(byB?.rows).toEqual(sorted(['1,y', '2,y', '3,z']));
  });

  it('testCoalesceOnGroupingSets', async () => {
    expect(
      await rows(
        EMPS,
        `select gender, city, coalesce(deptno, -1), count(*) as cnt
         from emps group by grouping sets ((gender, city), (gender, city, deptno))`,
        { parallelism: 1 },
      ),
    ).toEqual(
      sorted([
        'F,Vancouver,-1,1',
        'F,Vancouver,40,1',
        'F,null,-1,1',
        'F,null,20,1',
        'M,San Francisco,-1,1',
        'M,San Francisco,20,1',
        'M,Vancouver,-1,1',
        'M,Vancouver,40,1',
        'null,null,-1,1',
        'null,null,10,1',
      ]),
    );
  });

  it('testBooleanColumnOnGroupingSets', async () => {
    expect(
      await rows(
        EMPS,
        `select gender, city, manager, count(*) as cnt
         from emps group by grouping sets ((city), (gender, city, manager))`,
        { parallelism: 1 },
      ),
    ).toEqual(
      sorted([
        'F,Vancouver,true,1',
        'F,null,true,1',
        'M,San Francisco,false,1',
        'M,Vancouver,true,1',
        'null,San Francisco,null,1',
        'null,Vancouver,null,2',
        'null,null,false,1',
        'null,null,null,2',
      ]),
    );
  });

  it('testCountStar', async () => {
    const id = registerValues([
      [2, 15, 'Hello'],
      [8, 11, 'Hello world'],
      [9, 12, 'Hello world!'],
    ]);
    const src = `CREATE TABLE src (\`id\` BIGINT, \`len\` INT, \`content\` STRING,
      \`proctime\` AS PROCTIME()) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`;
    expect(await rows(src, 'select count(*) from src', { parallelism: 1 })).toEqual(['3']);
  });
});

describe("Flink's AggregateITCase, more", () => {
  it('testLagAggFunction', async () => {
    const id = registerValues([
      [2, 15, 'Hello'],
      [8, 11, 'Hello world'],
      [9, 12, 'Hello world!'],
    ]);
    const src = `CREATE TABLE src (\`id\` BIGINT, \`len\` INT NOT NULL, \`content\` STRING,
      \`proctime\` AS PROCTIME()) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`;
    const [result] = await runScenario(
      src,
      [
        `select LAG(len, 1, cast(null as int)) OVER w AS prev_quantity,
           LAG(len) OVER w AS prev_quantity
         from src WINDOW w AS (ORDER BY proctime)`,
      ],
      { parallelism: 1 },
    );
    // Flink asserts the rows in arrival order.
    expect(result?.changes).toEqual(['+I(null,null)', '+I(15,15)', '+I(11,11)']);
  });
});
