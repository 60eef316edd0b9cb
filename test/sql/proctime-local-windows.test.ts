/**
 * Processing-time window TVFs in a session time zone other than UTC, as Flink shifts them: a
 * row joins the windows of the zone's wall clock when it arrives, and a window fires when its
 * last millisecond is due on the real clock (in a repeated hour, on its second pass). Driven
 * by a manual processing-time clock on the day Los Angeles falls back (2026-11-01 09:00 UTC).
 */
import { describe, expect, it } from 'vitest';
import { type TimeDomain, type WindowAssigner, Windows } from '../../src/core/windows.js';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { processingTimeOf } from '../../src/runtime/windowing/window-clock.js';
import { wallClockOf } from '../../src/sql/planner/local-time-windows.js';
import { TimeZone } from '../../src/sql/types/time-zone.js';
import { ManualClock } from '../../src/testing/manual-clock.js';

const LA = TimeZone.of('America/Los_Angeles') as TimeZone;
const utc = (h: number, m = 0) => Date.UTC(2026, 10, 1, h, m);
/** A wall-clock time of 2026-11-01 in Los Angeles, as Weir's local TIMESTAMP values are. */
const local = (h: number, m = 0) => Date.UTC(2026, 10, 1, h, m);

/** Hourly tumbling windows on the wall clock of Los Angeles. */
const hourly = (timeDomain: TimeDomain): WindowAssigner<never> => ({
  kind: 'tumbling',
  size: 3_600_000,
  offset: 0,
  timeDomain,
  clock: wallClockOf(LA),
});

describe('a processing-time window clock', () => {
  it('reads the wall clock and schedules a timer when its reading is due, as Flink', () => {
    const now = new ManualClock(utc(8, 30));
    const scheduled: [number, (t: number) => void][] = [];
    const service = processingTimeOf(
      {
        clock: now,
        schedule: (time, callback) => {
          scheduled.push([time, callback]);
          return () => {};
        },
      },
      hourly('processing-time'),
    );
    expect(service.clock.now()).toBe(local(1, 30)); // 01:30 PDT
    const fired: number[] = [];
    // [01:00, 02:00) fires on the second pass of the repeated hour: 01:59:59.999 PST.
    service.schedule(local(2) - 1, (t) => fired.push(t));
    service.schedule(local(1) - 1, (t) => fired.push(t));
    expect(scheduled.map(([t]) => t)).toEqual([utc(10) - 1, utc(8) - 1]);
    for (const [t, callback] of scheduled) callback(t);
    expect(fired).toEqual([local(2) - 1, local(1) - 1]);
  });

  it('leaves event-time assigners and assigners without a clock on the service', () => {
    const service = { clock: new ManualClock(5), schedule: () => () => {} };
    expect(processingTimeOf(service, Windows.tumblingProcessingTime(10))).toBe(service);
    expect(processingTimeOf(service, hourly('event-time'))).toBe(service);
  });
});

describe('processing-time window TVFs in a session time zone', () => {
  it('lay windows on the wall clock of the arrival, with a 25-hour local day', async () => {
    const clock = new ManualClock(utc(8, 30)); // 01:30 PDT, the first pass of the repeated hour
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 1, clock });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('raw', env.fromArray([[1], [2]]), {
      columns: [{ name: 'id', type: 'INT' }],
    });
    tEnv.executeSql("SET 'table.local-time-zone' = 'America/Los_Angeles'");
    const sinks = [
      "TUMBLE(TABLE ev, DESCRIPTOR(pt), INTERVAL '1' HOUR)",
      "TUMBLE(TABLE ev, DESCRIPTOR(pt), INTERVAL '1' DAY)",
      "CUMULATE(TABLE ev, DESCRIPTOR(pt), INTERVAL '6' HOUR, INTERVAL '1' DAY)",
    ].map((tvf) => {
      const sink = new CollectSink<Change<Row>>();
      tEnv
        .sqlQuery(
          `WITH ev AS (SELECT id, PROCTIME() AS pt FROM raw) SELECT window_start, window_end, window_time, COUNT(*) AS n FROM TABLE(${tvf}) GROUP BY window_start, window_end, window_time`,
        )
        .toChangelogStream()
        .sinkTo(sink);
      return sink;
    });
    await env.execute('processing-time windows in a zone');
    const [hourly, daily, cumulative] = sinks.map((sink) =>
      sink.values
        .map((c) => JSON.stringify(c.value.map((v) => (v instanceof Date ? v.getTime() : v))))
        .sort(),
    );
    const text = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    // window_time: the instant of the window's last local millisecond (its first pass).
    expect(hourly).toEqual(text([[local(1), local(2), utc(8, 59) + 59_999, 2]]));
    const nextDay = Date.UTC(2026, 10, 2);
    // 00:00 PDT to 00:00 PST: 25 hours.
    expect(daily).toEqual(text([[local(0), nextDay, Date.UTC(2026, 10, 2, 7, 59, 59, 999), 2]]));
    expect(cumulative).toEqual(
      text(
        [local(6), local(12), local(18), nextDay].map((end) => [
          local(0),
          end,
          LA.toUtc(end - 1),
          2,
        ]),
      ),
    );
  });

  it('form sessions of arrival instants and show their bounds on the wall clock, as Flink', async () => {
    const clock = new ManualClock(utc(8, 30)); // 01:30 PDT, the first pass of the repeated hour
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 1, clock });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream(
      'raw',
      env.fromArray([
        [1, 'a'],
        [2, 'b'],
        [3, 'a'],
      ]),
      {
        columns: [
          { name: 'id', type: 'INT' },
          { name: 'k', type: 'STRING' },
        ],
      },
    );
    tEnv.executeSql("SET 'table.local-time-zone' = 'America/Los_Angeles'");
    const table = tEnv.sqlQuery(
      "WITH ev AS (SELECT id, k, PROCTIME() AS pt FROM raw) SELECT k, window_start, window_end, window_time, COUNT(*) AS n, SUM(id) AS s FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(pt), INTERVAL '10' MINUTE)) GROUP BY k, window_start, window_end, window_time",
    );
    const sink = new CollectSink<Change<Row>>();
    table.toChangelogStream().sinkTo(sink);
    await env.execute('processing-time sessions in a zone');
    const rows = sink.values.map((c) => JSON.stringify([c.kind, ...c.value])).sort();
    // window_start and window_end: local TIMESTAMPs; window_time: the instant before the end.
    const expected = [
      ['+I', 'a', local(1, 30), local(1, 40), utc(8, 40) - 1, 2, 4],
      ['+I', 'b', local(1, 30), local(1, 40), utc(8, 40) - 1, 1, 2],
    ];
    expect(rows).toEqual(expected.map((r) => JSON.stringify(r)).sort());
  });
});
