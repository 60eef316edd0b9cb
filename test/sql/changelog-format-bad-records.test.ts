/**
 * A record the changelog formats (canal-json, maxwell-json, debezium-json) cannot read, through
 * a `kafka` table: with `'<format>.ignore-parse-errors' = 'true'` it is skipped and counted in
 * `weir_source_bad_records_total` while the records around it are read; without, the job fails
 * naming the record's topic, partition and offset. No broker: the planned job's Kafka source
 * reader decodes a fetched partition built here, by the step that reads what a fetch returns.
 */
import type { RecordsBatch } from '@platformatic/kafka';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KafkaSource } from '../../src/connectors/kafka/index.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import type { Row } from '../../src/sql/connectors/connector.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { graphOf } from '../../src/sql/planner/changelog-plan.js';
import { readerContext } from '../connectors/files/helpers.js';

beforeAll(() => registerSqlConnectors(externalSqlConnectors));

const BAD_RECORDS = 'weir_source_bad_records_total';

/** The part of a reader's partition that decoding a fetch reads and fills. */
interface FetchedPartition {
  readonly info: { readonly topic: string; readonly partition: number };
  fetchOffset: number;
  stopOffset: number;
  buffered: number;
  readonly chunks: {
    readonly values: Change<Row>[][];
    readonly offsets: number[];
    readonly failure: unknown;
  }[];
}

/** What the source read from one fetch of `values` at offsets 0, 1, ... of topic `t` partition 0. */
interface Fetched {
  /** Each record read, as its offset and changes (`+I(101,scooter)`). */
  readonly read: string[];
  readonly badRecords: number;
  /** The job's failure, if a record failed it. */
  readonly failure: string | undefined;
}

/** The changes of one record as text: `+I(101,scooter)`. */
const show = (changes: Change<Row>[]): string =>
  changes.map((c) => `${c.kind}(${c.value.join(',')})`).join(' ');

/** Plans `SELECT * FROM p` over the table `ddl` declares and reads `values` through its source. */
async function readThroughTable(ddl: string, values: readonly string[]): Promise<Fetched> {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  tEnv.sqlQuery('SELECT * FROM p').toChangelogStream().sinkTo(new CollectSink());
  const node = graphOf(env).nodes.find((n) => n.kind === 'source');
  const source = (node as unknown as { source: KafkaSource<Change<Row>[]> }).source;
  const metrics = new MetricRegistry();
  const reader = source.createReader(readerContext(100, metrics)) as unknown as {
    accept(p: FetchedPartition, fetched: unknown): Promise<boolean>;
  };
  const batch = {
    firstOffset: 0n,
    lastOffsetDelta: values.length - 1,
    attributes: 0,
    firstTimestamp: 0n,
    records: values.map((v, i) => ({
      offsetDelta: i,
      timestampDelta: 0n,
      key: null,
      value: Buffer.from(v, 'utf8'),
      headers: [],
    })),
  } as unknown as RecordsBatch;
  const partition: FetchedPartition = {
    info: { topic: 't', partition: 0 },
    fetchOffset: 0,
    stopOffset: Number.POSITIVE_INFINITY,
    buffered: 0,
    chunks: [],
  };
  await reader.accept(partition, { records: [batch] });
  const chunk = partition.chunks[0];
  const failure = chunk?.failure;
  return {
    read: (chunk?.values ?? []).map((changes, i) => `${chunk?.offsets[i]}: ${show(changes)}`),
    badRecords: metrics.total(BAD_RECORDS),
    failure: failure instanceof Error ? failure.message : undefined,
  };
}

const table = (format: string, options = '') =>
  `CREATE TABLE p (id INT NOT NULL, name STRING) WITH ('connector' = 'kafka', 'topic' = 't',
    'properties.bootstrap.servers' = 'localhost:1', 'format' = '${format}'${options})`;

const canal = (type: string, id: number, name: string) =>
  JSON.stringify({ data: [{ id: String(id), name }], database: 'db', table: 'p', type });
const maxwell = (type: string, id: number, name: string) =>
  JSON.stringify({ database: 'db', table: 'p', type, data: { id, name } });
const debezium = (op: string, id: number, name: string) =>
  JSON.stringify({ before: null, after: { id, name }, op });

/** Per format: good records at offsets 0 and 3 around two it cannot read, and the reasons. */
const CASES = [
  {
    format: 'canal-json',
    records: [
      canal('INSERT', 1, 'a'),
      'not json',
      canal('TRUNCATE', 2, 'b'),
      canal('INSERT', 3, 'c'),
    ],
    reasons: ['canal-json value: not JSON', `field 'type' is "TRUNCATE"`],
  },
  {
    format: 'maxwell-json',
    records: [
      maxwell('insert', 1, 'a'),
      '[1, 2]',
      maxwell('upsert', 2, 'b'),
      maxwell('insert', 3, 'c'),
    ],
    reasons: [
      'maxwell-json value: a maxwell-json record must be an object',
      `field 'type' is "upsert"`,
    ],
  },
  {
    format: 'debezium-json',
    records: [debezium('c', 1, 'a'), 'not json', debezium('x', 2, 'b'), debezium('r', 3, 'c')],
    reasons: ['debezium-json value: not JSON', `field 'op' is "x"`],
  },
] as const;

describe('a changelog format record that cannot be read, through a kafka table', () => {
  for (const { format, records } of CASES) {
    it(`${format} with ignore-parse-errors: skipped and counted, the records around it read`, async () => {
      const fetched = await readThroughTable(
        table(format, `, '${format}.ignore-parse-errors' = 'true'`),
        records,
      );
      expect(fetched).toEqual({
        read: ['0: +I(1,a)', '3: +I(3,c)'],
        badRecords: 2,
        failure: undefined,
      });
    });
  }

  for (const { format, records, reasons } of CASES) {
    it(`${format} without the option: the job fails naming the record, after the ones before it`, async () => {
      const first = await readThroughTable(table(format), records);
      expect(first.read).toEqual(['0: +I(1,a)']);
      expect(first.badRecords).toBe(1);
      expect(first.failure).toContain(
        `bad record in topic 't' partition 0 at offset 1: table 'p': record at topic t partition 0 offset 1: ${reasons[0]}`,
      );
      expect(first.failure).toContain("'<format>.ignore-parse-errors' = 'true'");
      // A record that is JSON but not a change names the field.
      const second = await readThroughTable(table(format), [records[0], records[2], records[3]]);
      expect(second.failure).toContain(
        `at offset 1: table 'p': record at topic t partition 0 offset 1: ${reasons[1]}`,
      );
      expect(second.read).toEqual(['0: +I(1,a)']);
    });
  }
});
