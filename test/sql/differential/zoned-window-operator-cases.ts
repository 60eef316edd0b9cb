/**
 * Window Top-N, window deduplication and window joins over the TIMESTAMP_LTZ rowtime of the
 * `zoned` table in session zones with and without DST: Flink fires their windows, aligned on
 * the zone's wall clock, when the watermark passes the window's end as an instant (a local
 * day of 23 or 25 hours). The TIMESTAMP rowtime of `t` in the same zones is the control: its
 * windows stay as they are.
 */
import type { SuiteCase } from './families.js';

const LA = 'America/Los_Angeles';
const SHANGHAI = 'Asia/Shanghai';

const zonedTvf = (call: string, args: string): string =>
  `TABLE(${call}(TABLE zoned, DESCRIPTOR(lt), ${args}))`;

/** The rows ranked per window (and `partition`), the first `n` of each. */
const topN = (from: string, columns: string, order: string, n: number, partition = ''): string =>
  `SELECT * FROM (SELECT ${columns}, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end${partition} ORDER BY ${order}) AS rn FROM ${from}) WHERE rn <= ${n}`;

/** A window join of the rows with a positive `zv` and the rows with a `zv` below 10, on `zk`. */
const windowJoin = (type: string, window: string, extra = ''): string =>
  `SELECT L.zid AS lid, R.zid AS rid, L.zk AS lk, R.zk AS rk, L.window_start AS lws, L.window_end AS lwe, R.window_start AS rws, R.window_end AS rwe
   FROM (SELECT zid, zk, zv, window_start, window_end FROM ${window} WHERE zv > 0) L
   ${type} JOIN (SELECT zid, zk, zv, window_start, window_end FROM ${window} WHERE zv < 10) R
   ON L.zk = R.zk AND L.window_start = R.window_start AND L.window_end = R.window_end${extra}`;

export function zonedWindowOperatorCases(): SuiteCase[] {
  const day = zonedTvf('TUMBLE', "INTERVAL '1' DAY");
  const threeHours = zonedTvf('TUMBLE', "INTERVAL '3' HOUR");
  const hop = zonedTvf('HOP', "INTERVAL '1' HOUR, INTERVAL '2' HOUR");
  const dayCounts = `(SELECT zk, window_start, window_end, COUNT(*) AS c FROM ${day} GROUP BY zk, window_start, window_end)`;
  const controlTvf = "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))";
  return [
    ...[LA, SHANGHAI].flatMap((zone): SuiteCase[] => [
      {
        name: `zoned-window-topn-day-${zone}`,
        zone,
        sql: topN(day, 'zid, zk, zv', 'zv DESC, zid', 2),
      },
      {
        name: `zoned-window-topn-of-counts-${zone}`,
        zone,
        sql: topN(dayCounts, 'zk, c', 'c DESC, zk', 1),
      },
      {
        name: `zoned-window-dedup-first-${zone}`,
        zone,
        sql: topN(threeHours, 'zid, zk, lt', 'lt', 1, ', zk'),
      },
      {
        name: `zoned-window-dedup-last-${zone}`,
        zone,
        sql: topN(day, 'zid, zk, lt', 'lt DESC', 1, ', zk'),
      },
      {
        name: `zoned-window-join-inner-${zone}`,
        zone,
        sql: windowJoin('INNER', day, ' AND L.zid < R.zid'),
      },
      {
        name: `zoned-window-control-topn-${zone}`,
        zone,
        sql: topN(controlTvf, 'id, k, i', 'i DESC, id', 2),
      },
    ]),
    {
      name: 'zoned-window-topn-hop-la',
      zone: LA,
      sql: topN(hop, 'zid, zk, zv', 'zv, zid', 1, ', zk'),
    },
    ...['LEFT', 'RIGHT', 'FULL'].map((type) => ({
      name: `zoned-window-join-${type.toLowerCase()}-la`,
      zone: LA,
      sql: windowJoin(type, threeHours),
    })),
    {
      name: 'zoned-window-join-tvf-hop-la',
      zone: LA,
      sql: `SELECT L.zid AS lid, R.zid AS rid, L.window_start, L.window_end FROM ${hop} L JOIN ${hop} R ON L.zk = R.zk AND L.window_start = R.window_start AND L.window_end = R.window_end AND L.zid < R.zid`,
    },
    {
      name: 'zoned-window-join-of-counts-shanghai',
      zone: SHANGHAI,
      sql: `SELECT L.zk, L.window_start, L.window_end, L.c, R.c AS rc FROM ${dayCounts} L FULL JOIN (SELECT zk, window_start, window_end, COUNT(*) AS c FROM ${day} WHERE zv > 0 GROUP BY zk, window_start, window_end) R ON L.zk = R.zk AND L.window_start = R.window_start AND L.window_end = R.window_end`,
    },
    {
      name: 'zoned-window-control-join-la',
      zone: LA,
      sql: `SELECT L.id AS lid, R.id AS rid, L.window_start, L.window_end FROM (SELECT id, k, window_start, window_end FROM ${controlTvf}) L LEFT JOIN (SELECT id, k, window_start, window_end FROM ${controlTvf} WHERE i > 0) R ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end`,
    },
  ];
}
