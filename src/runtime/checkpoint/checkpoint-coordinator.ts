import type { Clock } from '../../core/clock.js';
import { WeirError } from '../../core/errors.js';
import type { Json, OperatorSnapshot } from '../../core/snapshot.js';
import type { MetricGroup } from '../../metrics/registry.js';
import type { ExecutorDriver } from '../execution/executor.js';
import type { CheckpointListener, SourceTask, Task, TaskSnapshot } from '../task/task.js';
import type { CheckpointConfig } from './checkpoint-config.js';
import {
  CHECKPOINT_FORMAT_VERSION,
  type CheckpointData,
  type OperatorCheckpoint,
} from './checkpoint-data.js';
import type { CheckpointStorage } from './checkpoint-storage.js';

/** Operators of the job, as checkpoints describe them. */
export interface CheckpointedOperator {
  readonly uid: string;
  readonly name: string;
  readonly parallelism: number;
  readonly isSource: boolean;
}

interface Pending {
  readonly id: number;
  readonly startedAt: number;
  readonly awaiting: Set<Task>;
  readonly snapshots: TaskSnapshot[];
  readonly savepoint: SavepointRequest | undefined;
}

interface SavepointRequest {
  readonly storage: CheckpointStorage;
  /** The job stops after this savepoint: no checkpoint may follow its barrier. */
  readonly final: boolean;
  resolve(path: string): void;
  reject(error: unknown): void;
}

/** A savepoint was asked for after all input ended: the job finishes by itself instead. */
export class InputEndedError extends WeirError {
  constructor() {
    super('INVALID_JOB', 'cannot take a savepoint: input has ended');
  }
}

/** How long after a restore's first checkpoint completes the next ones follow without waiting for the interval. */
const CATCH_UP_MS = 1000;

/** Why a checkpoint did not complete. */
export type CheckpointFailureReason = 'timeout' | 'storage-failed' | 'source-not-checkpointable';

/**
 * Runs checkpoints (Chandy-Lamport with aligned barriers): at each interval it
 * asks every source task to snapshot its position and emit a barrier; tasks
 * snapshot and forward the barrier once it arrived on all their inputs, and
 * acknowledge here. When every task has acknowledged, the checkpoint is
 * written to storage; once durable, every task is told it is complete, and
 * only then do sinks commit and sources acknowledge upstream.
 */
export class CheckpointCoordinator implements CheckpointListener, ExecutorDriver {
  private nextId: number;
  private pending: Pending | undefined;
  private lastTriggerAt: number;
  /** Until then, a checkpoint is due as soon as the previous one is done (after a restore). */
  private catchUpUntil: number;
  private lastCompletedAt = Number.NEGATIVE_INFINITY;
  private consecutiveFailures = 0;
  private inFlight: Promise<void> = Promise.resolve();
  /** Checkpoints snapshotted but not yet stored and notified. */
  private storing = 0;
  /** Set when the job must fail (too many failed checkpoints, a commit that failed). */
  failure: unknown;
  private readonly completedCounter;
  private readonly failedCounter;
  private lastDurationMs = 0;
  private lastSizeBytes = 0;
  lastCompletedId: number | undefined;

  private readonly savepointRequests: SavepointRequest[] = [];

  constructor(
    /** Periodic checkpoints; undefined when only savepoints are taken. */
    private readonly config: CheckpointConfig | undefined,
    private readonly storage: CheckpointStorage | undefined,
    private readonly tasks: readonly Task[],
    private readonly operators: readonly CheckpointedOperator[],
    private readonly jobName: string,
    private readonly maxParallelism: number,
    private readonly clock: Clock,
    metrics: MetricGroup,
    restoredId: number | undefined,
  ) {
    this.nextId = (restoredId ?? 0) + 1;
    this.lastTriggerAt = clock.now();
    // After a restore, checkpoints follow each other without waiting for the
    // interval until a short while after the first completes: what a
    // transactional sink writes from the restored position is visible only
    // once a checkpoint commits it, and past a repartition topic only at the
    // second, so a failover would otherwise add one or two whole intervals to
    // the output's pause.
    this.catchUpUntil =
      restoredId === undefined || config === undefined
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY;
    for (const t of tasks) t.checkpoints = this;
    this.completedCounter = metrics.counter(
      'weir_checkpoints_completed_total',
      'Checkpoints completed',
    );
    this.failedCounter = metrics.counter(
      'weir_checkpoints_failed_total',
      'Checkpoints that failed or timed out',
    );
    metrics.gauge(
      'weir_checkpoint_last_duration_seconds',
      'Duration of the last completed checkpoint',
      () => this.lastDurationMs / 1000,
    );
    metrics.gauge(
      'weir_checkpoint_last_size_bytes',
      'Size of the last completed checkpoint',
      () => this.lastSizeBytes,
    );
  }

  private get sources(): SourceTask<unknown>[] {
    return this.tasks.filter((t): t is SourceTask<unknown> => 'triggerCheckpoint' in t);
  }

  /** Called by the executor between steps: starts a checkpoint when one is due, expires a stuck one. */
  tick(): boolean {
    const now = this.clock.now();
    const pending = this.pending;
    const config = this.config;
    if (pending !== undefined) {
      // A task that ended while the checkpoint ran gets no barrier (its inputs
      // ended before they could send one): all its input came before the
      // checkpoint, so its final state is its part of it.
      for (const task of [...pending.awaiting]) {
        if (task.finished) this.acknowledge(task, pending.id, task.finalSnapshot(pending.id));
      }
      if (this.pending !== pending) return true;
      if (now - pending.startedAt > (config?.timeoutMs ?? 60_000)) this.fail(pending, 'timeout');
      return false;
    }
    // After a stop's savepoint the job is halted until it is stopped: no checkpoint follows.
    if (this.suspended) return false;
    const savepoint = this.savepointRequests[0];
    if (savepoint === undefined) {
      if (config === undefined) return false;
      if (now - this.lastTriggerAt < config.intervalMs) {
        // Catching up after a restore: due once the previous one is stored.
        if (now >= this.catchUpUntil || this.storing > 0) return false;
      }
      // A pause is measured from the end of the previous checkpoint: none may still be storing.
      const serial = config.minPauseMs > 0 || this.storage?.storesOneAtATime === true;
      if (serial && this.storing > 0) return false;
      if (now - this.lastCompletedAt < config.minPauseMs) return false;
    }
    const sources = this.sources;
    // Checkpoints are taken while any source runs (a bounded side input may
    // have ended long before the main input); once all have ended, the final
    // checkpoint at end of input covers the rest.
    const blocker = !sources.some((s) => !s.finished)
      ? 'input has ended'
      : sources.some((s) => !s.checkpointable)
        ? 'a source cannot record its position'
        : undefined;
    if (blocker !== undefined) {
      if (savepoint !== undefined) {
        this.savepointRequests.shift();
        savepoint.reject(
          blocker === 'input has ended'
            ? new InputEndedError()
            : new WeirError('INVALID_JOB', `cannot take a savepoint: ${blocker}`),
        );
      }
      return false;
    }
    // Wait (a round or so) until no source chain has a sink mid-flush.
    if (sources.some((s) => !s.finished && !s.readyForBarrier)) return false;
    if (savepoint !== undefined) this.savepointRequests.shift();
    this.trigger(now, savepoint);
    return true;
  }

  /**
   * Takes a savepoint into `storage` as soon as possible; resolves with its
   * path once it is durable and every task was told it is complete (sinks
   * have committed up to it). With `final` (stop-with-savepoint) the job
   * halts at the savepoint: sources emit nothing after its barrier, every
   * task stops once the barrier passed it, and no checkpoint follows, so the
   * job's output ends exactly at the savepoint; the caller then stops the
   * job. If a final savepoint fails, the job resumes running.
   */
  requestSavepoint(storage: CheckpointStorage, final = false): Promise<string> {
    return new Promise((resolve, reject) =>
      this.savepointRequests.push({ storage, final, resolve, reject }),
    );
  }

  /**
   * Rejects the savepoints this coordinator can no longer take: those asked
   * for and the one under way. Called when its attempt ended or failed: a
   * restarted attempt has a coordinator of its own, and a caller waiting
   * for a savepoint of the failed one (a hand-over) must hear that it failed
   * rather than wait for good.
   */
  rejectPendingSavepoints(reason: unknown): void {
    const underWay = this.pending?.savepoint;
    if (underWay !== undefined) {
      this.pending = undefined;
      underWay.reject(reason);
    }
    for (const request of this.savepointRequests.splice(0)) request.reject(reason);
  }

  private suspended = false;

  private trigger(now: number, savepoint: SavepointRequest | undefined): void {
    const stop = savepoint?.final === true;
    if (stop) this.suspended = true;
    const id = this.nextId++;
    this.lastTriggerAt = now;
    // Tasks that have ended take no barrier: their final state is their part.
    const pending: Pending = {
      id,
      startedAt: now,
      awaiting: new Set(this.tasks.filter((t) => !t.finished)),
      snapshots: this.tasks.filter((t) => t.finished).map((t) => t.finalSnapshot(id)),
      savepoint,
    };
    this.pending = pending;
    for (const source of this.sources) {
      if (!source.finished) source.triggerCheckpoint(id, savepoint !== undefined, stop);
    }
  }

  acknowledge(task: Task, checkpointId: number, snapshot: TaskSnapshot): void {
    const pending = this.pending;
    if (pending === undefined || pending.id !== checkpointId || !pending.awaiting.delete(task))
      return;
    pending.snapshots.push(snapshot);
    if (pending.awaiting.size > 0) return;
    this.pending = undefined;
    const kind = pending.savepoint === undefined ? 'checkpoint' : 'savepoint';
    const data = this.assemble(checkpointId, pending.snapshots, kind, false);
    this.storing++;
    this.inFlight = this.inFlight
      .then(() => this.persistAndNotify(data, pending.startedAt, pending.savepoint))
      .finally(() => {
        this.storing--;
      });
  }

  /**
   * A source could not take part in checkpoint `checkpointId` after all (its
   * input ended, or it cannot record its position yet; the coordinator had
   * not heard yet): the checkpoint is abandoned without counting as a
   * failure, as one that was never started. A savepoint is asked for again:
   * the next attempt skips a source that ended, and refuses as usual if no
   * input is left or a source cannot record its position.
   */
  decline(checkpointId: number, _reason: string): void {
    const pending = this.pending;
    if (pending === undefined || pending.id !== checkpointId) return;
    this.pending = undefined;
    this.resumeAfterFailedStop(pending.savepoint);
    if (pending.savepoint !== undefined) this.savepointRequests.unshift(pending.savepoint);
  }

  /** A stop's savepoint failed: tasks halted at its barrier go on, and so do checkpoints. */
  private resumeAfterFailedStop(savepoint: SavepointRequest | undefined): void {
    if (savepoint?.final !== true) return;
    this.suspended = false;
    for (const task of this.tasks) task.resume();
  }

  private fail(pending: Pending, reason: CheckpointFailureReason): void {
    this.pending = undefined;
    this.resumeAfterFailedStop(pending.savepoint);
    pending.savepoint?.reject(
      new WeirError('INTERNAL', `savepoint ${pending.id} failed: ${reason}`),
    );
    this.failedCounter.inc();
    this.consecutiveFailures++;
    if (this.consecutiveFailures > (this.config?.tolerableFailures ?? 0)) {
      this.failure ??= new WeirError(
        'INTERNAL',
        `checkpoint ${pending.id} failed (${reason}); ${this.consecutiveFailures} consecutive failures exceed the tolerated ${this.config?.tolerableFailures ?? 0}`,
        { domain: 'external', retriable: true },
      );
    }
  }

  private async persistAndNotify(
    data: CheckpointData,
    startedAt: number,
    savepoint?: SavepointRequest,
  ): Promise<void> {
    let path: string;
    try {
      if (savepoint !== undefined) path = await savepoint.storage.write(data);
      else {
        path = await this.storage!.write(data);
        await this.storage!.prune(this.config!.retained);
      }
      // Before any sink commits: a restore can then tell which checkpoints'
      // output may already be committed, and refuse to write it twice.
      await this.storage?.recordCommit?.(data.checkpointId, path);
    } catch (cause) {
      this.resumeAfterFailedStop(savepoint);
      savepoint?.reject(cause);
      this.failedCounter.inc();
      this.consecutiveFailures++;
      if (
        savepoint === undefined &&
        this.consecutiveFailures > (this.config?.tolerableFailures ?? 0)
      ) {
        this.failure ??= new WeirError(
          'INTERNAL',
          `checkpoint ${data.checkpointId} could not be stored (${cause instanceof Error ? cause.message : String(cause)}); ${this.consecutiveFailures} consecutive failures exceed the tolerated ${this.config?.tolerableFailures ?? 0}`,
          { domain: 'external', cause, retriable: true },
        );
      }
      return;
    }
    this.consecutiveFailures = 0;
    this.lastCompletedAt = this.clock.now();
    if (this.catchUpUntil === Number.POSITIVE_INFINITY)
      this.catchUpUntil =
        this.lastCompletedAt + Math.min(this.config?.intervalMs ?? 0, CATCH_UP_MS);
    this.lastDurationMs = this.lastCompletedAt - startedAt;
    this.lastSizeBytes = JSON.stringify(data.operators).length;
    this.lastCompletedId = data.checkpointId;
    this.completedCounter.inc();
    try {
      for (const task of this.tasks) await task.notifyCheckpointComplete(data.checkpointId);
    } catch (cause) {
      this.failure ??= cause;
    }
    savepoint?.resolve(path);
  }

  /** Waits for checkpoints being written and their commits. */
  async drain(): Promise<void> {
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * After all input has ended: one last checkpoint of the finished tasks, so
   * sinks commit their last transaction through the same protocol (and a
   * crash during that commit is recovered like any other).
   */
  async finalCheckpoint(): Promise<void> {
    await this.drain();
    for (const request of this.savepointRequests.splice(0)) {
      request.reject(new InputEndedError());
    }
    // Without checkpoint storage there is nothing to record; sinks still commit.
    if (this.storage === undefined) {
      const id = this.nextId++;
      for (const t of this.tasks) await t.preCommitSinks(id);
      for (const t of this.tasks) await t.notifyCheckpointComplete(id);
      return;
    }
    const id = this.nextId++;
    const started = this.clock.now();
    const snapshots = await Promise.all(this.tasks.map((t) => t.collectFinalSnapshot(id)));
    const data = this.assemble(id, snapshots, 'checkpoint', true);
    await this.persistAndNotify(data, started);
    if (this.failure !== undefined) throw this.failure;
  }

  /** Snapshots the current state of all tasks into a savepoint-kind checkpoint (tasks must be idle). */
  private assemble(
    checkpointId: number,
    snapshots: readonly TaskSnapshot[],
    kind: 'checkpoint' | 'savepoint',
    final: boolean,
  ): CheckpointData {
    const byUid = new Map<string, { subtasks: OperatorSnapshot[]; positions: Json[] }>();
    for (const op of this.operators)
      byUid.set(op.uid, { subtasks: new Array(op.parallelism).fill({}), positions: [] });
    for (const s of snapshots) {
      for (const { uid, snapshot } of s.operators) {
        const entry = byUid.get(uid);
        if (entry !== undefined && snapshot !== undefined) entry.subtasks[s.subtask] = snapshot;
      }
      if (s.source !== undefined) {
        const entry = byUid.get(s.source.uid);
        if (entry !== undefined) entry.positions[s.subtask] = s.source.position;
      }
    }
    const operators: OperatorCheckpoint[] = this.operators.map((op) => {
      const entry = byUid.get(op.uid)!;
      return {
        uid: op.uid,
        name: op.name,
        parallelism: op.parallelism,
        subtasks: entry.subtasks,
        ...(op.isSource ? { sourcePositions: entry.positions } : {}),
      };
    });
    return {
      format: 'weir-checkpoint',
      version: CHECKPOINT_FORMAT_VERSION,
      kind,
      checkpointId,
      jobName: this.jobName,
      createdAt: new Date(this.clock.now()).toISOString(),
      maxParallelism: this.maxParallelism,
      final,
      operators,
    };
  }
}
