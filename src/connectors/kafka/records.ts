/**
 * Decoding fetched record batches: offsets, timestamps, control
 * batches.
 */
import type { fetchV17, KafkaRecord, RecordsBatch } from '@platformatic/kafka';
import type { KafkaConsumerRecord } from './consumer-record.js';
import { IS_CONTROL } from './source/aborted-transactions.js';

type FetchResponsePartition = fetchV17.FetchResponsePartition;

/**
 * Calls `visit` for every data record at or after `from`; returns the next
 * offset to fetch. Aborted transactions were already dropped from the response
 * (see aborted-transactions.ts); control batches are skipped here.
 */
export function forEachRecord(
  partition: FetchResponsePartition,
  from: number,
  visit: (record: KafkaRecord, offset: number, timestamp: number, leaderEpoch: number) => void,
): number {
  let next = from;
  const batches: RecordsBatch[] = partition.records ?? [];
  for (const batch of batches) {
    const first = Number(batch.firstOffset);
    const last = first + batch.lastOffsetDelta;
    if (last < from) continue;
    if (last + 1 > next) next = last + 1;
    if ((batch.attributes & IS_CONTROL) !== 0) continue;
    const baseTime = Number(batch.firstTimestamp);
    for (const record of batch.records) {
      const offset = first + record.offsetDelta;
      if (offset < from) continue;
      visit(record, offset, baseTime + Number(record.timestampDelta), batch.partitionLeaderEpoch);
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
  leaderEpoch: number,
): KafkaConsumerRecord {
  return {
    topic,
    partition,
    offset,
    timestamp,
    leaderEpoch,
    key: record.key ?? undefined,
    value: record.value ?? undefined,
    headers: record.headers.map(([k, v]) => [k?.toString('utf8') ?? '', v ?? undefined] as const),
  };
}

/** Hands the values of a fetched partition (from offset `from` on) to a format's `prepareToRead`. */
export async function prepareChunk(
  partition: FetchResponsePartition,
  from: number,
  prepare: (values: readonly (Buffer | undefined)[]) => Promise<void> | undefined,
): Promise<void> {
  const values: (Buffer | undefined)[] = [];
  forEachRecord(partition, from, (record) => values.push(record.value ?? undefined));
  if (values.length > 0) await prepare(values);
}
