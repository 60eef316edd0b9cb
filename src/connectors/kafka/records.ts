/**
 * @internal Decoding fetched record batches: offsets, timestamps, control
 * batches and (for read_committed) records of aborted transactions.
 */
import type { fetchV17, KafkaRecord, RecordsBatch } from '@platformatic/kafka';

type FetchResponsePartition = fetchV17.FetchResponsePartition;

/** A record as it was stored in Kafka, with where it came from. */
export interface KafkaConsumerRecord {
  readonly topic: string;
  readonly partition: number;
  /** Offset within the partition (exact up to 2^53). */
  readonly offset: number;
  /** The record's timestamp (CreateTime or LogAppendTime), epoch ms. */
  readonly timestamp: number;
  readonly key: Buffer | undefined;
  readonly value: Buffer | undefined;
  readonly headers: readonly (readonly [string, Buffer | undefined])[];
}

const IS_TRANSACTIONAL = 1 << 4;
const IS_CONTROL = 1 << 5;

/** Calls `visit` for every committed data record at or after `from`; returns the next offset to fetch. */
export function forEachRecord(
  partition: FetchResponsePartition,
  from: number,
  readCommitted: boolean,
  visit: (record: KafkaRecord, offset: number, timestamp: number) => void,
): number {
  let next = from;
  const batches: RecordsBatch[] = partition.records ?? [];
  // Aborted transactions that may cover the batches, by first offset (Kafka's algorithm).
  const aborted = readCommitted
    ? [...partition.abortedTransactions].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1))
    : [];
  let ai = 0;
  const abortedProducers = new Set<bigint>();
  for (const batch of batches) {
    const first = Number(batch.firstOffset);
    const last = first + batch.lastOffsetDelta;
    if (last < from) continue;
    if (last + 1 > next) next = last + 1;
    while (ai < aborted.length && Number(aborted[ai]!.firstOffset) <= last) {
      abortedProducers.add(aborted[ai]!.producerId);
      ai++;
    }
    if ((batch.attributes & IS_CONTROL) !== 0) {
      // An abort marker ends the aborted range of its producer.
      const key = batch.records[0]?.key;
      if (key !== null && key !== undefined && key.length >= 4 && key.readInt16BE(2) === 0) {
        abortedProducers.delete(batch.producerId);
      }
      continue;
    }
    if (
      readCommitted &&
      (batch.attributes & IS_TRANSACTIONAL) !== 0 &&
      abortedProducers.has(batch.producerId)
    ) {
      continue;
    }
    const baseTime = Number(batch.firstTimestamp);
    for (const record of batch.records) {
      const offset = first + record.offsetDelta;
      if (offset < from) continue;
      visit(record, offset, baseTime + Number(record.timestampDelta));
    }
  }
  return next;
}

/** The full record, for deserializers and dead letters. */
export function consumerRecord(
  topic: string,
  partition: number,
  record: KafkaRecord,
  offset: number,
  timestamp: number,
): KafkaConsumerRecord {
  return {
    topic,
    partition,
    offset,
    timestamp,
    key: record.key ?? undefined,
    value: record.value ?? undefined,
    headers: record.headers.map(([k, v]) => [k?.toString('utf8') ?? '', v ?? undefined] as const),
  };
}
