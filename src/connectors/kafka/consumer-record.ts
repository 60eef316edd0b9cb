/**
 * The record type of the public API, apart from the decoding in records.ts:
 * the published declarations reach it without reaching the Kafka client's
 * own declarations (which do not type-check without `skipLibCheck`).
 */

/** A record as it was stored in Kafka, with where it came from. */
export interface KafkaConsumerRecord {
  readonly topic: string;
  readonly partition: number;
  /** Offset within the partition (exact up to 2^53). */
  readonly offset: number;
  /** The record's timestamp (CreateTime or LogAppendTime), epoch ms. */
  readonly timestamp: number;
  /** The leader epoch of the record's batch (-1 when the broker gave none). */
  readonly leaderEpoch?: number;
  readonly key: Buffer | undefined;
  readonly value: Buffer | undefined;
  readonly headers: readonly (readonly [string, Buffer | undefined])[];
}
