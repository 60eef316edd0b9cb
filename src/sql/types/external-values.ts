/**
 * Values a TypeScript program hands to SQL (the records of `fromDataStream`) in the form a row
 * holds them (docs/sql.md, "Rows"). A program naturally holds a time as a `Date` and an amount
 * as a number; a row holds epoch ms (or nanoseconds), days, and DECIMAL's unscaled bigint. Left
 * as they came, a `Date` would fail as a grouping key and a number would be read as an
 * unscaled DECIMAL, far from where the value came in. A value no form fits fails here, naming
 * the table and column.
 */
import { parseDecimal } from './decimal.js';
import { formatType, type LogicalType } from './logical-type.js';
import { longOf } from './long.js';

const DAY_MS = 86_400_000;
const NANOS_PER_MS = 1_000_000n;

/** Converts one column's values; undefined where every value is taken as it is. */
export type ExternalValueReader = (value: unknown) => unknown;

/** The reader of column `column` of type `type` in table `table`, if its values need one. */
export function externalValueReader(
  type: LogicalType,
  table: string,
  column: string,
): ExternalValueReader | undefined {
  const refuse = (value: unknown, takes: string): never => {
    throw new TypeError(
      `fromDataStream '${table}': column '${column}' is ${formatType(type)} and takes ${takes}, not ${describe(value)}`,
    );
  };
  switch (type.kind) {
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if (type.precision <= 3)
        return (v) =>
          v instanceof Date
            ? v.getTime()
            : typeof v === 'number' || v == null
              ? (v ?? null)
              : refuse(v, 'a Date or epoch milliseconds');
      return (v) =>
        v instanceof Date
          ? BigInt(v.getTime()) * NANOS_PER_MS
          : typeof v === 'bigint' || v == null
            ? (v ?? null)
            : Number.isSafeInteger(v)
              ? BigInt(v as number) * NANOS_PER_MS
              : refuse(v, 'a Date, epoch milliseconds or a bigint of epoch nanoseconds');
    case 'DATE':
      return (v) =>
        v instanceof Date
          ? Math.floor(v.getTime() / DAY_MS)
          : Number.isSafeInteger(v) || v == null
            ? (v ?? null)
            : refuse(v, 'a Date or days since 1970-01-01');
    case 'BIGINT':
      // One form per value (longOf): 5n and 5 must group, join and compare as one.
      return (v) =>
        typeof v === 'bigint'
          ? longOf(v)
          : Number.isSafeInteger(v) || v == null
            ? (v ?? null)
            : refuse(v, 'an integer number or a bigint');
    case 'DECIMAL': {
      const { scale } = type;
      const decimal = (text: string, v: unknown) =>
        parseDecimal(text, scale) ?? refuse(v, 'a number, a decimal string or an unscaled bigint');
      return (v) =>
        typeof v === 'bigint' || v == null
          ? (v ?? null)
          : typeof v === 'number' && Number.isFinite(v)
            ? decimal(String(v), v)
            : typeof v === 'string'
              ? decimal(v, v)
              : refuse(v, 'a number, a decimal string or an unscaled bigint');
    }
    case 'ROW': {
      // An object is read by field name (as Flink reads a POJO), an array by position; each
      // field converted as a column of its type would be.
      const fields = type.fields.map((f) => ({
        name: f.name,
        read: externalValueReader(f.type, table, `${column}.${f.name}`),
      }));
      const field = (i: number, v: unknown): unknown => {
        const read = fields[i]?.read;
        return read === undefined ? (v ?? null) : read(v);
      };
      return (v) =>
        v == null
          ? null
          : Array.isArray(v)
            ? fields.map((_, i) => field(i, v[i]))
            : typeof v === 'object' && !(v instanceof Date)
              ? fields.map((f, i) => field(i, (v as Record<string, unknown>)[f.name]))
              : refuse(v, 'an object with its fields by name, or an array of them in order');
    }
    default:
      return undefined;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value)})`;
  return `${typeof value} ${String(value)}`;
}
