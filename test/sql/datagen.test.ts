/**
 * The SQL `datagen` connector against Flink's semantics: random values within the inclusive
 * [min, max] of each type (reals for DOUBLE, FLOAT and DECIMAL), sequence columns that bound
 * the source, durations for max-past, and bad per-column option values refused.
 */
import { describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';

async function rows(ddl: string, query: string, parallelism = 1): Promise<Row[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(query).toDataStream().sinkTo(sink);
  await env.execute('datagen');
  return sink.values;
}

function refusal(ddl: string): string {
  const tEnv = TableEnvironment.create(new StreamEnvironment());
  try {
    tEnv.executeSql(ddl);
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
}

const column = (got: Row[], i: number): unknown[] => got.map((r) => r[i]);

describe('datagen random values', () => {
  it('stay within the inclusive [min, max] of each type', async () => {
    const got = await rows(
      `CREATE TABLE t (b BIGINT, i INT, d DOUBLE, f FLOAT, m DECIMAL(10, 2)) WITH (
        'connector' = 'datagen', 'number-of-rows' = '2000', 'rows-per-second' = '1000000',
        'fields.b.min' = '1', 'fields.b.max' = '3',
        'fields.i.min' = '-2', 'fields.i.max' = '2',
        'fields.d.min' = '0.5', 'fields.d.max' = '1.5',
        'fields.f.min' = '0.1', 'fields.f.max' = '0.2',
        'fields.m.min' = '0.1', 'fields.m.max' = '0.2')`,
      'SELECT * FROM t',
      2,
    );
    expect(got).toHaveLength(2000);
    // Every value of a small integer range appears, and none beyond it.
    expect(new Set(column(got, 0))).toEqual(new Set([1, 2, 3]));
    expect(new Set(column(got, 1))).toEqual(new Set([-2, -1, 0, 1, 2]));
    const doubles = column(got, 2) as number[];
    expect(doubles.every((x) => x >= 0.5 && x <= 1.5)).toBe(true);
    expect(doubles.filter((x) => !Number.isInteger(x)).length).toBeGreaterThan(1900);
    expect(Math.min(...doubles)).toBeLessThan(0.6);
    expect(Math.max(...doubles)).toBeGreaterThan(1.4);
    const floats = column(got, 3) as number[];
    expect(floats.every((x) => x >= 0.1 && x <= 0.2)).toBe(true);
    expect(new Set(floats).size).toBeGreaterThan(1000);
    // DECIMAL(10, 2) values are unscaled bigints: cents from 10 to 20, each one appearing.
    const cents = column(got, 4) as bigint[];
    expect(new Set(cents)).toEqual(new Set(Array.from({ length: 11 }, (_, k) => BigInt(10 + k))));
  });

  it('keeps DECIMAL values to bounds that are not on the scale', async () => {
    const got = await rows(
      `CREATE TABLE t (m DECIMAL(6, 2)) WITH ('connector' = 'datagen', 'number-of-rows' = '500',
        'rows-per-second' = '1000000', 'fields.m.min' = '-1.005', 'fields.m.max' = '1.019')`,
      'SELECT m FROM t',
    );
    const cents = column(got, 0) as bigint[];
    expect(cents.every((c) => c >= -100n && c <= 101n)).toBe(true);
    expect(cents).toContain(-100n);
    expect(cents).toContain(101n);
  });

  it("reads max-past as a Flink duration ('5 s', '5000 ms', a bare number of ms)", async () => {
    for (const past of ['5 s', '5000 ms', '5000']) {
      const before = Date.now();
      const got = await rows(
        `CREATE TABLE t (ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '200',
          'rows-per-second' = '1000000', 'fields.ts.max-past' = '${past}')`,
        'SELECT ts FROM t',
      );
      const after = Date.now();
      const times = column(got, 0) as number[];
      expect(times.every((t) => t >= before - 5000 && t <= after)).toBe(true);
      // Spread over the whole 5 seconds, not all "now".
      expect(Math.min(...times)).toBeLessThan(before - 3000);
    }
    expect(
      refusal(`CREATE TABLE t (ts TIMESTAMP(3)) WITH ('connector' = 'datagen',
        'fields.ts.max-past' = '1 min')`),
    ).toBe('accepted');
  });
});

describe('datagen sequences', () => {
  it('end the source after the sequence, without number-of-rows', async () => {
    const got = await rows(
      `CREATE TABLE t (id BIGINT, s STRING) WITH ('connector' = 'datagen',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10')`,
      'SELECT id FROM t',
      2,
    );
    expect((column(got, 0) as number[]).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
  }, 20_000);

  it('end with the shortest sequence, or number-of-rows when smaller', async () => {
    const twoSequences = await rows(
      `CREATE TABLE t (a INT, b INT) WITH ('connector' = 'datagen',
        'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '10',
        'fields.b.kind' = 'sequence', 'fields.b.start' = '5', 'fields.b.end' = '7')`,
      'SELECT a, b FROM t',
    );
    expect(twoSequences).toEqual([
      [1, 5],
      [2, 6],
      [3, 7],
    ]);
    const limited = await rows(
      `CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '4',
        'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '10')`,
      'SELECT a FROM t',
    );
    expect(limited).toEqual([[1], [2], [3], [4]]);
    const longer = await rows(
      `CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '40',
        'fields.a.kind' = 'sequence', 'fields.a.start' = '0', 'fields.a.end' = '2')`,
      'SELECT a FROM t',
    );
    expect(longer).toEqual([[0], [1], [2]]);
  }, 20_000);
});

describe('datagen option values', () => {
  const table = (options: string) =>
    `CREATE TABLE t (b INT, d DOUBLE, s STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', ${options})`;

  it('refuses bad values with the option, its value and its place', () => {
    const ddl = table("'fields.b.min' = 'one'");
    // The place is the option's key.
    expect(refusal(ddl)).toBe(
      `line 1, column ${ddl.indexOf("'fields.b.min'") + 1}: option 'fields.b.min' must be a whole number, got 'one'`,
    );
    expect(refusal(table("'fields.b.max' = '2.5'"))).toMatch(
      /^line 1, column \d+: option 'fields.b.max' must be a whole number, got '2.5'$/,
    );
    expect(refusal(table("'fields.d.max' = 'lots'"))).toMatch(
      /option 'fields.d.max' must be a number, got 'lots'$/,
    );
    expect(refusal(table("'fields.s.length' = 'ten'"))).toMatch(
      /^line 1, column \d+: option 'fields.s.length' must be a whole number >= 0, got 'ten'$/,
    );
    expect(refusal(table("'fields.ts.max-past' = '5 parsecs'"))).toMatch(
      /option 'fields.ts.max-past' must be a duration such as '5000 ms', '5 s' or '1 min', got '5 parsecs'$/,
    );
    expect(refusal(table("'fields.s.null-rate' = '2'"))).toMatch(
      /option 'fields.s.null-rate' must be a number between 0 and 1, got '2'$/,
    );
    expect(
      refusal(table("'fields.b.kind' = 'sequence', 'fields.b.start' = 'a', 'fields.b.end' = '3'")),
    ).toMatch(/option 'fields.b.start' must be a whole number, got 'a'$/);
  });

  it('refuses an empty range', () => {
    expect(refusal(table("'fields.b.min' = '5', 'fields.b.max' = '3'"))).toBe(
      "line 1, column 1: datagen: 'fields.b.min' (5) is greater than 'fields.b.max' (3)",
    );
    expect(
      refusal(table("'fields.b.kind' = 'sequence', 'fields.b.start' = '5', 'fields.b.end' = '3'")),
    ).toBe("line 1, column 1: datagen: 'fields.b.start' (5) is greater than 'fields.b.end' (3)");
  });
});
