/**
 * Window TVFs over the TIMESTAMP_LTZ rowtime of the `zoned` table in session time zones with
 * and without DST: Flink aligns them on the zone's wall clock (day windows from local
 * midnight, 23 and 25 hour days), with local `window_start`/`window_end` and a TIMESTAMP_LTZ
 * `window_time`.
 */
import type { SuiteCase } from './families.js';

const LA = 'America/Los_Angeles';
const SHANGHAI = 'Asia/Shanghai';
const BERLIN = 'Europe/Berlin';

const tvf = (call: string, args: string): string =>
  `TABLE(${call}(TABLE zoned, DESCRIPTOR(lt), ${args}))`;

const perWindow = (from: string, keys = ''): string =>
  `SELECT ${keys}window_start, window_end, window_time, COUNT(*) AS c, SUM(zv) AS s FROM ${from} GROUP BY ${keys}window_start, window_end, window_time`;

export function zonedWindowCases(): SuiteCase[] {
  const hour = tvf('TUMBLE', "INTERVAL '1' HOUR");
  const day = tvf('TUMBLE', "INTERVAL '1' DAY");
  return [
    ...[LA, SHANGHAI, BERLIN].map((zone) => ({
      name: `zoned-tumble-hour-${zone}`,
      zone,
      sql: perWindow(hour),
    })),
    ...[LA, SHANGHAI, BERLIN, 'UTC'].map((zone) => ({
      name: `zoned-tumble-day-by-key-${zone}`,
      zone,
      sql: perWindow(day, 'zk, '),
    })),
    {
      name: 'zoned-tumble-offset-gmt',
      zone: 'GMT-08:00',
      sql: perWindow(tvf('TUMBLE', "INTERVAL '1' DAY, INTERVAL '2' HOUR")),
    },
    {
      name: 'zoned-hop-la',
      zone: LA,
      sql: perWindow(tvf('HOP', "INTERVAL '30' MINUTE, INTERVAL '2' HOUR")),
    },
    {
      name: 'zoned-cumulate-la',
      zone: LA,
      sql: perWindow(tvf('CUMULATE', "INTERVAL '2' HOUR, INTERVAL '1' DAY")),
    },
    {
      name: 'zoned-cumulate-shanghai',
      zone: SHANGHAI,
      sql: perWindow(tvf('CUMULATE', "INTERVAL '6' HOUR, INTERVAL '1' DAY"), 'zk, '),
    },
    {
      name: 'zoned-session-la',
      zone: LA,
      sql: perWindow(tvf('SESSION', "INTERVAL '25' MINUTE")),
    },
    {
      name: 'zoned-rows-la',
      zone: LA,
      sql: `SELECT zid, lt, window_start, window_end, window_time FROM ${tvf('HOP', "INTERVAL '1' HOUR, INTERVAL '2' HOUR")}`,
    },
    {
      name: 'zoned-legacy-tumble-la',
      zone: LA,
      sql: "SELECT zk, TUMBLE_START(lt, INTERVAL '1' DAY) AS ws, TUMBLE_END(lt, INTERVAL '1' DAY) AS we, TUMBLE_ROWTIME(lt, INTERVAL '1' DAY) AS wt, COUNT(*) AS c FROM zoned GROUP BY zk, TUMBLE(lt, INTERVAL '1' DAY)",
    },
    {
      name: 'zoned-window-over-window-la',
      zone: LA,
      sql: `SELECT window_start, window_end, SUM(c) AS c FROM (${perWindow(hour)}) GROUP BY window_start, window_end`,
    },
  ];
}
