/**
 * TypeScript scalar functions in SQL: registered from TypeScript and with CREATE FUNCTION,
 * called with arguments converted to their declared types, against a plain computation; and
 * the errors of a wrong call or definition.
 */
import { describe, expect, it } from 'vitest';
import {
  CollectSink,
  defineScalarFunction,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';

const SOURCE = `CREATE TABLE nums (n BIGINT, price DECIMAL(10, 2)) WITH (
  'connector' = 'datagen', 'number-of-rows' = '50',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '50',
  'fields.price.kind' = 'sequence', 'fields.price.start' = '100', 'fields.price.end' = '149')`;

/** 15% off, in cents, rounded half up: DECIMAL values are unscaled bigints. */
const discount = defineScalarFunction({
  arguments: ['DECIMAL(10, 2)', 'INT'],
  result: 'DECIMAL(10, 2)',
  eval: (price: bigint | null, percent: number | null) =>
    price === null || percent === null ? null : (price * BigInt(100 - percent) + 50n) / 100n,
});

async function rows(tEnv: TableEnvironment, env: StreamEnvironment, query: string): Promise<Row[]> {
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(query).toDataStream().sinkTo(sink);
  await env.execute('functions');
  return sink.values;
}

describe('user functions', () => {
  it('calls a function registered from TypeScript, with an INT literal widened as declared', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    tEnv.createTemporarySystemFunction('discount', discount);
    tEnv.executeSql(SOURCE);
    const got = await rows(tEnv, env, 'SELECT n, discount(price, 15) FROM nums WHERE n <= 20');
    const expected = Array.from({ length: 20 }, (_, i) => {
      const cents = BigInt((100 + i) * 100);
      return [i + 1, (cents * 85n + 50n) / 100n];
    });
    const order = (r: Row[]) => [...r].sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(order(got)).toEqual(expected);
  });

  it('loads CREATE FUNCTION modules and refuses wrong calls and definitions', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const script = `${SOURCE};
      CREATE TEMPORARY FUNCTION label AS 'test/sql/fixtures/functions.ts#label' LANGUAGE TYPESCRIPT`;
    await tEnv.loadFunctionModules(script);
    tEnv.executeSql(script);
    expect(tEnv.listFunctions()).toEqual(['LABEL']);
    const got = await rows(tEnv, env, 'SELECT LABEL(n) FROM nums WHERE n < 4');
    expect(got).toEqual([['odd-1'], ['even-2'], ['odd-3']]);

    expect(() => tEnv.sqlQuery('SELECT label(n, n) FROM nums')).toThrow(
      'line 1, column 8: LABEL takes 1 arguments (BIGINT), got 2',
    );
    expect(() => tEnv.sqlQuery("SELECT label('x') FROM nums")).toThrow(/argument 1 of LABEL/);
    const other = TableEnvironment.create(new StreamEnvironment());
    expect(() => other.executeSql("CREATE FUNCTION f AS 'com.example.F' LANGUAGE JAVA")).toThrow(
      'LANGUAGE JAVA: Weir runs TYPESCRIPT (or JAVASCRIPT) functions',
    );
    const bad = "CREATE FUNCTION g AS 'test/sql/fixtures/functions.ts#notAFunction'";
    await other.loadFunctionModules(bad);
    expect(() => other.executeSql(bad)).toThrow(
      "function 'g' must be made with defineScalarFunction",
    );
    await expect(
      other.loadFunctionModules("CREATE FUNCTION h AS 'test/sql/fixtures/functions.ts#nope'"),
    ).rejects.toThrow(/has no export 'nope'; it exports label, notAFunction/);
  });
});
