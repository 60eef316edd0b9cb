import type { Json } from '../core/snapshot.js';
import type { CheckpointData } from '../runtime/checkpoint/checkpoint-data.js';
import { mergeTaskSnapshots } from './task-snapshots.js';

/**
 * What a member of a process group starts its job with after a change of
 * its task set: the tasks with a snapshot are restored from it (their key
 * groups, and their input from the snapshot's offset); the others start
 * empty, from the group's committed offset (else the source's start).
 */
export interface RestorePlan {
  /** Tasks restored, with the id of their snapshot. */
  readonly restored: ReadonlyMap<string, number>;
  /** Tasks with no snapshot yet. */
  readonly fresh: readonly string[];
  /** The input offset each restored task resumes from (its snapshot's). */
  readonly offsets: ReadonlyMap<string, number>;
  /** One checkpoint holding every restored task's state, undefined when none has a snapshot. */
  readonly checkpoint: CheckpointData | undefined;
}

/**
 * The restore of `tasks` from their newest snapshots (`snapshots`, by task;
 * tasks missing there have none). The merged checkpoint gets `checkpointId`,
 * which the caller keeps above the ids the member has used, so checkpoints
 * taken after the restore go on from there.
 */
export function planRestore(
  tasks: readonly string[],
  snapshots: ReadonlyMap<string, CheckpointData>,
  header: Pick<CheckpointData, 'checkpointId' | 'jobName' | 'maxParallelism' | 'createdAt'>,
): RestorePlan {
  const restored = new Map<string, number>();
  const offsets = new Map<string, number>();
  const mine = new Map<string, CheckpointData>();
  const fresh: string[] = [];
  for (const task of [...tasks].sort()) {
    const snapshot = snapshots.get(task);
    if (snapshot === undefined) {
      fresh.push(task);
      continue;
    }
    mine.set(task, snapshot);
    restored.set(task, snapshot.checkpointId);
    const offset = offsetOf(snapshot, task);
    if (offset !== undefined) offsets.set(task, offset);
  }
  return {
    restored,
    fresh,
    offsets,
    checkpoint: mine.size === 0 ? undefined : mergeTaskSnapshots(mine, header),
  };
}

/** The input offset in a task's snapshot (its source position for the task), if any. */
function offsetOf(snapshot: CheckpointData, task: string): number | undefined {
  for (const op of snapshot.operators)
    for (const position of op.sourcePositions ?? []) {
      const offset = field(field(position, 'offsets'), task);
      if (typeof offset === 'number') return offset;
    }
  return undefined;
}

function field(json: Json | undefined, name: string): Json | undefined {
  if (json === null || json === undefined || typeof json !== 'object' || Array.isArray(json))
    return undefined;
  return json[name];
}

/** What changed between two task sets of a member. */
export interface TaskChange {
  /** Tasks the member gave up (to be snapshotted before another member starts them). */
  readonly revoked: readonly string[];
  readonly assigned: readonly string[];
}

export function taskChange(previous: ReadonlySet<string>, next: ReadonlySet<string>): TaskChange {
  return {
    revoked: [...previous].filter((t) => !next.has(t)).sort(),
    assigned: [...next].filter((t) => !previous.has(t)).sort(),
  };
}

/** Timers the debounce uses; injectable for tests. */
export interface DebounceClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SYSTEM_CLOCK: DebounceClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Gathers a burst of assignment changes into one: a group rebalance reaches
 * a member in several heartbeats (revocations first, then assignments), and
 * every change the member acts on costs a restart of its job. `settled` is
 * called with the newest task set once none has come for `quietMs`, or once
 * the first unsettled change is `maxWaitMs` old, whichever is first; never
 * when the newest set equals the one last settled. A change that only adds
 * tasks to a member holding some settles at once (see `update`).
 */
export class AssignmentDebounce {
  private latest: ReadonlySet<string>;
  private timer: unknown;
  private firstPendingAt: number | undefined;
  private closed = false;

  constructor(
    private settledSet: ReadonlySet<string>,
    private readonly settled: (tasks: ReadonlySet<string>) => void,
    private readonly quietMs: number,
    private readonly maxWaitMs: number,
    private readonly clock: DebounceClock = SYSTEM_CLOCK,
  ) {
    this.latest = settledSet;
  }

  /** The member's tasks now, as the group last said. */
  update(tasks: ReadonlySet<string>): void {
    if (this.closed) return;
    this.latest = new Set(tasks);
    const now = this.clock.now();
    // Tasks only given, none taken, to a member that holds some: a member that died or left
    // gave them up, and the broker hands them out in one step, so there is no burst to wait
    // for, and waiting would add the quiet period to every failover. A rebalance that moves a
    // task between live members takes it away first, and a member's first tasks wait as before.
    const onlyGiven =
      this.firstPendingAt === undefined &&
      this.settledSet.size > 0 &&
      this.latest.size > this.settledSet.size &&
      [...this.settledSet].every((t) => this.latest.has(t));
    this.firstPendingAt ??= now;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const wait = onlyGiven
      ? 0
      : Math.max(0, Math.min(this.quietMs, this.firstPendingAt + this.maxWaitMs - now));
    this.timer = this.clock.setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    this.firstPendingAt = undefined;
    if (this.closed || sameSet(this.latest, this.settledSet)) return;
    this.settledSet = this.latest;
    this.settled(this.latest);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
