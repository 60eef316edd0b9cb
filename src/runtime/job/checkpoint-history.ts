/**
 * The recent checkpoints of a job, for the web UI and the REST API, and the
 * checkpoint metrics the coordinator does not keep itself (alignment, a
 * duration histogram, the last completed one).
 *
 * It watches from the side: it stands between the tasks and the coordinator
 * as their checkpoint listener (seeing each acknowledgement) and hears of
 * completions from the tasks; durations and sizes come from the
 * coordinator's own gauges, failures from its failure counter.
 */

import { DURATION_BUCKETS_SECONDS, type Histogram } from '../../metrics/histogram.js';
import type { MetricRegistry, RegistryGroup } from '../../metrics/registry.js';
import type { CheckpointListener, Task, TaskSnapshot } from '../task/task.js';

export type CheckpointStatus = 'in_progress' | 'completed' | 'failed';

export interface CheckpointEntry {
  readonly id: number;
  readonly kind: 'checkpoint' | 'savepoint';
  status: CheckpointStatus;
  /** Wall-clock time the checkpoint started (epoch ms). */
  readonly triggeredAt: number;
  /** Tasks that have snapshotted their state, of `tasks`. */
  acknowledged: number;
  readonly tasks: number;
  /** Longest time a task waited for barrier alignment (ms). */
  alignmentMs: number;
  completedAt?: number;
  /** From trigger to durable (ms). */
  durationMs?: number;
  /** Size of the checkpointed state (bytes of JSON). */
  sizeBytes?: number;
}

export interface CheckpointCounts {
  readonly completed: number;
  readonly failed: number;
  readonly inProgress: number;
}

/** Metric names the coordinator registers; read here for durations, sizes and failures. */
export const COORDINATOR_METRICS = {
  completed: 'weir_checkpoints_completed_total',
  failed: 'weir_checkpoints_failed_total',
  lastDuration: 'weir_checkpoint_last_duration_seconds',
  lastSize: 'weir_checkpoint_last_size_bytes',
} as const;

/** Entries kept; older ones are dropped (the counts still include them). */
const KEPT = 50;

export class CheckpointHistory {
  private readonly list: CheckpointEntry[] = [];
  private completedSeen = 0;
  private failedSeen = 0;
  private pendingSavepoints = 0;
  private lastCompleted: CheckpointEntry | undefined;
  private readonly durations: Histogram;
  private readonly alignments: Histogram;

  constructor(
    private readonly registry: MetricRegistry,
    metrics: RegistryGroup,
    /** Called once for every checkpoint found to have failed. */
    private readonly onFailure: (entry: CheckpointEntry) => void = () => {},
  ) {
    this.durations = metrics.histogram(
      'weir_checkpoint_duration_seconds',
      'Time from the start of a checkpoint until it is durable',
      DURATION_BUCKETS_SECONDS,
    );
    this.alignments = metrics.histogram(
      'weir_checkpoint_alignment_seconds',
      'Longest barrier alignment of any task, per checkpoint',
      DURATION_BUCKETS_SECONDS,
    );
    metrics.gauge(
      'weir_checkpoint_last_alignment_seconds',
      'Longest barrier alignment of any task in the last completed checkpoint',
      () => (this.lastCompleted?.alignmentMs ?? 0) / 1000,
    );
    metrics.gauge(
      'weir_checkpoint_last_completed_id',
      'Id of the last completed checkpoint (0 before the first)',
      () => this.lastCompleted?.id ?? 0,
    );
    metrics.gauge(
      'weir_checkpoint_last_completed_timestamp_seconds',
      'When the last checkpoint completed (seconds since the epoch; 0 before the first)',
      () => (this.lastCompleted?.completedAt ?? 0) / 1000,
    );
    metrics.gauge('weir_checkpoints_in_progress', 'Checkpoints started and not yet done', () => {
      this.refresh();
      return this.list.filter((e) => e.status === 'in_progress').length;
    });
  }

  /** Puts the history between `tasks` and their checkpoint listener (the coordinator). */
  observe(tasks: readonly Task[]): void {
    for (const task of tasks) {
      const inner = task.checkpoints;
      const listener: CheckpointListener = {
        acknowledge: (t: Task, id: number, snapshot: TaskSnapshot) => {
          this.acknowledged(t, id, tasks.length);
          inner?.acknowledge(t, id, snapshot);
        },
        completed: (t: Task, id: number) => {
          inner?.completed?.(t, id);
          this.completed(id, tasks.length);
        },
      };
      task.checkpoints = listener;
    }
  }

  /** The next checkpoint to start is a savepoint (requested through the job client). */
  savepointRequested(): void {
    this.pendingSavepoints++;
  }

  /** Recent checkpoints, newest first. */
  entries(): readonly CheckpointEntry[] {
    this.refresh();
    return [...this.list].reverse();
  }

  counts(): CheckpointCounts {
    this.refresh();
    return {
      completed: this.registry.total(COORDINATOR_METRICS.completed),
      failed: this.registry.total(COORDINATOR_METRICS.failed),
      inProgress: this.list.filter((e) => e.status === 'in_progress').length,
    };
  }

  /** The most recent completed checkpoint or savepoint. */
  latestCompleted(): CheckpointEntry | undefined {
    this.refresh();
    return this.lastCompleted;
  }

  private acknowledged(task: Task, id: number, taskCount: number): void {
    let entry = this.find(id);
    if (entry === undefined) {
      this.refresh();
      const savepoint = this.pendingSavepoints > 0;
      if (savepoint) this.pendingSavepoints--;
      entry = {
        id,
        kind: savepoint ? 'savepoint' : 'checkpoint',
        status: 'in_progress',
        triggeredAt: Date.now(),
        acknowledged: 0,
        tasks: taskCount,
        alignmentMs: 0,
      };
      this.list.push(entry);
      if (this.list.length > KEPT) this.list.shift();
    }
    entry.acknowledged++;
    if (task.lastAlignmentMs > entry.alignmentMs) entry.alignmentMs = task.lastAlignmentMs;
  }

  private completed(id: number, taskCount: number): void {
    const total = this.registry.total(COORDINATOR_METRICS.completed);
    // Every task reports the completion; only the first, and only a durable one, counts.
    if (total <= this.completedSeen) return;
    this.completedSeen = total;
    const now = Date.now();
    const durationMs = this.registry.total(COORDINATOR_METRICS.lastDuration) * 1000;
    let entry = this.find(id);
    if (entry === undefined) {
      // The final checkpoint at the end of input is taken without barriers.
      entry = {
        id,
        kind: 'checkpoint',
        status: 'in_progress',
        triggeredAt: now - durationMs,
        acknowledged: taskCount,
        tasks: taskCount,
        alignmentMs: 0,
      };
      this.list.push(entry);
      if (this.list.length > KEPT) this.list.shift();
    }
    entry.status = 'completed';
    entry.completedAt = now;
    entry.durationMs = durationMs;
    entry.sizeBytes = this.registry.total(COORDINATOR_METRICS.lastSize);
    this.lastCompleted = entry;
    this.durations.observe(durationMs / 1000);
    this.alignments.observe(entry.alignmentMs / 1000);
    // Checkpoints complete in order: an older one still open has failed.
    for (const e of this.list) if (e.id < id && e.status === 'in_progress') this.markFailed(e);
  }

  /** Takes note of failures the coordinator counted since the last look. */
  private refresh(): void {
    const failed = this.registry.total(COORDINATOR_METRICS.failed);
    while (this.failedSeen < failed) {
      this.failedSeen++;
      const open = this.list.find((e) => e.status === 'in_progress');
      if (open !== undefined) this.markFailed(open, false);
    }
  }

  private markFailed(entry: CheckpointEntry, counted = true): void {
    entry.status = 'failed';
    if (counted) this.failedSeen++;
    this.onFailure(entry);
  }

  private find(id: number): CheckpointEntry | undefined {
    for (let i = this.list.length - 1; i >= 0; i--)
      if (this.list[i]!.id === id) return this.list[i];
    return undefined;
  }
}
