/**
 * PRINTF(format, args...) as Java's `String.format`, for the conversions SQL values meet:
 * %s %S %d %x %X %o %f %e %E %g %b %c %n %%, with flags `-`, `0`, `+`, ` `, `,`, a width and a
 * precision. A conversion that does not fit its value fails the job, as in Flink.
 */
import { formatDecimal } from '../../types/decimal.js';
import type { LogicalType } from '../../types/logical-type.js';
import { toDisplayString } from '../../types/values.js';
import { functionFailed } from './arguments.js';
import { javaDouble, javaFloat } from './java-text.js';

const SPEC = /%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([a-zA-Z%])/g;

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function padTo(text: string, flags: string, width: number | undefined): string {
  if (width === undefined || text.length >= width) return text;
  if (flags.includes('-')) return text.padEnd(width);
  if (flags.includes('0') && /^[+-]?[\d.,a-fA-F]/.test(text)) {
    const sign = /^[+-]/.test(text) ? (text[0] as string) : '';
    return sign + text.slice(sign.length).padStart(width - sign.length, '0');
  }
  return text.padStart(width);
}

function signed(text: string, negative: boolean, flags: string): string {
  if (negative) return `-${text}`;
  if (flags.includes('+')) return `+${text}`;
  if (flags.includes(' ')) return ` ${text}`;
  return text;
}

/** The value as a number Java would format (a DECIMAL's unscaled bigint at its scale). */
function numberOf(value: unknown, type: LogicalType | undefined): number | bigint {
  if (type?.kind === 'DECIMAL') return Number(formatDecimal(value as bigint, type.scale));
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  return functionFailed('PRINTF', `a number conversion got ${JSON.stringify(value)}`);
}

function integerText(
  value: unknown,
  type: LogicalType | undefined,
  conversion: string,
  flags: string,
): string {
  if (
    type !== undefined &&
    type.kind !== 'TINYINT' &&
    type.kind !== 'SMALLINT' &&
    type.kind !== 'INTEGER' &&
    type.kind !== 'BIGINT'
  )
    functionFailed('PRINTF', `%${conversion} needs an integer, got ${type.kind}`);
  const n = BigInt(numberOf(value, type));
  if (conversion === 'd') {
    const digits = (n < 0n ? -n : n).toString();
    return signed(flags.includes(',') ? group(digits) : digits, n < 0n, flags);
  }
  // Java prints a negative integer's two's complement in hex and octal (64 bits for a BIGINT).
  const bits =
    type?.kind === 'BIGINT'
      ? 64n
      : type?.kind === 'SMALLINT'
        ? 16n
        : type?.kind === 'TINYINT'
          ? 8n
          : 32n;
  const unsigned = n < 0n ? (1n << bits) + n : n;
  const text = unsigned.toString(conversion === 'o' ? 8 : 16);
  return conversion === 'X' ? text.toUpperCase() : text;
}

function floatText(
  x: number,
  conversion: string,
  flags: string,
  precision: number | undefined,
): string {
  const p = precision ?? 6;
  if (!Number.isFinite(x)) return signed(Number.isNaN(x) ? 'NaN' : 'Infinity', x < 0, flags);
  const abs = Math.abs(x);
  let text: string;
  if (conversion === 'f') {
    text = abs.toFixed(p);
    if (flags.includes(',')) {
      const [whole = '', fraction] = text.split('.');
      text = fraction === undefined ? group(whole) : `${group(whole)}.${fraction}`;
    }
  } else {
    const [mantissa = '', exponent = '0'] = abs.toExponential(p).split('e');
    const e = Number(exponent);
    text = `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (conversion === 'E') text = text.toUpperCase();
  return signed(text, x < 0 || Object.is(x, -0), flags);
}

/** `%s` of a value: Java's toString of the value Flink passes (`60.0`, `true`, `2026-03-28T23:59`). */
function stringOf(value: unknown, type: LogicalType | undefined): string {
  if (value === null) return 'null';
  if (type === undefined || type.kind === 'BOOLEAN') return String(value);
  if (type.kind === 'DOUBLE') return javaDouble(value as number);
  if (type.kind === 'FLOAT') return javaFloat(value as number);
  return toDisplayString(value, type);
}

export function printf(
  format: string,
  types: readonly LogicalType[],
  values: readonly unknown[],
): string {
  let next = 0;
  let last = -1;
  return format.replace(
    SPEC,
    (
      spec,
      position: string | undefined,
      flags: string,
      w: string | undefined,
      p: string | undefined,
      conversion: string,
    ) => {
      if (conversion === '%') return padTo('%', flags, w === undefined ? undefined : Number(w));
      if (conversion === 'n') return '\n';
      const index = flags.includes('<')
        ? last
        : position !== undefined
          ? Number(position.slice(0, -1)) - 1
          : next++;
      last = index;
      if (index >= values.length) functionFailed('PRINTF', `format '${spec}' has no argument`);
      const value = values[index];
      const type = types[index];
      const width = w === undefined ? undefined : Number(w);
      const precision = p === undefined ? undefined : Number(p.slice(1));
      let text: string;
      switch (conversion) {
        case 's':
        case 'S':
          text = stringOf(value, type);
          if (precision !== undefined) text = text.slice(0, precision);
          if (conversion === 'S') text = text.toUpperCase();
          break;
        case 'b':
        case 'B':
          text = String(value === null ? false : typeof value === 'boolean' ? value : true);
          if (conversion === 'B') text = text.toUpperCase();
          break;
        case 'c':
          text = value === null ? 'null' : String.fromCodePoint(Number(numberOf(value, type)));
          break;
        case 'd':
        case 'x':
        case 'X':
        case 'o':
          text = value === null ? 'null' : integerText(value, type, conversion, flags);
          break;
        case 'f':
        case 'e':
        case 'E':
          if (value === null) text = 'null';
          else if (
            type !== undefined &&
            (type.kind === 'TINYINT' ||
              type.kind === 'SMALLINT' ||
              type.kind === 'INTEGER' ||
              type.kind === 'BIGINT')
          )
            return functionFailed(
              'PRINTF',
              `%${conversion} needs a floating-point value, got ${type.kind}`,
            );
          else text = floatText(Number(numberOf(value, type)), conversion, flags, precision);
          break;
        default:
          return functionFailed('PRINTF', `unknown format conversion '${spec}'`);
      }
      return padTo(text, flags, width);
    },
  );
}
