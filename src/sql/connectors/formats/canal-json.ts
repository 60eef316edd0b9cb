/**
 * The `canal-json` format: each record is a batch of changes to one MySQL table in Canal's
 * JSON message, `{"data": [...], "old": [...], "type": "INSERT" | "UPDATE" | "DELETE", ...}`,
 * its values mostly strings (`"101"`, `"3.14"`), read into the column's type. Reading gives
 * changes as Flink's format does: INSERT (and INIT, a snapshot read) adds each row of `data`,
 * DELETE deletes each, UPDATE retracts each row of `data` with the fields `old` lists put back
 * and adds the row of `data`; DDL messages (`isDdl`) and those of databases and tables outside
 * `database.include`/`table.include` give nothing. Writing emits an insert or update-after as
 * INSERT, an update-before or delete as DELETE. Values are read and written as by the json
 * format (field-values.ts); the parts the Maxwell format shares are here (`maxwell-json.ts`).
 */
import type { Change } from '../../../core/changelog.js';
import type { LogicalType } from '../../types/logical-type.js';
import type { Row } from '../connector.js';
import {
  isMillisTimestamp,
  isString,
  isStringArray,
  type MetadataType,
} from '../metadata-columns.js';
import { type DebeziumJsonFormat, recordDecoder, rowFromObject } from './debezium-json.js';
import {
  FieldError,
  fromJson,
  type JsonReadOptions,
  type JsonWriteOptions,
  parseJsonBytes,
  toJsonText,
  withWriteDefaults,
} from './field-values.js';
import type { FormatColumn } from './format-types.js';

/**
 * The options canal-json and maxwell-json share: Flink's json options under their prefix
 * (with `ignoreParseErrors` a value that does not fit is null; a message that cannot be read at
 * all still throws, and the source skips and counts it).
 */
export interface ChangelogJsonOptions extends JsonReadOptions, JsonWriteOptions {
  /** A change whose image lacks a column is an error (default: the column is null). */
  readonly failOnMissingField?: boolean;
}

export interface CanalJsonOptions extends ChangelogJsonOptions {
  /** A regular expression the whole `database` must match (others are skipped). */
  readonly databaseInclude?: string;
  /** A regular expression the whole `table` must match (others are skipped). */
  readonly tableInclude?: string;
  /** METADATA keys (without `value.`) whose values follow the columns in each decoded row. */
  readonly metadata?: readonly CanalMetadataKey[];
}

/** Canal's metadata keys (`value.<key>` in a kafka table). */
export const CANAL_METADATA = {
  database: { type: 'STRING', accepts: isString },
  table: { type: 'STRING', accepts: isString },
  'sql-type': {
    type: 'MAP<STRING, INT>',
    accepts: (t: LogicalType) => t.kind === 'MAP' && isString(t.key) && t.value.kind === 'INTEGER',
  },
  'pk-names': { type: 'ARRAY<STRING>', accepts: isStringArray },
  'ingestion-timestamp': { type: 'TIMESTAMP_LTZ(3)', accepts: isMillisTimestamp },
  'event-timestamp': { type: 'TIMESTAMP_LTZ(3)', accepts: isMillisTimestamp },
} as const satisfies Record<string, MetadataType>;
export type CanalMetadataKey = keyof typeof CANAL_METADATA;

/** A record's JSON object, or an error saying what it is instead. */
export function parseMessage(bytes: Buffer, format: string): Record<string, unknown> {
  const parsed = parseJsonBytes(bytes);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`a ${format} record must be an object`);
  return parsed as Record<string, unknown>;
}

/**
 * The row before an update: the fields `old` lists (changed ones; null when listed as null),
 * the others as in `after` (unchanged).
 */
export function beforeImage(
  after: Row,
  old: unknown,
  columns: readonly FormatColumn[],
  image: string,
  options: JsonReadOptions,
): Row {
  if (old === null || typeof old !== 'object' || Array.isArray(old))
    throw new FieldError(image, `must be an object, got ${JSON.stringify(old) ?? 'nothing'}`);
  const object = old as Record<string, unknown>;
  return columns.map((c, i) =>
    c.name in object ? fromJson(object[c.name], c.type, `${image}.${c.name}`, options) : after[i],
  );
}

/** A regular expression matching a whole name, as Flink's `*.include` options (compiled once). */
export function includeMatcher(
  pattern: string | undefined,
): ((name: unknown) => boolean) | undefined {
  if (pattern === undefined) return undefined;
  const re = new RegExp(`^(?:${pattern})$`);
  return (name) => typeof name === 'string' && re.test(name);
}

/** A row as a JSON object of its columns. */
export function objectText(
  row: Row,
  columns: readonly FormatColumn[],
  writing: JsonWriteOptions,
): string {
  let out = '{';
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i] as FormatColumn;
    if (i > 0) out += ',';
    out += `${JSON.stringify(c.name)}:${toJsonText(row[i], c.type, writing)}`;
  }
  return `${out}}`;
}

/** A JSON object's values as a MAP (numbers as they are), or null. */
function mapOf(value: unknown): Map<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return new Map(Object.entries(value as Record<string, unknown>));
}

function stringArray(value: unknown): (string | null)[] | null {
  return Array.isArray(value) ? value.map((e) => (e === null ? null : String(e))) : null;
}

function millis(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function canalMetadata(message: Record<string, unknown>, key: CanalMetadataKey): unknown {
  switch (key) {
    case 'database':
      return typeof message.database === 'string' ? message.database : null;
    case 'table':
      return typeof message.table === 'string' ? message.table : null;
    case 'sql-type':
      return mapOf(message.sqlType);
    case 'pk-names':
      return stringArray(message.pkNames);
    case 'ingestion-timestamp':
      return millis(message.ts);
    case 'event-timestamp':
      return millis(message.es);
  }
}

function arrayField(message: Record<string, unknown>, name: string, type: unknown): unknown[] {
  const value = message[name];
  if (!Array.isArray(value))
    throw new FieldError(
      name,
      `must be an array in a change of type ${JSON.stringify(type)}, got ${JSON.stringify(value) ?? 'nothing'}`,
    );
  return value;
}

export function canalJsonFormat(
  columns: readonly FormatColumn[],
  options: CanalJsonOptions = {},
): DebeziumJsonFormat {
  const strict = options.failOnMissingField === true;
  const database = includeMatcher(options.databaseInclude);
  const table = includeMatcher(options.tableInclude);
  const metadata = options.metadata ?? [];
  const writing = withWriteDefaults(options);
  const decode = (bytes: Buffer): Change<Row>[] => {
    const message = parseMessage(bytes, 'canal-json');
    if (database !== undefined && !database(message.database)) return [];
    if (table !== undefined && !table(message.table)) return [];
    const type = message.type;
    const withMetadata = (row: Row): Row =>
      metadata.length === 0 ? row : [...row, ...metadata.map((k) => canalMetadata(message, k))];
    const rows = (name: string): Row[] =>
      arrayField(message, name, type).map((d, i) =>
        rowFromObject(d, columns, `${name}[${i}]`, strict, options),
      );
    switch (type) {
      case 'INSERT':
      case 'INIT':
        return rows('data').map((r) => ({ kind: '+I', value: withMetadata(r) }));
      case 'DELETE':
        return rows('data').map((r) => ({ kind: '-D', value: withMetadata(r) }));
      case 'UPDATE': {
        const old = arrayField(message, 'old', type);
        return rows('data').flatMap((after, i): Change<Row>[] => [
          {
            kind: '-U',
            value: withMetadata(beforeImage(after, old[i], columns, `old[${i}]`, options)),
          },
          { kind: '+U', value: withMetadata(after) },
        ]);
      }
      default:
        if (message.isDdl === true) return [];
        throw new FieldError(
          'type',
          `is ${JSON.stringify(type) ?? 'missing'}; allowed values: INSERT, UPDATE, DELETE, INIT (or a message with "isDdl": true)`,
        );
    }
  };
  return {
    decode: recordDecoder(decode),
    encode(change) {
      const adds = change.kind === '+I' || change.kind === '+U';
      const data = objectText(change.value, columns, writing);
      return Buffer.from(`{"data":[${data}],"type":"${adds ? 'INSERT' : 'DELETE'}"}`, 'utf8');
    },
  };
}
