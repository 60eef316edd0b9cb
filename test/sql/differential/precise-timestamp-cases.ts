/**
 * TIMESTAMP(p) and TIMESTAMP_LTZ(p) above p = 3: literals, CASTs between precisions and from
 * and to text, comparisons with millisecond values, interval arithmetic, EXTRACT, GROUP BY keys,
 * MIN / MAX, ORDER BY ... LIMIT, a Top-N and the session zone. Values are shown through CAST to
 * STRING, which keeps every digit on both engines (the peer writes times as epoch ms).
 */
import type { SuiteCase } from './families.js';

/** Per row, `ts` with three more digits (microseconds) taken from its id: a TIMESTAMP(6). */
const MICROS =
  "CAST(CONCAT(CAST(ts AS STRING), LPAD(CAST(MOD(id * 37, 1000) AS STRING), 3, '0')) AS TIMESTAMP(6))";

/** Rows of `t` with `x`, a TIMESTAMP(6) with microseconds. */
const WITH_X = `(SELECT id, k, ts, ${MICROS} AS x FROM t)`;

export function preciseTimestampCases(): SuiteCase[] {
  const q = (name: string, sql: string, zone?: string): SuiteCase => ({
    name: `precise-${name}`,
    sql,
    ...(zone === undefined ? {} : { zone }),
  });
  return [
    q(
      'literals-and-text',
      "SELECT id, CAST(TIMESTAMP '2024-01-01 10:00:00.123456' AS STRING), CAST(TIMESTAMP '2024-01-01 10:00:00.123456789' AS STRING), CAST(CAST('2024-01-01 10:00:00.123456' AS TIMESTAMP(6)) AS STRING), CAST(CAST('2024-01-01 10:00:00.123456789' AS TIMESTAMP(6)) AS STRING), CAST(CAST('2024-01-01 10:00:00.5' AS TIMESTAMP(9)) AS STRING), TYPEOF(TIMESTAMP '2024-01-01 10:00:00.1234') FROM t WHERE id < 2",
    ),
    q(
      'precision-casts',
      "SELECT id, CAST(CAST(TIMESTAMP '1969-12-31 23:59:59.987654321' AS TIMESTAMP(6)) AS STRING), CAST(CAST(TIMESTAMP '1969-12-31 23:59:59.987654321' AS TIMESTAMP(3)) AS STRING), CAST(CAST(TIMESTAMP '1969-12-31 23:59:59.987654321' AS TIMESTAMP(0)) AS STRING), CAST(CAST(TIMESTAMP '2024-01-01 10:00:00.123' AS TIMESTAMP(9)) AS STRING), CAST(CAST(TIMESTAMP '2024-01-01 10:00:00.987654' AS DATE) AS STRING), CAST(CAST(TIMESTAMP '2024-01-01 10:00:00.987654' AS TIME) AS STRING) FROM t WHERE id < 2",
    ),
    q(
      'column-casts',
      `SELECT id, CAST(x AS STRING), CAST(CAST(x AS TIMESTAMP(3)) AS STRING), CAST(CAST(ts AS TIMESTAMP(6)) AS STRING), CAST(CAST(x AS TIMESTAMP(4)) AS STRING), TRY_CAST(CONCAT(k, '-01-01 00:00:00.1234567') AS TIMESTAMP(7)) IS NULL FROM ${WITH_X}`,
    ),
    q(
      'compare',
      `SELECT id, x > CAST(ts AS TIMESTAMP(6)), x = CAST(ts AS TIMESTAMP(6)), CAST(x AS TIMESTAMP(3)) = ts, x < ts, x BETWEEN ts AND ts + INTERVAL '0.001' SECOND, COALESCE(x, ts) = x, CAST(GREATEST(x, TIMESTAMP '2026-03-29 00:00:00.000500') AS STRING) FROM ${WITH_X}`,
    ),
    q(
      'where',
      `SELECT id, CAST(x AS STRING) FROM ${WITH_X} WHERE x > TIMESTAMP '2026-03-28 23:59:10.617370' AND x < TIMESTAMP '2026-03-28 23:59:30.000600'`,
    ),
    q(
      'interval-arithmetic',
      `SELECT id, CAST(x + INTERVAL '1' MONTH AS STRING), CAST(x - INTERVAL '1 02:03:04.005' DAY TO SECOND AS STRING), CAST(x + INTERVAL '1' YEAR AS STRING) FROM ${WITH_X}`,
    ),
    q(
      'extract',
      `SELECT id, EXTRACT(MICROSECOND FROM x), EXTRACT(NANOSECOND FROM x), EXTRACT(MILLISECOND FROM x), EXTRACT(SECOND FROM x), EXTRACT(MINUTE FROM x), EXTRACT(DAY FROM x) FROM ${WITH_X}`,
    ),
    q(
      'group-by-key',
      `SELECT CAST(g AS STRING), COUNT(*) FROM (SELECT CAST(CONCAT('2026-03-29 00:00:00.000', CAST(MOD(id, 3) AS STRING), '00') AS TIMESTAMP(6)) AS g FROM t) GROUP BY g`,
    ),
    q(
      'min-max',
      `SELECT k, CAST(MIN(x) AS STRING), CAST(MAX(x) AS STRING), COUNT(DISTINCT x) FROM ${WITH_X} GROUP BY k`,
    ),
    q(
      'order-by-limit',
      `SELECT id, CAST(x AS STRING) FROM (SELECT id, x FROM ${WITH_X} ORDER BY x DESC LIMIT 4)`,
    ),
    q(
      'top-n',
      `SELECT k, id, CAST(x AS STRING), rn FROM (SELECT k, id, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x) AS rn FROM ${WITH_X}) WHERE rn <= 2`,
    ),
    q(
      'ltz-in-zone',
      `SELECT id, CAST(CAST(x AS TIMESTAMP_LTZ(6)) AS STRING), CAST(CAST(CAST(x AS TIMESTAMP_LTZ(6)) AS TIMESTAMP(9)) AS STRING), CAST(CAST(x AS TIMESTAMP_LTZ(6)) = CAST(x AS TIMESTAMP_LTZ(3)) AS STRING), EXTRACT(HOUR FROM CAST(x AS TIMESTAMP_LTZ(6))) FROM ${WITH_X}`,
      'Asia/Kolkata',
    ),
    q(
      'ltz-text-in-zone',
      "SELECT id, CAST(CAST('2026-03-29 02:30:00.123456' AS TIMESTAMP_LTZ(6)) AS STRING), CAST(CAST(CAST('2026-10-25 02:30:00.999999' AS TIMESTAMP_LTZ(6)) AS TIMESTAMP_LTZ(3)) AS STRING) FROM t WHERE id < 2",
      'Europe/Berlin',
    ),
  ];
}
