import { splitIntoTasks, type TaskLayout } from '../api/task-snapshots.js';
import type { Counter } from '../core/metrics.js';
import type { JobClient } from '../index.js';
import { GROUP_METRICS } from '../metrics/group-metrics.js';
import type { CheckpointData } from '../runtime/checkpoint/checkpoint-data.js';
import {
  checkpointStorageAt,
  DirectoryCheckpointStorage,
  readCheckpoint,
} from '../runtime/checkpoint/checkpoint-storage.js';
import { taskCheckpointDirectory } from './single-owner-run.js';

/** How often the writer looks for a newly completed member checkpoint. */
const POLL_MS = 250;
/** Task snapshots kept per task: the newest and the one before it. */
const RETAIN = 2;

export interface TaskSnapshotWriterOptions {
  readonly client: JobClient;
  /** This member's own checkpoint directory (`<checkpoint dir>/members/<member>`). */
  readonly memberDirectory: string;
  /** The job's shared checkpoint location: task snapshots go to `<it>/tasks/<task>`. */
  readonly checkpointDir: string;
  readonly layout: TaskLayout;
  readonly warn: (line: string) => void;
}

/**
 * Writes, after each completed checkpoint of a process group member, one
 * snapshot per task it held into `<checkpoint dir>/tasks/<task>`: the task's
 * keyed state and input position of that checkpoint
 * ({@link splitIntoTasks}). Each task's snapshots are numbered on from the
 * task's newest one, whichever member wrote it, so "latest" is the last one
 * written. A member that falls behind skips to its newest checkpoint; a
 * failed write is reported and retried with the next checkpoint.
 */
export class TaskSnapshotWriter {
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly snapshots: Counter;
  private readonly failures: Counter;
  private lastDurationMs = 0;

  constructor(private readonly options: TaskSnapshotWriterOptions) {
    const metrics = options.client.metrics.group({});
    this.snapshots = metrics.counter(
      GROUP_METRICS.taskSnapshots,
      'Task snapshots this member wrote to the shared checkpoint location',
    );
    this.failures = metrics.counter(
      GROUP_METRICS.taskSnapshotFailures,
      'Completed checkpoints whose task snapshots could not be written (retried with the next)',
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

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.writeLatest()
        .catch((error: unknown) => {
          this.failures.inc();
          this.options.warn(
            `cannot write the task snapshots of checkpoint ${this.latestId()}: ${error instanceof Error ? error.message : String(error)}`,
          );
        })
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, POLL_MS).unref();
        });
    };
    this.timer = setTimeout(tick, POLL_MS).unref();
  }

  /** Stops after the write under way, if any, then writes the last completed checkpoint's tasks. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
    await this.writeLatest().catch(() => {});
  }

  private latestId(): number {
    const entry = this.options.client.monitor.checkpoints.latestCompleted();
    return entry?.kind === 'checkpoint' ? entry.id : 0;
  }

  private async writeLatest(): Promise<void> {
    const id = this.latestId();
    if (id <= this.written) return;
    const started = performance.now();
    const member = checkpointStorageAt(this.options.memberDirectory);
    const name = DirectoryCheckpointStorage.nameOf(id, 'checkpoint');
    const checkpoint = await readCheckpoint(`${member.directory}/${name}`);
    this.written = id;
    const tasks = await writeTaskSnapshots(
      checkpoint,
      this.options.checkpointDir,
      this.options.layout,
    );
    this.snapshots.inc(tasks.length);
    this.lastDurationMs = performance.now() - started;
  }

  /** Counts snapshots written elsewhere (a hand-over's) on this member's metrics. */
  countWritten(tasks: number): void {
    this.snapshots.inc(tasks);
  }
}

/**
 * Writes the snapshot of every task in a member's checkpoint (or final
 * savepoint) into `<checkpoint dir>/tasks/<task>`, numbered on from the
 * task's newest, and returns the tasks written.
 */
export async function writeTaskSnapshots(
  checkpoint: CheckpointData,
  checkpointDir: string,
  layout: TaskLayout,
): Promise<string[]> {
  const written: string[] = [];
  for (const [task, data] of splitIntoTasks(checkpoint, layout)) {
    const storage = checkpointStorageAt(taskCheckpointDirectory(checkpointDir, task));
    const next = checkpointIdOf(await storage.latest()) + 1;
    await storage.write({
      ...data,
      kind: 'checkpoint',
      checkpointId: next,
      createdAt: new Date().toISOString(),
    });
    await storage.prune(RETAIN);
    written.push(task);
  }
  return written;
}

/** The id in a checkpoint path's last part (`chk-0000000042`), 0 for none. */
function checkpointIdOf(path: string | undefined): number {
  const match = path === undefined ? null : /chk-(\d+)\/?$/.exec(path);
  return match === null ? 0 : Number(match[1]);
}
