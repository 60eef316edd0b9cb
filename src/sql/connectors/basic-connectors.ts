/**
 * The connectors that need no external system: `datagen` (random or sequence values per
 * column, Flink's option names), `print` (rows as Flink prints them, `+I[...]`) and
 * `blackhole` (drops rows).
 */
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
import type { Row, SqlConnector } from './connector.js';

const DAY_MS = 86_400_000;

function option(table: CatalogTable, key: string): string | undefined {
  return table.options.get(key)?.value;
}

function numberOption(table: CatalogTable, key: string, fallback: number): number {
  const v = option(table, key);
  return v === undefined ? fallback : Number(v);
}

type FieldGenerator = (index: number, random: DeterministicRandom) => unknown;

function fieldGenerator(table: CatalogTable, name: string, type: LogicalType): FieldGenerator {
  const prefix = `fields.${name}.`;
  const kind = option(table, `${prefix}kind`) ?? 'random';
  if (kind === 'sequence') {
    const start = option(table, `${prefix}start`);
    const end = option(table, `${prefix}end`);
    if (start === undefined || end === undefined) {
      sqlError(
        `datagen: a sequence column needs 'fields.${name}.start' and 'fields.${name}.end'`,
        table.at,
      );
    }
    const first = Number(start);
    const last = Number(end);
    if (isInteger(type)) return (i) => (first + i <= last ? first + i : null);
    if (isCharacterString(type)) return (i) => (first + i <= last ? String(first + i) : null);
    if (type.kind === 'DECIMAL')
      return (i) => (first + i <= last ? BigInt(first + i) * 10n ** BigInt(type.scale) : null);
    sqlError(
      `datagen: a sequence of ${formatType(type)} is not supported (column '${name}')`,
      table.at,
    );
  }
  const nullRate = numberOption(table, `${prefix}null-rate`, 0);
  const withNulls = (g: FieldGenerator): FieldGenerator =>
    nullRate > 0 ? (i, r) => (r.chance(nullRate) ? null : g(i, r)) : g;
  const min = numberOption(table, `${prefix}min`, Number.NaN);
  const max = numberOption(table, `${prefix}max`, Number.NaN);
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
      const lo = Number.isNaN(min) ? -bounds : min;
      const hi = Number.isNaN(max) ? bounds : max;
      return withNulls((_i, r) => Math.floor(r.between(lo, hi + 1)));
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const lo = Number.isNaN(min) ? -1e6 : min;
      const hi = Number.isNaN(max) ? 1e6 : max;
      return withNulls((_i, r) => r.between(lo, hi));
    }
    case 'DECIMAL': {
      const limit = 10 ** Math.min(type.precision - type.scale, 15);
      const lo = Number.isNaN(min) ? -limit + 1 : min;
      const hi = Number.isNaN(max) ? limit - 1 : max;
      const unit = 10 ** Math.min(type.scale, 6);
      const rest = 10n ** BigInt(type.scale - Math.min(type.scale, 6));
      return withNulls((_i, r) => BigInt(Math.round(r.between(lo, hi) * unit)) * rest);
    }
    case 'CHAR':
    case 'VARCHAR': {
      const length = numberOption(
        table,
        `${prefix}length`,
        type.kind === 'CHAR' ? type.length : 100,
      );
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
      const past = numberOption(table, `${prefix}max-past`, 0);
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
  source(table: CatalogTable, env: StreamEnvironment): DataStream<Row> {
    const generators = table.columns
      .filter((c) => c.computed === undefined)
      .map((c) => fieldGenerator(table, c.name, c.type));
    const count = option(table, 'number-of-rows');
    return env.fromSource(
      new GeneratorSource<Row>({
        generate: (index, random) => generators.map((g) => g(index, random)),
        ...(count === undefined ? {} : { count: Number(count) }),
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
