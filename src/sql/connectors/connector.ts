/**
 * What a SQL connector (`'connector' = '...'` in CREATE TABLE) provides: its options, checked
 * with messages that name the option and what it allows, a source of physical rows and a
 * sink of rows.
 */

import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { DataStream } from '../../api/streams.js';
import type { Change } from '../../core/changelog.js';
import type { Key } from '../../core/key-groups.js';
import type { LookupCacheOptions, LookupTable } from '../../core/lookup.js';
import type { Sink } from '../../core/sink.js';
import type { WatermarkStrategy } from '../../core/watermarks.js';
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';

/** A row of SQL values at fixed positions (see docs/sql.md for each type's JavaScript value). */
export type Row = unknown[];

/** What a changelog source gives: its changes, and which kinds they are. */
export interface ChangelogSource {
  readonly changes: DataStream<Change<Row>>;
  /**
   * `upsert`: `+I`, `+U` and `-D` replace and delete rows by the table's PRIMARY KEY (a `-D`
   * may hold only the key's values); `retract`: all four kinds, each with the whole row.
   */
  readonly mode: 'upsert' | 'retract';
}

/**
 * A source whose own records generated code reads directly (Flink's projection and filter
 * pushdown, taken one step further): the planner compiles each reader's filter and projection,
 * with the computed columns and the rowtime, into one function of the record, so no table row
 * is built in between and a record the filter drops costs only what the filter reads. The
 * records come in variants (Nexmark's person, auction and bid), each saying how to read every
 * stored column. In the code, the record is `r`.
 */
export interface RecordScan {
  /** The connector's records, with the timestamps the source attaches. */
  readonly records: DataStream<unknown>;
  /** Code of the record's variant tag (`r.type`). */
  readonly tag: string;
  readonly variants: readonly RecordVariant[];
  /** A statement for a record of no variant (a throw naming what it got). */
  readonly unknown: string;
  /** Stored columns whose values the scan can filter on (an `=` with an integer). */
  readonly filterColumns: readonly string[];
}

/** One variant of a {@link RecordScan}'s records. */
export interface RecordVariant {
  /** The tag's value, as code (`"bid"`). */
  readonly tag: string;
  /** Statements that run first for a record of this variant (`const x = r.bid;`). */
  readonly prelude: string;
  /**
   * Code of the stored column at `column` (its position in the table) or of its ROW field
   * `field`, for a record of this variant (SQL NULL is null, never undefined).
   */
  value(column: number, field: number | undefined): string;
  /** Whether a record of this variant can have these values (column -> values) at all. */
  matches(filter: ReadonlyMap<number, ReadonlySet<number>>): boolean;
}

export interface ConnectorOption {
  readonly key: string;
  readonly description: string;
  /** The values the option accepts, when they are a fixed set. */
  readonly allowed?: readonly string[];
  /** `number`: a whole number; `positive`: a number > 0. */
  readonly value?: 'number' | 'positive' | 'boolean';
  readonly required?: boolean;
}

export interface SqlConnector {
  readonly name: string;
  readonly options: readonly ConnectorOption[];
  /** Option keys of the form `prefix<column>.<suffix>` (datagen's `fields.<col>.kind`). */
  readonly prefixedOptions?: readonly {
    readonly prefix: string;
    readonly suffixes: readonly string[];
    /** The values some suffixes accept (`kind`: random, sequence). */
    readonly allowed?: Readonly<Record<string, readonly string[]>>;
  }[];
  /** Whether the connector writes `PARTITIONED BY` tables (a directory per partition). */
  readonly partitioned?: boolean;
  /**
   * Checks the table's options (and METADATA columns) itself, instead of through `options`:
   * the connectors whose options are a valibot schema (see sql-options.ts).
   */
  validate?(table: CatalogTable): void;
  /**
   * The table's stored columns (physical and METADATA, in declaration order) as a stream of
   * rows.
   */
  source?(table: CatalogTable, env: StreamEnvironment): DataStream<Row>;
  /**
   * The rows of a table with a WATERMARK, their event time assigned inside the source and its
   * watermark kept per split (a Kafka partition), as Flink's sources do: a split that lags is
   * not made late by a faster one read by the same subtask, whose watermark is the least of its
   * splits'. `finish` completes each row (its computed columns) before `watermarks` reads it.
   * Used instead of `source` when the table has a WATERMARK.
   */
  sourceWithEventTime?(
    table: CatalogTable,
    env: StreamEnvironment,
    finish: ((row: Row) => Row) | undefined,
    watermarks: WatermarkStrategy<Row>,
  ): DataStream<Row>;
  /**
   * The table's records for generated readers (see {@link RecordScan}); a connector with a
   * scan needs no `source`: the planner builds every row a reader needs from the records.
   */
  scan?(table: CatalogTable, env: StreamEnvironment): RecordScan;
  /**
   * The table's changes, for a connector whose rows are updated and deleted (`upsert-kafka`,
   * `postgres-cdc`, `kafka` with `debezium-json`): changes of rows of the stored columns, as
   * `source` gives rows. Undefined for a table whose rows are only inserted (read by `source`).
   */
  changelogSource?(table: CatalogTable, env: StreamEnvironment): ChangelogSource | undefined;
  sink?(table: CatalogTable): Sink<Row>;
  /**
   * A sink of changes, for updating queries; its `accepts` says which changelog mode it
   * applies (a query emitting more is refused when it is planned).
   */
  changelogSink?(table: CatalogTable): Sink<Change<Row>>;
  /**
   * The changelog sink has no use for update-befores (Flink's `blackhole` asks for the
   * query's changes without them): the planner leaves them out, of the operators too where no
   * other consumer needs them.
   */
  readonly ignoresUpdateBefore?: boolean;
  /**
   * The connector's sources check the NOT NULL columns (a PRIMARY KEY's) of the rows they
   * read themselves, as bad records of their format (see not-null-columns.ts); for the others
   * the planner checks each row, failing the job naming the table and the column.
   */
  readonly checksNotNull?: boolean;
  /**
   * The table read by one column's value, for lookup joins (`FOR SYSTEM_TIME AS OF` a
   * processing-time attribute): each key's row of stored columns, with the cache and retries
   * its `lookup.*` options ask for.
   */
  lookup?(table: CatalogTable, keyColumn: string): SqlLookupSource;
  /**
   * The table read by the values of several columns, as Flink's lookup joins read it (by every
   * `column = value` pair of the ON condition): each key's rows, any number of them, the key
   * being `valuesKey` (row-key.ts) of the columns' values in the order given. Preferred over
   * `lookup` when the connector has both.
   */
  lookupRows?(table: CatalogTable, keyColumns: readonly string[]): SqlLookupSource<readonly Row[]>;
}

/** A lookup table of SQL rows (one per key, or `Row[]`) and how a lookup join should call it. */
export interface SqlLookupSource<V = Row> {
  readonly table: LookupTable<Key, V>;
  readonly cache?: LookupCacheOptions;
  /** Retries of a failed lookup (Flink's `lookup.max-retries`). */
  readonly maxRetries?: number;
}

/** Checks a table's options against its connector's: unknown keys, missing ones, bad values. */
export function validateOptions(connector: SqlConnector, table: CatalogTable): void {
  if (table.partitionKeys !== undefined && connector.partitioned !== true)
    sqlError(`connector '${connector.name}' does not support PARTITIONED BY`, table.at);
  if (connector.validate !== undefined) {
    connector.validate(table);
    return;
  }
  const metadata = table.columns.find((c) => c.metadata !== undefined);
  if (metadata !== undefined) {
    sqlError(
      `connector '${connector.name}' has no metadata; column '${metadata.name}' cannot be METADATA`,
      table.at,
    );
  }
  const known = new Map(connector.options.map((o) => [o.key, o]));
  for (const [key, option] of table.options) {
    if (key === 'connector') continue;
    const spec = known.get(key);
    if (spec === undefined) {
      const prefixed = connector.prefixedOptions?.find((p) => key.startsWith(p.prefix));
      if (prefixed !== undefined) {
        const suffix = key.slice(key.lastIndexOf('.') + 1);
        if (!prefixed.suffixes.includes(suffix)) {
          sqlError(
            `unknown option '${key}' of connector '${connector.name}': '${prefixed.prefix}<column>.' allows ${prefixed.suffixes.join(', ')}`,
            option.at,
          );
        }
        const values = prefixed.allowed?.[suffix];
        if (values !== undefined && !values.includes(option.value)) {
          sqlError(
            `option '${key}' is '${option.value}'; allowed values: ${values.join(', ')}`,
            option.at,
          );
        }
        continue;
      }
      const allowed = [...known.keys()].sort().join(', ');
      sqlError(
        `unknown option '${key}' of connector '${connector.name}'; its options are: ${allowed}`,
        option.at,
      );
    }
    if (spec.allowed !== undefined && !spec.allowed.includes(option.value)) {
      sqlError(
        `option '${key}' of connector '${connector.name}' is '${option.value}'; allowed values: ${spec.allowed.join(', ')}`,
        option.at,
      );
    }
    if (spec.value === 'number' && !/^-?\d+$/.test(option.value)) {
      sqlError(`option '${key}' must be a whole number, got '${option.value}'`, option.at);
    }
    if (spec.value === 'positive' && !(Number(option.value) > 0)) {
      sqlError(`option '${key}' must be a number > 0, got '${option.value}'`, option.at);
    }
    if (spec.value === 'boolean' && option.value !== 'true' && option.value !== 'false') {
      sqlError(`option '${key}' is '${option.value}'; allowed values: true, false`, option.at);
    }
  }
  for (const spec of connector.options) {
    if (spec.required === true && !table.options.has(spec.key)) {
      sqlError(
        `connector '${connector.name}' needs option '${spec.key}' (${spec.description})`,
        table.at,
      );
    }
  }
}
