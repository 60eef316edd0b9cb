import type { ChangelogMode } from './changelog.js';
import type { MetricGroup } from './metrics.js';
import type { RecordBatch } from './record-batch.js';
import type { Json } from './snapshot.js';

export interface SinkContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly operatorId: string;
  readonly metrics: MetricGroup;
}

/**
 * Writes one subtask's records. `write` is synchronous; a writer doing I/O
 * buffers and reports through `blocked` until its buffer drains, which holds
 * the task (backpressure).
 */
export interface SinkWriter<T> {
  write(batch: RecordBatch<T>): void;
  blocked?(): Promise<void> | undefined;
  /**
   * For a writer that carries event time on (a keyed exchange between
   * processes): the input's watermark advanced. Other sinks end watermarks.
   */
  writeWatermark?(time: number): void;
  /** The input has no data for now (see {@link writeWatermark}). */
  writeIdle?(): void;
  /** Flushes everything written; called once at the end of the job. */
  close(): Promise<void> | void;
}

/**
 * A sink writer with exactly-once output through two-phase commit, driven by
 * checkpoints:
 *
 * 1. records written after checkpoint n-1 form transaction n (begun implicitly);
 * 2. at the barrier of checkpoint n, `preCommit(n)` seals transaction n (flush,
 *    make durable, not yet visible) and returns its committable, which is stored
 *    in the checkpoint;
 * 3. when checkpoint n is complete, `commit` makes the committables visible;
 * 4. on restore, `recover` receives the committables of ALL subtasks in the
 *    restored checkpoint (committed or not: commit must be idempotent); each
 *    writer commits those it owns and aborts what previous runs left behind,
 *    so that transactions stay whole when the parallelism changes.
 */
export interface TwoPhaseCommitWriter<T> extends SinkWriter<T> {
  preCommit(checkpointId: number): Json;
  commit(committables: readonly Json[]): Promise<void> | void;
  recover(committables: readonly Json[]): Promise<void> | void;
}

export function isTwoPhaseCommit<T>(writer: SinkWriter<T>): writer is TwoPhaseCommitWriter<T> {
  const w = writer as Partial<TwoPhaseCommitWriter<T>>;
  return typeof w.preCommit === 'function' && typeof w.commit === 'function';
}

/** A destination for records: the runtime creates one writer per subtask. */
export interface Sink<T> {
  readonly name: string;
  /**
   * Which changelog streams this sink can write (see `ChangelogMode`):
   * `insert-only` when absent. A job that sends updates or deletes to a sink
   * that cannot apply them is refused when it is built.
   */
  readonly accepts?: ChangelogMode;
  /**
   * True for a sink whose output becomes visible only when a checkpoint
   * completes (two-phase commit). A job with such a sink and a source that
   * never ends is refused unless it takes checkpoints: it would commit nothing.
   */
  readonly commitsOnCheckpoint?: boolean;
  createWriter(context: SinkContext): SinkWriter<T>;
  /**
   * For a job run as a process group: the copy of this sink that one member
   * runs, where `run()` names the member's current run of the job (unique in
   * the group, new on every restart). A sink whose transactions are named
   * (Kafka transactional ids) puts the run in the names, so members never
   * fence each other and a new owner of a task can fence a dead run's.
   */
  inProcessGroup?(run: () => string): Sink<T>;
  /**
   * Starts ahead what `writers` writers of this sink will need (their
   * threads, with the modules loaded), on a member of a process group that
   * stands by for a task: taking the task over then does not wait for it.
   */
  prepareWriters?(writers: number): void;
}

/**
 * A sink that keeps what it receives in memory (tests, small jobs). In worker
 * mode each worker's share is sent back to the main thread's copy of it when
 * the job ends.
 */
export interface CollectingSink<T> extends Sink<T> {
  readonly collects: true;
  readonly values: T[];
  /** Event time of each collected record, index-aligned with `values`. */
  readonly timestamps: number[];
}

export function isCollectingSink(sink: Sink<unknown> | undefined): sink is CollectingSink<unknown> {
  return (sink as Partial<CollectingSink<unknown>> | undefined)?.collects === true;
}
