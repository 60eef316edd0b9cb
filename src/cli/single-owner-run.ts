import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { SingleOwnerTask } from '../connectors/kafka/group/single-owner.js';
import type { ProcessGroupSpec } from '../core/source.js';
import {
  checkpointStorageAt,
  type DirectoryCheckpointStorage,
} from '../runtime/checkpoint/checkpoint-storage.js';
import { type RestorePoint, resolveRestorePoint } from './restore.js';
import type { HeldSignals } from './supervise.js';

/** How often a waiting member looks for a stop signal. */
const SIGNAL_POLL_MS = 200;
/** How often a standby looks for a newer checkpoint of its task to copy. */
const FOLLOW_CHECKPOINTS_MS = 1_000;

/** A member that owns the job's single-owner task, and where the task's checkpoints are. */
export interface OwnedTask {
  readonly owner: SingleOwnerTask;
  /** `<checkpoint dir>/tasks/<task>`: the same for every member, so a new owner finds them. */
  readonly directory: string;
  /** The task's latest complete checkpoint, else what `--from` named, else none. */
  readonly restore: RestorePoint | undefined;
}

export interface SingleOwnerRunOptions {
  readonly group: ProcessGroupSpec;
  /** The job's checkpoint location as given (a shared directory or `s3://`). */
  readonly checkpointDir: string;
  readonly task: string;
  readonly cwd: string;
  readonly explicitRestore: RestorePoint | undefined;
  readonly allowDuplicateOutput: boolean;
  readonly held: HeldSignals;
  readonly say: (line: string) => void;
  /**
   * Called once if this member has to wait for the task: starts ahead what
   * the job's start will need; returns the names of the sinks that did.
   */
  readonly prepareStandby?: () => readonly string[];
}

/** Where a single-owner task's checkpoints go under the job's checkpoint location. */
export function taskCheckpointDirectory(checkpointDir: string, task: string): string {
  const base = checkpointDir.endsWith('/') ? checkpointDir.slice(0, -1) : checkpointDir;
  return `${base}/tasks/${task.replace(/[^a-zA-Z0-9._-]/g, '_')}`;
}

/**
 * Where a member of a partitioned group checkpoints: a path of its own under
 * the job's shared location (host and process id), next to the tasks'
 * snapshots that every member reads and writes.
 */
export function memberCheckpointDirectory(checkpointDir: string): string {
  const base = checkpointDir.endsWith('/') ? checkpointDir.slice(0, -1) : checkpointDir;
  return `${base}/members/${`${hostname()}-${process.pid}`.replace(/[^a-zA-Z0-9._-]/g, '_')}`;
}

/**
 * Joins the owners of the job's task and waits until the group makes this
 * member the owner (a standby waits as long as the owner lives), then finds
 * the task's latest checkpoint: the previous owner's, if there was one.
 * Resolves undefined if a stop signal came while waiting.
 */
export async function takeSingleOwnerTask(
  options: SingleOwnerRunOptions,
): Promise<OwnedTask | undefined> {
  const { group, task, say } = options;
  const owner = await SingleOwnerTask.join({
    brokers: group.brokers,
    applicationId: group.applicationId,
    task,
    ...(group.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: group.sessionTimeoutMs }),
  });
  const directory = taskCheckpointDirectory(options.checkpointDir, task);
  let waiting = true;
  try {
    if (!owner.isOwner) {
      say(
        `task '${task}' runs on one member at a time: waiting until the group '${group.applicationId}' gives it to this one`,
      );
      const prepared = options.prepareStandby?.() ?? [];
      if (prepared.length > 0)
        say(
          `standing by: the writers of ${prepared.map((s) => `'${s}'`).join(', ')} are started ahead, for a faster take-over`,
        );
      const storage = checkpointStorageAt(directory);
      if (storage.localCopies !== undefined) {
        say(
          `standing by: keeping a local copy of task '${task}''s latest checkpoint in ${storage.localCopies}`,
        );
        void followCheckpoints(storage, () => waiting);
      }
    }
    const stopped = await untilOwnerOrSignal(owner, options.held);
    waiting = false;
    if (stopped) {
      await owner.close();
      return undefined;
    }
    // The directory's lease first: a previous owner still running (cut off, not dead) can
    // then record no further commit, so the checkpoint chosen here stays the newest committed.
    const lease = await checkpointStorageAt(directory).acquireLease({
      jobName: task,
      takeOver: true,
    });
    let latest: RestorePoint | undefined;
    try {
      latest = await resolveRestorePoint(
        'latest',
        directory,
        options.cwd,
        options.allowDuplicateOutput,
        (skipped) => {
          for (const c of skipped)
            say(
              `checkpoint ${c.checkpointId} is damaged and was passed over (${c.reason}; ${c.path})`,
            );
        },
      );
    } finally {
      // Taken again (from no one) when the job starts.
      await lease.release();
    }
    say(`this member owns task '${task}'; its checkpoints are in ${directory}`);
    return { owner, directory, restore: latest ?? options.explicitRestore };
  } catch (error) {
    waiting = false;
    await owner.close();
    throw error;
  }
}

/**
 * While `waiting()`, copies each new checkpoint of the task to local disk
 * (see `warmLatest`), so a take-over restores from there. Failures only
 * leave the copy behind: the restore reads the store itself.
 */
async function followCheckpoints(
  storage: DirectoryCheckpointStorage,
  waiting: () => boolean,
): Promise<void> {
  let warmed: number | undefined;
  while (waiting()) {
    warmed = await storage.warmLatest(warmed).catch(() => warmed);
    await sleep(FOLLOW_CHECKPOINTS_MS);
  }
}

/** True if a stop signal came first. */
async function untilOwnerOrSignal(owner: SingleOwnerTask, held: HeldSignals): Promise<boolean> {
  let done = false;
  const acquired = owner.acquired().then(() => {
    done = true;
    return false;
  });
  const signalled = (async () => {
    while (!done) {
      if (held.first() !== undefined) return true;
      await sleep(SIGNAL_POLL_MS);
    }
    return false;
  })();
  const stopped = await Promise.race([acquired, signalled]);
  done = true;
  return stopped;
}
