/**
 * The `maxwell-json` format: each record is one change to a MySQL row in Maxwell's JSON
 * message, `{"database": ..., "table": ..., "type": "insert" | "update" | "delete", "ts":
 * <seconds>, "data": {...}, "old": {...}}`. Reading gives changes as Flink's format does: insert
 * adds `data`, delete deletes it, update retracts `data` with the fields `old` lists put back
 * and adds `data`. Writing emits an insert or update-after as `insert`, an update-before or
 * delete as `delete`. Its options and the parts it shares are canal-json's (`canal-json.ts`);
 * `changelogJsonFormat` below makes either format from a table's options.
 */
import type { Change } from '../../../core/changelog.js';
import type { Row } from '../connector.js';
import {
  isMillisTimestamp,
  isString,
  isStringArray,
  type MetadataType,
} from '../metadata-columns.js';
import {
  beforeImage,
  type CanalMetadataKey,
  type ChangelogJsonOptions,
  canalJsonFormat,
  objectText,
  parseMessage,
} from './canal-json.js';
import { type DebeziumJsonFormat, recordDecoder, rowFromObject } from './debezium-json.js';
import { FieldError, withWriteDefaults } from './field-values.js';
import type { FormatColumn } from './format-types.js';

/** Maxwell's metadata keys (`value.<key>` in a kafka table), with Flink's types. */
export const MAXWELL_METADATA = {
  database: { type: 'STRING', accepts: isString },
  table: { type: 'STRING', accepts: isString },
  'primary-key-columns': { type: 'ARRAY<STRING>', accepts: isStringArray },
  'ingestion-timestamp': { type: 'TIMESTAMP_LTZ(3)', accepts: isMillisTimestamp },
} as const satisfies Record<string, MetadataType>;
export type MaxwellMetadataKey = keyof typeof MAXWELL_METADATA;

export interface MaxwellJsonOptions extends ChangelogJsonOptions {
  /** METADATA keys (without `value.`) whose values follow the columns in each decoded row. */
  readonly metadata?: readonly MaxwellMetadataKey[];
}

function maxwellMetadata(message: Record<string, unknown>, key: MaxwellMetadataKey): unknown {
  switch (key) {
    case 'database':
      return typeof message.database === 'string' ? message.database : null;
    case 'table':
      return typeof message.table === 'string' ? message.table : null;
    case 'primary-key-columns':
      return Array.isArray(message.primary_key_columns)
        ? message.primary_key_columns.map((e) => (e === null ? null : String(e)))
        : null;
    case 'ingestion-timestamp':
      // Maxwell's `ts` is in seconds.
      return typeof message.ts === 'number' && Number.isFinite(message.ts)
        ? message.ts * 1000
        : null;
  }
}

export function maxwellJsonFormat(
  columns: readonly FormatColumn[],
  options: MaxwellJsonOptions = {},
): DebeziumJsonFormat {
  const strict = options.failOnMissingField === true;
  const metadata = options.metadata ?? [];
  const writing = withWriteDefaults(options);
  const decode = (bytes: Buffer): Change<Row>[] => {
    const message = parseMessage(bytes, 'maxwell-json');
    const withMetadata = (row: Row): Row =>
      metadata.length === 0 ? row : [...row, ...metadata.map((k) => maxwellMetadata(message, k))];
    const type = message.type;
    const data = (): Row => rowFromObject(message.data, columns, 'data', strict, options);
    switch (type) {
      case 'insert':
        return [{ kind: '+I', value: withMetadata(data()) }];
      case 'delete':
        return [{ kind: '-D', value: withMetadata(data()) }];
      case 'update': {
        const after = data();
        return [
          {
            kind: '-U',
            value: withMetadata(beforeImage(after, message.old, columns, 'old', options)),
          },
          { kind: '+U', value: withMetadata(after) },
        ];
      }
      default:
        throw new FieldError(
          'type',
          `is ${JSON.stringify(type) ?? 'missing'}; allowed values: insert, update, delete`,
        );
    }
  };
  return {
    decode: recordDecoder(decode),
    encode(change) {
      const adds = change.kind === '+I' || change.kind === '+U';
      const data = objectText(change.value, columns, writing);
      return Buffer.from(`{"data":${data},"type":"${adds ? 'insert' : 'delete'}"}`, 'utf8');
    },
  };
}

/**
 * canal-json or maxwell-json from a table's `<format>.*` options (`option` looks one up by its
 * full name); `metadata` are the table's `value.<key>` METADATA keys (without `value.`), as the
 * connector has checked them.
 */
export function changelogJsonFormat(
  format: 'canal-json' | 'maxwell-json',
  columns: readonly FormatColumn[],
  option: (name: string) => string | undefined,
  metadata: readonly string[],
  failOnMissingField: boolean,
): DebeziumJsonFormat {
  const common: ChangelogJsonOptions = {
    failOnMissingField,
    ignoreParseErrors: option(`${format}.ignore-parse-errors`) === 'true',
    timestampStandard:
      option(`${format}.timestamp-format.standard`) === 'ISO-8601' ? 'ISO-8601' : 'SQL',
    mapNullKeyMode: (option(`${format}.map-null-key.mode`) ??
      'FAIL') as ChangelogJsonOptions['mapNullKeyMode'],
    mapNullKeyLiteral: option(`${format}.map-null-key.literal`) ?? 'null',
    decimalAsPlainNumber: option(`${format}.encode.decimal-as-plain-number`) === 'true',
  };
  if (format === 'maxwell-json')
    return maxwellJsonFormat(columns, {
      ...common,
      metadata: metadata as readonly MaxwellMetadataKey[],
    });
  const databaseInclude = option('canal-json.database.include');
  const tableInclude = option('canal-json.table.include');
  return canalJsonFormat(columns, {
    ...common,
    metadata: metadata as readonly CanalMetadataKey[],
    ...(databaseInclude === undefined ? {} : { databaseInclude }),
    ...(tableInclude === undefined ? {} : { tableInclude }),
  });
}
