/** Messages between a sink writer (main thread) and its producer worker. */
import type { SyncChannelEnd } from '../../../util/threads/sync-channel.js';
import type { KafkaConnection } from '../config.js';

export interface WorkerConfig {
  /** Plain data: an OAUTHBEARER `tokenProvider` stays with the writer (see `tokenFromWriter`). */
  readonly connection: KafkaConnection;
  /** OAUTHBEARER tokens come from the writer's `tokenProvider`: ask with a `token-wanted` notice. */
  readonly tokenFromWriter: boolean;
  readonly exactlyOnce: boolean;
  readonly transactionalIdPrefix: string;
  readonly transactionTimeoutMs: number;
  /** Names the sink in warnings. */
  readonly operatorId: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly acks: -1 | 1;
  readonly compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
  /** Longest time for a flush at a checkpoint barrier. */
  readonly flushTimeoutMs: number;
  /** Checkpoint settings, when known, checked against the broker's transaction.max.timeout.ms. */
  readonly checkpointIntervalMs: number | undefined;
  readonly checkpointTimeoutMs: number | undefined;
}

/** A batch of serialized records: one buffer, lengths per record (-1 for absent). */
export interface PackedBatch {
  readonly topics: string[];
  /** Index into `topics` per record. */
  readonly topicIndex: Int32Array;
  /** Partition per record, or -1 to let the producer choose (round robin). */
  readonly partitions: Int32Array;
  readonly keyLengths: Int32Array;
  readonly valueLengths: Int32Array;
  /** Headers per record as [name, value] pairs (undefined when no record has headers). */
  readonly headers: ([string, Uint8Array][] | undefined)[] | undefined;
  /** Kafka timestamp per record (epoch ms; NaN: the producer's clock), when the sink sets them. */
  readonly timestamps?: Float64Array;
  readonly data: ArrayBuffer;
}

/** What a pre-committed transaction needs to be committed later, by this or another process. */
export interface TransactionCommittable {
  readonly kind: 'kafka-txn';
  readonly transactionalId: string;
  /** The producer id, as a decimal string (int64). */
  readonly producerId: string;
  readonly producerEpoch: number;
  /** No record was written: nothing to commit. */
  readonly empty: boolean;
  readonly subtask: number;
  readonly parallelism: number;
  /** Sequence number in the transactional id (`<prefix>-<subtask>-<seq>`). */
  readonly seq: number;
  /**
   * In a process group: the writer's prefix without the member run, and the
   * run (the id is `<prefix>-<run>-<subtask>-<seq>`), so the new owner of a
   * task can name the ids of another run of the same writer.
   */
  readonly prefix?: string;
  readonly run?: string;
}

export type Request =
  | {
      readonly op: 'init';
      readonly config: WorkerConfig;
      /** Where the worker answers `preCommit` and `flush`, which the writer blocks on. */
      readonly sync: SyncChannelEnd;
    }
  | { readonly op: 'send'; readonly batch: PackedBatch }
  | { readonly op: 'flush' }
  | { readonly op: 'preCommit' }
  | { readonly op: 'commit'; readonly id: number; readonly committables: TransactionCommittable[] }
  | { readonly op: 'recover'; readonly id: number; readonly committables: TransactionCommittable[] }
  | { readonly op: 'close'; readonly id: number }
  /** The answer to a `token-wanted` notice: a token, or why the provider failed. */
  | { readonly op: 'token'; readonly token?: string; readonly error?: string };

/** Replies on the synchronous port. */
export type SyncReply =
  | { readonly ok: true; readonly committable?: TransactionCommittable }
  | { readonly ok: false; readonly error: string };

/** Asynchronous notifications and replies. */
export type Notice =
  | { readonly kind: 'acked'; readonly records: number }
  | { readonly kind: 'failed'; readonly error: string }
  | {
      readonly kind: 'done';
      readonly id: number;
      readonly error?: string;
      /** On 'close': the thread is clean and may serve another writer (see releaseWorker). */
      readonly reusable?: boolean;
    }
  /** A retry while the cluster is unreachable, or the reconnection after it: for the sink's log. */
  | { readonly kind: 'warning'; readonly message: string }
  /** The producer logs in with OAUTHBEARER: the writer's `tokenProvider` is asked for a token. */
  | { readonly kind: 'token-wanted' }
  | {
      readonly kind: 'stat';
      readonly name: 'committed' | 'aborted' | 'reconnects';
      readonly count: number;
    };
