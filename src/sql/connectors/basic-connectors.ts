/**
 * The connectors that need no external system: `datagen` (random or sequence values per
 * column, Flink's option names), `print` (rows as Flink prints them, `+I[...]`) and
 * `blackhole` (drops rows).
 */
import * as v from 'valibot';
import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { DataStream } from '../../api/streams.js';
import { DiscardingSink } from '../../connectors/collection/sink/collect-sink.js';
import { GeneratorSource } from '../../connectors/generator/source/generator-source.js';
import { PrintSink } from '../../connectors/stdout/sink/print-sink.js';
import type { Change } from '../../core/changelog.js';
import type { Sink } from '../../core/sink.js';
import type { DeterministicRandom } from '../../util/random.js';
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  type LogicalType,
} from '../types/logical-type.js';
import { toDisplayString } from '../types/values.js';
import { type Row, type SqlConnector, validateOptions } from './connector.js';
import { duration } from './sql-options.js';

const DAY_MS = 86_400_000;

function option(table: CatalogTable, key: string): string | undefined {
  return table.options.get(key)?.value;
}

function numberOption(table: CatalogTable, key: string, fallback: number): number {
  const value = option(table, key);
  return value === undefined ? fallback : Number(value);
}

const WHOLE = /^[+-]?\d+$/;
const REAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A `fields.<column>.<suffix>` option parsed by `parse` (undefined: not a valid value), or
 * undefined when absent. A bad value is a SqlError at the option, naming it and the value, as
 * validateOptions refuses the table's own options.
 */
function fieldOption<T>(
  table: CatalogTable,
  key: string,
  what: string,
  parse: (text: string) => T | undefined,
): T | undefined {
  const o = table.options.get(key);
  if (o === undefined) return undefined;
  const value = parse(o.value.trim());
  if (value === undefined) sqlError(`option '${key}' must be ${what}, got '${o.value}'`, o.at);
  return value;
}

const whole = (s: string): number | undefined => (WHOLE.test(s) ? Number(s) : undefined);
const real = (s: string): number | undefined => (REAL.test(s) ? Number(s) : undefined);
const DURATION_SCHEMA = duration();
const millis = (s: string): number | undefined => {
  const parsed = v.safeParse(DURATION_SCHEMA, s);
  return parsed.success ? parsed.output : undefined;
};

/** One column's datagen options, checked (bad values fail at CREATE TABLE). */
interface FieldOptions {
  readonly kind: 'random' | 'sequence';
  /** A sequence's first and last values (both present for a sequence). */
  readonly start?: number;
  readonly end?: number;
  readonly min?: number;
  readonly max?: number;
  readonly length?: number;
  readonly nullRate: number;
  /** Milliseconds. */
  readonly maxPast: number;
}

function fieldOptions(table: CatalogTable, name: string, type: LogicalType): FieldOptions {
  const prefix = `fields.${name}.`;
  const kind = option(table, `${prefix}kind`) === 'sequence' ? 'sequence' : 'random';
  const integral = isInteger(type);
  const bound = (suffix: string): number | undefined =>
    integral
      ? fieldOption(table, `${prefix}${suffix}`, 'a whole number', whole)
      : fieldOption(table, `${prefix}${suffix}`, 'a number', real);
  const start = fieldOption(table, `${prefix}start`, 'a whole number', whole);
  const end = fieldOption(table, `${prefix}end`, 'a whole number', whole);
  const min = bound('min');
  const max = bound('max');
  const length = fieldOption(table, `${prefix}length`, 'a whole number >= 0', (s) =>
    /^\d+$/.test(s) ? Number(s) : undefined,
  );
  const nullRate = fieldOption(table, `${prefix}null-rate`, 'a number between 0 and 1', (s) => {
    const n = real(s);
    return n !== undefined && n >= 0 && n <= 1 ? n : undefined;
  });
  // Its only NULLs are those of a null-rate: a NOT NULL column (a PRIMARY KEY's) has none.
  if (nullRate !== undefined && nullRate > 0 && !type.nullable)
    sqlError(
      `datagen: column '${name}' is NOT NULL (as a PRIMARY KEY column is), so 'fields.${name}.null-rate' must be 0`,
      table.at,
    );
  const maxPast = fieldOption(
    table,
    `${prefix}max-past`,
    "a duration such as '5000 ms', '5 s' or '1 min'",
    millis,
  );
  if (kind === 'sequence') {
    if (start === undefined || end === undefined) {
      sqlError(
        `datagen: a sequence column needs 'fields.${name}.start' and 'fields.${name}.end'`,
        table.at,
      );
    }
    if (start > end) {
      sqlError(
        `datagen: 'fields.${name}.start' (${start}) is greater than 'fields.${name}.end' (${end})`,
        table.at,
      );
    }
  }
  if (min !== undefined && max !== undefined && min > max) {
    sqlError(
      `datagen: 'fields.${name}.min' (${min}) is greater than 'fields.${name}.max' (${max})`,
      table.at,
    );
  }
  return {
    kind,
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
    ...(length === undefined ? {} : { length }),
    nullRate: nullRate ?? 0,
    maxPast: maxPast ?? 0,
  };
}

/** The generated columns (computed ones are not stored) with their checked options. */
function datagenFields(
  table: CatalogTable,
): { readonly name: string; readonly type: LogicalType; readonly options: FieldOptions }[] {
  return table.columns
    .filter((c) => c.computed === undefined)
    .map((c) => ({ name: c.name, type: c.type, options: fieldOptions(table, c.name, c.type) }));
}

/**
 * The rows to generate, as Flink: a sequence column bounds the source (the shortest sequence
 * ends it), and so does `number-of-rows`; the smallest bound wins. Undefined: unbounded.
 */
function datagenCount(
  table: CatalogTable,
  fields: ReturnType<typeof datagenFields>,
): number | undefined {
  const rows = option(table, 'number-of-rows');
  let count = rows === undefined ? Number.POSITIVE_INFINITY : Number(rows);
  for (const { options } of fields) {
    if (options.start !== undefined && options.end !== undefined && options.kind === 'sequence')
      count = Math.min(count, options.end - options.start + 1);
  }
  return Number.isFinite(count) ? count : undefined;
}

/** `x` as a whole number of units, rounded towards the inside of a bound (`up` for a minimum). */
function inward(x: number, up: boolean): number {
  const near = Math.round(x);
  // 0.1 * 100 is 10.000000000000002: a bound that is whole up to rounding error stays whole.
  if (Math.abs(x - near) <= 8 * Number.EPSILON * Math.max(1, Math.abs(x))) return near;
  return up ? Math.ceil(x) : Math.floor(x);
}

type FieldGenerator = (index: number, random: DeterministicRandom) => unknown;

function fieldGenerator(
  table: CatalogTable,
  name: string,
  type: LogicalType,
  options: FieldOptions,
): FieldGenerator {
  if (options.kind === 'sequence') {
    // The row count never exceeds the sequence's length (datagenCount), so index i is in it.
    const first = options.start ?? 0;
    if (isInteger(type)) return (i) => first + i;
    if (isCharacterString(type)) return (i) => String(first + i);
    if (type.kind === 'DECIMAL') return (i) => BigInt(first + i) * 10n ** BigInt(type.scale);
    sqlError(
      `datagen: a sequence of ${formatType(type)} is not supported (column '${name}')`,
      table.at,
    );
  }
  const { nullRate, min, max } = options;
  const withNulls = (g: FieldGenerator): FieldGenerator =>
    nullRate > 0 ? (i, r) => (r.chance(nullRate) ? null : g(i, r)) : g;
  switch (type.kind) {
    case 'BOOLEAN':
      return withNulls((_i, r) => r.chance(0.5));
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT': {
      const bounds = { TINYINT: 127, SMALLINT: 32767, INTEGER: 2147483647, BIGINT: 2 ** 53 - 1 }[
        type.kind
      ];
      const lo = min ?? -bounds;
      const hi = max ?? bounds;
      // between() includes both ends, as Flink's [min, max].
      return withNulls((_i, r) => r.between(lo, hi));
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const lo = min ?? -1e6;
      const hi = max ?? 1e6;
      // Uniform reals: between() would give whole numbers only.
      return withNulls((_i, r) => Math.min(hi, lo + r.next() * (hi - lo)));
    }
    case 'DECIMAL': {
      const limit = 10 ** Math.min(type.precision - type.scale, 15);
      const unit = 10 ** Math.min(type.scale, 6);
      const rest = 10n ** BigInt(type.scale - Math.min(type.scale, 6));
      // Uniform over the values of the type's scale within [min, max] (in units of 1/unit).
      const lo = inward((min ?? -limit + 1) * unit, true);
      const hi = inward((max ?? limit - 1) * unit, false);
      if (lo > hi) {
        sqlError(
          `datagen: no ${formatType(type)} value lies between 'fields.${name}.min' and 'fields.${name}.max'`,
          table.at,
        );
      }
      return withNulls((_i, r) => BigInt(r.between(lo, hi)) * rest);
    }
    case 'CHAR':
    case 'VARCHAR': {
      const length = options.length ?? (type.kind === 'CHAR' ? type.length : 100);
      const alphabet = '0123456789abcdef';
      return withNulls((_i, r) => {
        let s = '';
        for (let k = 0; k < length; k++) s += alphabet.charAt(r.int(16));
        return s;
      });
    }
    case 'DATE':
      return withNulls((_i, r) => Math.floor(Date.now() / DAY_MS) - r.int(365));
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const past = options.maxPast;
      const at = (r: DeterministicRandom): number => Date.now() - (past > 0 ? r.int(past) : 0);
      // Above p = 3 a value is epoch nanoseconds (whole milliseconds here).
      return type.precision > 3
        ? withNulls((_i, r) => BigInt(at(r)) * 1_000_000n)
        : withNulls((_i, r) => at(r));
    }
    default:
      return sqlError(`datagen cannot generate ${formatType(type)} (column '${name}')`, table.at);
  }
}

export const datagenConnector: SqlConnector = {
  name: 'datagen',
  options: [
    {
      key: 'rows-per-second',
      description: 'rows per second over all subtasks (default 10000)',
      value: 'positive',
    },
    {
      key: 'number-of-rows',
      description: 'number of rows; unbounded when absent',
      value: 'number',
    },
    { key: 'seed', description: 'seed of the random values (Weir only)', value: 'number' },
  ],
  prefixedOptions: [
    {
      prefix: 'fields.',
      suffixes: ['kind', 'min', 'max', 'length', 'start', 'end', 'null-rate', 'max-past'],
      allowed: { kind: ['random', 'sequence'] },
    },
  ],
  validate(table: CatalogTable): void {
    // The generic checks (names, whole numbers), then the per-column values they cannot see.
    const { validate: _self, ...generic } = datagenConnector;
    validateOptions(generic, table);
    datagenFields(table);
  },
  // A NOT NULL column gets no null-rate (above), so its rows need no check.
  checksNotNull: true,
  source(table: CatalogTable, env: StreamEnvironment): DataStream<Row> {
    const fields = datagenFields(table);
    const generators = fields.map((f) => fieldGenerator(table, f.name, f.type, f.options));
    const count = datagenCount(table, fields);
    return env.fromSource(
      new GeneratorSource<Row>({
        generate: (index, random) => generators.map((g) => g(index, random)),
        ...(count === undefined ? {} : { count }),
        ratePerSecond: numberOption(table, 'rows-per-second', 10_000),
        seed: numberOption(table, 'seed', 0),
        name: table.name,
      }),
    );
  },
};

export const printConnector: SqlConnector = {
  name: 'print',
  options: [
    { key: 'print-identifier', description: 'printed before each row' },
    { key: 'standard-error', description: 'print to standard error', value: 'boolean' },
  ],
  sink(table: CatalogTable): Sink<Row> {
    const types = table.columns.filter((c) => c.computed === undefined).map((c) => c.type);
    const identifier = option(table, 'print-identifier');
    return new PrintSink<Row>({
      ...(identifier === undefined ? {} : { prefix: identifier }),
      ...(option(table, 'standard-error') === 'true' ? { stream: process.stderr } : {}),
      format: (row) =>
        `+I[${(row as Row).map((v, i) => toDisplayString(v, types[i] as LogicalType)).join(', ')}]`,
    });
  },
  changelogSink(table: CatalogTable): Sink<Change<Row>> {
    const types = table.columns.filter((c) => c.computed === undefined).map((c) => c.type);
    const identifier = option(table, 'print-identifier');
    // Flink's print format: the change's kind, then the row.
    return new PrintSink<Change<Row>>({
      ...(identifier === undefined ? {} : { prefix: identifier }),
      ...(option(table, 'standard-error') === 'true' ? { stream: process.stderr } : {}),
      format: (change) =>
        `${(change as Change<Row>).kind}[${(change as Change<Row>).value.map((v, i) => toDisplayString(v, types[i] as LogicalType)).join(', ')}]`,
    });
  },
};

export const blackholeConnector: SqlConnector = {
  name: 'blackhole',
  options: [],
  sink: (): Sink<Row> => new DiscardingSink<Row>(),
  changelogSink: (): Sink<Change<Row>> => new DiscardingSink<Change<Row>>(),
  // As Flink's blackhole, which takes every kind of change but the update-before.
  ignoresUpdateBefore: true,
};
