/**
 * Time arithmetic as Flink types and computes it: interval literals of every unit and range
 * (`INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL '1 02:03:04.5' DAY TO SECOND`), DATE / TIME /
 * TIMESTAMP plus or minus an INTERVAL (months clamp to the end of a shorter month, a TIME wraps
 * around midnight, a DATE takes whole days of a day-time interval), INTERVAL plus or minus
 * INTERVAL, and an INTERVAL times or divided by a number. Values: a day-time interval is ms, a
 * year-month interval is months.
 */
import type { Expr } from '../../parser/ast.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import {
  formatType,
  isInteger,
  isNumeric,
  isPreciseTimestamp,
  isTimestamp,
  type LogicalType,
  T,
  withNullability,
} from '../../types/logical-type.js';
import { castTo } from '../cast.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import { DAY_MS } from './time-runtime.js';

const UNIT_MS: Readonly<Record<string, number>> = {
  DAY: DAY_MS,
  HOUR: 3_600_000,
  MINUTE: 60_000,
  SECOND: 1000,
  MILLISECOND: 1,
};

/** The fields of each interval range, from its leading unit to its last, and their upper bounds. */
const RANGE_FIELDS: readonly (readonly [string, number])[] = [
  ['DAY', Number.POSITIVE_INFINITY],
  ['HOUR', 24],
  ['MINUTE', 60],
  ['SECOND', 60],
];

const YEAR_MONTH: LogicalType = { kind: 'INTERVAL_YEAR_MONTH', nullable: false };

/** An interval literal's value: months for YEAR / MONTH ranges, otherwise ms. */
export function intervalLiteral(e: Extract<Expr, { kind: 'interval' }>): Compiled {
  const { unit, to, at } = e;
  const range = to === undefined ? unit : `${unit} TO ${to}`;
  const bad = (why: string): never => sqlError(`INTERVAL '${e.value}' ${range}: ${why}`, at);
  let text = e.value.trim();
  let sign = e.negative ? -1 : 1;
  if (text.startsWith('-') || text.startsWith('+')) {
    if (text.startsWith('-')) sign = -sign;
    text = text.slice(1);
  }
  if (unit === 'YEAR' || unit === 'MONTH') {
    if (to !== undefined && !(unit === 'YEAR' && to === 'MONTH')) bad('not a valid interval range');
    const m = (to === undefined ? /^(\d+)$/ : /^(\d+)-(\d+)$/).exec(text);
    if (m === null)
      bad(
        to === undefined ? 'the value must be a whole number' : "the value must be 'years-months'",
      );
    const [, first = '0', second = '0'] = m as RegExpExecArray;
    if (to !== undefined && Number(second) > 11) bad(`month ${second} is out of range (0 to 11)`);
    const months = unit === 'YEAR' ? Number(first) * 12 + Number(second) : Number(first);
    return { code: `(${sign * months})`, type: YEAR_MONTH };
  }
  if (to === undefined) {
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) bad('the value must be a number');
    const ms = Math.round(Number(text) * (UNIT_MS[unit] as number));
    return { code: `(${sign * ms})`, type: T.intervalDayTime(false) };
  }
  const from = RANGE_FIELDS.findIndex(([u]) => u === unit);
  const last = RANGE_FIELDS.findIndex(([u]) => u === to);
  if (from < 0 || last <= from) bad('not a valid interval range');
  // 'd h:m:s.f': the day is separated by a space, the other fields by colons.
  const fields: string[] = [];
  let rest = text;
  if (unit === 'DAY') {
    const space = rest.indexOf(' ');
    if (space < 0) bad("the value must be written as 'd hh:mm:ss.fff'");
    fields.push(rest.slice(0, space));
    rest = rest.slice(space + 1).trim();
  }
  fields.push(...rest.split(':'));
  if (fields.length !== last - from + 1) bad(`expected ${last - from + 1} fields`);
  let ms = 0;
  fields.forEach((field, k) => {
    const [name, bound] = RANGE_FIELDS[from + k] as readonly [string, number];
    const ok = name === 'SECOND' ? /^\d+(\.\d{0,9})?$/.test(field) : /^\d+$/.test(field);
    if (!ok) bad(`'${field}' is not a valid ${name.toLowerCase()} field`);
    const n = Number(field);
    if (k > 0 && n >= bound) bad(`${name.toLowerCase()} ${field} is out of range (below ${bound})`);
    ms += n * (UNIT_MS[name] as number);
  });
  return { code: `(${sign * Math.round(ms)})`, type: T.intervalDayTime(false) };
}

const isInterval = (t: LogicalType): boolean =>
  t.kind === 'INTERVAL_DAY_TIME' || t.kind === 'INTERVAL_YEAR_MONTH';

/**
 * `left op right` when one side is a time or an interval; undefined when neither is (plain
 * numbers). An error names the types when Flink has no such operation.
 */
export function timeArithmetic(
  op: '+' | '-' | '*' | '/' | '%',
  left: Compiled,
  right: Compiled,
  g: CodeGen,
  at: SourcePosition,
): Compiled | undefined {
  const lt = left.type;
  const rt = right.type;
  const isTime = (t: LogicalType) => t.kind === 'DATE' || t.kind === 'TIME' || isTimestamp(t);
  if (!isTime(lt) && !isTime(rt) && !isInterval(lt) && !isInterval(rt)) return undefined;
  const nullable = lt.nullable || rt.nullable;
  const refuse = (hint = ''): never =>
    sqlError(`cannot apply ${op} to ${formatType(lt)} and ${formatType(rt)}${hint}`, at);
  if (op === '+' || op === '-') {
    if (isTime(lt) && isInterval(rt)) return plusInterval(op, left, right, g);
    if (op === '+' && isInterval(lt) && isTime(rt)) return plusInterval('+', right, left, g);
    if (isInterval(lt) && lt.kind === rt.kind)
      return {
        code: nullSafe(g, [left, right], ([x, y]) => `(${x} ${op} ${y})`),
        type: withNullability(lt, nullable),
      };
    if (op === '-' && isTime(lt) && isTime(rt))
      refuse(' (TIMESTAMPDIFF(unit, a, b) counts the units between two times)');
    return refuse();
  }
  if (op === '*' || op === '/') {
    const [interval, factor] = isInterval(lt) ? [left, right] : [right, left];
    if (!isInterval(interval.type) || !isNumeric(factor.type) || (op === '/' && interval !== left))
      return refuse();
    const f = castTo(g, factor, T.double(factor.type.nullable), false, at);
    const months = interval.type.kind === 'INTERVAL_YEAR_MONTH';
    // Exact for integer factors; a fraction is cut toward zero, as Java's long conversion does.
    const exact = isInteger(factor.type) && op === '*';
    const body = ([x, y]: string[]) =>
      exact
        ? `(${x} * ${y})`
        : op === '*'
          ? `Math.trunc(${x} * ${y})`
          : `h.intervalDivide(${x}, ${y})`;
    return {
      code: nullSafe(g, [interval, f], body),
      type: withNullability(months ? YEAR_MONTH : T.intervalDayTime(false), nullable),
    };
  }
  return refuse();
}

/** A time plus (or minus) an interval: the time's type, its NULL in gives NULL out. */
function plusInterval(op: '+' | '-', time: Compiled, interval: Compiled, g: CodeGen): Compiled {
  const t = time.type;
  const type = withNullability(t, t.nullable || interval.type.nullable);
  const months = interval.type.kind === 'INTERVAL_YEAR_MONTH';
  const signed = (i: string) => (op === '-' ? `(-${i})` : i);
  let body: (vars: string[]) => string;
  if (t.kind === 'DATE')
    body = months
      ? ([d, i]) => `h.addMonthsToDate(${d}, ${signed(i as string)})`
      : ([d, i]) => `(${d} ${op} Math.trunc(${i} / ${DAY_MS}))`;
  else if (t.kind === 'TIME')
    body = months ? ([v]) => `${v}` : ([v, i]) => `h.addToTime(${v}, ${signed(i as string)})`;
  else if (!isPreciseTimestamp(t))
    body = months
      ? ([v, i]) => `h.addMonths(${v}, ${signed(i as string)})`
      : ([v, i]) => `(${v} ${op} ${i})`;
  // Epoch nanoseconds: months move the millisecond part, an interval's ms add as nanoseconds.
  else
    body = months
      ? ([v, i]) => `h.withMillis(${v}, h.addMonths(h.millisOfNanos(${v}), ${signed(i as string)}))`
      : ([v, i]) => `(${v} ${op} BigInt(${i}) * 1000000n)`;
  return { code: nullSafe(g, [time, interval], body), type };
}
