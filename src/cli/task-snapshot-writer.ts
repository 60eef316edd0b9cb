import { splitIntoTasks, type TaskLayout } from '../api/task-snapshots.js';
import type { TransactionCommittable } from '../connectors/kafka/sink/sink-protocol.js';
import { isTransactionCommittable } from '../connectors/kafka/sink/transaction-recovery.js';
import { WeirError } from '../core/errors.js';
import type { JobClient } from '../index.js';
import { GROUP_METRICS } from '../metrics/group-metrics.js';
import type { CheckpointData, TaskSnapshotOrigin } from '../runtime/checkpoint/checkpoint-data.js';
import {
  type CheckpointStorage,
  checkpointStorageAt,
  readCheckpoint,
} from '../runtime/checkpoint/checkpoint-storage.js';
import type { CommitRecord } from '../runtime/checkpoint/commit-record.js';
import type { DirectoryLease, LeaseOptions } from '../runtime/checkpoint/directory-lease.js';
import { deltaBases } from '../state/resolve-deltas.js';
import type { RunSeals } from './run-seals.js';
import { taskCheckpointDirectory } from './single-owner-run.js';

/** Task snapshots kept per task: the two newest sealed ones (pruned after each seal). */
const RETAIN = 2;

export interface TaskSnapshotWriterOptions {
  /** The job's shared checkpoint location: task snapshots go to `<it>/tasks/<task>`. */
  readonly checkpointDir: string;
  readonly layout: TaskLayout;
  /** This member's current run of the job (see `ProcessGroupSpec.transactionScope`). */
  readonly run: string;
  /** The tasks the run holds. */
  readonly tasks: readonly string[];
  readonly seals: RunSeals;
  /** Called once when the run finds it was fenced (its tasks moved on): it must end. */
  readonly onFenced?: () => void;
}

/** A member run whose tasks a new owner has taken over: it may commit nothing more. */
export class RunFencedError extends WeirError {
  constructor(run: string) {
    super(
      'PROCESS_GROUP_FAILED',
      `run '${run}' of this member was fenced: its tasks were taken over by another member (this member was cut off or paused past its session timeout); it commits nothing more and rejoins the group`,
      { domain: 'external', retriable: true },
    );
  }
}

/**
 * Writes, for each checkpoint (or savepoint) of a process group member run,
 * one snapshot per task it holds into `<checkpoint dir>/tasks/<task>`: the
 * task's keyed state and input position of that checkpoint, and the
 * committables of the run's transactions ({@link splitIntoTasks}). It runs
 * before the sinks commit (see {@link TaskSnapshotStorage}): once every
 * task's snapshot is written it seals the checkpoint in the run's record,
 * and only then may the transactions become visible, so a new owner of any
 * of the tasks restores exactly what the committed output covers. Each
 * task's snapshots are numbered on from the task's newest, whichever member
 * wrote it. A failed write fails the checkpoint: its transactions stay
 * pending and are committed with the next one.
 */
export class TaskSnapshotWriter {
  private written = 0;
  private writes = 0;
  private failures = 0;
  private lastDurationMs = 0;
  private fencedAt: RunFencedError | undefined;
  /** The newest checkpoint of the run that was sealed and may be committed. */
  private sealedPath: string | undefined;
  /** The pending transactions of the checkpoint the run could not seal: they are its to abort. */
  private unsealed: readonly TransactionCommittable[] = [];

  constructor(private readonly options: TaskSnapshotWriterOptions) {}

  /** Says that the run started: a new owner of its tasks fences it if it never ends cleanly. */
  started(): Promise<void> {
    const { run, tasks, seals } = this.options;
    return seals.write(run, { tasks, sealed: 0, committables: [], ended: false });
  }

  /** Says that the run ended with its last checkpoint sealed: nothing of it is left to fence. */
  async ended(): Promise<void> {
    const { run, seals } = this.options;
    const record = await seals.read(run);
    if (record !== undefined) await seals.write(run, { ...record, ended: true });
  }

  /** The pending transactions of the checkpoint a fenced run could not seal. */
  get unsealedCommittables(): readonly TransactionCommittable[] {
    return this.unsealed;
  }

  /** Whether the run was fenced: it must commit nothing and end. */
  get fenced(): boolean {
    return this.fencedAt !== undefined;
  }

  /**
   * Where a restart of the run's job restores from: its newest checkpoint
   * that is sealed and may be committed (a newer one was not sealed, and its
   * transactions are its successors' to abort), undefined before the first
   * (the run's own restore). A fenced run may not restart at all.
   */
  async restartPoint(): Promise<string | undefined> {
    if (this.fencedAt === undefined && (await this.options.seals.isFenced(this.options.run)))
      this.noticeFence();
    if (this.fencedAt !== undefined) throw this.fencedAt;
    return this.sealedPath;
  }

  private noticeFence(): RunFencedError {
    if (this.fencedAt === undefined) {
      this.fencedAt = new RunFencedError(this.options.run);
      this.options.onFenced?.();
    }
    return this.fencedAt;
  }

  /**
   * Writes the task snapshots of checkpoint `checkpointId` (at `path`) and
   * seals it; throws {@link RunFencedError} instead of letting a fenced run
   * commit it. `written` is the checkpoint as the member stored it, if it
   * holds whole state (no increments on earlier checkpoints): then it is not
   * read back.
   */
  async write(checkpointId: number, path: string, written?: CheckpointData): Promise<void> {
    const started = performance.now();
    const { run, tasks, seals, checkpointDir, layout } = this.options;
    if (this.fencedAt !== undefined) throw this.fencedAt;
    try {
      const checkpoint = written ?? (await readCheckpoint(path));
      const committables = checkpoint.operators.flatMap((op) =>
        op.subtasks.flatMap((s) => s.union ?? []).filter(isTransactionCommittable),
      );
      const fenced = (): RunFencedError => {
        this.unsealed = committables;
        return this.noticeFence();
      };
      // Checked before too: a fenced run writes no task snapshot its successors would pass over.
      if (await seals.isFenced(run)) throw fenced();
      const snapshots = await writeTaskSnapshots(checkpoint, checkpointDir, layout, {
        run,
        checkpointId,
      });
      const record = { tasks, sealed: checkpointId, committables, ended: false };
      if (!(await seals.sealAndCheck(run, record))) throw fenced();
      this.sealedPath = path;
      for (const task of snapshots)
        await checkpointStorageAt(taskCheckpointDirectory(checkpointDir, task)).prune(RETAIN);
      this.written = checkpointId;
      this.writes += snapshots.length;
    } catch (error) {
      this.failures++;
      throw error;
    } finally {
      this.lastDurationMs = performance.now() - started;
    }
  }

  /** Shows the writer's work on a run's `/metrics`. */
  attach(client: JobClient): void {
    const metrics = client.metrics.group({});
    metrics.counterFrom(
      GROUP_METRICS.taskSnapshots,
      'Task snapshots this member wrote to the shared checkpoint location',
      () => this.writes,
    );
    metrics.counterFrom(
      GROUP_METRICS.taskSnapshotFailures,
      'Checkpoints whose task snapshots could not be written (their transactions wait for the next)',
      () => this.failures,
    );
    metrics.gauge(
      GROUP_METRICS.lastTaskSnapshotCheckpoint,
      'The member checkpoint whose task snapshots were written last (0 before the first)',
      () => this.written,
    );
    metrics.gauge(
      GROUP_METRICS.lastTaskSnapshotDuration,
      'How long writing the task snapshots of that checkpoint took',
      () => this.lastDurationMs / 1000,
    );
  }
}

/**
 * A member's own checkpoint storage that writes and seals the task
 * snapshots of every checkpoint and savepoint before any sink commits it
 * (the coordinator calls `recordCommit` right before it notifies the tasks).
 */
export class TaskSnapshotStorage implements CheckpointStorage {
  /**
   * Writing every task's snapshot takes seconds on a loaded machine (a join
   * job has over twenty tasks); checkpoints taken faster than that piled up,
   * and the transactions they pre-committed held back every repartition
   * partition's last stable offset further and further.
   */
  readonly storesOneAtATime = true;

  constructor(
    private readonly inner: CheckpointStorage,
    private readonly writer: TaskSnapshotWriter,
  ) {}

  /** The checkpoint written last, while it holds whole state, for {@link recordCommit}. */
  private lastWritten: { path: string; checkpoint: CheckpointData } | undefined;

  async write(checkpoint: CheckpointData): Promise<string> {
    const path = await this.inner.write(checkpoint);
    this.lastWritten = deltaBases(checkpoint).size === 0 ? { path, checkpoint } : undefined;
    return path;
  }

  /** A restart of the run's job restores its newest sealed checkpoint only (see TaskSnapshotWriter.restartPoint). */
  latest(): Promise<string | undefined> {
    return this.writer.restartPoint();
  }

  prune(retain: number): Promise<void> {
    return this.inner.prune(retain);
  }

  async recordCommit(checkpointId: number, path: string): Promise<void> {
    const written = this.lastWritten?.path === path ? this.lastWritten.checkpoint : undefined;
    this.lastWritten = undefined;
    await this.writer.write(checkpointId, path, written);
    await this.inner.recordCommit?.(checkpointId, path);
  }

  async recordRestoredCommit(checkpointId: number, path: string): Promise<void> {
    await this.inner.recordRestoredCommit?.(checkpointId, path);
  }

  lastCommit(): Promise<CommitRecord | undefined> {
    return this.inner.lastCommit?.() ?? Promise.resolve(undefined);
  }

  acquireLease(options: LeaseOptions): Promise<DirectoryLease> {
    if (this.inner.acquireLease === undefined)
      throw new Error('the member checkpoint storage has no lease');
    return this.inner.acquireLease(options);
  }
}

/**
 * Writes the snapshot of every task in a member's checkpoint (or final
 * savepoint) into `<checkpoint dir>/tasks/<task>`, numbered on from the
 * task's newest, and returns the tasks written. With an `origin` (a member
 * run's checkpoint) the caller seals, then prunes; without, it prunes.
 */
export async function writeTaskSnapshots(
  checkpoint: CheckpointData,
  checkpointDir: string,
  layout: TaskLayout,
  origin?: TaskSnapshotOrigin,
): Promise<string[]> {
  const written: string[] = [];
  for (const [task, data] of splitIntoTasks(checkpoint, layout, isTransactionCommittable)) {
    const storage = checkpointStorageAt(taskCheckpointDirectory(checkpointDir, task));
    // Numbered from the newest's id, which the listing gives: reading it whole (a task's
    // state, from object storage) for its number cost as much as writing the new one.
    const next = ((await storage.newestId()) ?? 0) + 1;
    await storage.write({
      ...data,
      kind: 'checkpoint',
      checkpointId: next,
      createdAt: new Date().toISOString(),
      ...(origin === undefined ? {} : { origin }),
    });
    if (origin === undefined) await storage.prune(RETAIN);
    written.push(task);
  }
  return written;
}
