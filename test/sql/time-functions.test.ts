/**
 * Weir SQL's time against plain oracles: the calendar (JavaScript's Date), month arithmetic
 * with clamping, interval literals, the session time zone at DST gaps and overlaps (ICU through
 * Intl), Java date patterns, NULL handling and clear errors for bad formats and zones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import {
  addMonths,
  civilOf,
  daysOf,
  formatPattern,
  monthsBetween,
  parsePattern,
} from '../../src/sql/expressions/functions/time-runtime.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { withSessionConfig } from '../../src/sql/expressions/session-time-zone.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { formatType, type LogicalType, T } from '../../src/sql/types/logical-type.js';
import { TimeZone } from '../../src/sql/types/time-zone.js';
import { wallClock } from './wall-clock.js';

const DAY = 86_400_000;
const LTZ: LogicalType = { kind: 'TIMESTAMP_LTZ', nullable: true, precision: 3 };

const scope = new Scope([
  { name: 'ts', type: T.timestamp(3), qualifier: 't', rowtime: false },
  { name: 'dt', type: T.date(), qualifier: 't', rowtime: false },
  { name: 'lt', type: LTZ, qualifier: 't', rowtime: false },
  { name: 's', type: T.string(), qualifier: 't', rowtime: false },
  { name: 'n', type: T.int(), qualifier: 't', rowtime: false },
]);

interface Values {
  ts?: number | null;
  dt?: number | null;
  lt?: number | null;
  s?: string | null;
  n?: number | null;
}

function compiled(sql: string, zone?: string) {
  const config = new Map(zone === undefined ? [] : [['table.local-time-zone', zone]]);
  return withSessionConfig(config, () => compileScalar(parseExpression(sql), scope));
}

function evaluate(sql: string, v: Values = {}, zone?: string): unknown {
  return compiled(sql, zone).fn([
    v.ts ?? null,
    v.dt ?? null,
    v.lt ?? null,
    v.s ?? null,
    v.n ?? null,
  ]);
}

const utc = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);
const day = (text: string): number => utc(`${text} 00:00:00`) / DAY;

describe('the calendar', () => {
  it('day numbers and dates agree with JavaScript Date (proleptic Gregorian) over ±2700 years', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (days) => {
        const d = new Date(days * DAY);
        const civil = civilOf(days);
        expect(civil).toEqual({
          year: d.getUTCFullYear(),
          month: d.getUTCMonth() + 1,
          day: d.getUTCDate(),
        });
        expect(daysOf(civil.year, civil.month, civil.day)).toBe(days);
      }),
    );
  });

  it('adds months clamping to the month end, as a naive oracle does', () => {
    const oracle = (ms: number, months: number): number => {
      const d = new Date(ms);
      const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
      const y = Math.floor(total / 12);
      const m = total - y * 12;
      const last = new Date(Date.UTC(2000, m + 1, 0));
      last.setUTCFullYear(y, m + 1, 0);
      const out = new Date(ms);
      out.setUTCFullYear(y, m, Math.min(d.getUTCDate(), last.getUTCDate()));
      return out.getTime();
    };
    fc.assert(
      fc.property(
        fc.integer({ min: -5_000_000_000_000, max: 5_000_000_000_000 }),
        fc.integer({ min: -2400, max: 2400 }),
        (ms, months) => {
          expect(addMonths(ms, months)).toBe(oracle(ms, months));
        },
      ),
    );
  });

  it('counts whole months between two times: addMonths(a, m) <= b < addMonths(a, m + 1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3_000_000_000_000, max: 3_000_000_000_000 }),
        fc.integer({ min: 0, max: 3_000_000_000_000 }),
        (a, gap) => {
          const b = a + gap;
          const m = monthsBetween(a, b);
          expect(addMonths(a, m)).toBeLessThanOrEqual(b);
          expect(addMonths(a, m + 1)).toBeGreaterThan(b);
          expect(monthsBetween(b, a)).toBe(0 - m);
        },
      ),
    );
  });
});

describe('interval arithmetic', () => {
  const cases: [string, unknown][] = [
    ["DATE '2024-01-31' + INTERVAL '1' MONTH", day('2024-02-29')],
    ["DATE '2023-01-31' + INTERVAL '1' MONTH", day('2023-02-28')],
    ["DATE '2024-02-29' + INTERVAL '1' YEAR", day('2025-02-28')],
    ["DATE '2024-02-29' - INTERVAL '4' YEAR", day('2020-02-29')],
    ["DATE '2024-03-31' - INTERVAL '1-1' YEAR TO MONTH", day('2023-02-28')],
    ["DATE '2024-03-01' + INTERVAL '-1' DAY", day('2024-02-29')],
    ["DATE '2024-03-01' - INTERVAL '25' HOUR", day('2024-02-29')],
    ["DATE '2024-03-01' + INTERVAL '23' HOUR", day('2024-03-01')],
    ["TIMESTAMP '2024-03-31 10:00:00' - INTERVAL '1' MONTH", utc('2024-02-29 10:00:00')],
    [
      "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1 02:03:04.5' DAY TO SECOND",
      utc('2024-01-02 02:03:04.500'),
    ],
    [
      "TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '-02:30' HOUR TO MINUTE",
      utc('2024-01-01 02:30:00'),
    ],
    [
      "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '10:20.25' MINUTE TO SECOND",
      utc('2024-01-01 00:10:20.250'),
    ],
    ["TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1' HOUR * 3", utc('2024-01-01 03:00:00')],
    ["TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1' HOUR / 4", utc('2024-01-01 00:15:00')],
    ["TIME '23:30:00' + INTERVAL '45' MINUTE", 15 * 60_000],
    ["TIME '00:10:00' - INTERVAL '20' MINUTE", DAY - 10 * 60_000],
    ["TIME '08:00:00' + INTERVAL '1' MONTH", 8 * 3_600_000],
    ["INTERVAL '1' DAY > INTERVAL '23' HOUR", true],
    ["INTERVAL '1-1' YEAR TO MONTH = INTERVAL '13' MONTH", true],
    ["TIMESTAMP '1970-01-01 00:00:00' - INTERVAL '0.001' SECOND", -1],
    ["EXTRACT(HOUR FROM INTERVAL '-3 04:05:06.789' DAY TO SECOND)", -4],
    ["EXTRACT(MILLISECOND FROM INTERVAL '3 04:05:06.789' DAY TO SECOND)", 789],
    ["EXTRACT(MONTH FROM INTERVAL '2-7' YEAR TO MONTH)", 7],
  ];
  for (const [sql, expected] of cases) {
    it(`${sql} = ${String(expected)}`, () => expect(evaluate(sql)).toEqual(expected));
  }

  it('keeps the time type and gives NULL for a NULL operand', () => {
    expect(formatType(compiled("dt + INTERVAL '1' DAY").type)).toBe('DATE');
    expect(formatType(compiled("ts - INTERVAL '1' MONTH").type)).toBe('TIMESTAMP(3)');
    expect(evaluate("dt + INTERVAL '1' MONTH")).toBeNull();
    expect(evaluate("ts + INTERVAL '1' DAY * n", { ts: 0 })).toBeNull();
  });

  it('refuses bad interval literals and TIMESTAMP - TIMESTAMP, naming the value', () => {
    expect(() => compiled("dt + INTERVAL '1-13' YEAR TO MONTH")).toThrow(
      /line 1, column 6: INTERVAL '1-13' YEAR TO MONTH: month 13 is out of range/,
    );
    expect(() => compiled("INTERVAL '1 25:00' DAY TO MINUTE")).toThrow(/hour 25 is out of range/);
    expect(() => compiled("INTERVAL 'x' DAY")).toThrow(
      /INTERVAL 'x' DAY: the value must be a number/,
    );
    expect(() => compiled('ts - ts')).toThrow(
      /cannot apply - to TIMESTAMP\(3\) and TIMESTAMP\(3\).*TIMESTAMPDIFF/,
    );
  });
});

describe('temporal functions', () => {
  const ts = utc('2024-02-29 13:45:30.250'); // a Thursday, in a leap year
  const cases: [string, unknown][] = [
    ['TIMESTAMPADD(MONTH, 1, ts)', utc('2024-03-29 13:45:30.250')],
    ['TIMESTAMPADD(YEAR, 1, ts)', utc('2025-02-28 13:45:30.250')],
    ['TIMESTAMPADD(WEEK, -1, ts)', utc('2024-02-22 13:45:30.250')],
    ['TIMESTAMPADD(DAY, 1, dt)', day('2024-03-01')],
    ["TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-31 10:00:00', ts)", 1],
    ["TIMESTAMPDIFF(MONTH, ts, TIMESTAMP '2024-01-31 10:00:00')", -1],
    ["TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-02-28 14:00:00')", 0],
    // Feb 29 plus a year is Feb 28: a whole year, as Flink counts.
    ["TIMESTAMPDIFF(YEAR, DATE '2020-02-29', DATE '2021-02-28')", 1],
    ['WEEK(ts)', 9],
    ['DAYOFYEAR(ts)', 60],
    ['DAYOFWEEK(ts)', 5],
    ['EXTRACT(DOW FROM ts)', 5],
    ['EXTRACT(ISODOW FROM ts)', 4],
    ['EXTRACT(MILLISECOND FROM ts)', 250],
    ['EXTRACT(MICROSECOND FROM ts)', 250_000],
    ['EXTRACT(EPOCH FROM ts)', Math.trunc(ts / 1000)],
    ["EXTRACT(WEEK FROM DATE '2021-01-03')", 53],
    ['FLOOR(ts TO WEEK)', utc('2024-02-25 00:00:00')],
    ['CEIL(ts TO WEEK)', utc('2024-03-03 00:00:00')],
    ["DATE_FORMAT(ts, 'EEE, d MMM yyyy hh:mm a')", 'Thu, 29 Feb 2024 01:45 PM'],
    ["DATE_FORMAT(ts, 'yyyy-MM-dd''T''HH:mm:ss.SSS')", '2024-02-29T13:45:30.250'],
    ["DATE_FORMAT(CAST(dt AS TIMESTAMP(3)), 'D')", '60'],
    ["TO_TIMESTAMP('29/02/2024 13:45', 'dd/MM/yyyy HH:mm')", utc('2024-02-29 13:45:00')],
    ["TO_TIMESTAMP('30/02/2024 13:45', 'dd/MM/yyyy HH:mm')", null],
    ["TO_DATE('20240229', 'yyyyMMdd')", day('2024-02-29')],
    ["TO_DATE('2023-02-29')", null],
    ["UNIX_TIMESTAMP('1970-01-01 00:00:01')", 1],
    ['FROM_UNIXTIME(0)', '1970-01-01 00:00:00'],
    ["FROM_UNIXTIME(-1, 'yyyy-MM-dd HH:mm:ss')", '1969-12-31 23:59:59'],
    ['TO_TIMESTAMP_LTZ(1500, 3)', 1500],
    ['TO_TIMESTAMP_LTZ(2, 0)', 2000],
    [
      "TO_TIMESTAMP_LTZ('2024-02-29 13:00:00', 'yyyy-MM-dd HH:mm:ss', 'Asia/Shanghai')",
      utc('2024-02-29 05:00:00'),
    ],
    ["CONVERT_TZ('2024-02-29 23:30:00', 'UTC', 'Asia/Kolkata')", '2024-03-01 05:00:00'],
    ["CONVERT_TZ('not a time', 'UTC', 'Asia/Kolkata')", null],
    ["(ts, INTERVAL '1' HOUR) OVERLAPS (ts + INTERVAL '30' MINUTE, ts + INTERVAL '2' HOUR)", true],
    ["(ts, ts) OVERLAPS (ts + INTERVAL '1' SECOND, INTERVAL '1' SECOND)", false],
  ];
  for (const [sql, expected] of cases) {
    it(`${sql} = ${String(expected)}`, () =>
      expect(evaluate(sql, { ts, dt: day('2024-02-29') })).toEqual(expected));
  }

  it('gives NULL for every NULL argument', () => {
    const calls = [
      'TIMESTAMPADD(DAY, 1, ts)',
      'TIMESTAMPDIFF(DAY, ts, ts)',
      'WEEK(dt)',
      "DATE_FORMAT(ts, 'yyyy')",
      'TO_DATE(s)',
      'TO_TIMESTAMP(s)',
      'UNIX_TIMESTAMP(s)',
      'FROM_UNIXTIME(n)',
      'TO_TIMESTAMP_LTZ(n, 0)',
      "CONVERT_TZ(s, 'UTC', 'UTC')",
      'FLOOR(lt TO DAY)',
      'CAST(lt AS STRING)',
      'EXTRACT(DOY FROM lt)',
    ];
    for (const sql of calls) expect(evaluate(sql), sql).toBeNull();
  });

  it('reads CURRENT_DATE, LOCALTIME, ... per row, in the session zone', () => {
    const before = Date.now();
    const now = evaluate('CURRENT_ROW_TIMESTAMP()') as number;
    expect(now).toBeGreaterThanOrEqual(before);
    expect(evaluate('CURRENT_DATE')).toBe(Math.floor(Date.now() / DAY));
    const local = evaluate('LOCALTIME', {}, '+14:00') as number;
    expect(local % 1000).toBe(0);
    const expected = (Date.now() + 14 * 3_600_000) % DAY;
    expect(Math.abs(local - expected) < 5000 || Math.abs(local - expected) > DAY - 5000).toBe(true);
    expect(formatType(compiled('CURRENT_TIME').type)).toBe('TIME(0) NOT NULL');
    expect(formatType(compiled('NOW()').type)).toBe('TIMESTAMP_LTZ(3) NOT NULL');
  });

  it('refuses a bad pattern or zone at plan time, naming it, and a bad run-time pattern at run time', () => {
    expect(() => compiled("DATE_FORMAT(ts, 'yyyy-qq')")).toThrow(
      /line 1, column 1: date pattern 'yyyy-qq' has the letter 'q'/,
    );
    expect(() => compiled("CONVERT_TZ(s, 'Mars/Olympus', 'UTC')")).toThrow(
      /'Mars\/Olympus' is not a time zone/,
    );
    expect(() => evaluate('DATE_FORMAT(ts, s)', { ts: 0, s: 'yyyy-qq' })).toThrow(
      /date pattern 'yyyy-qq' has the letter 'q'/,
    );
    expect(() => evaluate("CONVERT_TZ('2024-01-01 00:00:00', 'UTC', s)", { s: 'Nowhere' })).toThrow(
      /'Nowhere' is not a time zone/,
    );
    expect(() => compiled('TIMESTAMPADD(FORTNIGHT, 1, ts)')).toThrow(
      /TIMESTAMPADD needs a time unit first/,
    );
    expect(() => compiled("DATE_FORMAT(dt, 'yyyy')")).toThrow(
      /DATE_FORMAT needs a TIMESTAMP or a string, got DATE/,
    );
    expect(() => compiled('FOO_BAR(ts)')).toThrow(
      /line 1, column 1: unknown function FOO_BAR: not supported by Weir SQL yet/,
    );
  });

  it('formats and reads back every time with a pattern of every numeric field', () => {
    fc.assert(
      fc.property(fc.integer({ min: -30_000_000_000_000, max: 200_000_000_000_000 }), (ms) => {
        const pattern = 'yyyy-MM-dd HH:mm:ss.SSS';
        expect(parsePattern(formatPattern(ms, pattern), pattern)).toBe(ms);
      }),
    );
  });
});

describe('the session time zone', () => {
  const berlin = TimeZone.of('Europe/Berlin') as TimeZone;

  it('has the offsets ICU gives, at every instant', () => {
    const names = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'];
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (name, ms) => {
          const zone = TimeZone.of(name) as TimeZone;
          const local = wallClock(name, ms);
          expect(zone.toLocal(ms)).toBe(local);
        },
      ),
    );
  });

  it('moves a time in a DST gap forward and takes the earlier offset in an overlap, as java.time', () => {
    // 2026-03-29 02:30 does not exist in Berlin: it is 03:30 CEST, 01:30 UTC.
    expect(berlin.toUtc(utc('2026-03-29 02:30:00'))).toBe(utc('2026-03-29 01:30:00'));
    // 2026-10-25 02:30 happens twice: java.time takes the first (CEST, +02:00), java.util's
    // calendar (Flink's CONVERT_TZ and UNIX_TIMESTAMP) the second.
    expect(berlin.toUtc(utc('2026-10-25 02:30:00'))).toBe(utc('2026-10-25 00:30:00'));
    expect(berlin.toUtc(utc('2026-10-25 02:30:00'), 'later')).toBe(utc('2026-10-25 01:30:00'));
    expect(berlin.toUtc(utc('2026-07-01 12:00:00'))).toBe(utc('2026-07-01 10:00:00'));
    expect(evaluate("CONVERT_TZ('2026-03-29 02:30:00', 'Europe/Berlin', 'UTC')")).toBe(
      '2026-03-29 01:30:00',
    );
    expect(evaluate("CONVERT_TZ('2026-10-25 02:30:00', 'Europe/Berlin', 'UTC')")).toBe(
      '2026-10-25 01:30:00',
    );
  });

  it('turns a wall clock into an instant and back unchanged outside gaps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), (ms) => {
        const local = berlin.toLocal(ms);
        expect(berlin.toLocal(berlin.toUtc(local))).toBe(local);
      }),
    );
  });

  it('shows, casts and splits TIMESTAMP_LTZ in the zone; TIMESTAMP is unaffected', () => {
    const lt = utc('2026-03-28 23:30:00');
    for (const zone of ['Asia/Shanghai', '+08:00', 'GMT+8', 'UTC+08:00']) {
      expect(evaluate('CAST(lt AS STRING)', { lt }, zone)).toBe('2026-03-29 07:30:00.000');
      expect(evaluate('EXTRACT(HOUR FROM lt)', { lt }, zone)).toBe(7);
      expect(evaluate("DATE_FORMAT(lt, 'yyyy-MM-dd HH:mm XXX')", { lt }, zone)).toBe(
        '2026-03-29 07:30 +08:00',
      );
      expect(evaluate('CAST(lt AS DATE)', { lt }, zone)).toBe(day('2026-03-29'));
      expect(evaluate('CAST(lt AS TIMESTAMP(3))', { lt }, zone)).toBe(utc('2026-03-29 07:30:00'));
      expect(evaluate('FLOOR(lt TO DAY)', { lt }, zone)).toBe(utc('2026-03-28 16:00:00'));
      expect(evaluate('EXTRACT(HOUR FROM ts)', { ts: lt }, zone)).toBe(23);
      // A TIMESTAMP meets a TIMESTAMP_LTZ as the instant its wall clock names in the zone.
      expect(evaluate('ts = lt', { ts: utc('2026-03-29 07:30:00'), lt }, zone)).toBe(true);
    }
    expect(
      evaluate('CAST(ts AS TIMESTAMP_LTZ(3))', { ts: utc('2026-07-01 12:00:00') }, 'Europe/Berlin'),
    ).toBe(utc('2026-07-01 10:00:00'));
    expect(evaluate("UNIX_TIMESTAMP('1970-01-01 08:00:00')", {}, 'Asia/Shanghai')).toBe(0);
    expect(evaluate('FROM_UNIXTIME(0)', {}, 'America/New_York')).toBe('1969-12-31 19:00:00');
  });

  it("is set with SET 'table.local-time-zone' and refused, with its position, when unknown", async () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    const at = utc('2026-10-25 00:30:00');
    tEnv.fromDataStream(
      'e',
      env.fromArray(
        [
          [1, at],
          [2, at + 3_600_000],
          [3, null],
        ],
        'e',
      ),
      {
        columns: [
          { name: 'id', type: 'INT' },
          { name: 'lt', type: 'TIMESTAMP_LTZ(3)' },
        ],
      },
    );
    expect(() => tEnv.executeSql("SET 'table.local-time-zone' = 'Europe/Nowhere'")).toThrow(
      /line 1, column 1: 'Europe\/Nowhere' is not a time zone/,
    );
    tEnv.fromDataStream('w', env.fromArray([[1, at]], 'w'), {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'lt', type: 'TIMESTAMP_LTZ(3)' },
      ],
      watermark: { column: 'lt', expression: "lt - INTERVAL '1' SECOND" },
    });
    const hourly =
      "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(lt), INTERVAL '1' HOUR)) GROUP BY window_start, window_end";
    expect(() => tEnv.sqlQuery(hourly)).not.toThrow();
    tEnv.executeSql("SET 'table.local-time-zone' = 'Europe/Berlin'");
    // Aligned on the local wall clock, as Flink's (local-time-windows.test.ts).
    expect(() => tEnv.sqlQuery(hourly)).not.toThrow();
    // The SQL client shows a TIMESTAMP_LTZ as the session zone's wall clock.
    expect(tEnv.sqlQuery('SELECT lt FROM e').display([at])).toEqual(['2026-10-25T02:30']);
    const table = tEnv.sqlQuery(
      "SELECT id, CAST(lt AS STRING), DATE_FORMAT(lt, 'HH:mm XXX') FROM e",
    );
    const sink = new CollectSink<Row>();
    table.toDataStream().sinkTo(sink);
    await env.execute('session zone');
    // The same wall clock twice across the end of summer time, with its two offsets.
    expect(sink.values.map((r) => [...r])).toEqual([
      [1, '2026-10-25 02:30:00.000', '02:30 +02:00'],
      [2, '2026-10-25 02:30:00.000', '02:30 +01:00'],
      [3, null, null],
    ]);
  });
});
