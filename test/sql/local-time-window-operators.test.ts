/**
 * Window Top-N, window deduplication and window joins over a TIMESTAMP_LTZ rowtime in a session
 * time zone, against a batch computation: windows of the zone's wall clock (read from ICU,
 * independently of Weir's zone code), from which a row is dropped as late exactly when the
 * watermark before it had reached Flink's timer of its window's end (`windowTimer`, checked
 * against Flink's documented instants in local-time-windows.test.ts). Rows arrive shuffled by
 * up to 9 minutes, and some hours late, around DST changes (a local day of 23 or 25 hours).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { windowTimer } from '../../src/sql/planner/local-time-windows.js';
import { TimeZone } from '../../src/sql/types/time-zone.js';
import { queryChanges } from './query-changes.js';
import { wallClock } from './wall-clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DELAY = 10 * MINUTE;

interface Event {
  readonly id: number;
  readonly k: string;
  readonly v: number;
  readonly lt: number;
}

/** Rows around `start`, mostly a few minutes out of order, now and then hours late; distinct times. */
const eventsAround = (start: number): fc.Arbitrary<Event[]> =>
  fc
    .array(
      fc.record({
        k: fc.constantFrom('a', 'b'),
        v: fc.integer({ min: -5, max: 15 }),
        step: fc.integer({ min: 0, max: 50 * MINUTE }),
        back: fc.oneof(
          { weight: 5, arbitrary: fc.integer({ min: 0, max: 9 * MINUTE }) },
          { weight: 1, arbitrary: fc.integer({ min: HOUR, max: 6 * HOUR }) },
        ),
      }),
      { minLength: 1, maxLength: 50 },
    )
    .map((draws) => {
      let slot = start;
      return draws.map((d, id) => {
        slot += d.step;
        const lt = slot - d.back;
        // The millisecond is the id: no two rows share a time (deduplication keeps one of them).
        return { id, k: d.k, v: d.v, lt: lt - (((lt % 1000) + 1000) % 1000) + id };
      });
    });

interface Placed {
  readonly e: Event;
  readonly start: number;
  readonly end: number;
}

/**
 * Each row in its window of local length `size` (from local midnight), unless the watermark
 * (`lt - 10 minutes` of the rows before it, one row per batch) had reached the window's timer.
 */
function placed(events: readonly Event[], zone: string, size: number): Placed[] {
  const z = TimeZone.of(zone) as TimeZone;
  const out: Placed[] = [];
  let watermark = Number.NEGATIVE_INFINITY;
  for (const e of events) {
    const local = wallClock(zone, e.lt);
    const start = local - (((local % size) + size) % size);
    if (windowTimer(z, start + size - 1) > watermark) out.push({ e, start, end: start + size });
    watermark = Math.max(watermark, e.lt - DELAY);
  }
  return out;
}

function groupBy<T>(items: readonly T[], keyOf: (t: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const t of items) groups.set(keyOf(t), [...(groups.get(keyOf(t)) ?? []), t]);
  return groups;
}

const texts = (rows: readonly unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

function topTwo(events: readonly Event[], zone: string): string[] {
  const rows: unknown[][] = [];
  for (const group of groupBy(placed(events, zone, DAY), (p) => `${p.start}`).values()) {
    group.sort((a, b) => b.e.v - a.e.v || a.e.id - b.e.id);
    group.slice(0, 2).forEach((p, i) => {
      rows.push([p.e.id, p.start, p.end, i + 1]);
    });
  }
  return texts(rows);
}

function lastPerKey(events: readonly Event[], zone: string): string[] {
  const rows: unknown[][] = [];
  for (const group of groupBy(
    placed(events, zone, 3 * HOUR),
    (p) => `${p.start} ${p.e.k}`,
  ).values()) {
    const last = group.reduce((a, b) => (b.e.lt > a.e.lt ? b : a));
    rows.push([last.e.id, last.start, last.end]);
  }
  return texts(rows);
}

/** Rows with v >= 0 joined with rows with v <= 10 of the same key and local day. */
function joined(events: readonly Event[], zone: string, left: boolean): string[] {
  const all = placed(events, zone, DAY);
  const rows: unknown[][] = [];
  for (const l of all.filter((p) => p.e.v >= 0)) {
    const matches = all.filter((r) => r.e.v <= 10 && r.e.k === l.e.k && r.start === l.start);
    for (const r of matches) rows.push([l.e.id, r.e.id, l.start, l.end]);
    if (left && matches.length === 0) rows.push([l.e.id, null, l.start, l.end]);
  }
  return texts(rows);
}

const day = "TABLE(TUMBLE(TABLE e, DESCRIPTOR(lt), INTERVAL '1' DAY))";
const side = (where: string) =>
  `(SELECT id, k, window_start, window_end FROM ${day} WHERE ${where})`;
const QUERIES = [
  `SELECT id, window_start, window_end, rn FROM (SELECT id, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, id) AS rn FROM ${day}) WHERE rn <= 2`,
  "SELECT id, window_start, window_end FROM (SELECT id, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY lt DESC) AS rn FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(lt), INTERVAL '3' HOUR))) WHERE rn = 1",
  ...['INNER', 'LEFT'].map(
    (type) =>
      `SELECT L.id, R.id, L.window_start, L.window_end FROM ${side('v >= 0')} L ${type} JOIN ${side('v <= 10')} R ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end`,
  ),
];

describe('window Top-N, deduplication and joins on the session zone wall clock', () => {
  const starts = [
    Date.UTC(2026, 2, 7, 20), // Los Angeles springs forward 2026-03-08 10:00 UTC
    Date.UTC(2026, 9, 31, 22), // and falls back 2026-11-01 09:00 UTC
    Date.UTC(2026, 2, 28, 18), // Berlin springs forward 2026-03-29 01:00 UTC
  ];

  it('equal a batch computation over local windows, late rows dropped as Flink drops them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...starts).chain(eventsAround),
        fc.constantFrom('America/Los_Angeles', 'Europe/Berlin', 'Asia/Shanghai'),
        async (events, zone) => {
          const changes = await queryChanges(
            {
              name: 'e',
              rows: events.map((e) => [e.id, e.k, e.v, e.lt]),
              columns: [
                { name: 'id', type: 'INT' },
                { name: 'k', type: 'STRING' },
                { name: 'v', type: 'INT' },
                { name: 'lt', type: 'TIMESTAMP_LTZ(3)' },
              ],
              watermark: { column: 'lt', expression: "lt - INTERVAL '10' MINUTE" },
            },
            QUERIES,
            { parallelism: 1, batchSize: 1, settings: `SET 'table.local-time-zone' = '${zone}'` },
          );
          const [top, last, inner, left] = changes.map((c: Change<Row>[]) =>
            materialize(c, (row) => JSON.stringify(row)).sort(),
          );
          expect(top).toEqual(topTwo(events, zone));
          expect(last).toEqual(lastPerKey(events, zone));
          expect(inner).toEqual(joined(events, zone, false));
          expect(left).toEqual(joined(events, zone, true));
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});

describe('a window join of windows on two clocks', () => {
  it('is refused, naming both clocks', () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    for (const [name, type] of [
      ['zoned', 'TIMESTAMP_LTZ(3)'],
      ['plain', 'TIMESTAMP(3)'],
    ] as const) {
      tEnv.fromDataStream(name, env.fromArray([[1, 0]]), {
        columns: [
          { name: 'id', type: 'INT' },
          { name: 't', type },
        ],
        watermark: { column: 't', expression: 't' },
      });
    }
    tEnv.executeSql("SET 'table.local-time-zone' = 'Asia/Shanghai'");
    const tvf = (table: string) => `TABLE(TUMBLE(TABLE ${table}, DESCRIPTOR(t), INTERVAL '1' DAY))`;
    expect(() =>
      tEnv.sqlQuery(
        `SELECT L.id FROM ${tvf('zoned')} L JOIN ${tvf('plain')} R ON L.id = R.id AND L.window_start = R.window_start AND L.window_end = R.window_end`,
      ),
    ).toThrow(
      /a window join needs the windows of both sides on one clock: the wall clock of 'Asia\/Shanghai' on the left, windows of a TIMESTAMP time attribute on the right/,
    );
  });
});
