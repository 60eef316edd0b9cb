/**
 * A `kafka` table's watermark is kept per partition inside the source, as Flink's Kafka source
 * keeps it (real broker): a partition far ahead of another read by the same subtask does not
 * make the other's rows late, so TUMBLE counts over skewed partitions equal a batch count; and a
 * partition without records holds the watermark back only until `scan.watermark.idle-timeout`.
 * A changelog table (`upsert-kafka`) takes `table.exec.source.idle-timeout` too: a subtask
 * without changes stops holding the watermark back.
 */
import { describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { BROKERS, createTopic, produce, uniqueTopic, waitFor } from '../kafka/helpers.js';

registerSqlConnectors(externalSqlConnectors);

const BASE = Date.UTC(2026, 0, 1);

function table(topic: string, more = ''): string {
  return `CREATE TABLE clicks (
      p INT,
      ts_ms BIGINT,
      ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
      WATERMARK FOR ts AS ts
    ) WITH ('connector' = 'kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}',
      'scan.startup.mode' = 'earliest-offset', 'format' = 'json'${more});`;
}

const COUNTS = `SELECT window_start, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY window_start, window_end`;

/** `[partition, ms after BASE]` rows, each partition's in time order, produced partition by partition. */
async function produced(partitions: number, rows: readonly (readonly [number, number])[]) {
  const topic = uniqueTopic('sql-partition-watermarks');
  await createTopic(topic, partitions);
  await produce(
    topic,
    rows.map(([p, ms]) => ({ partition: p, value: JSON.stringify({ p, ts_ms: BASE + ms }) })),
  );
  return topic;
}

/** Window start (ms after BASE) -> rows in it, as a batch count over `rows`. */
function batchCounts(rows: readonly (readonly [number, number])[]): string[] {
  const counts = new Map<number, number>();
  for (const [, ms] of rows) counts.set(ms - (ms % 5000), (counts.get(ms - (ms % 5000)) ?? 0) + 1);
  return [...counts].map(([start, n]) => `${start} ${n}`).sort();
}

async function windowCounts(setup: string, expected: number, parallelism = 1): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(setup);
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(COUNTS).toDataStream().sinkTo(sink);
  const job = env.executeAsync('partition watermarks');
  const ended = job.result.then(() => {
    throw new Error(`the job ended with ${sink.values.length} of ${expected} windows`);
  });
  try {
    await Promise.race([
      waitFor(`${expected} windows`, () => sink.values.length >= expected, 60_000),
      ended,
    ]);
  } finally {
    ended.catch(() => {});
    await job.cancel();
  }
  return sink.values.map((r) => `${Number(r[0]) - BASE} ${r[1]}`).sort();
}

describe('the watermark of a kafka table', () => {
  it('is the least of its partitions: a partition behind another keeps its rows on time', async () => {
    // Partition 0 runs 2,000 rows up to 40 s ahead; partition 1 holds rows of the first seconds.
    const ahead = Array.from({ length: 2000 }, (_, i) => [0, 20_000 + i * 10] as const);
    const behind = Array.from({ length: 30 }, (_, i) => [1, i * 500] as const);
    // A row past every window so that they all fire, in each partition.
    const closing = [
      [0, 60_000],
      [1, 60_000],
    ] as const;
    const rows = [...ahead, ...behind, ...closing];
    const topic = await produced(2, rows);
    const expected = batchCounts(rows).filter((w) => !w.startsWith('60000 '));
    expect(await windowCounts(table(topic), expected.length)).toEqual(expected);
  }, 120_000);

  it('goes on without a partition that has no records once it is idle', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => [i % 2, i * 500] as const);
    // Partition 2 gets nothing: without the idle timeout no window would fire.
    const topic = await produced(3, rows);
    // The last window (from 15 s) holds the latest rows: the watermark never passes it.
    const expected = batchCounts(rows).filter((w) => !w.startsWith('15000 '));
    const setup = table(topic, ", 'scan.watermark.idle-timeout' = '500 ms'");
    expect(await windowCounts(setup, expected.length)).toEqual(expected);
  }, 120_000);

  it('of an upsert-kafka table goes on without a subtask that has no changes once it is idle', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => [0, i * 500] as const);
    // Every change in partition 0: at parallelism 2 the subtask of partition 1 reads nothing,
    // and without the idle timeout no window would fire.
    const topic = uniqueTopic('sql-changelog-idleness');
    await createTopic(topic, 2);
    await produce(
      topic,
      rows.map(([p, ms], id) => ({
        partition: p,
        key: JSON.stringify({ id }),
        value: JSON.stringify({ id, ts_ms: BASE + ms }),
      })),
    );
    const expected = batchCounts(rows).filter((w) => !w.startsWith('15000 '));
    const setup = `SET 'table.exec.source.idle-timeout' = '500 ms';
      CREATE TABLE clicks (
        id INT,
        ts_ms BIGINT,
        ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
        WATERMARK FOR ts AS ts,
        PRIMARY KEY (id) NOT ENFORCED
      ) WITH ('connector' = 'upsert-kafka', 'topic' = '${topic}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}',
        'key.format' = 'json', 'value.format' = 'json');`;
    expect(await windowCounts(setup, expected.length, 2)).toEqual(expected);
  }, 120_000);
});
