/**
 * Scenarios of Flink's FunctionITCase (streaming, with the JAR cases of the batch variant):
 * CREATE / DROP [TEMPORARY [SYSTEM]] FUNCTION and the names it takes, user scalar functions
 * over primitive, ROW and NOT NULL arguments, table functions returning rows (a NULL row is
 * skipped), aggregate functions in a group window, and the errors of a function used where its
 * kind cannot be. Flink's inputs and expected rows.
 *
 * Deliberate differences: Flink's Java classes are TypeScript functions (define*Function), and
 * a class name or `USING JAR` is a module reference (`'file.ts#export'`, this file's exports);
 * Flink's COLLECTION tables are the values test connector. Weir's function names are
 * case-insensitive and listed upper-cased (`F1` where Flink lists `f1`). Weir has one catalog
 * and database: a function qualified with another is refused, also a TEMPORARY one, which
 * Flink accepts (testCreateDropTemporaryCatalogFunctionsWithDifferentIdentifier is ported for
 * its unqualified part). A function signature is one list of types, so the overloaded cases
 * (testDynamicCatalogTableFunction's two `eval`s) become one function per signature.
 *
 * Not ported, as Weir has no equivalent: overloading and varargs (testNullScalarFunction,
 * testComplexScalarFunction, testCustomScalarFunction, testVarArgScalarFunction,
 * testStructuredScalarFunction), RAW types (testRawLiteralScalarFunction, the batch ORDER BY
 * case), named and optional arguments (the testNamedArgument* cases), ALTER FUNCTION
 * (testAlterFunction*), ADD JAR / SHOW JARS (testUsingAddJar), lookup sources built from a
 * function class (testLookupTableFunction*), specialized functions (testSpecializedFunction*)
 * and the exact texts of Flink's validation messages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  defineAggregateFunction,
  defineScalarFunction,
  defineTableFunction,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { runScenario, type ScenarioOptions, scenarioRows } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

const HERE = 'test/sql/flink-function-scenarios.test.ts';

/** Flink's TestUDF: `a + b`. */
// biome-ignore lint/suspicious/noExportsInTest: CREATE FUNCTION loads it from this module (the tests run once, vitest's module being the one imported)
export const addOne = defineScalarFunction({
  arguments: ['INT', 'INT'],
  result: 'INT',
  eval: (a: number | null, b: number | null) => (a === null || b === null ? null : a + b),
});

/** The lower-casing function Flink compiles into its test JAR. */
// biome-ignore lint/suspicious/noExportsInTest: CREATE FUNCTION loads it from this module
export const lowerUdf = defineScalarFunction({
  arguments: ['STRING'],
  result: 'STRING',
  eval: (s: string | null) => (s === null ? null : s.toLowerCase()),
});

/** Flink's PrimitiveScalarFunction: `i + l + length(s)`. */
const primitiveScalarFunction = defineScalarFunction({
  arguments: ['INT NOT NULL', 'BIGINT NOT NULL', 'STRING'],
  result: 'BIGINT NOT NULL',
  eval: (i: number, l: number, s: string) => i + l + s.length,
});

/** Flink's RowScalarFunction: the row it gets, declared with other field names. */
const rowScalarFunction = defineScalarFunction({
  arguments: ['ROW<f0 INT, f1 STRING>'],
  result: 'ROW<f0 INT, f1 STRING>',
  eval: (row: unknown) => row,
});

/** Flink's RowTableFunction: the string and its comma-separated parts; a NULL row for NULL. */
const rowTableFunction = defineTableFunction({
  arguments: ['STRING'],
  result: 'ROW<s STRING, sa ARRAY<STRING> NOT NULL>',
  eval: (s: string | null) => [s === null ? null : [s, s.split(',')]],
});

/** Flink's StructuredTableFunction: a NULL row when the name is NULL, then the user. */
const structuredTableFunction = defineTableFunction({
  arguments: ['STRING', 'INT NOT NULL'],
  result: 'ROW<name STRING, age INT NOT NULL>',
  eval: (name: string | null, age: number) => (name === null ? [null, [name, age]] : [[name, age]]),
});

/** Flink's DynamicTableFunction, its STRING `eval`. */
const dynamicStringFunction = defineTableFunction({
  arguments: ['STRING'],
  result: 'STRING',
  eval: (s: string | null) => {
    if (s === null) throw new Error('unknown failure');
    return [`${s} is a string`];
  },
});

/** Flink's DynamicTableFunction, its INT `eval`: the value, NULL included. */
const dynamicIntFunction = defineTableFunction({
  arguments: ['INT'],
  result: 'INT',
  eval: (i: number | null) => [i],
});

/** Flink's LongestStringAggregateFunction. */
const longestStringAggregateFunction = defineAggregateFunction<{ longest: string | null }>({
  arguments: ['STRING'],
  result: 'STRING',
  createAccumulator: () => ({ longest: null }),
  accumulate(acc, value: string | null) {
    if (value !== null && (acc.longest === null || acc.longest.length < value.length))
      acc.longest = value;
    return acc;
  },
  getValue: (acc) => acc.longest,
});

/**
 * Flink's RawMapViewAggregateFunction: a map from each string to a (string, length) pair,
 * shown as its sorted `key=(value, length)` entries.
 */
const rawMapViewAggregateFunction = defineAggregateFunction<Record<string, [string, number]>>({
  arguments: ['STRING'],
  result: 'STRING',
  createAccumulator: () => ({}),
  accumulate(acc, value: string | null) {
    if (value !== null) acc[value] = [value, value.length];
    return acc;
  },
  getValue: (acc) =>
    Object.entries(acc)
      .map(([k, [a, b]]) => `${k}=(${a}, ${b})`)
      .sort()
      .join(', '),
});

/** Flink's MyYear: the year of a TIMESTAMP(3) NOT NULL. */
const myYear = defineScalarFunction({
  arguments: ['TIMESTAMP(3) NOT NULL'],
  result: 'INT NOT NULL',
  eval: (ts: number) => new Date(ts).getUTCFullYear(),
});

/** Flink's BoolToInt. */
const boolToInt = defineScalarFunction({
  arguments: ['BOOLEAN NOT NULL'],
  result: 'INT NOT NULL',
  eval: (b: boolean) => (b ? 1 : 0),
});

/** Flink's BoolEcho: a BOOLEAN NOT NULL argument. */
const boolEcho = defineScalarFunction({
  arguments: ['BOOLEAN NOT NULL'],
  result: 'BOOLEAN',
  eval: (b: boolean) => b,
});

/** Flink's MultiLocalVariableBlocksClass. */
const multiLocalVariables = defineScalarFunction({
  arguments: ['BIGINT', 'BIGINT'],
  result: 'BIGINT',
  eval: (a: number | null, b: number | null) => {
    let local: number;
    if (a === null) local = 0;
    else if (a === 0) local = -1;
    else if (b !== null && b < 1) local = -a;
    else local = a;
    return local * (b ?? 0);
  },
});

/** The batch variant's CustomIntUdf: 0 for any argument. */
const customIntUdf = defineScalarFunction({
  arguments: ['INT'],
  result: 'INT',
  eval: () => 0,
});

/** `CREATE TABLE name (columns) WITH` the values connector over `rows`. */
function valuesTable(name: string, columns: string, rows: readonly (readonly unknown[])[]): string {
  return `CREATE TABLE ${name} (${columns}) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(rows)}');`;
}

/** A table environment over a job of its own, parallelism 1 (Flink's collection sink keeps order). */
function environment(): { env: StreamEnvironment; tEnv: TableEnvironment } {
  const env = new StreamEnvironment({ parallelism: 1 });
  return { env, tEnv: TableEnvironment.create(env) };
}

/** Runs a script whose CREATE FUNCTION statements name this file's exports. */
async function run(tEnv: TableEnvironment, script: string): Promise<void> {
  await tEnv.loadFunctionModules(script);
  tEnv.executeSql(script);
}

/** Loads the modules a script's CREATE FUNCTION statements name, for any environment to run it. */
async function load(script: string): Promise<void> {
  await TableEnvironment.create(new StreamEnvironment()).loadFunctionModules(script);
}

const functions =
  (registered: Record<string, Parameters<TableEnvironment['createTemporarySystemFunction']>[1]>) =>
  (_: unknown, tEnv: TableEnvironment): void => {
    for (const [name, fn] of Object.entries(registered))
      tEnv.createTemporarySystemFunction(name, fn);
  };

/** The changes of one query, in order (parallelism 1). */
async function changes(setup: string, query: string, options: ScenarioOptions = {}) {
  const [result] = await runScenario(setup, [query], { parallelism: 1, ...options });
  return result?.changes ?? [];
}

describe("Flink's FunctionITCase: CREATE and DROP FUNCTION", () => {
  it('testCreateCatalogFunctionInDefaultCatalog', async () => {
    const { tEnv } = environment();
    await run(tEnv, `create function f1 as '${HERE}#addOne'`);
    expect(tEnv.listFunctions()).toContain('F1');
    tEnv.executeSql('DROP FUNCTION IF EXISTS default_catalog.default_database.f1');
    expect(tEnv.listFunctions()).not.toContain('F1');
  });

  it('testCreateFunctionWithFullPath', async () => {
    const { tEnv } = environment();
    await run(tEnv, `create function default_catalog.default_database.f2 as '${HERE}#addOne'`);
    expect(tEnv.listFunctions()).toContain('F2');
    tEnv.executeSql('DROP FUNCTION IF EXISTS default_catalog.default_database.f2');
    expect(tEnv.listFunctions()).not.toContain('F2');
  });

  it('testCreateFunctionWithoutCatalogIdentifier', async () => {
    const { tEnv } = environment();
    await run(tEnv, `create function default_database.f3 as '${HERE}#addOne'`);
    expect(tEnv.listFunctions()).toContain('F3');
    tEnv.executeSql('DROP FUNCTION IF EXISTS default_catalog.default_database.f3');
    expect(tEnv.listFunctions()).not.toContain('F3');
  });

  it('testCreateFunctionCatalogNotExists, testCreateFunctionDBNotExists', async () => {
    const { tEnv } = environment();
    await expect(
      run(tEnv, `create function catalog1.database1.f3 as '${HERE}#addOne'`),
    ).rejects.toThrow("catalog 'catalog1' does not exist");
    await expect(
      run(tEnv, `create function default_catalog.database1.f3 as '${HERE}#addOne'`),
    ).rejects.toThrow("database 'database1' does not exist in catalog 'default_catalog'");
    expect(tEnv.listFunctions()).toEqual([]);
  });

  it('testCreateTemporaryCatalogFunction (without IF NOT EXISTS)', async () => {
    const { tEnv } = environment();
    const create = `create temporary function default_catalog.default_database.f4 as '${HERE}#addOne'`;
    const drop = 'drop temporary function default_catalog.default_database.f4';
    await run(tEnv, create);
    expect(tEnv.listFunctions()).toContain('F4');
    tEnv.executeSql(drop);
    expect(tEnv.listFunctions()).not.toContain('F4');
    tEnv.executeSql(create);
    expect(() => tEnv.executeSql(create)).toThrow(
      "a function named 'default_catalog.default_database.f4' already exists",
    );
    // testCreateTemporaryCatalogFunction's IF NOT EXISTS: the existing function stays.
    tEnv.executeSql(create.replace('function', 'function if not exists'));
    expect(tEnv.listFunctions().filter((f) => f === 'F4')).toHaveLength(1);
    tEnv.executeSql(drop);
    tEnv.executeSql('drop temporary function if exists default_catalog.default_database.f4');
    expect(() => tEnv.executeSql(drop)).toThrow(
      "function 'default_catalog.default_database.f4' does not exist",
    );
  });

  it('testCreateTemporarySystemFunction (without IF NOT EXISTS), testDropTemporarySystemFunction', async () => {
    const { tEnv } = environment();
    await run(tEnv, `create temporary system function f5 as '${HERE}#addOne'`);
    expect(tEnv.listFunctions()).toContain('F5');
    tEnv.executeSql('drop temporary system function f5');
    tEnv.executeSql('drop temporary system function if exists f5');
    expect(() => tEnv.executeSql('drop temporary system function f5')).toThrow(
      "function 'f5' does not exist",
    );
  });

  it('testCreateTemporarySystemFunctionByUsingJar, testCreateTemporarySystemFunctionWithTableAPI, testCreateCatalogFunctionByUsingJar, testCreateTemporaryCatalogFunctionByUsingJar', async () => {
    const { tEnv } = environment();
    await run(
      tEnv,
      `CREATE TEMPORARY SYSTEM FUNCTION f10 AS '${HERE}#lowerUdf';
       CREATE FUNCTION default_database.f11 AS '${HERE}#lowerUdf' LANGUAGE TYPESCRIPT;
       CREATE TEMPORARY FUNCTION default_database.f12 AS '${HERE}#lowerUdf'`,
    );
    tEnv.createTemporarySystemFunction('f13', lowerUdf);
    expect(tEnv.listFunctions()).toEqual(['F10', 'F11', 'F12', 'F13']);
    expect(tEnv.executeSql('SHOW USER FUNCTIONS').results[0]?.rows).toEqual([
      ['F10'],
      ['F11'],
      ['F12'],
      ['F13'],
    ]);
    tEnv.executeSql(`DROP TEMPORARY SYSTEM FUNCTION f10;
      DROP FUNCTION default_database.f11;
      DROP TEMPORARY FUNCTION default_database.f12;
      DROP TEMPORARY SYSTEM FUNCTION f13`);
    expect(tEnv.listFunctions()).toEqual([]);
  });

  it('testDropFunctionNonExists, testDropTemporaryFunctionNonExits', () => {
    const { tEnv } = environment();
    for (const temporary of ['', 'TEMPORARY ']) {
      expect(() =>
        tEnv.executeSql(`DROP ${temporary}FUNCTION default_catalog.default_database.f4`),
      ).toThrow("function 'default_catalog.default_database.f4' does not exist");
      expect(() =>
        tEnv.executeSql(`DROP ${temporary}FUNCTION catalog1.default_database.f4`),
      ).toThrow("catalog 'catalog1' does not exist");
      expect(() => tEnv.executeSql(`DROP ${temporary}FUNCTION default_catalog.db1.f4`)).toThrow(
        "database 'db1' does not exist in catalog 'default_catalog'",
      );
    }
  });

  it('testCreateDropTemporaryCatalogFunctionsWithDifferentIdentifier (its unqualified part)', async () => {
    const { tEnv } = environment();
    await run(tEnv, `create temporary function f4 as '${HERE}#addOne'`);
    tEnv.executeSql('drop temporary function f4');
    expect(tEnv.listFunctions()).toEqual([]);
  });
});

describe("Flink's FunctionITCase: scalar functions", () => {
  const T1 = valuesTable('t1', 'a INT, b STRING, c INT', [
    [1, '1000', 2],
    [2, '1', 3],
    [3, '2000', 4],
    [1, '2', 2],
    [2, '3000', 3],
  ]);

  it.each([
    ['testUserDefinedRegularCatalogFunction', 'create function addOne'],
    ['testUserDefinedTemporaryCatalogFunction', 'create temporary function addOne'],
    ['testUserDefinedTemporarySystemFunction', 'create temporary system function addOne'],
  ])('%s', async (_, create) => {
    const setup = `${T1} ${create} as '${HERE}#addOne';`;
    await load(setup);
    expect(await changes(setup, 'select t1.a, t1.b, addOne(t1.a, 1) as c from t1')).toEqual([
      '+I(1,1000,2)',
      '+I(2,1,3)',
      '+I(3,2000,4)',
      '+I(1,2,2)',
      '+I(2,3000,3)',
    ]);
    const { tEnv } = environment();
    tEnv.executeSql(setup);
    tEnv.executeSql(`drop table t1; ${create.replace('create', 'drop')}`);
    expect(tEnv.listFunctions()).toEqual([]);
  });

  const NAMES = valuesTable('t1', 'a int, b varchar', [
    [1, 'JARK'],
    [2, 'RON'],
    [3, 'LeoNard'],
    [1, 'FLINK'],
    [2, 'CDC'],
  ]);
  const LOWERED = ['+I(1,jark)', '+I(2,ron)', '+I(3,leonard)', '+I(1,flink)', '+I(2,cdc)'];

  it.each([
    ['testUserDefinedTemporarySystemFunctionByUsingJar', 'create temporary system function'],
    ['testUserDefinedRegularCatalogFunctionByUsingJar', 'create function'],
    ['testUserDefinedTemporaryCatalogFunctionByUsingJar', 'create temporary function'],
  ])('%s', async (_, create) => {
    const setup = `${NAMES} ${create} lowerUdf as '${HERE}#lowerUdf';`;
    await load(setup);
    expect(await changes(setup, 'select a, lowerUdf(b) from t1')).toEqual(LOWERED);
  });

  it('testUserDefinedTemporarySystemFunctionWithTableAPI, testUserDefinedCatalogFunctionWithTableAPI', async () => {
    expect(
      await changes(NAMES, 'select a, lowerUdf(b) from t1', {
        tables: functions({ lowerUdf }),
      }),
    ).toEqual(LOWERED);
  });

  it('testExpressionReducerByUsingJar', async () => {
    const setup = `create temporary function lowerUdf as '${HERE}#lowerUdf';`;
    await load(setup);
    expect(await changes(setup, "SELECT lowerUdf('HELLO')")).toEqual(['+I(hello)']);
  });

  it('testPrimitiveScalarFunction', async () => {
    const setup = valuesTable('TestTable', 'i INT NOT NULL, b BIGINT NOT NULL, s STRING', [
      [1, 1, '-'],
      [2, 2, '--'],
      [3, 3, '---'],
    ]);
    expect(
      await changes(setup, 'SELECT i, PrimitiveScalarFunction(i, b, s), s FROM TestTable', {
        tables: functions({ PrimitiveScalarFunction: primitiveScalarFunction }),
      }),
    ).toEqual(['+I(1,3,-)', '+I(2,6,--)', '+I(3,9,---)']);
  });

  it('testRowScalarFunction', async () => {
    const setup = valuesTable('TestTable', 'i INT, r ROW<i INT, s STRING>', [
      [1, [1, '1']],
      [2, [2, '2']],
      [3, [3, '3']],
    ]);
    const tables = functions({ RowScalarFunction: rowScalarFunction });
    const [source, result] = await runScenario(
      setup,
      ['SELECT i, r FROM TestTable', 'SELECT i, RowScalarFunction(r) FROM TestTable'],
      { parallelism: 1, tables },
    );
    // The function's rows are the source's.
    expect(result?.changes).toEqual(source?.changes);
    expect(result?.changes).toEqual(['+I(1,(1, 1))', '+I(2,(2, 2))', '+I(3,(3, 3))']);
  });

  it('testTimestampNotNull', async () => {
    const setup = valuesTable(
      'SourceTable',
      'i INT, ts AS CAST(LOCALTIMESTAMP AS TIMESTAMP(3)), WATERMARK FOR ts AS ts',
      [[1], [2]],
    );
    const rows = await scenarioRows(setup, 'SELECT MyYear(ts) FROM SourceTable', {
      tables: functions({ MyYear: myYear }),
    });
    expect(rows).toHaveLength(2);
    for (const year of rows) expect(Number(year)).toBeGreaterThanOrEqual(2024);
  });

  it('testIsNullType', async () => {
    const setup = valuesTable('SourceTable', 'i INT', [[1], [null]]);
    expect(
      await changes(
        setup,
        'SELECT BoolToInt(i is null), BoolToInt(i is not null) FROM SourceTable',
        {
          tables: functions({ BoolToInt: boolToInt }),
        },
      ),
    ).toEqual(['+I(0,1)', '+I(1,0)']);
  });

  it('testWithBoolNotNullTypeHint', async () => {
    const setup = valuesTable('SourceTable', 'x INT NOT NULL, y INT', [
      [1, 2],
      [2, 3],
    ]);
    expect(
      await changes(setup, 'SELECT BoolEcho(x=1 and y is null) FROM SourceTable', {
        tables: functions({ BoolEcho: boolEcho }),
      }),
    ).toEqual(['+I(false)', '+I(false)']);
  });

  it('testUdfWithMultiLocalVariables', async () => {
    const setup = valuesTable('SourceTable', 'x BIGINT, y BIGINT', [
      [1, 2],
      [2, 3],
    ]);
    expect(
      await changes(setup, 'SELECT MultiLocalVariables(x, y) FROM SourceTable', {
        tables: functions({ MultiLocalVariables: multiLocalVariables }),
      }),
    ).toEqual(['+I(2)', '+I(6)']);
  });

  it('testHavingScopeRawTypeCast (batch), its argument an INT', async () => {
    const setup = valuesTable('Source', 'i INT', [[1], [2], [3], [4], [5]]);
    expect(
      await scenarioRows(setup, 'SELECT SUM(i) AS s FROM Source HAVING CustomIntUdf(NULL) = 0', {
        tables: functions({ CustomIntUdf: customIntUdf }),
      }),
    ).toEqual(['15']);
  });

  it('testInvalidUseOfScalarFunction, testInvalidUseOfSystemScalarFunction', () => {
    const { tEnv } = environment();
    tEnv.createTemporarySystemFunction('PrimitiveScalarFunction', primitiveScalarFunction);
    expect(() => tEnv.sqlQuery("SELECT * FROM TABLE(PrimitiveScalarFunction(1, 2, '3'))")).toThrow(
      'unknown table function PRIMITIVESCALARFUNCTION',
    );
    expect(() => tEnv.sqlQuery("SELECT * FROM TABLE(MD5('3'))")).toThrow(
      'unknown table function MD5',
    );
  });
});

describe("Flink's FunctionITCase: table functions", () => {
  it('testRowTableFunction: a NULL row is skipped', async () => {
    const setup = valuesTable('SourceTable', 's STRING', [['1,2,3'], ['2,3,4'], ['3,4,5'], [null]]);
    expect(
      await changes(
        setup,
        'SELECT t.s, t.sa FROM SourceTable source, LATERAL TABLE(RowTableFunction(source.s)) t',
        { tables: functions({ RowTableFunction: rowTableFunction }) },
      ),
    ).toEqual(['+I(1,2,3,[1, 2, 3])', '+I(2,3,4,[2, 3, 4])', '+I(3,4,5,[3, 4, 5])']);
  });

  it('testStructuredTableFunction: a NULL row is skipped, a row of NULL fields is not', async () => {
    const setup = valuesTable('SourceTable', 's STRING, i INT NOT NULL', [
      ['Bob', 42],
      ['Alice', 12],
      [null, 0],
    ]);
    expect(
      await changes(
        setup,
        'SELECT t.name, t.age FROM SourceTable, LATERAL TABLE(StructuredTableFunction(s, i)) t',
        { tables: functions({ StructuredTableFunction: structuredTableFunction }) },
      ),
    ).toEqual(['+I(Bob,42)', '+I(Alice,12)', '+I(null,0)']);
  });

  it('testDynamicCatalogTableFunction: a NULL of an atomic result is a row', async () => {
    const rows = await scenarioRows(
      '',
      `SELECT T1.s FROM TABLE(DynamicStringFunction('Test')) AS T1(s)
       UNION ALL
       SELECT CAST(T2.i AS STRING) FROM TABLE(DynamicIntFunction(42)) AS T2(i)
       UNION ALL
       SELECT CAST(T3.i AS STRING) FROM LATERAL TABLE(DynamicIntFunction(CAST(NULL AS INT))) AS T3(i)`,
      {
        tables: functions({
          DynamicStringFunction: dynamicStringFunction,
          DynamicIntFunction: dynamicIntFunction,
        }),
      },
    );
    expect(rows).toEqual(['42', 'Test is a string', 'null']);
  });

  it('testInvalidUseOfTableFunction', () => {
    const { tEnv } = environment();
    tEnv.createTemporarySystemFunction('RowTableFunction', rowTableFunction);
    expect(() => tEnv.sqlQuery("SELECT RowTableFunction('test')")).toThrow(
      'ROWTABLEFUNCTION is a table function: it is called in FROM, with LATERAL TABLE(ROWTABLEFUNCTION(...)), not as a scalar function',
    );
  });
});

describe("Flink's FunctionITCase: aggregate functions", () => {
  it('testAggregateFunction: two functions in a tumbling group window', async () => {
    const setup = valuesTable(
      'SourceTable',
      "ts TIMESTAMP(3), s STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND",
      [
        [Date.UTC(2007, 11, 3, 10, 15, 30), 'Bob'],
        [Date.UTC(2007, 11, 3, 10, 15, 30), 'Alice'],
        [Date.UTC(2007, 11, 3, 10, 15, 30), null],
        [Date.UTC(2007, 11, 3, 10, 15, 30), 'Jonathan'],
        [Date.UTC(2007, 11, 3, 10, 15, 32), 'Bob'],
        [Date.UTC(2007, 11, 3, 10, 15, 32), 'Alice'],
      ],
    );
    expect(
      await changes(
        setup,
        `SELECT LongestStringAggregateFunction(s), RawMapViewAggregateFunction(s)
         FROM SourceTable GROUP BY TUMBLE(ts, INTERVAL '1' SECOND)`,
        {
          tables: functions({
            LongestStringAggregateFunction: longestStringAggregateFunction,
            RawMapViewAggregateFunction: rawMapViewAggregateFunction,
          }),
        },
      ),
    ).toEqual([
      '+I(Jonathan,Alice=(Alice, 5), Bob=(Bob, 3), Jonathan=(Jonathan, 8))',
      '+I(Alice,Alice=(Alice, 5), Bob=(Bob, 3))',
    ]);
  });
});

describe("Flink's function resolution order", () => {
  it('a temporary system function shadows the built-in function of its name, until it is dropped', async () => {
    const shout = defineScalarFunction({
      arguments: ['STRING'],
      result: 'STRING',
      eval: (s: string | null) => (s === null ? null : `${s}!`),
    });
    const setup = valuesTable('T', 's STRING', [['a'], [null]]);
    expect(
      await changes(setup, 'SELECT UPPER(s), LOWER(s) FROM T', {
        tables: functions({ upper: shout }),
      }),
    ).toEqual(['+I(a!,a)', '+I(null,null)']);
    expect(
      await changes(`${setup} DROP TEMPORARY SYSTEM FUNCTION upper;`, 'SELECT UPPER(s) FROM T', {
        tables: functions({ upper: shout }),
      }),
    ).toEqual(['+I(A)', '+I(null)']);
  });
});
