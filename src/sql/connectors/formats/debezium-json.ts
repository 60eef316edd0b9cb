/**
 * The `debezium-json` format: each record is a change in Debezium's envelope, `{"before": ...,
 * "after": ..., "op": ...}` (inside `{"schema": ..., "payload": ...}` with
 * `debezium-json.schema-include`). Reading gives changes: `c` and `r` (a snapshot read) insert
 * `after`, `u` retracts `before` and adds `after`, `d` deletes `before`. Writing emits an
 * insert or update-after as `c` with `after`, an update-before or delete as `d` with `before`,
 * as Flink's format does. Errors name the field (`after.amount`); the connector adds where the
 * record came from.
 */
import type { Change } from '../../../core/changelog.js';
import type { Row } from '../connector.js';
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
}

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
  return {
    decode(bytes) {
      if (bytes === undefined || bytes.length === 0) return [];
      let parsed = parseJsonBytes(bytes);
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
      switch (envelope.op) {
        case 'c':
        case 'r':
          return [{ kind: '+I', value: image(envelope, 'after') }];
        case 'u':
          return [
            { kind: '-U', value: image(envelope, 'before') },
            { kind: '+U', value: image(envelope, 'after') },
          ];
        case 'd':
          return [{ kind: '-D', value: image(envelope, 'before') }];
        default:
          throw new FieldError(
            'op',
            `is ${JSON.stringify(envelope.op) ?? 'missing'}; allowed values: c, r, u, d`,
          );
      }
    },
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
