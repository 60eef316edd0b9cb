/**
 * TIMESTAMP(p) and TIMESTAMP_LTZ(p) above p = 3, held as epoch nanoseconds: text round trips and
 * order against plain oracles (bigint arithmetic on the fields), casts between precisions, a
 * streaming GROUP BY, MIN / MAX and ORDER BY ... LIMIT equal to a batch computation, the json
 * and csv texts, and the refusal of a rowtime above p = 3 (Flink's rule).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { fromJson, toJsonText, toText } from '../../src/sql/connectors/formats/field-values.js';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import {
  formatTimestampNanos,
  millisOfNanos,
  parseTimestampNanos,
  truncateNanos,
} from '../../src/sql/expressions/functions/precise-time.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { type LogicalType, T } from '../../src/sql/types/logical-type.js';
import { toDisplayString } from '../../src/sql/types/values.js';

const scope = new Scope([{ name: 's', type: T.string(), qualifier: 't', rowtime: false }]);
const evaluate = (sql: string, s: string | null = null): unknown =>
  compileScalar(parseExpression(sql), scope).fn([s]);

/** Epoch nanoseconds from 1900 to 2100. */
const nanos = fc.bigInt(-2_208_988_800_000_000_000n, 4_102_444_800_000_000_000n);

/** The text of `n` computed from its fields by plain bigint arithmetic and Date. */
function oracleText(n: bigint, precision: number): string {
  const second = n >= 0n ? n / 1_000_000_000n : -((-n + 999_999_999n) / 1_000_000_000n);
  const fraction = String(n - second * 1_000_000_000n).padStart(9, '0');
  const iso = new Date(Number(second) * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${fraction.slice(0, precision)}`;
}

describe('TIMESTAMP(p > 3) values', () => {
  it('text keeps every digit, and the order of values is the order of their texts', () => {
    fc.assert(
      fc.property(nanos, nanos, fc.integer({ min: 4, max: 9 }), (a, b, p) => {
        const text = formatTimestampNanos(a, 9);
        expect(text).toBe(oracleText(a, 9));
        expect(parseTimestampNanos(text)).toBe(a);
        expect(formatTimestampNanos(truncateNanos(a, p), p)).toBe(oracleText(a, p));
        const other = formatTimestampNanos(b, 9);
        expect(a < b).toBe(text < other);
        expect(millisOfNanos(a)).toBe(Date.parse(`${oracleText(a, 3).replace(' ', 'T')}Z`));
      }),
    );
  });

  it('casts as Flink: lower precision cuts the digits, milliseconds round down', () => {
    const text = '1969-12-31 23:59:59.987654321';
    expect(evaluate('CAST(CAST(s AS TIMESTAMP(6)) AS STRING)', text)).toBe(
      '1969-12-31 23:59:59.987654',
    );
    expect(evaluate('CAST(s AS TIMESTAMP(9))', text)).toBe(-12_345_679n);
    expect(evaluate('CAST(CAST(s AS TIMESTAMP(9)) AS TIMESTAMP(3))', text)).toBe(-13);
    expect(evaluate("CAST(TIMESTAMP '2024-01-01 10:00:00.5' AS TIMESTAMP(6))")).toBe(
      1_704_103_200_500_000_000n,
    );
    expect(evaluate('EXTRACT(MICROSECOND FROM CAST(s AS TIMESTAMP(9)))', text)).toBe(987_654);
    expect(evaluate("CAST(CAST(s AS TIMESTAMP(7)) + INTERVAL '1' MONTH AS STRING)", text)).toBe(
      '1970-01-31 23:59:59.9876543',
    );
    expect(evaluate('CAST(s AS TIMESTAMP(6)) > CAST(s AS TIMESTAMP(3))', text)).toBe(true);
    expect(evaluate('TRY_CAST(s AS TIMESTAMP(6))', '2024-02-30 00:00:00.1234')).toBe(null);
  });

  it('json, csv and print texts keep the digits', () => {
    const t6: LogicalType = T.timestamp(6);
    const ltz: LogicalType = { kind: 'TIMESTAMP_LTZ', nullable: true, precision: 9 };
    const v = fromJson('2024-01-01 10:00:00.1234567', t6, 'x');
    expect(v).toBe(1_704_103_200_123_456_000n);
    expect(toJsonText(v, t6)).toBe('"2024-01-01 10:00:00.123456"');
    expect(toText(fromJson('2024-01-01T10:00:00.000000001Z', ltz, 'x'), ltz)).toBe(
      '2024-01-01T10:00:00.000000001Z',
    );
    expect(fromJson(1_704_103_200_001, t6, 'x')).toBe(1_704_103_200_001_000_000n);
    expect(toDisplayString(1_704_103_200_120_000_000n, t6)).toBe('2024-01-01T10:00:00.120');
    expect(toDisplayString(1_704_103_200_000_100_000n, t6)).toBe('2024-01-01T10:00:00.000100');
    expect(toDisplayString(1_704_103_200_000_000_000n, t6)).toBe('2024-01-01T10:00');
  });
});

describe('TIMESTAMP(6) in streaming queries', () => {
  const texts = Array.from({ length: 40 }, (_, i) => {
    const micros = String((i * 7919) % 1_000_000).padStart(6, '0');
    return [i, `k${i % 3}`, `2024-01-0${1 + (i % 2)} 10:00:0${i % 5}.${micros}`] as Row;
  });

  async function run(sql: string, parallelism: number): Promise<Map<string, number>> {
    const env = new StreamEnvironment({ parallelism });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('e', env.fromArray(texts, 'e'), {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'k', type: 'STRING' },
        { name: 's', type: 'STRING' },
      ],
    });
    const table = tEnv.sqlQuery(sql);
    const sink = new CollectSink<Change<Row>>();
    table.toChangelogStream().sinkTo(sink);
    await env.execute('precise timestamps');
    const rows = new Map<string, number>();
    for (const c of sink.values) {
      const key = JSON.stringify(table.toJson(c.value));
      rows.set(key, (rows.get(key) ?? 0) + (c.kind === '+I' || c.kind === '+U' ? 1 : -1));
    }
    for (const [k, n] of rows) if (n === 0) rows.delete(k);
    return rows;
  }

  const x = (s: string): bigint => parseTimestampNanos(s) as bigint;
  const byKey = new Map<string, bigint[]>();
  for (const [, k, s] of texts)
    byKey.set(k as string, [...(byKey.get(k as string) ?? []), x(s as string)]);

  it.each([1, 2])(
    'GROUP BY a TIMESTAMP(6) key, MIN and MAX equal a batch computation (parallelism %i)',
    async (p) => {
      const rows = await run(
        'SELECT k, CAST(MIN(x) AS STRING), MAX(x), COUNT(DISTINCT x) FROM (SELECT k, CAST(s AS TIMESTAMP(6)) AS x FROM e) GROUP BY k',
        p,
      );
      const expected = new Map<string, number>();
      for (const [k, values] of byKey) {
        const sorted = [...values].sort((a, b) => (a < b ? -1 : 1));
        const max = sorted[sorted.length - 1] as bigint;
        const min = formatTimestampNanos(sorted[0] as bigint, 6);
        expected.set(JSON.stringify([k, min, String(max), new Set(values).size]), 1);
      }
      expect(rows).toEqual(expected);
      const keyed = await run(
        'SELECT CAST(x AS STRING), COUNT(*) FROM (SELECT CAST(CAST(s AS TIMESTAMP(6)) AS TIMESTAMP(4)) AS x FROM e) GROUP BY x',
        p,
      );
      const counts = new Map<string, number>();
      for (const [, , s] of texts) {
        const text = formatTimestampNanos(truncateNanos(x(s as string), 4), 4);
        counts.set(text, (counts.get(text) ?? 0) + 1);
      }
      expect(keyed).toEqual(new Map([...counts].map(([t, n]) => [JSON.stringify([t, n]), 1])));
    },
  );

  it('ORDER BY a TIMESTAMP(6) ... LIMIT keeps the latest rows by their microseconds', async () => {
    const rows = await run(
      'SELECT id, x FROM (SELECT id, CAST(s AS TIMESTAMP(6)) AS x FROM e) ORDER BY x DESC LIMIT 5',
      1,
    );
    const latest = [...texts]
      .sort((a, b) => (x(a[2] as string) > x(b[2] as string) ? -1 : 1))
      .slice(0, 5)
      .map((r) => [JSON.stringify([r[0], String(x(r[2] as string))]), 1] as const);
    expect(rows).toEqual(new Map(latest));
  });

  it('refuses a rowtime above precision 3, as Flink', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(
      "CREATE TABLE r (ts TIMESTAMP(6), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')",
    );
    expect(() => tEnv.sqlQuery('SELECT * FROM r')).toThrow(/p from 0 to 3, got TIMESTAMP\(6\)/);
  });
});
