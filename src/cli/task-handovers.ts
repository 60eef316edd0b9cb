import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckpointData } from '../runtime/checkpoint/checkpoint-data.js';
import {
  checkpointStorageAt,
  DirectoryCheckpointStorage,
  readCheckpoint,
} from '../runtime/checkpoint/checkpoint-storage.js';
import { openStore } from '../runtime/checkpoint/store/open-store.js';
import { taskCheckpointDirectory } from './single-owner-run.js';

/** How often a member given a task looks again whether its previous owner has released it. */
const POLL_MS = 100;
/** How often a member handing tasks over writes their markers again, to show it is alive. */
const BEAT_MS = 1_000;
/**
 * A hand-over whose marker has not changed for this long, as its next owner
 * sees it, has lost its member (killed mid-way): the next owner stops
 * waiting. Several beats, so that a busy giver is not taken for dead; one
 * that is anyway is fenced by the restore, as after the overall timeout.
 */
const SILENT_MS = 5_000;

/** A hand-over in progress: the member giving a task up writes it before its final snapshot. */
interface Marker {
  readonly member: string;
  readonly state: 'handing-over' | 'released';
  /** Wall clock of the giving member (ms since the epoch) when it wrote this marker. */
  readonly at: number;
  /** Wall clock of the giving member when the hand-over began (absent in markers of older versions). */
  readonly since?: number;
  /** Counts the giving member's beats: each rewrite changes the marker. */
  readonly beat?: number;
}

/**
 * The hand-over of tasks between the members of a process group, through
 * the job's shared checkpoint location. The group's client acknowledges a
 * revocation at once (it gives no hook to hold it), so the next owner can be
 * given a task while its previous owner is still taking the task's final
 * snapshot. The previous owner therefore marks the task
 * (`<checkpoint dir>/handovers/<task>.json`) as soon as it learns it lost it,
 * and marks it released once the snapshot is written; the next owner waits
 * for that before it restores, at most `timeoutMs`. A member that dies
 * mid-way releases nothing: while it hands over it rewrites its markers
 * every second, so its next owners stop waiting once they stay unchanged
 * for a few seconds, and the task restores from its last snapshot.
 * Liveness is judged by change on the reader's own clock, not by comparing
 * two machines' clocks.
 */
export class TaskHandovers {
  private readonly markers;
  /** The tasks this member is handing over, with when each began. */
  private readonly giving = new Map<string, number>();
  private beats = 0;
  private beating: NodeJS.Timeout | undefined;
  /** Marker writes, one after the other: a late beat never overwrites a release. */
  private writes: Promise<void> = Promise.resolve();
  /**
   * Of the last {@link snapshots} from object storage: state files read from
   * this machine's local copies (a standby's), and downloaded.
   */
  lastCopyReads: { local: number; fetched: number } | undefined;

  constructor(
    private readonly checkpointDir: string,
    private readonly member: string,
    private readonly timeoutMs: number,
    private readonly timing: { readonly beatMs: number; readonly silentMs: number } = {
      beatMs: BEAT_MS,
      silentMs: SILENT_MS,
    },
  ) {
    const base = checkpointDir.endsWith('/') ? checkpointDir.slice(0, -1) : checkpointDir;
    this.markers = openStore(`${base}/handovers`);
  }

  /**
   * Says that this member is giving `tasks` up and has not written their
   * final snapshot yet, and goes on saying it every second until they are
   * released (or {@link close}).
   */
  async handingOver(tasks: readonly string[]): Promise<void> {
    const now = Date.now();
    for (const t of tasks) if (!this.giving.has(t)) this.giving.set(t, now);
    this.beating ??= setInterval(() => {
      void this.write(() => [...this.giving.keys()], 'handing-over').catch(() => {});
    }, this.timing.beatMs).unref();
    await this.write(() => tasks.filter((t) => this.giving.has(t)), 'handing-over');
  }

  /** Says that the final snapshots of `tasks` are written: their next owner may restore them. */
  async released(tasks: readonly string[]): Promise<void> {
    for (const t of tasks) this.giving.delete(t);
    if (this.giving.size === 0) this.stopBeating();
    await this.write(() => tasks, 'released');
  }

  /** Stops the beats (the process is leaving). */
  close(): void {
    this.giving.clear();
    this.stopBeating();
  }

  /**
   * Waits until no other member is handing any of `tasks` over, or until the
   * oldest hand-over is `timeoutMs` old. Returns the tasks whose hand-over
   * did not finish in time (their previous owner died, or is stuck).
   */
  async awaitReleased(tasks: readonly string[], cancelled: () => boolean): Promise<string[]> {
    let pending = [...tasks];
    /** Each pending task's marker as last read, and when (this member's clock) it last changed. */
    const seen = new Map<string, { text: string; changedAt: number }>();
    const late: string[] = [];
    while (pending.length > 0 && !cancelled()) {
      const now = Date.now();
      const still: string[] = [];
      for (const task of pending) {
        const m = await this.read(task);
        if (m === undefined || m.state === 'released' || m.member === this.member) continue;
        const text = JSON.stringify(m);
        const last = seen.get(task);
        if (last === undefined || last.text !== text) seen.set(task, { text, changedAt: now });
        const silent =
          last !== undefined && last.text === text && now - last.changedAt >= this.timing.silentMs;
        if (silent || now - (m.since ?? m.at) >= this.timeoutMs) late.push(task);
        else still.push(task);
      }
      pending = still;
      if (pending.length > 0) await sleep(POLL_MS);
    }
    return late;
  }

  /**
   * The newest snapshot of each task that has one that counts: written by
   * a member run that sealed its checkpoint (`sealed` of the run is at
   * least the snapshot's), or by no run (written before runs sealed).
   */
  async snapshots(
    tasks: readonly string[],
    sealed: (run: string) => Promise<number>,
  ): Promise<Map<string, CheckpointData>> {
    const out = new Map<string, CheckpointData>();
    const copies = { local: 0, fetched: 0 };
    let remote = false;
    // Tasks read side by side: from object storage each is a few round trips.
    await Promise.all(
      tasks.map(async (task) => {
        const storage = checkpointStorageAt(taskCheckpointDirectory(this.checkpointDir, task));
        // The checkpoint findLatest read and verified, not read a second time.
        let data = (await storage.findLatest()).intact?.checkpoint;
        const reads = storage.copyReads;
        if (reads !== undefined) {
          remote = true;
          copies.local += reads.local;
          copies.fetched += reads.fetched;
        }
        while (data !== undefined) {
          const origin = data.origin;
          if (origin === undefined || origin.checkpointId <= (await sealed(origin.run))) {
            out.set(task, data);
            return;
          }
          data = await previousOf(storage, data.checkpointId);
        }
      }),
    );
    this.lastCopyReads = remote ? copies : undefined;
    return out;
  }

  /** Writes the markers of the tasks `which` names when the write's turn comes. */
  private write(which: () => readonly string[], state: Marker['state']): Promise<void> {
    const done = this.writes.then(() => this.mark(which(), state));
    this.writes = done.catch(() => {});
    return done;
  }

  private async mark(tasks: readonly string[], state: Marker['state']): Promise<void> {
    const at = Date.now();
    const beat = ++this.beats;
    await Promise.all(
      tasks.map((t) => {
        const since = state === 'handing-over' ? this.giving.get(t) : undefined;
        const marker: Marker = {
          member: this.member,
          state,
          at,
          beat,
          ...(since === undefined ? {} : { since }),
        };
        return this.markers.replace(fileOf(t), `${JSON.stringify(marker)}\n`);
      }),
    );
  }

  private stopBeating(): void {
    if (this.beating !== undefined) clearInterval(this.beating);
    this.beating = undefined;
  }

  private async read(task: string): Promise<Marker | undefined> {
    const bytes = await this.markers.read(fileOf(task));
    if (bytes === undefined) return undefined;
    try {
      return JSON.parse(bytes.toString('utf8')) as Marker;
    } catch {
      // A marker cut short by a crash says nothing reliable: as if absent.
      return undefined;
    }
  }
}

/** The task snapshot before `checkpointId` (they are numbered one by one), if kept and intact. */
async function previousOf(
  storage: ReturnType<typeof checkpointStorageAt>,
  checkpointId: number,
): Promise<CheckpointData | undefined> {
  if (checkpointId <= 1) return undefined;
  const path = `${storage.directory}/${DirectoryCheckpointStorage.nameOf(checkpointId - 1, 'checkpoint')}`;
  try {
    return await readCheckpoint(path);
  } catch {
    return undefined;
  }
}

function fileOf(task: string): string {
  return `${task.replace(/[^a-zA-Z0-9._-]/g, '_')}.json`;
}
