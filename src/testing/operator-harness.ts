import { type Key, keyGroupOf } from '../core/key-groups.js';
import type { Operator, OperatorContext, SnapshotContext } from '../core/operator.js';
import type { OutputTag } from '../core/output-tag.js';
import { NO_TIMESTAMP, type RecordBatch } from '../core/record-batch.js';
import type { OperatorSnapshot } from '../core/snapshot.js';
import { MetricRegistry } from '../metrics/registry.js';
import { ProcessingTimeScheduler } from '../runtime/task/timers.js';
import type { HarnessOptions } from './harness-options.js';
import { ManualClock } from './manual-clock.js';
import { type Emitted, RecordingOutput, type StreamRecord } from './recording-output.js';
import { restoredStateFrom } from './restored-state.js';

/**
 * What every harness shares: the operator's lifecycle under a manual
 * processing-time clock, snapshots, and what the operator emitted.
 *
 * The constructor does what a task does before the first record: `setup`
 * with a real context (metrics, processing-time service, state backend),
 * `initializeState` when restoring, then `open`.
 */
export abstract class OperatorHarness<IN, OUT> {
  /** The operator under test (set up and open). */
  readonly operator: Operator<IN, OUT>;
  private readonly recording = new RecordingOutput<OUT>();
  private readonly clock: ManualClock;
  private readonly timers: ProcessingTimeScheduler;
  private readonly registry = new MetricRegistry();
  private readonly context: OperatorContext;
  private lastCheckpointId = 0;

  protected constructor(operator: Operator<IN, OUT>, options: HarnessOptions = {}) {
    this.operator = operator;
    this.clock = new ManualClock(options.processingTime ?? 0);
    this.timers = new ProcessingTimeScheduler(this.clock);
    const operatorId = options.operatorId ?? 'operator';
    const subtaskIndex = options.subtaskIndex ?? 0;
    const parallelism = options.parallelism ?? 1;
    const maxParallelism = options.maxParallelism ?? 128;
    const restoreFrom = options.restoreFrom;
    this.context = {
      operatorId,
      operatorName: operatorId,
      subtaskIndex,
      parallelism,
      maxParallelism,
      processingTime: this.timers,
      metrics: this.registry.group({
        job_name: 'test',
        operator: operatorId,
        subtask: String(subtaskIndex),
      }),
      stateBackend: options.stateBackend,
      restored: restoreFrom !== undefined,
    };
    operator.setup(this.context, this.recording);
    if (restoreFrom !== undefined) {
      const snapshots: readonly OperatorSnapshot[] = Array.isArray(restoreFrom)
        ? restoreFrom
        : [restoreFrom as OperatorSnapshot];
      const restored = restoredStateFrom(snapshots, {
        operatorId,
        subtaskIndex,
        parallelism,
        maxParallelism,
      });
      if (restored !== undefined) operator.initializeState(restored);
    }
    operator.open();
  }

  /** The current processing time of the manual clock. */
  get processingTime(): number {
    return this.clock.now();
  }

  /**
   * Moves processing time to `time` and runs, in time order, every
   * processing-time callback due by then (including those the callbacks
   * schedule up to `time`). Time never goes backwards.
   */
  setProcessingTime(time: number): void {
    this.clock.set(time);
    this.timers.fireDue();
  }

  /**
   * Takes the operator's snapshot for checkpoint `checkpointId` (default: one
   * more than the last), as a barrier would. The result is a copy: the
   * operator goes on changing its live state. An operator without state
   * gives `{}`.
   */
  snapshot(
    checkpointId = this.lastCheckpointId + 1,
    kind: SnapshotContext['kind'] = 'checkpoint',
  ): OperatorSnapshot {
    this.lastCheckpointId = checkpointId;
    const maxParallelism = this.context.maxParallelism;
    const snapshot = this.operator.snapshotState({
      checkpointId,
      kind,
      keyGroupOf: (key: Key) => keyGroupOf(key, maxParallelism),
    });
    return snapshot === undefined ? {} : structuredClone(snapshot);
  }

  /** Tells the operator checkpoint `checkpointId` is complete (sinks commit, backends may drop history). */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await this.operator.notifyCheckpointComplete(checkpointId);
  }

  /** Records of the main output since the last {@link clearOutput}, in order. */
  output(): StreamRecord<OUT>[] {
    const records: StreamRecord<OUT>[] = [];
    for (const e of this.recording.log) {
      if (e.kind === 'record') records.push({ value: e.value, timestamp: e.timestamp });
    }
    return records;
  }

  /** The values of {@link output}. */
  outputValues(): OUT[] {
    return this.output().map((r) => r.value);
  }

  /** Watermarks the operator forwarded since the last {@link clearOutput}. */
  watermarks(): number[] {
    const times: number[] = [];
    for (const e of this.recording.log) if (e.kind === 'watermark') times.push(e.time);
    return times;
  }

  /** Records the operator sent to side output `tag` since the last {@link clearOutput}. */
  sideOutput<S>(tag: OutputTag<S>): StreamRecord<S>[] {
    const records: StreamRecord<S>[] = [];
    for (const e of this.recording.log) {
      if (e.kind === 'side' && e.tag === tag.id) {
        records.push({ value: e.value as S, timestamp: e.timestamp });
      }
    }
    return records;
  }

  /** Everything emitted since the last {@link clearOutput} (records, side records, watermarks, idleness, end), in order. */
  emitted(): readonly Emitted<OUT>[] {
    return this.recording.log;
  }

  /** Forgets what was emitted so far. */
  clearOutput(): void {
    this.recording.log = [];
  }

  /** The total of metric `name` over this operator's series (counters and gauges). */
  metric(name: string): number {
    return this.registry.total(name, { operator: this.context.operatorId });
  }

  /** Closes the operator (flushes sinks, releases state backends). */
  async close(): Promise<void> {
    await this.operator.close();
  }

  /** Ends the operator's input as a task does: `endInput`, then `endOutput`. */
  protected endAll(): void {
    this.operator.endInput();
    this.operator.endOutput();
  }
}

/** Event times of a batch: one per record, or a function of the record. */
export type Timestamps<T> = readonly number[] | ((value: T) => number);

/** One batch of records with their event times (none when `timestamps` is absent) and keys. */
export function batchOf<T>(
  values: readonly T[],
  timestamps: Timestamps<T> | undefined,
  keyOf: ((value: T) => Key) | undefined,
): RecordBatch<T> {
  if (Array.isArray(timestamps) && timestamps.length !== values.length) {
    throw new RangeError(`${values.length} records but ${timestamps.length} timestamps`);
  }
  return {
    values: [...values],
    timestamps:
      timestamps === undefined
        ? values.map(() => NO_TIMESTAMP)
        : typeof timestamps === 'function'
          ? values.map(timestamps)
          : [...timestamps],
    keys: keyOf === undefined ? undefined : values.map(keyOf),
  };
}
