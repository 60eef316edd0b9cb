/**
 * Window TVFs over a TIMESTAMP_LTZ rowtime in a session time zone other than UTC, aligned on
 * the zone's wall clock as Flink's: the timer of a window's end across DST changes, the local
 * watermark that stands for a UTC one, window aggregations against a batch computation from
 * the wall clock (read from ICU independently of Weir's zone code), and rows late or not
 * late in the repeated hour of a fall-back day.
 *
 *   America/Los_Angeles, 2026-11-01 (back from -07:00 to -08:00 at 09:00 UTC):
 *   UTC    07:30      08:30  08:40      09:30           10:00
 *   local  00:30 PDT  01:30  01:40 PDT  01:30 PST       02:00 PST
 *   window [00:00, 01:00) fires at 08:00 UTC; [01:00, 02:00) at 10:00 UTC (its second pass)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change, Row } from '../../src/index.js';
import { localWatermark, windowTimer } from '../../src/sql/planner/local-time-windows.js';
import { TimeZone } from '../../src/sql/types/time-zone.js';
import { runOnWeir } from './differential/run-engines.js';
import { normalRows, type SuiteCase, suiteCases, suiteTables } from './differential/suite.js';
import type { SuiteTable } from './differential/tables.js';
import { queryChanges } from './query-changes.js';
import { wallClock } from './wall-clock.js';

const HOUR = 3_600_000;
const LA = TimeZone.of('America/Los_Angeles') as TimeZone;
const BERLIN = TimeZone.of('Europe/Berlin') as TimeZone;
const SHANGHAI = TimeZone.of('Asia/Shanghai') as TimeZone;

describe('timers and watermarks on a local wall clock', () => {
  it("fires a window ending in a DST gap at the gap's end and one ending in a repeated hour on its second pass, as Flink", () => {
    // Flink's TimeWindowUtil documents these instants for Los Angeles in 2021.
    const local = (s: string) => Date.parse(`${s}Z`);
    expect(windowTimer(LA, local('2021-03-14T00:00:00'))).toBe(1615708800000);
    expect(windowTimer(LA, local('2021-03-14T01:00:00'))).toBe(1615712400000);
    expect(windowTimer(LA, local('2021-03-14T02:00:00'))).toBe(1615716000000);
    expect(windowTimer(LA, local('2021-03-14T02:59:59'))).toBe(1615716000000);
    expect(windowTimer(LA, local('2021-03-14T03:00:00'))).toBe(1615716000000);
    expect(windowTimer(LA, local('2021-11-07T00:00:00'))).toBe(1636268400000);
    expect(windowTimer(LA, local('2021-11-07T01:00:00'))).toBe(1636275600000);
    expect(windowTimer(LA, local('2021-11-07T02:00:00'))).toBe(1636279200000);
    // Without DST the timer is the instant of the wall clock.
    expect(windowTimer(SHANGHAI, local('2026-03-08T00:00:00'))).toBe(
      Date.UTC(2026, 2, 7, 16, 0, 0),
    );
  });

  it('gives the latest local time whose timer the UTC watermark has reached, never going back', () => {
    const transitions = [
      Date.UTC(2026, 2, 8, 10),
      Date.UTC(2026, 10, 1, 9),
      Date.UTC(2026, 2, 29, 1),
      Date.UTC(2026, 9, 25, 1),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(LA, BERLIN, SHANGHAI),
        fc.constantFrom(...transitions),
        fc.array(fc.integer({ min: -3 * HOUR, max: 3 * HOUR }), { minLength: 2, maxLength: 8 }),
        (zone, at, deltas) => {
          const watermarks = deltas.map((d) => at + d).sort((a, b) => a - b);
          let previous = Number.NEGATIVE_INFINITY;
          for (const w of watermarks) {
            const l = localWatermark(zone, w);
            expect(windowTimer(zone, l)).toBeLessThanOrEqual(w);
            expect(windowTimer(zone, l + 1)).toBeGreaterThan(w);
            expect(l).toBeGreaterThanOrEqual(previous);
            previous = l;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

interface Event {
  readonly id: number;
  readonly k: string;
  readonly v: number;
  readonly lt: number;
}

const COLUMNS = [
  { name: 'id', type: 'INT' },
  { name: 'k', type: 'STRING' },
  { name: 'v', type: 'INT' },
  { name: 'lt', type: 'TIMESTAMP_LTZ(3)' },
];

async function run(
  events: readonly Event[],
  zone: string,
  queries: readonly string[],
  parallelism: number,
  watermark = "lt - INTERVAL '10' MINUTE",
  batchSize = 7,
): Promise<string[][]> {
  const changes = await queryChanges(
    {
      name: 'e',
      rows: events.map((e) => [e.id, e.k, e.v, e.lt]),
      columns: COLUMNS,
      watermark: { column: 'lt', expression: watermark },
    },
    queries,
    { parallelism, batchSize, settings: `SET 'table.local-time-zone' = '${zone}'` },
  );
  return changes.map((c: Change<Row>[]) =>
    materialize(c, (row) =>
      JSON.stringify(row.map((x) => (typeof x === 'bigint' ? Number(x) : x))),
    ).sort(),
  );
}

/** Rows at most 9 minutes out of order (the watermark trails by 10), around DST changes. */
const eventsAround = (start: number): fc.Arbitrary<Event[]> =>
  fc
    .array(
      fc.record({
        k: fc.constantFrom('a', 'b', 'c'),
        v: fc.integer({ min: -50, max: 50 }),
        step: fc.integer({ min: 0, max: 50 * 60_000 }),
        back: fc.integer({ min: 0, max: 9 * 60_000 }),
      }),
      { minLength: 1, maxLength: 60 },
    )
    .map((draws) => {
      let slot = start;
      return draws.map((d, id) => {
        slot += d.step;
        return { id, k: d.k, v: d.v, lt: slot - d.back };
      });
    });

describe('window aggregations on the session zone wall clock', () => {
  const starts = [
    Date.UTC(2026, 2, 7, 20), // Los Angeles springs forward 2026-03-08 10:00 UTC
    Date.UTC(2026, 9, 31, 22), // and falls back 2026-11-01 09:00 UTC
    Date.UTC(2026, 2, 28, 18), // Berlin springs forward 2026-03-29 01:00 UTC
  ];
  const zones = ['America/Los_Angeles', 'Europe/Berlin', 'Asia/Shanghai'];

  it('TUMBLE by day, HOP and CUMULATE equal a batch computation over the wall clock', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...starts).chain(eventsAround),
        fc.constantFrom(...zones),
        fc.constantFrom(1, 2),
        async (events, zone, parallelism) => {
          const z = TimeZone.of(zone) as TimeZone;
          const [tumble, hop, cumulate] = await run(
            events,
            zone,
            [
              "SELECT k, window_start, window_end, window_time, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(lt), INTERVAL '1' DAY)) GROUP BY k, window_start, window_end, window_time",
              "SELECT window_start, window_end, COUNT(*) FROM TABLE(HOP(TABLE e, DESCRIPTOR(lt), INTERVAL '1' HOUR, INTERVAL '3' HOUR)) GROUP BY window_start, window_end",
              "SELECT window_start, window_end, COUNT(*) FROM TABLE(CUMULATE(TABLE e, DESCRIPTOR(lt), INTERVAL '4' HOUR, INTERVAL '1' DAY)) GROUP BY window_start, window_end",
            ],
            parallelism,
          );
          // The batch computation: group by windows of the wall clock.
          const groups = new Map<string, number[]>();
          const add = (key: unknown[], v: number) => {
            const text = JSON.stringify(key);
            const g = groups.get(text) ?? [0, 0];
            groups.set(text, [(g[0] as number) + 1, (g[1] as number) + v]);
          };
          for (const e of events) {
            const local = wallClock(zone, e.lt);
            const day = local - (local % (24 * HOUR));
            add(['t', e.k, day, day + 24 * HOUR, z.toUtc(day + 24 * HOUR - 1)], e.v);
            const hour = local - (local % HOUR);
            for (let s = hour - 2 * HOUR; s <= hour; s += HOUR) add(['h', s, s + 3 * HOUR], 0);
            for (let end = day + 4 * HOUR; end <= day + 24 * HOUR; end += 4 * HOUR)
              if (end > local) add(['c', day, end], 0);
          }
          const expected = (tag: string, withSum: boolean) =>
            [...groups]
              .filter(([key]) => JSON.parse(key)[0] === tag)
              .map(([key, [c, s]]) =>
                JSON.stringify([...JSON.parse(key).slice(1), c, ...(withSum ? [s] : [])]),
              )
              .sort();
          expect(tumble).toEqual(expected('t', true));
          expect(hop).toEqual(expected('h', false));
          expect(cumulate).toEqual(expected('c', false));
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('drops a row whose local window has fired and keeps one whose window waits for the second pass of a repeated hour', async () => {
    const utc = (h: number, m: number) => Date.UTC(2026, 10, 1, h, m);
    const events: Event[] = [
      { id: 1, k: 'a', v: 1, lt: utc(8, 30) }, // 01:30 PDT
      { id: 2, k: 'a', v: 2, lt: utc(9, 30) }, // 01:30 PST: [00:00, 01:00) fires
      { id: 3, k: 'a', v: 4, lt: utc(8, 40) }, // 01:40 PDT: its window is still open
      { id: 4, k: 'a', v: 8, lt: utc(7, 30) }, // 00:30 PDT: late
      { id: 5, k: 'a', v: 16, lt: utc(10, 30) }, // 02:30 PST
    ];
    const [hourly] = await run(
      events,
      'America/Los_Angeles',
      [
        "SELECT window_start, window_time, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(lt), INTERVAL '1' HOUR)) GROUP BY window_start, window_end, window_time",
      ],
      1,
      'lt',
      1,
    );
    const local = (h: number) => Date.UTC(2026, 10, 1, h);
    expect(hourly).toEqual(
      [
        // window_time is the instant of 01:59:59.999, its first pass (as Flink's).
        [local(1), utc(8, 59) + 59_999, 3, 7],
        [local(2), utc(10, 59) + 59_999, 1, 16],
      ]
        .map((r) => JSON.stringify(r))
        .sort(),
    );
  });
});

describe("the differential suite's zoned queries where Flink 2.2.1 differs", () => {
  const zoned = suiteTables().find((t) => t.name === 'zoned') as SuiteTable;
  const events = zoned.rows.map(([id, k, v, lt]) => ({ id, k, v, lt }) as Event);

  /** Per window (and key): COUNT(*) and SUM(zv), from the wall clock of each row. */
  function batch(
    zone: string,
    windowsOf: (local: number) => [number, number][],
    keyed: boolean,
  ): string[] {
    const z = TimeZone.of(zone) as TimeZone;
    const groups = new Map<string, [number, number | null]>();
    for (const e of events) {
      // ICU names a fixed offset of -8 hours 'Etc/GMT+8'.
      const icuZone = zone === 'GMT-08:00' ? 'Etc/GMT+8' : zone;
      for (const [start, end] of windowsOf(wallClock(icuZone, e.lt))) {
        const key = JSON.stringify([...(keyed ? [e.k] : []), start, end, z.toUtc(end - 1)]);
        const [c, s] = groups.get(key) ?? [0, null];
        groups.set(key, [c + 1, e.v === null ? s : (s ?? 0) + e.v]);
      }
    }
    return normalRows([...groups].map(([key, cs]) => [...(JSON.parse(key) as unknown[]), ...cs]));
  }

  async function weir(name: string): Promise<unknown> {
    const c = suiteCases().find((x) => x.name === name) as SuiteCase;
    const answer = await runOnWeir(c, suiteTables(), 1);
    return 'rows' in answer ? answer.rows : answer;
  }

  it('CUMULATE in Asia/Shanghai equals a batch computation', async () => {
    const step = 6 * HOUR;
    const expected = batch(
      'Asia/Shanghai',
      (local) => {
        const day = local - (local % (24 * HOUR));
        const ends: [number, number][] = [];
        for (let end = day + step; end <= day + 24 * HOUR; end += step)
          if (end > local) ends.push([day, end]);
        return ends;
      },
      true,
    );
    expect(expected.length).toBeGreaterThan(30);
    expect(await weir('zoned-cumulate-shanghai')).toEqual(expected);
  });

  it('TUMBLE of a day with a 2 hour offset in GMT-08:00 equals a batch computation', async () => {
    const expected = batch(
      'GMT-08:00',
      (local) => {
        const start = local - ((((local - 2 * HOUR) % (24 * HOUR)) + 24 * HOUR) % (24 * HOUR));
        return [[start, start + 24 * HOUR]];
      },
      false,
    );
    expect(await weir('zoned-tumble-offset-gmt')).toEqual(expected);
  });
});
