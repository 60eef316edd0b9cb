/**
 * Flink's temporal functions as Weir SQL compiles them: the current time in the session zone,
 * UNIX_TIMESTAMP and FROM_UNIXTIME, TO_DATE / TO_TIMESTAMP / TO_TIMESTAMP_LTZ, DATE_FORMAT,
 * TIMESTAMPADD / TIMESTAMPDIFF, CONVERT_TZ, the field functions (YEAR ... SECOND, WEEK,
 * DAYOFYEAR, DAYOFWEEK), FLOOR / CEIL of a time to a unit, DATE_SUB, OVERLAPS and EXTRACT. A
 * TIMESTAMP_LTZ is shown, cast and split into fields in the session time zone, read when the
 * query compiles. NULL arguments give NULL.
 */
import type { Expr } from '../../parser/ast.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  isNumeric,
  isPreciseTimestamp,
  isTimestamp,
  type LogicalType,
  T,
} from '../../types/logical-type.js';
import type { TimeZone } from '../../types/time-zone.js';
import { castTo, toMillis } from '../cast.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import { sessionTimeZone, timeZoneOf } from '../session-time-zone.js';
import { timeArithmetic } from './time-arithmetic.js';
import { DAY_MS, patternParts } from './time-runtime.js';

/** Checks the arguments and returns the code of the call (as the function table's entries). */
export type TimeFunction = (
  args: Compiled[],
  g: CodeGen,
  at: SourcePosition,
  raw: readonly Expr[],
) => Compiled;

const ltz = (nullable: boolean, precision = 3): LogicalType => ({
  kind: 'TIMESTAMP_LTZ',
  nullable,
  precision,
});

function argumentCount(
  name: string,
  args: readonly unknown[],
  counts: readonly number[],
  at: SourcePosition,
): void {
  if (!counts.includes(args.length))
    sqlError(
      `${name} takes ${counts.join(' or ')} argument${counts.length === 1 && counts[0] === 1 ? '' : 's'}, got ${args.length}`,
      at,
    );
}

function stringArgument(name: string, c: Compiled | undefined, at: SourcePosition): void {
  if (c !== undefined && !isCharacterString(c.type) && c.type.kind !== 'NULL')
    sqlError(`${name} needs a string argument, got ${formatType(c.type)}`, at);
}

const nullableOf = (args: readonly Compiled[]): boolean => args.some((a) => a.type.nullable);

/** The session zone as a constant of the generated code. */
function zoneConstant(g: CodeGen): { zone: TimeZone; code: string } {
  const zone = sessionTimeZone();
  return { zone, code: g.constant(zone) };
}

/** A literal format is checked when the query compiles, so a bad one names itself at once. */
function checkLiteralFormat(raw: Expr | undefined, at: SourcePosition): void {
  if (raw?.kind !== 'string') return;
  try {
    patternParts(raw.value);
  } catch (e) {
    sqlError((e as Error).message, at);
  }
}

/** A literal zone argument is checked when the query compiles. */
function checkLiteralZone(raw: Expr | undefined, at: SourcePosition): void {
  if (raw?.kind === 'string') timeZoneOf(raw.value, at);
}

/** A wall-clock time (epoch ms of its fields) of a TIMESTAMP, TIMESTAMP_LTZ (in the zone) or DATE. */
function wallClock(g: CodeGen, c: Compiled, what: string, at: SourcePosition): Compiled {
  const nullable = c.type.nullable;
  switch (c.type.kind) {
    case 'TIMESTAMP':
      return c;
    case 'TIMESTAMP_LTZ': {
      const { zone, code } = zoneConstant(g);
      if (zone.isUtc) return { code: c.code, type: T.timestamp(c.type.precision, nullable) };
      return {
        code: nullSafe(g, [c], ([v]) => `h.toLocal(${code}, ${v})`),
        type: T.timestamp(c.type.precision, nullable),
      };
    }
    case 'DATE':
      return {
        code: nullSafe(g, [c], ([v]) => `(${v} * ${DAY_MS})`),
        type: T.timestamp(0, nullable),
      };
    case 'NULL':
      return { code: 'null', type: T.timestamp(3, true) };
    default:
      return sqlError(
        `${what} needs a DATE, TIMESTAMP or TIMESTAMP_LTZ, got ${formatType(c.type)}`,
        at,
      );
  }
}

const DATE_UNITS = new Set([
  'YEAR',
  'QUARTER',
  'MONTH',
  'WEEK',
  'DAY',
  'DOW',
  'ISODOW',
  'DOY',
  'ISOYEAR',
  'DECADE',
  'CENTURY',
  'MILLENNIUM',
  'EPOCH',
]);
const TIME_UNITS = new Set([
  'HOUR',
  'MINUTE',
  'SECOND',
  'MILLISECOND',
  'MICROSECOND',
  'NANOSECOND',
]);

/** EXTRACT of an interval: each unit's size in the interval's values and its modulo (0: none). */
const INTERVAL_FIELDS: Readonly<
  Record<
    'INTERVAL_DAY_TIME' | 'INTERVAL_YEAR_MONTH',
    Readonly<Record<string, readonly [number, number]>>
  >
> = {
  INTERVAL_DAY_TIME: {
    DAY: [DAY_MS, 0],
    HOUR: [3_600_000, 24],
    MINUTE: [60_000, 60],
    SECOND: [1000, 60],
    MILLISECOND: [1, 1000],
  },
  INTERVAL_YEAR_MONTH: { YEAR: [12, 0], MONTH: [1, 12] },
};

/** EXTRACT(unit FROM t), HOUR(t), ...: a BIGINT field of a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ. */
export function extract(g: CodeGen, arg: Compiled, unit: string, at: SourcePosition): Compiled {
  const isDateUnit = DATE_UNITS.has(unit);
  if (!isDateUnit && !TIME_UNITS.has(unit))
    sqlError(`EXTRACT of ${unit} is not supported by Weir SQL yet`, at);
  if (arg.type.kind === 'INTERVAL_DAY_TIME' || arg.type.kind === 'INTERVAL_YEAR_MONTH') {
    const fields = INTERVAL_FIELDS[arg.type.kind];
    const field = fields[unit];
    if (field === undefined)
      sqlError(`EXTRACT(${unit} FROM ...) of ${formatType(arg.type)} is not supported`, at);
    // The field of the interval's magnitude, signed as the interval (Java's / and %).
    const [unitSize, modulo] = field as readonly [number, number];
    return {
      code: nullSafe(g, [arg], ([v]) =>
        modulo === 0
          ? `(Math.trunc(${v} / ${unitSize}) + 0)`
          : `(Math.trunc(${v} / ${unitSize}) % ${modulo} + 0)`,
      ),
      type: T.bigint(arg.type.nullable),
    };
  }
  if (isPreciseTimestamp(arg.type)) {
    // The digits below the millisecond are the same on every wall clock (zones shift whole ms).
    if (unit === 'MICROSECOND' || unit === 'NANOSECOND')
      return {
        code: nullSafe(g, [arg], ([v]) => `h.extractSubSecond(${v}, ${JSON.stringify(unit)})`),
        type: T.bigint(arg.type.nullable),
      };
    return extract(g, toMillis(g, arg), unit, at);
  }
  // Flink's EXTRACT takes the digits below the millisecond of timestamps only.
  if (arg.type.kind === 'DATE' && (unit === 'MICROSECOND' || unit === 'NANOSECOND'))
    sqlError(`EXTRACT: ${unit} can not be applied to a DATE`, at);
  let ms: Compiled;
  if (arg.type.kind === 'TIME') {
    if (isDateUnit)
      sqlError(
        `EXTRACT(${unit} FROM ...) needs a DATE or TIMESTAMP, got ${formatType(arg.type)}`,
        at,
      );
    ms = arg;
  } else {
    // A DATE's time fields are 0, as in Flink.
    // EPOCH counts seconds of the instant, not of the wall clock.
    ms =
      unit === 'EPOCH' && arg.type.kind === 'TIMESTAMP_LTZ'
        ? arg
        : wallClock(g, arg, 'EXTRACT', at);
  }
  const u = JSON.stringify(unit);
  return {
    code: nullSafe(g, [ms], ([v]) => `h.extract(${v}, ${u})`),
    type: T.bigint(arg.type.nullable),
  };
}

function fieldFunction(name: string, unit: string): TimeFunction {
  return (args, g, at) => {
    argumentCount(name, args, [1], at);
    return extract(g, args[0] as Compiled, unit, at);
  };
}

/** NOW(), CURRENT_TIMESTAMP, PROCTIME(), CURRENT_ROW_TIMESTAMP(): the instant the row is computed. */
function instantNow(name: string): TimeFunction {
  return (args, _g, at) => {
    argumentCount(name, args, [0], at);
    return { code: 'Date.now()', type: ltz(false) };
  };
}

/** The wall clock now in the session zone. */
function localNow(g: CodeGen): string {
  const { zone, code } = zoneConstant(g);
  return zone.isUtc ? 'Date.now()' : `h.toLocal(${code}, Date.now())`;
}

const TIMESTAMP_UNITS = new Set([
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'WEEK',
  'MONTH',
  'QUARTER',
  'YEAR',
]);

/** The unit word a TIMESTAMPADD / TIMESTAMPDIFF starts with (the parser passes it as a string). */
function unitArgument(name: string, raw: readonly Expr[], at: SourcePosition): string {
  const first = raw[0];
  const unit = first?.kind === 'string' ? first.value.toUpperCase().replace(/^SQL_TSI_/, '') : '';
  if (!TIMESTAMP_UNITS.has(unit))
    sqlError(
      `${name} needs a time unit first (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR)`,
      at,
    );
  return unit;
}

/** The units FLOOR / CEIL(t TO unit) round to; a TIME rounds to an hour at most. */
const ROUNDING_UNITS = new Set([
  'MILLISECOND',
  ...TIMESTAMP_UNITS,
  'DECADE',
  'CENTURY',
  'MILLENNIUM',
]);
const TIME_ROUNDING_UNITS = new Set(['MILLISECOND', 'SECOND', 'MINUTE', 'HOUR']);

/**
 * FLOOR(t TO unit) / CEIL(t TO unit) of a TIMESTAMP, TIMESTAMP_LTZ (in the zone), DATE or TIME:
 * the argument's type. A TIMESTAMP(p > 3) keeps its precision (its calls take it unconverted).
 */
function roundTime(name: 'FLOOR' | 'CEIL'): TimeFunction {
  return (args, g, at) => {
    const [a, unitArg] = args as [Compiled, Compiled];
    const unit = JSON.parse(unitArg.code) as string;
    if (!ROUNDING_UNITS.has(unit))
      sqlError(`${name}(... TO ${unit}) is not supported by Weir SQL yet`, at);
    const fn = name === 'FLOOR' ? 'floorTime' : 'ceilTime';
    const t = a.type;
    if (isPreciseTimestamp(t)) {
      const zone = t.kind === 'TIMESTAMP_LTZ' ? zoneConstant(g).code : 'undefined';
      const ceil = name === 'CEIL';
      return {
        code: nullSafe(g, [a], ([v]) => `h.roundNanos(${v}, '${unit}', ${ceil}, ${zone})`),
        type: t,
      };
    }
    if (t.kind === 'TIME' && !TIME_ROUNDING_UNITS.has(unit))
      sqlError(`${name}(... TO ${unit}) of a TIME: a time of day rounds to an HOUR at most`, at);
    if (t.kind === 'TIMESTAMP' || t.kind === 'TIME')
      return { code: nullSafe(g, [a], ([v]) => `h.${fn}(${v}, '${unit}')`), type: t };
    // Flink's CEIL of a DATE to DAY is the next day, also of the day itself (its
    // TimeFunctionsITCase: CEIL(DATE '1990-10-14' TO DAY) is 1990-10-15).
    if (t.kind === 'DATE' && name === 'CEIL' && unit === 'DAY')
      return { code: nullSafe(g, [a], ([v]) => `(${v} + 1)`), type: t };
    if (t.kind === 'DATE')
      return {
        code: nullSafe(
          g,
          [a],
          ([v]) => `Math.floor(h.${fn}(${v} * ${DAY_MS}, '${unit}') / ${DAY_MS})`,
        ),
        type: t,
      };
    if (t.kind === 'TIMESTAMP_LTZ') {
      const { code } = zoneConstant(g);
      return {
        code: nullSafe(
          g,
          [a],
          ([v]) => `h.toUtc(${code}, h.${fn}(h.toLocal(${code}, ${v}), '${unit}'))`,
        ),
        type: t,
      };
    }
    if (t.kind === 'NULL') return { code: 'null', type: T.timestamp(3, true) };
    return sqlError(
      `${name}(... TO ${unit}) expects a DATE or TIMESTAMP, got ${formatType(t)}`,
      at,
    );
  };
}

export const TIME_FUNCTIONS: Readonly<Record<string, TimeFunction>> = {
  // Processing time: Flink evaluates these per record in streaming mode.
  PROCTIME: instantNow('PROCTIME'),
  NOW: instantNow('NOW'),
  CURRENT_TIMESTAMP: instantNow('CURRENT_TIMESTAMP'),
  CURRENT_ROW_TIMESTAMP: instantNow('CURRENT_ROW_TIMESTAMP'),
  LOCALTIMESTAMP: (args, g, at) => {
    argumentCount('LOCALTIMESTAMP', args, [0], at);
    return { code: localNow(g), type: T.timestamp(3, false) };
  },
  CURRENT_DATE: (args, g, at) => {
    argumentCount('CURRENT_DATE', args, [0], at);
    return { code: `Math.floor(${localNow(g)} / ${DAY_MS})`, type: T.date(false) };
  },
  CURRENT_TIME: (args, g, at) => localTime('CURRENT_TIME', args, g, at),
  LOCALTIME: (args, g, at) => localTime('LOCALTIME', args, g, at),
  UNIX_TIMESTAMP: (args, g, at, raw) => {
    argumentCount('UNIX_TIMESTAMP', args, [0, 1, 2], at);
    if (args.length === 0) return { code: 'Math.floor(Date.now() / 1000)', type: T.bigint(false) };
    for (const a of args) stringArgument('UNIX_TIMESTAMP', a, at);
    checkLiteralFormat(raw[1], at);
    const { code } = zoneConstant(g);
    return {
      code: nullSafe(g, args, ([s, f]) => `h.unixTimestamp(${s}, ${f ?? 'undefined'}, ${code})`),
      type: T.bigint(nullableOf(args)),
    };
  },
  FROM_UNIXTIME: (args, g, at, raw) => {
    argumentCount('FROM_UNIXTIME', args, [1, 2], at);
    const [n, f] = args as [Compiled, Compiled | undefined];
    if (!isInteger(n.type) && n.type.kind !== 'NULL')
      sqlError(`FROM_UNIXTIME needs an integer number of seconds, got ${formatType(n.type)}`, at);
    stringArgument('FROM_UNIXTIME', f, at);
    checkLiteralFormat(raw[1], at);
    const { code } = zoneConstant(g);
    return {
      code: nullSafe(
        g,
        args,
        ([v, p]) => `h.fromUnixtime(${v}, ${p ?? "'yyyy-MM-dd HH:mm:ss'"}, ${code})`,
      ),
      type: T.string(nullableOf(args)),
    };
  },
  TO_DATE: (args, g, at, raw) => {
    argumentCount('TO_DATE', args, [1, 2], at);
    for (const a of args) stringArgument('TO_DATE', a, at);
    checkLiteralFormat(raw[1], at);
    return {
      code: nullSafe(g, args, ([s, f]) => `h.toDate(${s}, ${f ?? 'undefined'})`),
      type: T.date(true),
    };
  },
  TO_TIMESTAMP: (args, g, at, raw) => {
    argumentCount('TO_TIMESTAMP', args, [1, 2], at);
    for (const a of args) stringArgument('TO_TIMESTAMP', a, at);
    checkLiteralFormat(raw[1], at);
    return {
      code: nullSafe(g, args, ([s, f]) => `h.toTimestamp(${s}, ${f ?? 'undefined'})`),
      type: T.timestamp(3, true),
    };
  },
  TO_TIMESTAMP_LTZ: (args, g, at, raw) => {
    argumentCount('TO_TIMESTAMP_LTZ', args, [1, 2, 3], at);
    const [v] = args as [Compiled];
    if (isNumeric(v.type)) {
      // Epoch seconds (precision 0) or milliseconds (precision 3).
      argumentCount('TO_TIMESTAMP_LTZ of a number', args, [1, 2], at);
      const p = raw[1];
      const precision = p === undefined ? 3 : p.kind === 'number' ? Number(p.text) : Number.NaN;
      if (precision !== 0 && precision !== 3)
        sqlError(
          'TO_TIMESTAMP_LTZ(number, precision) takes precision 0 (seconds) or 3 (milliseconds)',
          at,
        );
      const asDouble = castTo(g, v, T.double(v.type.nullable), false, at);
      const scale = precision === 0 ? 1000 : 1;
      return {
        code: nullSafe(g, [asDouble], ([x]) => `h.numberToInstant(${x}, ${scale})`),
        type: ltz(true),
      };
    }
    for (const a of args) stringArgument('TO_TIMESTAMP_LTZ', a, at);
    checkLiteralFormat(raw[1], at);
    checkLiteralZone(raw[2], at);
    return {
      code: nullSafe(
        g,
        args,
        ([s, f, z]) =>
          `h.toTimestampLtz(${s}, ${f ?? "'yyyy-MM-dd HH:mm:ss.SSS'"}, ${z ?? "'UTC'"})`,
      ),
      type: ltz(true),
    };
  },
  DATE_FORMAT: (args, g, at, raw) => {
    argumentCount('DATE_FORMAT', args, [2], at);
    const [t, f] = args as [Compiled, Compiled];
    stringArgument('DATE_FORMAT', f, at);
    checkLiteralFormat(raw[1], at);
    if (t.type.kind === 'TIMESTAMP_LTZ') {
      const { code } = zoneConstant(g);
      return {
        code: nullSafe(g, [t, f], ([v, p]) => `h.formatInstant(${v}, ${p}, ${code})`),
        type: T.string(nullableOf(args)),
      };
    }
    if (t.type.kind === 'DATE')
      sqlError('DATE_FORMAT needs a TIMESTAMP or a string, got DATE (CAST it to TIMESTAMP)', at);
    // Text that is no `yyyy-MM-dd HH:mm:ss` formats as NULL, as in Flink.
    if (isCharacterString(t.type) || t.type.kind === 'NULL')
      return {
        code: nullSafe(g, [t, f], ([v, p]) => `h.formatText(${v}, ${p})`),
        type: T.string(true),
      };
    const ms = wallClock(g, t, 'DATE_FORMAT', at);
    return {
      code: nullSafe(g, [ms, f], ([v, p]) => `h.formatTimestamp(${v}, ${p})`),
      type: T.string(ms.type.nullable || f.type.nullable),
    };
  },
  CONVERT_TZ: (args, g, at, raw) => {
    argumentCount('CONVERT_TZ', args, [3], at);
    for (const a of args) stringArgument('CONVERT_TZ', a, at);
    checkLiteralZone(raw[1], at);
    checkLiteralZone(raw[2], at);
    return {
      code: nullSafe(g, args, ([s, from, to]) => `h.convertTz(${s}, ${from}, ${to})`),
      type: T.string(true),
    };
  },
  TIMESTAMPADD: (args, g, at, raw) => {
    argumentCount('TIMESTAMPADD', args, [3], at);
    const unit = unitArgument('TIMESTAMPADD', raw, at);
    const [, n, t] = args as [Compiled, Compiled, Compiled];
    if (!isInteger(n.type) && n.type.kind !== 'NULL')
      sqlError(`TIMESTAMPADD needs an integer count, got ${formatType(n.type)}`, at);
    const count = castTo(g, n, T.int('INTEGER', n.type.nullable), false, at);
    const nullable = n.type.nullable || t.type.nullable;
    const u = JSON.stringify(unit);
    if (t.type.kind === 'DATE') {
      const dayBased = ['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'].includes(unit);
      const ms = nullSafe(
        g,
        [count, t],
        ([c, v]) => `h.timestampAdd(${u}, ${c}, ${v} * ${DAY_MS})`,
      );
      return dayBased
        ? {
            code: nullSafe(
              g,
              [{ code: ms, type: T.bigint(nullable) }],
              ([v]) => `Math.floor(${v} / ${DAY_MS})`,
            ),
            type: T.date(nullable),
          }
        : { code: ms, type: T.timestamp(0, nullable) };
    }
    if (t.type.kind === 'TIME') {
      return {
        code: nullSafe(
          g,
          [count, t],
          ([c, v]) => `h.addToTime(${v}, h.timestampAdd(${u}, ${c}, 0))`,
        ),
        type: t.type,
      };
    }
    if (!isTimestamp(t.type) && t.type.kind !== 'NULL')
      sqlError(`TIMESTAMPADD needs a DATE, TIME or TIMESTAMP, got ${formatType(t.type)}`, at);
    // A TIMESTAMP(p > 3) keeps its digits below the millisecond and its precision, as in Flink
    // (CalcITCase.testTimestampAdd): every unit adds whole milliseconds.
    const precise = isPreciseTimestamp(t.type);
    return {
      code: nullSafe(g, [count, t], ([c, v]) =>
        precise
          ? `h.withMillis(${v}, h.timestampAdd(${u}, ${c}, h.millisOfNanos(${v})))`
          : `h.timestampAdd(${u}, ${c}, ${v})`,
      ),
      type: t.type.kind === 'NULL' ? T.timestamp(3, true) : { ...t.type, nullable },
    };
  },
  TIMESTAMPDIFF: (args, g, at, raw) => {
    argumentCount('TIMESTAMPDIFF', args, [3], at);
    const unit = unitArgument('TIMESTAMPDIFF', raw, at);
    const [, a, b] = args as [Compiled, Compiled, Compiled];
    if (a.type.kind === 'TIMESTAMP_LTZ' || b.type.kind === 'TIMESTAMP_LTZ') {
      if (a.type.kind !== b.type.kind && a.type.kind !== 'NULL' && b.type.kind !== 'NULL')
        sqlError(
          `TIMESTAMPDIFF needs two times of one kind, got ${formatType(a.type)} and ${formatType(b.type)}`,
          at,
        );
    }
    const x = wallClock(g, a, 'TIMESTAMPDIFF', at);
    const y = wallClock(g, b, 'TIMESTAMPDIFF', at);
    const u = JSON.stringify(unit);
    return {
      code: nullSafe(g, [x, y], ([p, q]) => `h.timestampDiff(${u}, ${p}, ${q})`),
      type: T.int('INTEGER', a.type.nullable || b.type.nullable),
    };
  },
  // DATE_SUB(date, interval): the date minus the interval, as `date - interval` computes it.
  DATE_SUB: (args, g, at) => {
    argumentCount('DATE_SUB', args, [2], at);
    const [d, i] = args as [Compiled, Compiled];
    const isInterval = (c: Compiled) =>
      c.type.kind === 'INTERVAL_DAY_TIME' || c.type.kind === 'INTERVAL_YEAR_MONTH';
    if (
      (d.type.kind !== 'DATE' && d.type.kind !== 'NULL') ||
      (!isInterval(i) && i.type.kind !== 'NULL')
    )
      sqlError(
        `DATE_SUB needs a DATE and an INTERVAL, got ${formatType(d.type)} and ${formatType(i.type)}`,
        at,
      );
    if (d.type.kind === 'NULL' || i.type.kind === 'NULL')
      return { code: 'null', type: T.date(true) };
    return timeArithmetic('-', d, i, g, at) as Compiled;
  },
  OVERLAPS: (args, g, at) => {
    argumentCount('OVERLAPS', args, [4], at);
    const [s1, e1, s2, e2] = args as [Compiled, Compiled, Compiled, Compiled];
    const first = period(g, s1, e1, at);
    const second = period(g, s2, e2, at);
    // The starts as written: a DATE period's points are wall clocks by now.
    if (s1.type.kind !== s2.type.kind)
      sqlError(
        `OVERLAPS compares periods of one kind, got ${formatType(s1.type)} and ${formatType(s2.type)}`,
        at,
      );
    // A TIMESTAMP(p > 3) compares by its nanoseconds (its calls take it unconverted).
    let points = [...first, ...second];
    if (points.some((p) => isPreciseTimestamp(p.type))) points = points.map((p) => asNanos(g, p));
    return {
      code: nullSafe(g, points, ([a, b, c, d]) => `h.overlaps(${a}, ${b}, ${c}, ${d})`),
      type: T.boolean(nullableOf(args)),
    };
  },
  YEAR: fieldFunction('YEAR', 'YEAR'),
  QUARTER: fieldFunction('QUARTER', 'QUARTER'),
  MONTH: fieldFunction('MONTH', 'MONTH'),
  WEEK: fieldFunction('WEEK', 'WEEK'),
  DAYOFYEAR: fieldFunction('DAYOFYEAR', 'DOY'),
  DAYOFMONTH: fieldFunction('DAYOFMONTH', 'DAY'),
  DAYOFWEEK: fieldFunction('DAYOFWEEK', 'DOW'),
  HOUR: fieldFunction('HOUR', 'HOUR'),
  MINUTE: fieldFunction('MINUTE', 'MINUTE'),
  SECOND: fieldFunction('SECOND', 'SECOND'),
  'FLOOR TO': roundTime('FLOOR'),
  'CEIL TO': roundTime('CEIL'),
};

function localTime(
  name: string,
  args: readonly Compiled[],
  g: CodeGen,
  at: SourcePosition,
): Compiled {
  argumentCount(name, args, [0], at);
  // TIME(0): whole seconds of the wall clock's day.
  return {
    code: `(Math.floor((((${localNow(g)}) % ${DAY_MS} + ${DAY_MS}) % ${DAY_MS}) / 1000) * 1000)`,
    type: { kind: 'TIME', nullable: false, precision: 0 },
  };
}

/** One side of OVERLAPS: (start, end) or (start, interval), as two times of one kind. */
function period(
  g: CodeGen,
  start: Compiled,
  end: Compiled,
  at: SourcePosition,
): [Compiled, Compiled] {
  const t = start.type;
  if (t.kind !== 'DATE' && t.kind !== 'TIME' && !isTimestamp(t))
    sqlError(`OVERLAPS needs periods of DATE, TIME or TIMESTAMP, got ${formatType(t)}`, at);
  if (end.type.kind === 'INTERVAL_DAY_TIME') {
    const startMs = t.kind === 'DATE' ? wallClock(g, start, 'OVERLAPS', at) : start;
    return [
      startMs,
      {
        code: nullSafe(g, [startMs, end], ([s, i]) =>
          isPreciseTimestamp(startMs.type) ? `(${s} + BigInt(${i}) * 1000000n)` : `(${s} + ${i})`,
        ),
        type: startMs.type,
      },
    ];
  }
  if (end.type.kind !== t.kind)
    sqlError(
      `OVERLAPS: a period ends with a time of its start's kind or an interval, got ${formatType(end.type)}`,
      at,
    );
  return t.kind === 'DATE'
    ? [wallClock(g, start, 'OVERLAPS', at), wallClock(g, end, 'OVERLAPS', at)]
    : [start, end];
}

/** A millisecond TIMESTAMP or TIMESTAMP_LTZ as epoch nanoseconds, as a precise one holds it. */
function asNanos(g: CodeGen, c: Compiled): Compiled {
  if (isPreciseTimestamp(c.type) || !isTimestamp(c.type)) return c;
  const nullable = c.type.nullable;
  return {
    code: nullSafe(g, [c], ([v]) => `h.nanosOfMillis(${v})`),
    type: c.type.kind === 'TIMESTAMP_LTZ' ? ltz(nullable, 9) : T.timestamp(9, nullable),
  };
}

/** The names of the functions whose arguments start with a time unit word (the parser's concern). */
export const UNIT_FIRST_FUNCTIONS: ReadonlySet<string> = new Set(['TIMESTAMPADD', 'TIMESTAMPDIFF']);
