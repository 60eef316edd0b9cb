/**
 * The `upsert-kafka` SQL connector, with Flink's option names: a table over a compacted topic
 * whose record key is the table's PRIMARY KEY. Reading gives an upsert changelog: a record
 * with a value replaces the row of its key, a tombstone (no value) deletes it. Writing takes
 * an upsert (or insert-only) query: a new row is its key and value, a delete is a tombstone.
 */
import { optional } from 'valibot';
import type { StreamEnvironment } from '../../../api/stream-environment.js';
import type { KafkaConsumerRecord } from '../../../connectors/kafka/index.js';
import type { Change } from '../../../core/changelog.js';
import type { Sink } from '../../../core/sink.js';
import type { CatalogTable } from '../../catalog/catalog.js';
import { sqlError } from '../../sql-error.js';
import type { ChangelogSource, Row, SqlConnector } from '../connector.js';
import { ROW_FORMATS } from '../formats/row-formats.js';
import { notNullCheck } from '../not-null-columns.js';
import { choice, duration, flag, parseSqlOptions, text, wholeNumber } from '../sql-options.js';
import { bufferedUpsertSink } from './buffered-upsert-sink.js';
import {
  checkMetadata,
  type KafkaOptions,
  KEY_VALUE_FORMAT_PREFIXES,
  layout,
  metadataFiller,
  physicalPositions,
  recordError,
  rowSink,
  stored,
  topicSink,
  topicSource,
  writtenColumns,
} from './kafka-connector.js';

const upsertKafkaOptions = {
  connector: 'upsert-kafka',
  prefixes: KEY_VALUE_FORMAT_PREFIXES,
  entries: {
    topic: text('a topic name'),
    'properties.bootstrap.servers': text("a list of 'host:port'"),
    'properties.group.id': optional(text('a consumer group id')),
    'properties.client.id': optional(text('a client id')),
    'properties.isolation.level': optional(choice(['read_committed', 'read_uncommitted'])),
    'properties.transaction.timeout.ms': optional(wholeNumber()),
    'key.format': choice(ROW_FORMATS),
    'value.format': choice([...ROW_FORMATS, 'avro-confluent']),
    'value.avro-confluent.url': optional(text('the schema registry URL')),
    'value.avro-confluent.subject': optional(text('a subject')),
    'key.fields-prefix': optional(text('a prefix')),
    'value.fields-include': optional(choice(['ALL', 'EXCEPT_KEY'])),
    'scan.bounded.mode': optional(choice(['unbounded', 'latest-offset', 'timestamp'])),
    'scan.bounded.timestamp-millis': optional(wholeNumber()),
    'scan.topic-partition-discovery.interval': optional(duration()),
    'sink.delivery-guarantee': optional(choice(['none', 'at-least-once', 'exactly-once'])),
    'sink.transactional-id-prefix': optional(text('a transactional id prefix')),
    'sink.parallelism': optional(wholeNumber()),
    'sink.buffer-flush.max-rows': optional(wholeNumber()),
    'sink.buffer-flush.interval': optional(duration()),
    'json.fail-on-missing-field': optional(flag()),
    'json.ignore-parse-errors': optional(flag()),
    'csv.field-delimiter': optional(text('one character')),
  },
  rules: [
    {
      check: (o: { 'value.format'?: string; 'value.avro-confluent.url'?: string }) =>
        o['value.format'] !== 'avro-confluent' || o['value.avro-confluent.url'] !== undefined,
      message: "'value.format' = 'avro-confluent' needs 'value.avro-confluent.url'",
    },
    {
      check: (o: { 'sink.delivery-guarantee'?: string; 'sink.transactional-id-prefix'?: string }) =>
        o['sink.delivery-guarantee'] !== 'exactly-once' ||
        o['sink.transactional-id-prefix'] !== undefined,
      message: "'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix'",
    },
    {
      check: (o: { 'scan.bounded.mode'?: string; 'scan.bounded.timestamp-millis'?: string }) =>
        o['scan.bounded.mode'] !== 'timestamp' || o['scan.bounded.timestamp-millis'] !== undefined,
      message: "'scan.bounded.mode' = 'timestamp' needs 'scan.bounded.timestamp-millis'",
    },
  ],
} as const;

/**
 * The table's options as the `kafka` connector's: the key fields are the PRIMARY KEY, and the
 * topic is always read from its earliest offset (the whole table).
 */
function kafkaOptionsOf(table: CatalogTable): KafkaOptions {
  const o = parseSqlOptions(upsertKafkaOptions, table);
  const key = table.primaryKey;
  if (key === undefined || key.length === 0)
    sqlError(
      "connector 'upsert-kafka' needs a PRIMARY KEY (...) NOT ENFORCED: its columns are the record key",
      table.at,
    );
  const {
    'value.format': format,
    'value.fields-include': include,
    'sink.parallelism': _parallelism,
    'sink.buffer-flush.max-rows': _rows,
    'sink.buffer-flush.interval': _interval,
    ...shared
  } = o;
  return {
    ...shared,
    format,
    'key.fields': key.join(';'),
    'value.fields-include': include ?? 'ALL',
    'scan.startup.mode': 'earliest-offset',
  };
}

/** The topic's records as changes: a value upserts its key's row, a tombstone deletes it. */
function changelogSource(table: CatalogTable, env: StreamEnvironment): ChangelogSource {
  const o = kafkaOptionsOf(table);
  const columns = stored(table);
  const { key, keyPositions, value, valuePositions } = layout(table, o, columns);
  if (key === undefined) return sqlError('upsert-kafka: no key format', table.at);
  const fillMetadata = metadataFiller(columns);
  // A tombstone holds only its key: of it only the key's columns are checked.
  const checkNotNull = notNullCheck(columns, physicalPositions(columns));
  const checkKey = notNullCheck(columns, keyPositions);
  const width = columns.length;
  const deserializer = (record: KafkaConsumerRecord): Change<Row> => {
    const row: Row = new Array<unknown>(width).fill(null);
    const tombstone = record.value === undefined;
    try {
      if (!tombstone) {
        const values = value.decode(record.value);
        for (let i = 0; i < valuePositions.length; i++)
          row[valuePositions[i] as number] = values[i];
      }
      if (record.key === undefined) throw new Error('the record has no key');
      const keys = key.decode(record.key);
      for (let i = 0; i < keyPositions.length; i++) row[keyPositions[i] as number] = keys[i];
      (tombstone ? checkKey : checkNotNull)?.(row);
    } catch (error) {
      throw recordError(table, record, tombstone ? `${key.name} key` : value.name, error);
    }
    fillMetadata(record, row);
    return { kind: tombstone ? '-D' : '+U', value: row };
  };
  const source = topicSource(
    table,
    o,
    deserializer,
    o['json.ignore-parse-errors'] === 'true',
    value,
  );
  return { changes: env.fromSource(source), mode: 'upsert' };
}

/** Rows or upserts into the topic: each row as its key and value, a delete as a tombstone. */
function changelogSink(table: CatalogTable): Sink<Change<Row>> {
  const o = kafkaOptionsOf(table);
  const columns = writtenColumns(table);
  const { key, keyPositions, value, valuePositions } = layout(table, o, columns);
  if (key === undefined) return sqlError('upsert-kafka: no key format', table.at);
  const out = topicSink<Change<Row>>(table, o, columns, (c) => c.value, {
    value: (c) => value.encode(valuePositions.map((i) => c.value[i])),
    valueName: value.name,
    key: (row) => key.encode(keyPositions.map((i) => row[i])),
    // The planner drops update-befores before an upsert sink; one that still came would be
    // followed by its update-after under the same key, so a tombstone for it is harmless.
    tombstone: (c) => c.kind === '-D' || c.kind === '-U',
    ...(value.prepareToWrite === undefined
      ? {}
      : { prepareToWrite: (topic: string | undefined) => value.prepareToWrite!(topic) }),
  });
  return buffered(table, Object.assign(out, { accepts: 'upsert' as const }), (c) => c.value);
}

/** The sink, through a buffer keeping the last row of each key when 'sink.buffer-flush.*' ask for one. */
function buffered<T>(table: CatalogTable, sink: Sink<T>, rowOf: (record: T) => Row): Sink<T> {
  const options = parseSqlOptions(upsertKafkaOptions, table);
  const maxRows = Number(options['sink.buffer-flush.max-rows'] ?? 0);
  const interval = options['sink.buffer-flush.interval'] ?? 0;
  // As Flink, buffering needs both options above 0.
  if (maxRows <= 0 || interval <= 0) return sink;
  const { key, keyPositions } = layout(table, kafkaOptionsOf(table), writtenColumns(table));
  if (key === undefined) return sqlError('upsert-kafka: no key format', table.at);
  const keyOf = (record: T) => {
    const row = rowOf(record);
    return key.encode(keyPositions.map((i) => row[i])).toString('latin1');
  };
  return bufferedUpsertSink(sink, keyOf, maxRows, interval);
}

export const upsertKafkaConnector: SqlConnector = {
  name: 'upsert-kafka',
  options: [],
  validate(table) {
    const o = kafkaOptionsOf(table);
    checkMetadata(table);
    layout(table, o, stored(table));
  },
  changelogSource,
  changelogSink,
  // An insert-only query writes each row as an upsert of its key.
  sink: (table) => buffered(table, rowSink(table, kafkaOptionsOf(table)), (row) => row),
  checksNotNull: true,
};
