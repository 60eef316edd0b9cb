/**
 * Result types and values of ROW constructors over precise time values, of MOD and `%`, and of
 * ROUND of a DECIMAL, each case with Flink's value and Flink's type. Where they come from:
 *
 * - ROW: RowFunctionITCase (`ROW(f0, f1)` is a `ROW<EXPR$0 ..., EXPR$1 ...> NOT NULL` of its
 *   arguments' types) and Calcite's SqlRowOperator, which Flink's FlinkSqlOperatorTable.ROW is:
 *   a field keeps its argument's type, so a TIMESTAMP(6), TIMESTAMP_LTZ(6) or TIME(p) field
 *   keeps its precision and value, as ARRAY[...] and MAP[...] do (CollectionFunctionsITCase,
 *   MapFunctionITCase).
 * - MOD and `%`: FlinkSqlOperatorTable.MOD and PERCENT_REMAINDER are Calcite's, typed by
 *   ReturnTypes.NULLABLE_MOD (`%` too since CALCITE-5410, Calcite 1.33; Flink 2.2.1's `m % 7`
 *   of a DECIMAL(10, 2) is a DECIMAL, 1.03, in the differential suite's recorded answers): the
 *   second operand's type for two integers, else FlinkTypeSystem.deriveDecimalModType, the
 *   second operand's type again when both scales are 0 (an integer's is 0) and otherwise
 *   LogicalTypeMerging.findModuloDecimalType (scale max(s1, s2), precision
 *   min(p1 - s1, p2 - s2) + scale, an INT counting as DECIMAL(10, 0)). The operands must be
 *   exact numbers (OperandTypes.EXACT_NUMERIC_EXACT_NUMERIC, and Flink's validator coerces no
 *   types: FlinkPlannerImpl), so a DOUBLE is refused. Values: MathFunctionsITCase (MOD) and
 *   DecimalTypeTest.testMod (signs as Java's `%`).
 * - ROUND: FlinkReturnTypes.ROUND_FUNCTION (no second argument is 0 digits) with
 *   LogicalTypeMerging.findRoundDecimalType: r >= s keeps DECIMAL(p, s), r < 0 is
 *   DECIMAL(min(38, 1 + p - s), 0), else DECIMAL(1 + p - s + r, r). Values HALF_UP:
 *   MathFunctionsITCase (ROUND) and DecimalTypeTest.testExactionFunctions. TRUNCATE has the
 *   same type inference (FlinkSqlOperatorTable.TRUNCATE).
 * Values are as Weir's `Table.display` shows them.
 *
 * Weir's deliberate difference: a ROUND that can carry a digit is nullable (overflow gives
 * NULL) where Flink keeps NOT NULL; a ROUND that keeps every digit (r >= s) keeps the
 * argument's nullability, as Flink.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

/** A column's SQL type and its value as a Weir row holds it. */
type Field = readonly [type: string, value: unknown];
/** An expression, its value as Weir displays it (null for NULL), and its type. */
type Case = readonly [sql: string, value: string | null, type: string];

const ms = (text: string): number => Date.parse(`${text}Z`);
/** 2017-07-14 02:40:00.123456 as a TIMESTAMP(6) or TIMESTAMP_LTZ(6) holds it. */
const MICROS = BigInt(ms('2017-07-14T02:40:00')) * 1_000_000n + 123_456_000n;
const TS6 = '2017-07-14T02:40:00.123456';
const timeOfDay = (h: number, m: number, s: number, millis = 0): number =>
  ((h * 60 + m) * 60 + s) * 1000 + millis;

function environment(fields: readonly Field[]): { env: StreamEnvironment; tEnv: TableEnvironment } {
  const env = new StreamEnvironment({ parallelism: 1 });
  const tEnv = TableEnvironment.create(env);
  const columns = fields.map(([type], i) => `f${i} ${type}`).join(', ');
  const id = registerValues([fields.map(([, value]) => value)]);
  tEnv.executeSql(
    `CREATE TABLE t (${columns}) WITH ('connector' = 'flink-values', 'data-id' = '${id}')`,
  );
  return { env, tEnv };
}

/** Every case as `sql = value : type`, Weir's answers from one SELECT over the one row. */
async function answers(fields: readonly Field[], cases: readonly Case[]): Promise<string[]> {
  const { env, tEnv } = environment(fields);
  const table = tEnv.sqlQuery(`SELECT ${cases.map(([sql]) => sql).join(', ')} FROM t`);
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  await env.execute('flink decimal and row typing');
  const [only] = sink.values;
  if (sink.values.length !== 1 || only === undefined) return [`${sink.values.length} rows`];
  const cells = table.display(only.value);
  return cases.map(
    ([sql], i) => `${sql} = ${cells[i] === '<NULL>' ? null : cells[i]} : ${table.columns[i]?.type}`,
  );
}

async function check(fields: readonly Field[], cases: readonly Case[]): Promise<void> {
  expect(await answers(fields, cases)).toEqual(
    cases.map(([sql, value, type]) => `${sql} = ${value} : ${type}`),
  );
}

/** The expressions Flink refuses at validation: Weir refuses them when planning. */
function checkRefused(fields: readonly Field[], expressions: readonly string[]): void {
  const { tEnv } = environment(fields);
  const outcome = (sql: string): string => {
    try {
      tEnv.sqlQuery(`SELECT ${sql} FROM t`);
      return `${sql}: accepted`;
    } catch {
      return `${sql}: refused`;
    }
  };
  expect(expressions.map(outcome)).toEqual(expressions.map((sql) => `${sql}: refused`));
}

beforeAll(registerValuesConnector);

describe('ROW keeps its arguments’ precise time types and values', () => {
  const fields: readonly Field[] = [
    ['TIMESTAMP(6) NOT NULL', MICROS],
    ['TIMESTAMP_LTZ(6) NOT NULL', MICROS],
    ['TIME(0)', timeOfDay(12, 34, 56)],
    ['TIME(3)', timeOfDay(12, 34, 56, 789)],
    ['ARRAY<TIMESTAMP(6)>', [MICROS]],
    ['MAP<STRING, TIMESTAMP(6)>', new Map([['k', MICROS]])],
    ['TIMESTAMP(9)', MICROS + 789n],
  ];

  it('ROW(...) and (...) of TIMESTAMP(6), TIMESTAMP_LTZ(6) and TIME(p)', () =>
    check(fields, [
      [
        'ROW(f0, f1)',
        `(${TS6}, ${TS6})`,
        'ROW<`EXPR$0` TIMESTAMP(6) NOT NULL, `EXPR$1` TIMESTAMP_LTZ(6) NOT NULL> NOT NULL',
      ],
      [
        '(f0, f6)',
        `(${TS6}, 2017-07-14T02:40:00.123456789)`,
        'ROW<`EXPR$0` TIMESTAMP(6) NOT NULL, `EXPR$1` TIMESTAMP(9)> NOT NULL',
      ],
      [
        'ROW(f2, f3)',
        '(12:34:56, 12:34:56.789)',
        'ROW<`EXPR$0` TIME(0), `EXPR$1` TIME(3)> NOT NULL',
      ],
    ]));

  it('ROW of an ARRAY and a MAP of TIMESTAMP(6), and of ARRAY[...] and MAP[...]', () =>
    check(fields, [
      [
        'ROW(f4, f5)',
        `([${TS6}], {k=${TS6}})`,
        'ROW<`EXPR$0` ARRAY<TIMESTAMP(6)>, `EXPR$1` MAP<STRING, TIMESTAMP(6)>> NOT NULL',
      ],
      [
        "ROW(ARRAY[f0], MAP['k', f0])",
        `([${TS6}], {k=${TS6}})`,
        'ROW<`EXPR$0` ARRAY<TIMESTAMP(6) NOT NULL> NOT NULL, `EXPR$1` MAP<CHAR(1) NOT NULL, TIMESTAMP(6) NOT NULL> NOT NULL> NOT NULL',
      ],
      [
        'ROW(ROW(f0), f1)',
        `((${TS6}), ${TS6})`,
        'ROW<`EXPR$0` ROW<`EXPR$0` TIMESTAMP(6) NOT NULL> NOT NULL, `EXPR$1` TIMESTAMP_LTZ(6) NOT NULL> NOT NULL',
      ],
    ]));
});

describe('MOD and % are one operation, typed as Flink types MOD', () => {
  const fields: readonly Field[] = [
    ['DECIMAL(19, 0)', 1514356320000n],
    ['BIGINT', 44],
    ['INT', 3],
    ['DECIMAL(10, 2)', 300n],
    ['DECIMAL(10, 4)', 50000n],
    ['INT', 7],
    ['DECIMAL(1, 0)', 3n],
    ['DECIMAL(1, 0)', 5n],
    ['DECIMAL(10, 4)', 31234n],
    ['DECIMAL(10, 2)', 500n],
    ['DOUBLE', 4.5],
    ['DECIMAL(5, 0) NOT NULL', 12345n],
    ['INT NOT NULL', 7],
    ['DECIMAL(6, 3) NOT NULL', 123456n],
    ['SMALLINT NOT NULL', 100],
  ];
  /** Each dividend and divisor as `MOD(x, y)` and as `x % y`: the same value and type. */
  const both = (
    pairs: readonly (readonly [x: string, y: string, value: string, type: string])[],
  ): Case[] =>
    pairs.flatMap(([x, y, value, type]): Case[] => [
      [`MOD(${x}, ${y})`, value, type],
      [`${x} % ${y}`, value, type],
    ]);

  it('MathFunctionsITCase MOD', () =>
    check(
      fields,
      both([
        ['f0', 'f0', '0', 'DECIMAL(19, 0)'],
        ['f0', '6', '0', 'INT'],
        ['f1', 'f2', '2', 'INT'],
      ]),
    ));

  it('DecimalTypeTest.testMod: scales and signs', () =>
    check(
      fields,
      both([
        ['f3', 'f4', '3.0000', 'DECIMAL(10, 4)'],
        ['f4', 'f3', '2.0000', 'DECIMAL(10, 4)'],
        ['f3', 'f5', '3.00', 'DECIMAL(10, 2)'],
        ['f5', 'f3', '1.00', 'DECIMAL(10, 2)'],
        ['f6', 'f7', '3', 'DECIMAL(1, 0)'],
        ['-f6', 'f7', '-3', 'DECIMAL(1, 0)'],
        ['f6', '-f7', '3', 'DECIMAL(1, 0)'],
        ['-f6', '-f7', '-3', 'DECIMAL(1, 0)'],
        ['f8', 'f9', '3.1234', 'DECIMAL(10, 4)'],
      ]),
    ));

  it('every exact pairing: the divisor’s type at scale 0, NOT NULL kept', () =>
    check(
      fields,
      both([
        ['f2', 'f0', '3', 'DECIMAL(19, 0)'],
        ['f0', 'f1', '40', 'BIGINT'],
        ['f2', 'f1', '3', 'BIGINT'],
        ['f11', 'f12', '4', 'INT NOT NULL'],
        ['f12', 'f11', '7', 'DECIMAL(5, 0) NOT NULL'],
        ['f11', 'f14', '45', 'SMALLINT NOT NULL'],
        ['f13', 'f12', '4.456', 'DECIMAL(6, 3) NOT NULL'],
        ['-f13', 'f12', '-4.456', 'DECIMAL(6, 3) NOT NULL'],
        ['f12', 'f13', '7.000', 'DECIMAL(6, 3) NOT NULL'],
      ]),
    ));

  it('a FLOAT or DOUBLE operand is refused, by MOD and by %', () =>
    checkRefused(fields, [
      'MOD(f10, f2)',
      'f10 % f2',
      'MOD(f2, f10)',
      'f2 % f10',
      'f10 % f10',
      'CAST(f2 AS FLOAT) % f2',
    ]));
});

describe('ROUND of a DECIMAL is typed by findRoundDecimalType', () => {
  const fields: readonly Field[] = [
    ['DECIMAL(10, 3)', 646646n],
    ['DECIMAL(4, 2)', 9999n],
    ['DECIMAL(38, 0)', 10n ** 38n - 1n],
    ['DECIMAL(10, 5) NOT NULL', 1234512345n],
    ['DECIMAL(5, 0) NOT NULL', 12345n],
    ['DECIMAL(2, 1) NOT NULL', 25n],
  ];

  it('DecimalTypeTest.testExactionFunctions: r below, at and above s, and negative', () =>
    check(fields, [
      ['ROUND(f0)', '647', 'DECIMAL(8, 0)'],
      ['ROUND(f0, 0)', '647', 'DECIMAL(8, 0)'],
      ['ROUND(f0, 1)', '646.6', 'DECIMAL(9, 1)'],
      ['ROUND(f0, 2)', '646.65', 'DECIMAL(10, 2)'],
      ['ROUND(f0, 3)', '646.646', 'DECIMAL(10, 3)'],
      ['ROUND(f0, 4)', '646.646', 'DECIMAL(10, 3)'],
      ['ROUND(f0, -1)', '650', 'DECIMAL(8, 0)'],
      ['ROUND(f0, -2)', '600', 'DECIMAL(8, 0)'],
      ['ROUND(f0, -3)', '1000', 'DECIMAL(8, 0)'],
      ['ROUND(f0, -4)', '0', 'DECIMAL(8, 0)'],
      ['ROUND(f1, 1)', '100.0', 'DECIMAL(4, 1)'],
      ['ROUND(-f1, 1)', '-100.0', 'DECIMAL(4, 1)'],
      ['ROUND(f1, -1)', '100', 'DECIMAL(3, 0)'],
      ['ROUND(-f1, -1)', '-100', 'DECIMAL(3, 0)'],
      ['ROUND(f2, -1)', null, 'DECIMAL(38, 0)'],
    ]));

  it('MathFunctionsITCase ROUND, NOT NULL arguments, HALF_UP', () =>
    check(fields, [
      // Flink's DECIMAL(8, 2) NOT NULL: nullable in Weir, where overflow gives NULL.
      ['ROUND(f3, 2)', '12345.12', 'DECIMAL(8, 2)'],
      ['ROUND(f3, 5)', '12345.12345', 'DECIMAL(10, 5) NOT NULL'],
      ['ROUND(f3, 7)', '12345.12345', 'DECIMAL(10, 5) NOT NULL'],
      ['ROUND(f4)', '12345', 'DECIMAL(5, 0) NOT NULL'],
      ['ROUND(f4, 2)', '12345', 'DECIMAL(5, 0) NOT NULL'],
      ['ROUND(f4, -2)', '12300', 'DECIMAL(6, 0)'],
      ['ROUND(f5)', '3', 'DECIMAL(2, 0)'],
      ['ROUND(-f5)', '-3', 'DECIMAL(2, 0)'],
    ]));

  it('TRUNCATE is typed as ROUND', () =>
    check(fields, [
      ['TRUNCATE(f0)', '646', 'DECIMAL(8, 0)'],
      ['TRUNCATE(f0, 1)', '646.6', 'DECIMAL(9, 1)'],
      ['TRUNCATE(f0, 4)', '646.646', 'DECIMAL(10, 3)'],
      ['TRUNCATE(f0, -1)', '640', 'DECIMAL(8, 0)'],
      ['TRUNCATE(f4)', '12345', 'DECIMAL(5, 0) NOT NULL'],
      ['TRUNCATE(f3, 2)', '12345.12', 'DECIMAL(8, 2) NOT NULL'],
    ]));
});
