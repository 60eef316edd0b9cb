/**
 * The `debezium-json` format: each record is a change in Debezium's envelope, `{"before": ...,
 * "after": ..., "op": ...}` (inside `{"schema": ..., "payload": ...}` with
 * `debezium-json.schema-include`). Reading gives changes: `c` and `r` (a snapshot read) insert
 * `after`, `u` retracts `before` and adds `after`, `d` deletes `before`. Writing emits an
 * insert or update-after as `c` with `after`, an update-before or delete as `d` with `before`,
 * as Flink's format does. Errors name the field (`after.amount`); the connector adds where the
 * record came from. Flink's METADATA (`value.source.table`, ...) follow the columns in each row.
 */
import type { Change } from '../../../core/changelog.js';
import { type LogicalType, T } from '../../types/logical-type.js';
import type { Row } from '../connector.js';
import { isMillisTimestamp, isString, type MetadataType } from '../metadata-columns.js';
import {
  FieldError,
  fromJson,
  type JsonReadOptions,
  type JsonWriteOptions,
  parseJsonBytes,
  toJsonText,
  withWriteDefaults,
} from './field-values.js';
import type { FormatColumn } from './row-formats.js';

/** Flink's `debezium-json.*` options; the json ones (times, MAP null keys, decimals) as for `json`. */
export interface DebeziumJsonOptions extends JsonReadOptions, JsonWriteOptions {
  /** The envelope is wrapped as `{"schema": ..., "payload": {...}}` (Kafka Connect's JsonConverter with schemas). */
  readonly schemaInclude: boolean;
  /** A change whose image lacks a column is an error (default: the column is null). */
  readonly failOnMissingField?: boolean;
  /** METADATA keys (without `value.`) whose values follow the columns in each decoded row. */
  readonly metadata?: readonly DebeziumMetadataKey[];
}

/** Debezium's metadata keys (`value.<key>` in a kafka table), as Flink's ReadableMetadata. */
export const DEBEZIUM_METADATA = {
  schema: { type: 'STRING', accepts: isString },
  'ingestion-timestamp': { type: 'TIMESTAMP_LTZ(3)', accepts: isMillisTimestamp },
  'source.timestamp': { type: 'TIMESTAMP_LTZ(3)', accepts: isMillisTimestamp },
  'source.database': { type: 'STRING', accepts: isString },
  'source.schema': { type: 'STRING', accepts: isString },
  'source.table': { type: 'STRING', accepts: isString },
  'source.properties': {
    type: 'MAP<STRING, STRING>',
    accepts: (t: LogicalType) => t.kind === 'MAP' && isString(t.key) && isString(t.value),
  },
} as const satisfies Record<string, MetadataType>;
export type DebeziumMetadataKey = keyof typeof DEBEZIUM_METADATA;

/** The type Flink reads `source` as: its values as text. */
const SOURCE_MAP: LogicalType = { kind: 'MAP', nullable: true, key: T.string(), value: T.string() };

/** The `source` entry Flink reads each `source.*` key from. */
const SOURCE_ENTRY = {
  'source.database': 'db',
  'source.schema': 'schema',
  'source.table': 'table',
};

/** A table's `debezium-json.*` options (parsed, as text) but `schema-include`. */
export function debeziumJsonOptions(
  o: Readonly<Record<string, unknown>>,
): Omit<DebeziumJsonOptions, 'schemaInclude'> {
  const at = (key: string): string | undefined => {
    const v = o[`debezium-json.${key}`];
    return typeof v === 'string' ? v : undefined;
  };
  const standard = at('timestamp-format.standard');
  const mode = at('map-null-key.mode');
  const literal = at('map-null-key.literal');
  return {
    ignoreParseErrors: at('ignore-parse-errors') === 'true',
    decimalAsPlainNumber: at('encode.decimal-as-plain-number') === 'true',
    ...(standard === 'SQL' || standard === 'ISO-8601' ? { timestampStandard: standard } : {}),
    ...(mode === 'FAIL' || mode === 'DROP' || mode === 'LITERAL' ? { mapNullKeyMode: mode } : {}),
    ...(literal === undefined ? {} : { mapNullKeyLiteral: literal }),
  };
}

/** Changes in Debezium's JSON envelope, from bytes and to bytes. */
export interface DebeziumJsonFormat {
  /** The changes one record holds (none for a tombstone, which follows a delete). */
  decode(bytes: Buffer | undefined): Change<Row>[];
  encode(change: Change<Row>): Buffer;
}

/**
 * A changelog format's decode of a record: no changes for a tombstone or empty bytes (as Flink's
 * formats); a record that cannot be read throws, for the source to fail on or, with
 * `ignore-parse-errors`, to skip and count in `weir_source_bad_records_total`.
 */
export function recordDecoder(
  decode: (bytes: Buffer) => Change<Row>[],
): (bytes: Buffer | undefined) => Change<Row>[] {
  return (bytes) => (bytes === undefined || bytes.length === 0 ? [] : decode(bytes));
}

type SourceProperties = Map<string, string | null>;

function sourceProperties(
  envelope: Record<string, unknown>,
  options: DebeziumJsonOptions,
): SourceProperties | null {
  return fromJson(envelope.source, SOURCE_MAP, 'source', options) as SourceProperties | null;
}

/**
 * The values of metadata `keys` in a record: `root` is the whole message, `envelope` the change
 * (its `payload` with `schema-include`). They are read with the images' options, as Flink reads
 * them with the same JSON converters; Flink reads `source` as a MAP<STRING, STRING>.
 */
function metadataValues(
  keys: readonly DebeziumMetadataKey[],
  root: Record<string, unknown>,
  envelope: Record<string, unknown>,
  options: DebeziumJsonOptions,
): unknown[] {
  // `source` is read once, however many of its keys are asked for.
  let source: SourceProperties | null | undefined;
  const properties = () => (source ??= sourceProperties(envelope, options));
  return keys.map((key) => {
    switch (key) {
      case 'schema':
        // Only a record with `schema-include` has its schema.
        return options.schemaInclude ? fromJson(root.schema, T.string(), 'schema', options) : null;
      case 'ingestion-timestamp':
        return fromJson(envelope.ts_ms, T.bigint(), 'ts_ms', options);
      case 'source.properties':
        return properties();
      case 'source.timestamp':
        // Flink parses the text of `source.ts_ms` as a long.
        return fromJson(properties()?.get('ts_ms'), T.bigint(), 'source.ts_ms', options);
      default:
        return properties()?.get(SOURCE_ENTRY[key]) ?? null;
    }
  });
}

/** The row of `columns` in an object of fields by column name; `image` names it in errors. */
export function rowFromObject(
  value: unknown,
  columns: readonly FormatColumn[],
  image: string,
  strict: boolean,
  options: JsonReadOptions = {},
): Row {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new FieldError(image, `must be an object, got ${JSON.stringify(value) ?? 'nothing'}`);
  const object = value as Record<string, unknown>;
  return columns.map((c) => {
    if (strict && !(c.name in object)) throw new FieldError(`${image}.${c.name}`, 'is missing');
    return fromJson(object[c.name], c.type, `${image}.${c.name}`, options);
  });
}

export function debeziumJsonFormat(
  columns: readonly FormatColumn[],
  options: DebeziumJsonOptions,
): DebeziumJsonFormat {
  const strict = options.failOnMissingField === true;
  const writing = withWriteDefaults(options);
  const image = (envelope: Record<string, unknown>, name: 'before' | 'after'): Row => {
    const value = envelope[name];
    if (value === null || value === undefined)
      throw new FieldError(
        name,
        `is null in a change with op '${String(envelope.op)}'${name === 'before' ? ' (a PostgreSQL source sends the old row of an update only for tables with REPLICA IDENTITY FULL)' : ''}`,
      );
    return rowFromObject(value, columns, name, strict, options);
  };
  const imageText = (row: Row): string => {
    let out = '{';
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i] as FormatColumn;
      if (i > 0) out += ',';
      out += `${JSON.stringify(c.name)}:${toJsonText(row[i], c.type, writing)}`;
    }
    return `${out}}`;
  };
  const metadata = options.metadata ?? [];
  const decode = (bytes: Buffer): Change<Row>[] => {
    const root = parseJsonBytes(bytes);
    let parsed = root;
    if (options.schemaInclude) {
      if (parsed === null || typeof parsed !== 'object' || !('payload' in parsed))
        throw new FieldError(
          'payload',
          'is missing (\'debezium-json.schema-include\' = \'true\' expects {"schema": ..., "payload": ...})',
        );
      parsed = (parsed as { payload: unknown }).payload;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('a debezium-json record must be an object with before, after and op');
    const envelope = parsed as Record<string, unknown>;
    const values =
      metadata.length === 0
        ? []
        : metadataValues(metadata, root as Record<string, unknown>, envelope, options);
    const row = (name: 'before' | 'after'): Row =>
      values.length === 0 ? image(envelope, name) : [...image(envelope, name), ...values];
    switch (envelope.op) {
      case 'c':
      case 'r':
        return [{ kind: '+I', value: row('after') }];
      case 'u':
        return [
          { kind: '-U', value: row('before') },
          { kind: '+U', value: row('after') },
        ];
      case 'd':
        return [{ kind: '-D', value: row('before') }];
      default:
        throw new FieldError(
          'op',
          `is ${JSON.stringify(envelope.op) ?? 'missing'}; allowed values: c, r, u, d`,
        );
    }
  };
  return {
    decode: recordDecoder(decode),
    encode(change) {
      const adds = change.kind === '+I' || change.kind === '+U';
      const row = imageText(change.value);
      const text = adds
        ? `{"before":null,"after":${row},"op":"c"}`
        : `{"before":${row},"after":null,"op":"d"}`;
      return Buffer.from(text, 'utf8');
    },
  };
}
