/**
 * What a Kafka sink wrote, read back for `weir reconcile`, and the rows a
 * replay's values would have become.
 */
import { isUtf8 } from 'node:buffer';
import type { Consumer } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { ReconcileTarget, ReplayedValue, WrittenRow } from '../../../core/replay.js';
import type { Json } from '../../../core/snapshot.js';
import {
  describePartitions,
  EARLIEST,
  LATEST,
  listOffsets,
  newFetcher,
  type PartitionInfo,
} from '../client.js';
import { reasonOf } from '../config.js';
import { forEachRecord } from '../records.js';
import { recordKey, recordValue, type SinkConfig } from './sink-options.js';

const READ_COMMITTED = 1;
const PARTITION_MAX_BYTES = 4 << 20;
/** Fetches in a row that bring a partition no further before reading it fails. */
const MAX_STALLED_FETCHES = 50;

/**
 * A Kafka sink's topic as `weir reconcile` compares it. Rows are decoded one
 * way on both sides: the key as UTF-8 text when it is valid UTF-8, else
 * `hex:` and its bytes; the value parsed as JSON when it is valid UTF-8 JSON,
 * else `{ base64 }`; a missing value (a tombstone) as null. The sink gives
 * records no timestamp of its own (the broker stamps the produce time, not
 * the event time), so rows carry none.
 */
export class KafkaReconcileTarget<T> implements ReconcileTarget<T> {
  readonly description: string;
  readonly mode = 'append';
  private readonly topic: string;
  private readonly fetchers = new Set<Consumer>();

  constructor(private readonly config: SinkConfig<T>) {
    if (config.fixedTopic === undefined) {
      throw new WeirError(
        'INVALID_JOB',
        `KafkaSink '${config.name}': reconcile needs a fixed topic; this sink chooses the topic per record with a function, so the topics it wrote are unknown`,
      );
    }
    this.topic = config.fixedTopic;
    this.description = `Kafka topic '${this.topic}' at ${config.connection.brokers.join(',')}`;
  }

  /** Everything committed in the topic now, partition by partition, in offset order. */
  async *written(): AsyncIterable<WrittenRow> {
    const fetcher = newFetcher(this.config.connection, READ_COMMITTED);
    this.fetchers.add(fetcher);
    try {
      const partitions = await this.attempt('list its partitions', async () =>
        (await describePartitions(fetcher, [this.topic])).sort((a, b) => a.partition - b.partition),
      );
      const [starts, ends] = await this.attempt('list its offsets', () =>
        Promise.all([
          listOffsets(fetcher, partitions, EARLIEST, READ_COMMITTED),
          listOffsets(fetcher, partitions, LATEST, READ_COMMITTED),
        ]),
      );
      for (const p of partitions) {
        const key = `${p.topic}:${p.partition}`;
        yield* this.readPartition(
          fetcher,
          p,
          Number(starts.get(key) ?? 0n),
          Number(ends.get(key) ?? 0n),
        );
      }
    } finally {
      this.fetchers.delete(fetcher);
      await Promise.allSettled([fetcher.close(true)]);
    }
  }

  /** Rows of one partition in [from, end): aborted records and transaction markers left out. */
  private async *readPartition(
    fetcher: Consumer,
    p: PartitionInfo,
    from: number,
    end: number,
  ): AsyncIterable<WrittenRow> {
    let offset = from;
    let stalled = 0;
    while (offset < end) {
      const response = await this.attempt(`fetch partition ${p.partition}`, () =>
        fetcher.fetch({
          node: p.leader,
          maxWaitTime: 500,
          minBytes: 1,
          maxBytes: PARTITION_MAX_BYTES,
          isolationLevel: READ_COMMITTED,
          topics: [
            {
              topicId: p.topicId,
              partitions: [
                {
                  partition: p.partition,
                  fetchOffset: BigInt(offset),
                  partitionMaxBytes: PARTITION_MAX_BYTES,
                  currentLeaderEpoch: -1,
                  lastFetchedEpoch: -1,
                },
              ],
            },
          ],
        }),
      );
      const rp = response.responses[0]?.partitions[0];
      if (rp === undefined) throw this.failed(`fetch partition ${p.partition}`, 'no answer');
      if (rp.errorCode !== 0)
        throw this.failed(`fetch partition ${p.partition}`, `Kafka error code ${rp.errorCode}`);
      const rows: WrittenRow[] = [];
      const next = forEachRecord(rp, offset, (record, at) => {
        if (at >= end) return;
        rows.push({
          key: decodeKey(record.key ?? undefined),
          value: decodeValue(record.value ?? undefined),
          origin: `${p.topic}/${p.partition}@${at}`,
        });
      });
      yield* rows;
      if (next <= offset) {
        if (++stalled > MAX_STALLED_FETCHES)
          throw this.failed(`read partition ${p.partition}`, `no progress at offset ${offset}`);
        continue;
      }
      stalled = 0;
      offset = next;
    }
  }

  /** Replayed values as rows, through the sink's own key and value serialization. */
  async *expected(values: AsyncIterable<ReplayedValue<T>>): AsyncIterable<WrittenRow> {
    let i = 0;
    for await (const { value } of values) {
      const key = recordKey(this.config, value);
      yield {
        key: decodeKey(key),
        value: decodeValue(recordValue(this.config, value)),
        origin: `replayed value #${i++}`,
      };
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.fetchers].map((f) => f.close(true)));
    this.fetchers.clear();
  }

  private async attempt<R>(what: string, run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw this.failed(what, reasonOf(cause), cause);
    }
  }

  private failed(what: string, reason: string, cause?: unknown): WeirError {
    return new WeirError(
      'SINK_FAILED',
      `reconcile of KafkaSink '${this.config.name}' cannot ${what} of topic '${this.topic}' at ${this.config.connection.brokers.join(',')}: ${reason}`,
      { cause, domain: 'external', retriable: true },
    );
  }
}

/** A record key as text: UTF-8 when valid, else `hex:` and the bytes; undefined without a key. */
export function decodeKey(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return isUtf8(b) ? b.toString('utf8') : `hex:${b.toString('hex')}`;
}

/** A record value as JSON: parsed when it is UTF-8 JSON, else `{ base64 }`; null without a value. */
export function decodeValue(bytes: Uint8Array | undefined): Json {
  if (bytes === undefined) return null;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (isUtf8(b)) {
    try {
      return JSON.parse(b.toString('utf8')) as Json;
    } catch {
      // not JSON: compared as bytes
    }
  }
  return { base64: b.toString('base64') };
}
