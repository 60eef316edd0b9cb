import { setTimeout as sleep } from 'node:timers/promises';
import type { GroupMemberView } from '../core/process-group.js';
import {
  checkpointStorageAt,
  type DirectoryCheckpointStorage,
} from '../runtime/checkpoint/checkpoint-storage.js';
import { taskCheckpointDirectory } from './single-owner-run.js';

/** How often a standby looks for newer snapshots of the tasks it follows. */
const FOLLOW_MS = 1_000;

/**
 * The tasks `self` keeps standby copies of, with `replicas` copies of each
 * task in the group: the members in order of their ids form a ring, and a
 * member's tasks are copied by the `replicas` members after it (Kafka
 * Streams' `num.standby.replicas`, placed without the assignor's help:
 * KIP-848 assignments are made by the broker, which knows nothing of
 * standbys). A task two members claim (mid-rebalance) counts as the
 * newest claimant's.
 */
export function standbyTasksOf(
  members: readonly Pick<GroupMemberView, 'member' | 'tasks' | 'updatedAt'>[],
  self: string,
  replicas: number,
): string[] {
  const ring = [...members].sort((a, b) => (a.member < b.member ? -1 : 1));
  const at = ring.findIndex((m) => m.member === self);
  if (at < 0 || replicas <= 0) return [];
  const owner = new Map<string, Pick<GroupMemberView, 'member' | 'updatedAt'>>();
  for (const m of ring)
    for (const t of m.tasks) {
      const claimed = owner.get(t);
      if (claimed === undefined || claimed.updatedAt < m.updatedAt) owner.set(t, m);
    }
  const copied = new Set<string>();
  for (let back = 1; back <= Math.min(replicas, ring.length - 1); back++)
    copied.add(ring[(at - back + ring.length) % ring.length]!.member);
  return [...owner]
    .filter(([, m]) => copied.has(m.member) && m.member !== self)
    .map(([t]) => t)
    .sort();
}

export interface StandbyReplicasOptions {
  /** The job's shared checkpoint location (task snapshots under `<it>/tasks/<task>`). */
  readonly checkpointDir: string;
  /** Copies of each task's snapshots kept by other members. */
  readonly replicas: number;
  /** This member's id in the group's metadata. */
  readonly member: string;
  /** The group's members and their tasks, as this member knows them now. */
  readonly members: () => readonly GroupMemberView[];
  readonly say: (line: string) => void;
}

/**
 * A member's standby replicas of other members' tasks: with checkpoints in
 * object storage (`s3://`), it copies each followed task's newest snapshot
 * to local disk as soon as it is written, so that taking the task over
 * after its owner fails restores from local disk instead of downloading
 * the state then. Snapshots, not a changelog, are what moves a task's
 * state in Weir, so a standby holds files, not a live store. A failed copy
 * is retried at the next look; the restore reads the store itself for
 * whatever is missing.
 */
export class StandbyReplicas {
  private stopped = false;
  private readonly wake = new AbortController();
  private readonly loop: Promise<void>;
  /**
   * Per followed task, its storage (kept: a new one would scan the task's local copies again
   * on its first copy) and the id of the snapshot copied last.
   */
  private readonly followed = new Map<
    string,
    { readonly storage: DirectoryCheckpointStorage; warmed: number | undefined }
  >();
  private said = '';

  constructor(private readonly options: StandbyReplicasOptions) {
    this.loop = this.follow();
  }

  /** Snapshots copied (a task's newer snapshot found and its files read) since the start. */
  copies = 0;

  /** The tasks followed now. */
  tasks(): string[] {
    return [...this.followed.keys()];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await this.loop;
  }

  private async follow(): Promise<void> {
    const o = this.options;
    while (!this.stopped) {
      const tasks = standbyTasksOf(o.members(), o.member, o.replicas);
      const list = tasks.join(', ');
      if (list !== this.said) {
        this.said = list;
        o.say(
          tasks.length === 0
            ? 'standby: no task of another member to follow'
            : `standby: keeping local copies of the newest snapshots of tasks ${list}`,
        );
      }
      for (const t of this.followed.keys()) if (!tasks.includes(t)) this.followed.delete(t);
      for (const task of tasks) {
        if (this.stopped) return;
        let f = this.followed.get(task);
        if (f === undefined) {
          const storage = checkpointStorageAt(taskCheckpointDirectory(o.checkpointDir, task));
          f = { storage, warmed: undefined };
          this.followed.set(task, f);
        }
        const last = f.warmed;
        f.warmed = await f.storage.warmLatest(last).catch(() => last);
        if (f.warmed !== undefined && f.warmed !== last) this.copies++;
      }
      await sleep(FOLLOW_MS, undefined, { signal: this.wake.signal }).catch(() => undefined);
    }
  }
}
