/**
 * The `kafka` SQL connector, with Flink's option names: a table over a topic (a list, a
 * pattern) read by `KafkaSource` (startup and bounded modes, key and value formats, the
 * METADATA columns `topic`, `partition`, `leader-epoch`, `offset`, `timestamp`,
 * `timestamp-type` and `headers`) and written by `KafkaSink` (`topic`, `timestamp` and
 * `headers` written too; `sink.delivery-guarantee` = `exactly-once` makes it transactional).
 */
import { optional } from 'valibot';
import type { StreamEnvironment } from '../../../api/stream-environment.js';
import type { DataStream } from '../../../api/streams.js';
import {
  type KafkaConsumerRecord,
  type KafkaFormat,
  type KafkaHeaders,
  KafkaSink,
  KafkaSource,
  type StartingOffsets,
  type StoppingOffsets,
} from '../../../connectors/kafka/index.js';
import type { Change } from '../../../core/changelog.js';
import type { Collector } from '../../../core/functions.js';
import type { Sink } from '../../../core/sink.js';
import type { WatermarkStrategy } from '../../../core/watermarks.js';
import type { CatalogTable, TableColumn } from '../../catalog/catalog.js';
import { sqlError } from '../../sql-error.js';
import { isInteger, type LogicalType } from '../../types/logical-type.js';
import type { ChangelogSource, Row, SqlConnector } from '../connector.js';
import { CANAL_METADATA } from '../formats/canal-json.js';
import {
  DEBEZIUM_METADATA,
  type DebeziumJsonFormat,
  type DebeziumMetadataKey,
  debeziumJsonFormat,
  debeziumJsonOptions,
} from '../formats/debezium-json.js';
import { FieldError } from '../formats/field-values.js';
import { changelogJsonFormat, MAXWELL_METADATA } from '../formats/maxwell-json.js';
import {
  type FormatColumn,
  ROW_FORMATS,
  type RowFormat,
  rowFormat,
  rowFormatOptions,
} from '../formats/row-formats.js';
import {
  checkMetadataColumns,
  isMillisTimestamp,
  isString,
  type MetadataType,
} from '../metadata-columns.js';
import { notNullCheck } from '../not-null-columns.js';
import { choice, duration, flag, parseSqlOptions, text, wholeNumber } from '../sql-options.js';
import { avroConfluentRowFormat } from './avro-confluent-format.js';

/** The value formats: the row formats, and the changelog formats of Debezium, Canal and Maxwell. */
const VALUE_FORMATS = [
  ...ROW_FORMATS,
  'debezium-json',
  'avro-confluent',
  'canal-json',
  'maxwell-json',
] as const;
/** The value formats whose records are changes (whole rows in an envelope, no key fields). */
const CHANGELOG_FORMATS: readonly string[] = ['debezium-json', 'canal-json', 'maxwell-json'];
/** The `value.<key>` METADATA each changelog format reads from its message. */
const FORMAT_METADATA: Readonly<Record<string, Readonly<Record<string, MetadataType>>>> = {
  'debezium-json': DEBEZIUM_METADATA,
  'canal-json': CANAL_METADATA,
  'maxwell-json': MAXWELL_METADATA,
};

/** Flink's options of the key's and the value's own formats (`key.csv.null-literal`). */
export const KEY_VALUE_FORMAT_PREFIXES = ['key.json.', 'key.csv.', 'value.json.', 'value.csv.'];

const kafkaOptions = {
  connector: 'kafka',
  prefixes: KEY_VALUE_FORMAT_PREFIXES,
  entries: {
    topic: optional(text('a topic name')),
    'topic-pattern': optional(text('a regular expression')),
    'properties.bootstrap.servers': text("a list of 'host:port'"),
    'properties.group.id': optional(text('a consumer group id')),
    'properties.client.id': optional(text('a client id')),
    'properties.isolation.level': optional(choice(['read_committed', 'read_uncommitted'])),
    'properties.transaction.timeout.ms': optional(wholeNumber()),
    // Where 'group-offsets' starts a partition the group has no offset for.
    'properties.auto.offset.reset': optional(choice(['earliest', 'latest'])),
    format: optional(choice(VALUE_FORMATS)),
    'value.format': optional(choice(VALUE_FORMATS)),
    'key.format': optional(choice(ROW_FORMATS)),
    'key.fields': optional(text("column names separated by ';'")),
    'key.fields-prefix': optional(text('a prefix')),
    'value.fields-include': optional(choice(['ALL', 'EXCEPT_KEY'])),
    'scan.startup.mode': optional(
      choice([
        'earliest-offset',
        'latest-offset',
        'group-offsets',
        'timestamp',
        'specific-offsets',
      ]),
    ),
    'scan.startup.timestamp-millis': optional(wholeNumber()),
    'scan.startup.specific-offsets': optional(text("'partition:0,offset:42;partition:1,offset:7'")),
    'scan.bounded.mode': optional(
      choice(['unbounded', 'latest-offset', 'timestamp', 'specific-offsets']),
    ),
    'scan.bounded.timestamp-millis': optional(wholeNumber()),
    'scan.bounded.specific-offsets': optional(text("'partition:0,offset:42;partition:1,offset:7'")),
    'scan.topic-partition-discovery.interval': optional(duration()),
    'scan.watermark.idle-timeout': optional(duration()),
    'sink.delivery-guarantee': optional(choice(['none', 'at-least-once', 'exactly-once'])),
    'sink.transactional-id-prefix': optional(text('a transactional id prefix')),
    'json.fail-on-missing-field': optional(flag()),
    'json.ignore-parse-errors': optional(flag()),
    'csv.field-delimiter': optional(text('one character')),
    // Flink's format options, read by rowFormatOptions and debeziumJsonOptions.
    'json.timestamp-format.standard': optional(choice(['SQL', 'ISO-8601'])),
    'json.map-null-key.mode': optional(choice(['FAIL', 'DROP', 'LITERAL'])),
    'json.map-null-key.literal': optional(text('a string')),
    'json.encode.decimal-as-plain-number': optional(flag()),
    'csv.null-literal': optional(text('a string')),
    'csv.ignore-parse-errors': optional(flag()),
    'csv.quote-character': optional(text('one character')),
    'csv.disable-quote-character': optional(flag()),
    'csv.escape-character': optional(text('one character')),
    'csv.array-element-delimiter': optional(text('a string')),
    'debezium-json.timestamp-format.standard': optional(choice(['SQL', 'ISO-8601'])),
    'debezium-json.map-null-key.mode': optional(choice(['FAIL', 'DROP', 'LITERAL'])),
    'debezium-json.map-null-key.literal': optional(text('a string')),
    'debezium-json.encode.decimal-as-plain-number': optional(flag()),
    'debezium-json.schema-include': optional(flag()),
    // Flink's option names: without the prefix with 'format', with 'value.' with 'value.format'.
    'avro-confluent.url': optional(text('the schema registry URL')),
    'avro-confluent.subject': optional(text('a subject')),
    'value.avro-confluent.url': optional(text('the schema registry URL')),
    'value.avro-confluent.subject': optional(text('a subject')),
    'debezium-json.ignore-parse-errors': optional(flag()),
    'canal-json.ignore-parse-errors': optional(flag()),
    'canal-json.timestamp-format.standard': optional(choice(['SQL', 'ISO-8601'])),
    'canal-json.map-null-key.mode': optional(choice(['FAIL', 'DROP', 'LITERAL'])),
    'canal-json.map-null-key.literal': optional(text('a string')),
    'canal-json.encode.decimal-as-plain-number': optional(flag()),
    'canal-json.database.include': optional(text('a regular expression')),
    'canal-json.table.include': optional(text('a regular expression')),
    'maxwell-json.ignore-parse-errors': optional(flag()),
    'maxwell-json.timestamp-format.standard': optional(choice(['SQL', 'ISO-8601'])),
    'maxwell-json.map-null-key.mode': optional(choice(['FAIL', 'DROP', 'LITERAL'])),
    'maxwell-json.map-null-key.literal': optional(text('a string')),
    'maxwell-json.encode.decimal-as-plain-number': optional(flag()),
  },
  rules: [
    {
      check: (o: { topic?: string; 'topic-pattern'?: string }) =>
        (o.topic === undefined) !== (o['topic-pattern'] === undefined),
      message: "give exactly one of 'topic' and 'topic-pattern'",
    },
    {
      check: (o: { format?: string; 'value.format'?: string }) =>
        (o.format === undefined) !== (o['value.format'] === undefined),
      message: `give exactly one of 'format' and 'value.format' (allowed values: ${VALUE_FORMATS.join(', ')})`,
    },
    {
      check: (o: { format?: string; 'value.format'?: string; 'key.fields'?: string }) =>
        !CHANGELOG_FORMATS.includes(o.format ?? o['value.format'] ?? '') ||
        o['key.fields'] === undefined,
      message:
        "'debezium-json', 'canal-json' and 'maxwell-json' carry whole rows in their messages; 'key.fields' is not supported with them",
    },
    {
      check: (o: {
        format?: string;
        'value.format'?: string;
        'avro-confluent.url'?: string;
        'value.avro-confluent.url'?: string;
      }) =>
        (o.format ?? o['value.format']) !== 'avro-confluent' ||
        (o['avro-confluent.url'] ?? o['value.avro-confluent.url']) !== undefined,
      message:
        "'avro-confluent' needs the registry's URL: 'avro-confluent.url' (or 'value.avro-confluent.url' with 'value.format')",
    },
    {
      check: (o: { 'key.format'?: string; 'key.fields'?: string }) =>
        (o['key.format'] === undefined) === (o['key.fields'] === undefined),
      message: "'key.format' and 'key.fields' go together",
    },
    {
      check: (o: { 'sink.delivery-guarantee'?: string; 'sink.transactional-id-prefix'?: string }) =>
        o['sink.delivery-guarantee'] !== 'exactly-once' ||
        o['sink.transactional-id-prefix'] !== undefined,
      message: "'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix'",
    },
    {
      check: (o: { 'scan.startup.mode'?: string; 'scan.startup.timestamp-millis'?: string }) =>
        o['scan.startup.mode'] !== 'timestamp' || o['scan.startup.timestamp-millis'] !== undefined,
      message: "'scan.startup.mode' = 'timestamp' needs 'scan.startup.timestamp-millis'",
    },
    {
      check: (o: { 'scan.startup.mode'?: string; 'scan.startup.specific-offsets'?: string }) =>
        o['scan.startup.mode'] !== 'specific-offsets' ||
        o['scan.startup.specific-offsets'] !== undefined,
      message: "'scan.startup.mode' = 'specific-offsets' needs 'scan.startup.specific-offsets'",
    },
    {
      check: (o: { 'scan.startup.mode'?: string; 'properties.group.id'?: string }) =>
        o['scan.startup.mode'] !== 'group-offsets' || o['properties.group.id'] !== undefined,
      message: "'scan.startup.mode' = 'group-offsets' needs 'properties.group.id'",
    },
    {
      check: (o: { 'scan.bounded.mode'?: string; 'scan.bounded.timestamp-millis'?: string }) =>
        o['scan.bounded.mode'] !== 'timestamp' || o['scan.bounded.timestamp-millis'] !== undefined,
      message: "'scan.bounded.mode' = 'timestamp' needs 'scan.bounded.timestamp-millis'",
    },
    {
      check: (o: { 'scan.bounded.mode'?: string; 'scan.bounded.specific-offsets'?: string }) =>
        o['scan.bounded.mode'] !== 'specific-offsets' ||
        o['scan.bounded.specific-offsets'] !== undefined,
      message: "'scan.bounded.mode' = 'specific-offsets' needs 'scan.bounded.specific-offsets'",
    },
  ],
} as const;

export type KafkaOptions = ReturnType<typeof parseKafkaOptions>;

function parseKafkaOptions(table: CatalogTable) {
  return parseSqlOptions(kafkaOptions, table);
}

/** A metadata key: its allowed types, and whether a sink writes it. */
const METADATA: Readonly<Record<string, MetadataType & { readonly writable: boolean }>> = {
  // Written, it picks the record's topic among 'topic' = 'a;b' or those 'topic-pattern' matches.
  topic: { accepts: isString, type: 'STRING', writable: true },
  partition: { accepts: isInteger, type: 'INT', writable: false },
  offset: { accepts: isInteger, type: 'BIGINT', writable: false },
  timestamp: {
    // Milliseconds: a precision above 3 would hold epoch nanoseconds.
    accepts: isMillisTimestamp,
    type: 'TIMESTAMP_LTZ(3)',
    writable: true,
  },
  'timestamp-type': { accepts: isString, type: 'STRING', writable: false },
  headers: {
    accepts: (t) =>
      t.kind === 'MAP' &&
      isString(t.key) &&
      (isString(t.value) || t.value.kind === 'VARBINARY' || t.value.kind === 'BINARY'),
    type: 'MAP<STRING, BYTES>',
    writable: true,
  },
  'leader-epoch': { accepts: isInteger, type: 'INT', writable: false },
};

export function checkMetadata(table: CatalogTable): void {
  // The raw option: upsert-kafka checks its METADATA here too, with other options.
  const format = (table.options.get('format') ?? table.options.get('value.format'))?.value;
  const formatMetadata = FORMAT_METADATA[format ?? ''] ?? {};
  checkMetadataColumns(table, 'kafka', {
    ...METADATA,
    ...Object.fromEntries(Object.entries(formatMetadata).map(([k, m]) => [`value.${k}`, m])),
  });
}

export function stored(table: CatalogTable): TableColumn[] {
  return table.columns.filter((c) => c.computed === undefined);
}

/** How the stored columns split between the record key, its value and metadata. */
interface Layout {
  readonly key: RowFormat | undefined;
  /** Positions in the stored row of the key's columns. */
  readonly keyPositions: readonly number[];
  /** The value's format; for `debezium-json`, `changes` reads and writes the envelope. */
  readonly value: RowFormat;
  readonly changes: DebeziumJsonFormat | undefined;
  readonly valuePositions: readonly number[];
  /** Positions of the `value.<key>` METADATA columns, whose values follow the value's in a change. */
  readonly formatMetadataPositions?: readonly number[];
}

/** The table's `<prefix>json.*` and `<prefix>csv.*` options, without the prefix. */
function prefixed(table: CatalogTable, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, option] of table.options) {
    if (key.startsWith(`${prefix}json.`) || key.startsWith(`${prefix}csv.`))
      out[key.slice(prefix.length)] = option.value;
  }
  return out;
}

export function layout(
  table: CatalogTable,
  o: KafkaOptions,
  columns: readonly TableColumn[],
): Layout {
  const physical = columns.flatMap((c, i) => (c.metadata === undefined ? [i] : []));
  const formatOptions = {
    ...rowFormatOptions(o),
    failOnMissingField: o['json.fail-on-missing-field'] === 'true',
  };
  const prefix = o['key.fields-prefix'] ?? '';
  let keyPositions: number[] = [];
  let key: RowFormat | undefined;
  if (o['key.fields'] !== undefined && o['key.format'] !== undefined) {
    keyPositions = o['key.fields'].split(';').map((name) => {
      const at = columns.findIndex((c) => c.name === name.trim() && c.metadata === undefined);
      if (at < 0)
        sqlError(
          `'key.fields' names '${name.trim()}', which is not a physical column`,
          table.options.get('key.fields')?.at,
        );
      return at;
    });
    const keyColumns: FormatColumn[] = keyPositions.map((i) => {
      const c = columns[i] as TableColumn;
      return {
        name: c.name.startsWith(prefix) ? c.name.slice(prefix.length) : c.name,
        type: c.type,
      };
    });
    key = rowFormat(
      o['key.format'],
      keyColumns,
      { ...formatOptions, ...rowFormatOptions(prefixed(table, 'key.')) },
      table.at,
    );
  }
  const valuePositions =
    o['value.fields-include'] === 'EXCEPT_KEY'
      ? physical.filter((i) => !keyPositions.includes(i))
      : physical;
  const valueColumns = valuePositions.map((i) => columns[i] as TableColumn);
  const format = (o.format ?? o['value.format']) as (typeof VALUE_FORMATS)[number];
  if (format === 'debezium-json' || format === 'canal-json' || format === 'maxwell-json') {
    // A `value.<key>` column is the format's metadata, read from each message.
    const formatMetadataPositions = columns.flatMap((c, i) =>
      c.metadata?.key.startsWith('value.') === true ? [i] : [],
    );
    const metadata = formatMetadataPositions.map(
      (i) => columns[i]?.metadata?.key.slice('value.'.length) ?? '',
    );
    const changes =
      format === 'debezium-json'
        ? debeziumJsonFormat(valueColumns, {
            ...debeziumJsonOptions(o),
            schemaInclude: o['debezium-json.schema-include'] === 'true',
            failOnMissingField: formatOptions.failOnMissingField,
            metadata: metadata as readonly DebeziumMetadataKey[],
          })
        : changelogJsonFormat(
            format,
            valueColumns,
            (name) => o[name as keyof KafkaOptions] as string | undefined,
            metadata,
            formatOptions.failOnMissingField,
          );
    const value: RowFormat = {
      name: format,
      decode: () => sqlError(`a ${format} value is read as changes`),
      encode: (row) => changes.encode({ kind: '+I', value: row }),
    };
    return { key, keyPositions, value, changes, valuePositions, formatMetadataPositions };
  }
  const url = o['avro-confluent.url'] ?? o['value.avro-confluent.url'];
  const subject = o['avro-confluent.subject'] ?? o['value.avro-confluent.subject'];
  const value =
    format === 'avro-confluent'
      ? avroConfluentRowFormat(
          valueColumns,
          { url: url as string, ...(subject === undefined ? {} : { subject }) },
          table.at,
        )
      : rowFormat(
          format,
          valueColumns,
          { ...formatOptions, ...rowFormatOptions(prefixed(table, 'value.')) },
          table.at,
        );
  return { key, keyPositions, value, changes: undefined, valuePositions };
}

function startingOffsets(o: KafkaOptions, topics: string[] | undefined): StartingOffsets {
  switch (o['scan.startup.mode'] ?? 'group-offsets') {
    case 'earliest-offset':
      return 'earliest';
    case 'latest-offset':
      return 'latest';
    case 'timestamp':
      return { timestamp: Number(o['scan.startup.timestamp-millis']) };
    case 'specific-offsets':
      return {
        offsets: specificOffsets(o['scan.startup.specific-offsets'] ?? '', topics),
        fallback: 'earliest',
      };
    default: {
      // Flink's default, group-offsets, falls back to earliest without a group or a reset
      // strategy (Flink's would fail).
      const reset = o['properties.auto.offset.reset'] ?? 'earliest';
      return o['properties.group.id'] === undefined ? reset : { committed: reset };
    }
  }
}

function stoppingOffsets(
  o: KafkaOptions,
  topics: string[] | undefined,
): StoppingOffsets | undefined {
  switch (o['scan.bounded.mode'] ?? 'unbounded') {
    case 'latest-offset':
      return 'latest';
    case 'timestamp':
      return { timestamp: Number(o['scan.bounded.timestamp-millis']) };
    case 'specific-offsets':
      return { offsets: specificOffsets(o['scan.bounded.specific-offsets'] ?? '', topics) };
    default:
      return undefined;
  }
}

/** Flink's `partition:0,offset:42;partition:1,offset:300`, of the table's single topic. */
function specificOffsets(
  spec: string,
  topics: readonly string[] | undefined,
): Record<string, Record<string, number>> {
  const topic = topics?.length === 1 ? topics[0] : undefined;
  if (topic === undefined) sqlError("specific offsets need a single 'topic'");
  const offsets: Record<string, number> = {};
  for (const part of spec.split(';')) {
    const m = /^\s*partition:(\d+),\s*offset:(\d+)\s*$/.exec(part);
    if (m === null) sqlError(`specific offsets: '${part}' is not 'partition:<n>,offset:<n>'`);
    offsets[m[1] as string] = Number(m[2]);
  }
  return { [topic]: offsets };
}

/** Flink's topic list: `'topic' = 'a;b'`. */
function topicsOf(o: KafkaOptions): string[] | undefined {
  return o.topic?.split(';').map((t) => t.trim());
}

/** 'topic-pattern' matching whole topic names, as Java's `Pattern.matches`. */
function topicPatternOf(o: KafkaOptions): RegExp | undefined {
  const pattern = o['topic-pattern'];
  return pattern === undefined ? undefined : new RegExp(`^(?:${pattern})$`);
}

/** The record's headers as the MAP a SQL row holds. */
function headersOf(record: KafkaConsumerRecord, type: LogicalType): Map<string, unknown> {
  const asText = type.kind === 'MAP' && isString(type.value);
  const out = new Map<string, unknown>();
  for (const [k, value] of record.headers) {
    out.set(
      k,
      value === undefined ? null : asText ? value.toString('utf8') : new Uint8Array(value),
    );
  }
  return out;
}

/** A written `headers` MAP as the sink's headers (a NULL value has no bytes to write: left out). */
function headersFrom(map: unknown): KafkaHeaders | undefined {
  if (!(map instanceof Map)) return undefined;
  const out: Record<string, string | Uint8Array> = {};
  for (const [k, v] of map as Map<string, unknown>) {
    if (typeof v === 'string' || v instanceof Uint8Array) out[k] = v;
  }
  return out;
}

function metadataValue(record: KafkaConsumerRecord, key: string, type: LogicalType): unknown {
  switch (key) {
    case 'topic':
      return record.topic;
    case 'partition':
      return record.partition;
    case 'offset':
      return record.offset;
    case 'leader-epoch':
      // Flink's is empty (NULL) when the broker gave none.
      return record.leaderEpoch === undefined || record.leaderEpoch < 0 ? null : record.leaderEpoch;
    case 'timestamp':
      return record.timestamp;
    case 'timestamp-type':
      return 'CreateTime';
    default:
      return headersOf(record, type);
  }
}

function brokersOf(o: KafkaOptions): string[] {
  return o['properties.bootstrap.servers'].split(',').map((s) => s.trim());
}

/** Where a record came from, prefixed to its decoding error. */
export function recordError(
  table: CatalogTable,
  record: KafkaConsumerRecord,
  format: string,
  error: unknown,
): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(
    `table '${table.name}': record at topic ${record.topic} partition ${record.partition} offset ${record.offset}: ${error instanceof FieldError ? reason : `${format} value: ${reason}`}`,
  );
}

/** The positions of the physical columns among the stored ones (METADATA left out). */
export function physicalPositions(columns: readonly TableColumn[]): number[] {
  return columns.flatMap((c, i) => (c.metadata === undefined ? [i] : []));
}

/** Fills the METADATA columns of a row from its record. */
export function metadataFiller(
  columns: readonly TableColumn[],
): (record: KafkaConsumerRecord, row: Row) => void {
  // A `value.<key>` column is the changelog format's, filled from its change.
  const metadata = columns.flatMap((c, i) =>
    c.metadata === undefined || c.metadata.key.startsWith('value.')
      ? []
      : [{ at: i, key: c.metadata.key, type: c.type }],
  );
  return (record, row) => {
    for (const m of metadata) row[m.at] = metadataValue(record, m.key, m.type);
  };
}

/** The source of a table's topic, decoding each record with `deserializer`. */
export function topicSource<T>(
  table: CatalogTable,
  o: KafkaOptions,
  deserializer: (record: KafkaConsumerRecord) => T,
  skipBadRecords: boolean,
  value?: RowFormat,
  watermarks?: WatermarkStrategy<T>,
): KafkaSource<T> {
  const prepare = value?.prepareToRead;
  const topics = topicsOf(o);
  const stopAt = stoppingOffsets(o, topics);
  const discovery = o['scan.topic-partition-discovery.interval'];
  return new KafkaSource<T>({
    brokers: brokersOf(o),
    ...(topics === undefined ? { topicPattern: topicPatternOf(o) as RegExp } : { topics }),
    startFrom: startingOffsets(o, topics),
    ...(stopAt === undefined ? {} : { stopAt }),
    ...(o['properties.group.id'] === undefined ? {} : { groupId: o['properties.group.id'] }),
    ...(o['properties.client.id'] === undefined ? {} : { clientId: o['properties.client.id'] }),
    ...(o['properties.isolation.level'] === undefined
      ? {}
      : { isolationLevel: o['properties.isolation.level'] }),
    ...(discovery === undefined ? {} : { partitionDiscoveryIntervalMs: discovery }),
    onError: skipBadRecords ? 'skip' : 'fail',
    deserializer,
    ...(watermarks === undefined ? {} : { watermarks }),
    // A registry format's schema lookups, before each chunk is decoded.
    ...(prepare === undefined
      ? {}
      : {
          prepareValues: (values: readonly (Buffer | undefined)[]) => prepare.call(value, values),
        }),
    name: `kafka ${table.name}`,
  });
}

function source(table: CatalogTable, env: StreamEnvironment): DataStream<Row> {
  return rowsOfTopic(table, env, undefined, undefined);
}

/**
 * A table with a WATERMARK: each partition's watermark inside the source, idle after
 * `scan.watermark.idle-timeout` without records.
 */
function sourceWithEventTime(
  table: CatalogTable,
  env: StreamEnvironment,
  finish: ((row: Row) => Row) | undefined,
  watermarks: WatermarkStrategy<Row>,
): DataStream<Row> {
  const idle = parseKafkaOptions(table)['scan.watermark.idle-timeout'];
  return rowsOfTopic(
    table,
    env,
    finish,
    idle === undefined || idle <= 0 ? watermarks : watermarks.withIdleness(idle),
  );
}

function rowsOfTopic(
  table: CatalogTable,
  env: StreamEnvironment,
  finish: ((row: Row) => Row) | undefined,
  watermarks: WatermarkStrategy<Row> | undefined,
): DataStream<Row> {
  const o = parseKafkaOptions(table);
  const columns = stored(table);
  const { key, keyPositions, value, valuePositions } = layout(table, o, columns);
  const fillMetadata = metadataFiller(columns);
  const checkNotNull = notNullCheck(columns, physicalPositions(columns));
  const width = columns.length;
  const deserializer = (record: KafkaConsumerRecord): Row => {
    const row: Row = new Array(width);
    try {
      const values = value.decode(record.value);
      for (let i = 0; i < valuePositions.length; i++) row[valuePositions[i] as number] = values[i];
      if (key !== undefined) {
        const keys = key.decode(record.key);
        for (let i = 0; i < keyPositions.length; i++) row[keyPositions[i] as number] = keys[i];
      }
      checkNotNull?.(row);
    } catch (error) {
      throw recordError(table, record, value.name, error);
    }
    fillMetadata(record, row);
    // The computed columns (the rowtime may be one) before the partition's watermark reads it.
    return finish === undefined ? row : finish(row);
  };
  return env.fromSource(
    topicSource(
      table,
      o,
      deserializer,
      o['json.ignore-parse-errors'] === 'true' || o['csv.ignore-parse-errors'] === 'true',
      value,
      watermarks,
    ),
  );
}

/** A `debezium-json` table's changes (undefined for the other formats: their rows are inserts). */
function changelogSource(table: CatalogTable, env: StreamEnvironment): ChangelogSource | undefined {
  const o = parseKafkaOptions(table);
  const columns = stored(table);
  const { changes, valuePositions, formatMetadataPositions = [] } = layout(table, o, columns);
  if (changes === undefined) return undefined;
  const format = (o.format ?? o['value.format']) as string;
  const n = valuePositions.length;
  const fillMetadata = metadataFiller(columns);
  const checkNotNull = notNullCheck(columns, physicalPositions(columns));
  const width = columns.length;
  const deserializer = (record: KafkaConsumerRecord): Change<Row>[] => {
    try {
      return changes.decode(record.value).map(({ kind, value }) => {
        const row: Row = new Array(width);
        for (let i = 0; i < valuePositions.length; i++) row[valuePositions[i] as number] = value[i];
        for (let i = 0; i < formatMetadataPositions.length; i++)
          row[formatMetadataPositions[i] as number] = value[n + i];
        checkNotNull?.(row);
        fillMetadata(record, row);
        return { kind, value: row };
      });
    } catch (error) {
      throw recordError(table, record, format, error);
    }
  };
  const skip = o[`${format}.ignore-parse-errors` as keyof KafkaOptions] === 'true';
  const records = env.fromSource(topicSource(table, o, deserializer, skip));
  const each = (list: Change<Row>[], out: Collector<Change<Row>>): void => {
    for (const c of list) out.collect(c);
  };
  return {
    changes: records.flatMap(each).name(`${table.name}: ${format} changes`),
    mode: 'retract',
  };
}

/** The stored columns a sink writes: VIRTUAL metadata is left out (see INSERT INTO). */
export function writtenColumns(table: CatalogTable): TableColumn[] {
  const columns = stored(table).filter((c) => c.metadata?.virtual !== true);
  const readOnly = columns.find(
    (c) => c.metadata !== undefined && METADATA[c.metadata.key]?.writable !== true,
  );
  if (readOnly !== undefined)
    sqlError(
      `table '${table.name}': metadata column '${readOnly.name}' cannot be written; declare it METADATA VIRTUAL`,
      table.at,
    );
  return columns;
}

/**
 * A sink of records to the table's topic, made of rows by `rowOf`: `value` gives the value's
 * bytes, `key` the key's (records without a value are tombstones).
 */
export function topicSink<T>(
  table: CatalogTable,
  o: KafkaOptions,
  columns: readonly TableColumn[],
  rowOf: (record: T) => Row,
  parts: {
    readonly value: (record: T) => Buffer;
    readonly valueName: string;
    readonly key: ((row: Row) => Buffer) | undefined;
    readonly tombstone?: (record: T) => boolean;
    /** A registry format's schema registration, before the first write. */
    readonly prepareToWrite?: (topic: string | undefined) => Promise<void>;
  },
): KafkaSink<T> {
  const headersAt = columns.findIndex((c) => c.metadata?.key === 'headers');
  const timestampAt = columns.findIndex((c) => c.metadata?.key === 'timestamp');
  const format: KafkaFormat<T> = {
    name: parts.valueName,
    serialize: parts.value,
    deserialize: () => sqlError('a Kafka sink table is not read through its sink format'),
    ...(parts.prepareToWrite === undefined ? {} : { prepareToWrite: parts.prepareToWrite }),
  };
  const key = parts.key;
  const guarantee = o['sink.delivery-guarantee'] ?? 'at-least-once';
  const timeout = o['properties.transaction.timeout.ms'];
  return new KafkaSink<T>({
    brokers: brokersOf(o),
    topic: sinkTopic(table, o, columns, rowOf),
    format,
    ...(key === undefined ? {} : { key: (record: T) => key(rowOf(record)) }),
    ...(parts.tombstone === undefined ? {} : { tombstone: parts.tombstone }),
    ...(headersAt < 0
      ? {}
      : {
          headers: (record: T) => headersFrom(rowOf(record)[headersAt]),
        }),
    ...(timestampAt < 0
      ? {}
      : {
          timestamp: (record: T) => (rowOf(record)[timestampAt] ?? undefined) as number | undefined,
        }),
    deliveryGuarantee: guarantee === 'exactly-once' ? 'exactly-once' : 'at-least-once',
    ...(guarantee === 'none' ? { acks: 1 } : {}),
    ...(o['sink.transactional-id-prefix'] === undefined
      ? {}
      : { transactionalIdPrefix: o['sink.transactional-id-prefix'] }),
    ...(timeout === undefined ? {} : { transactionTimeoutMs: Number(timeout) }),
    ...(o['properties.client.id'] === undefined ? {} : { clientId: o['properties.client.id'] }),
    name: `kafka ${table.name}`,
  });
}

/**
 * The topic of each record, as Flink chooses it: the table's topic when it names one, else the
 * written `topic` METADATA column's value, which must be one of the listed topics or match the
 * pattern.
 */
function sinkTopic<T>(
  table: CatalogTable,
  o: KafkaOptions,
  columns: readonly TableColumn[],
  rowOf: (record: T) => Row,
): string | ((record: T) => string) {
  const topics = topicsOf(o);
  if (topics?.length === 1) return topics[0] as string;
  const at = columns.findIndex((c) => c.metadata?.key === 'topic');
  if (at < 0)
    sqlError(
      `table '${table.name}': a Kafka sink of several topics or a 'topic-pattern' needs a written \`topic\` METADATA column`,
      table.at,
    );
  const pattern = topicPatternOf(o);
  return (record: T) => {
    const topic = rowOf(record)[at];
    if (typeof topic !== 'string')
      throw new Error(`table '${table.name}': the record's \`topic\` is NULL`);
    if (topics !== undefined && !topics.includes(topic))
      throw new Error(
        `table '${table.name}': the record's topic '${topic}' is not one of ${topics.join(';')}`,
      );
    if (pattern !== undefined && !pattern.test(topic))
      throw new Error(
        `table '${table.name}': the record's topic '${topic}' does not match '${o['topic-pattern']}'`,
      );
    return topic;
  };
}

function sink(table: CatalogTable): Sink<Row> {
  return rowSink(table, parseKafkaOptions(table));
}

/** A sink of rows (an insert-only query) to the table's topic, each as its key and value. */
export function rowSink(table: CatalogTable, o: KafkaOptions): Sink<Row> {
  const columns = writtenColumns(table);
  const { key, keyPositions, value, valuePositions } = layout(table, o, columns);
  return topicSink<Row>(table, o, columns, (row) => row, {
    value: (row) => value.encode(valuePositions.map((i) => row[i])),
    valueName: value.name,
    key: key === undefined ? undefined : (row) => key.encode(keyPositions.map((i) => row[i])),
    ...(value.prepareToWrite === undefined
      ? {}
      : { prepareToWrite: (topic: string | undefined) => value.prepareToWrite!(topic) }),
  });
}

/**
 * Changes into a `debezium-json` table, each as its envelope (a retract changelog: Flink's
 * format writes an update as a delete and a create); the other formats take only inserts.
 */
function changelogSink(table: CatalogTable): Sink<Change<Row>> {
  const o = parseKafkaOptions(table);
  const columns = writtenColumns(table);
  const { changes, valuePositions } = layout(table, o, columns);
  if (changes === undefined) return sink(table) as unknown as Sink<Change<Row>>;
  const out = topicSink<Change<Row>>(table, o, columns, (c) => c.value, {
    value: (c) => changes.encode({ kind: c.kind, value: valuePositions.map((i) => c.value[i]) }),
    valueName: (o.format ?? o['value.format']) as string,
    key: undefined,
  });
  return Object.assign(out, { accepts: 'retract' as const });
}

export const kafkaConnector: SqlConnector = {
  name: 'kafka',
  options: [],
  validate(table) {
    const o = parseKafkaOptions(table);
    checkMetadata(table);
    layout(table, o, stored(table));
  },
  source,
  sourceWithEventTime,
  changelogSource,
  sink,
  changelogSink,
  checksNotNull: true,
};
