import type { Clock } from './clock.js';
import type { Key } from './key-groups.js';
import type { MetricGroup } from './metrics.js';
import type { ProcessGroupObserver } from './process-group.js';
import type { RecordBatch } from './record-batch.js';
import type { Sink } from './sink.js';
import type { Json } from './snapshot.js';

/** What a source reader learns about where it runs. */
export interface SourceContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  /** Preferred number of records per batch. Bounded sources use exactly this, so results are deterministic. */
  readonly batchSize: number;
  readonly clock: Clock;
  readonly metrics: MetricGroup;
  readonly operatorId: string;
  /**
   * The position this reader must resume from, as returned by `snapshot()` of
   * the same subtask at the checkpoint being restored; undefined on a fresh start.
   */
  readonly restoredPosition: Json | undefined;
  /**
   * For a source that is {@link Source.rescalable}, restored from a
   * checkpoint: the positions of every subtask of the checkpoint, in subtask
   * order, whatever the parallelism then. Each reader takes its share of
   * them. `restoredPosition` is then this subtask's own position only when
   * the parallelism is unchanged.
   */
  readonly restoredPositions?: readonly Json[];
}

/** Result of {@link SourceReader.poll} when no batch is ready. */
export type PollStatus = 'wait' | 'end';

/**
 * Reads one share (split) of a source. `poll` is synchronous and never blocks:
 * I/O happens in the background (filling a buffer) and `available` tells the
 * runtime when polling is worthwhile again.
 */
export interface SourceReader<T> {
  open(): Promise<void> | void;
  /** The next batch, or `'wait'` when none is ready yet, or `'end'` when a bounded source is exhausted. */
  poll(): RecordBatch<T> | PollStatus;
  /** Resolves when `poll` may return something new after it returned `'wait'`. */
  available(): Promise<void>;
  close(): Promise<void> | void;
  /**
   * The reader's position after the last record returned by `poll`, as JSON,
   * for checkpoints. A reader created with it as `restoredPosition` resumes
   * with exactly the next record. Readers without it cannot be checkpointed.
   */
  snapshot?(checkpointId: number): Json;
  /**
   * False while the reader cannot record a position it could resume from (for
   * example during an initial database snapshot); checkpoints wait until it can.
   */
  canSnapshot?(): boolean;
  /**
   * For readers that assign event time themselves (for example per Kafka
   * partition, merged as the minimum): the watermark after the records returned
   * so far. Checked after every poll; only increases are forwarded.
   */
  currentWatermark?(): number;
  /**
   * True while the reader has nothing to read and should not hold event time
   * back (for example every partition is caught up). Its next batch or
   * watermark makes it active again.
   */
  isIdle?(): boolean;
  /** The checkpoint holding `snapshot()`s up to this id is durable (e.g. acknowledge upstream). */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
}

/** A source of records: a description from which the runtime creates one reader per subtask. */
export interface Source<T> {
  /** Shown in plans, errors and metrics. */
  readonly name: string;
  /** Whether the source ends by itself. */
  readonly bounded: boolean;
  /** Whether the source can be split over several subtasks; if not, it runs with parallelism 1. */
  readonly parallelizable: boolean;
  /**
   * Whether a checkpoint of the source can be restored at another
   * parallelism: its readers then get every old subtask's position (see
   * `SourceContext.restoredPositions`) and split the work among themselves.
   * Without it, a restore must keep the source's parallelism.
   */
  readonly rescalable?: boolean;
  createReader(context: SourceContext): SourceReader<T>;
  /**
   * For a job run as a process group (`weir run --group`): a copy of this
   * source that reads only the partitions the group assigns to this process,
   * and follows the group as members come and go. Called once, before the
   * job starts. A source without it cannot run in a process group.
   */
  inProcessGroup?(group: ProcessGroupSpec): Source<T>;
  /**
   * In a process group, the Kafka topics whose partitions are this source's
   * tasks: a keyed exchange downstream hears one watermark per task.
   */
  readonly groupTopics?: readonly string[];
}

/** The process group a job runs in: its Kafka consumer group and where Kafka is. */
export interface ProcessGroupSpec {
  /** The group id, the same in every process of the job. */
  readonly applicationId: string;
  /** Bootstrap brokers of the Kafka cluster whose group coordinator runs the group. */
  readonly brokers: readonly string[];
  /**
   * How long a member may stay silent before the group's coordinator declares
   * it dead and moves its tasks (`--session-timeout`); 6 s when absent. The
   * brokers' bounds apply: `group.min.session.timeout.ms` for single-owner
   * tasks, `group.consumer.min.session.timeout.ms` for partitioned ones.
   */
  readonly sessionTimeoutMs?: number;
  /**
   * The tasks (`topic:partition`) this process holds now, when its membership
   * in the group is the process's own and not the readers' (a job with keyed
   * state: the process restarts its job with the tasks' state on every change
   * of its task set). Readers then read exactly these partitions of their
   * topics, joining no group themselves; without it, each reader is a member
   * of the group and reads what the group assigns to it.
   */
  readonly tasks?: () => ReadonlySet<string>;
  /**
   * Names this member's current run of the job, unique in the group and new
   * on every restart of the job: transactional ids of the run's exactly-once
   * writers carry it (see `Sink.inProcessGroup`).
   */
  readonly transactionScope?: () => string;
  /** Builds the ends of keyed exchanges between processes; without it a keyed exchange is refused. */
  readonly exchange?: GroupExchange;
  /** Told by the group's readers in this process about their tasks (for the group's metadata, UI and metrics). */
  readonly observer?: ProcessGroupObserver;
}

/**
 * One keyed exchange between the processes of a group: a topic partitioned
 * by key-group ranges, whose partitions are the consuming stage's tasks.
 */
export interface ExchangeSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly maxParallelism: number;
  /** For each input of the consuming operator, the topics whose tasks produce into it. */
  readonly producerTopics: readonly (readonly string[])[];
}

/** What a process group uses to cut a job at its keyed exchanges. */
export interface GroupExchange {
  /** The topic of the keyed exchange into the operator with this uid. */
  topic(operatorUid: string): string;
  /** The producing end of input `input`: records keyed by `selectKey`, and this process's watermarks. */
  writer(spec: ExchangeSpec, input: number, selectKey: (value: never) => Key): Sink<unknown>;
  /**
   * The consuming end: records of every input as `{ input, value }`, read by
   * the tasks this process holds, which it reports to `observer` (so the
   * group's metadata names who holds each task of the stage).
   */
  reader(spec: ExchangeSpec, observer?: ProcessGroupObserver): Source<ExchangedRecord>;
}

/** A record that crossed a keyed exchange, with the input of its consumer it belongs to. */
export interface ExchangedRecord {
  readonly input: number;
  readonly value: unknown;
}

/** A promise that never resolves, for readers that are never waited on. */
export const NEVER: Promise<void> = new Promise<void>(() => {});
