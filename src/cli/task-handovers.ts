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

/** A hand-over in progress: the member giving a task up writes it before its final snapshot. */
interface Marker {
  readonly member: string;
  readonly state: 'handing-over' | 'released';
  /** Wall clock of the giving member (ms since the epoch). */
  readonly at: number;
}

/**
 * The hand-over of tasks between the members of a process group, through
 * the job's shared checkpoint location. The group's client acknowledges a
 * revocation at once (it gives no hook to hold it), so the next owner can be
 * given a task while its previous owner is still taking the task's final
 * snapshot. The previous owner therefore marks the task
 * (`<checkpoint dir>/handovers/<task>.json`) as soon as it learns it lost it,
 * and marks it released once the snapshot is written; the next owner waits
 * for that before it restores, at most `timeoutMs` (a member that died
 * mid-way releases nothing: its task then restores from its last snapshot).
 */
export class TaskHandovers {
  private readonly markers;

  constructor(
    private readonly checkpointDir: string,
    private readonly member: string,
    private readonly timeoutMs: number,
  ) {
    const base = checkpointDir.endsWith('/') ? checkpointDir.slice(0, -1) : checkpointDir;
    this.markers = openStore(`${base}/handovers`);
  }

  /** Says that this member is giving `tasks` up and has not written their final snapshot yet. */
  async handingOver(tasks: readonly string[]): Promise<void> {
    await this.mark(tasks, 'handing-over');
  }

  /** Says that the final snapshots of `tasks` are written: their next owner may restore them. */
  async released(tasks: readonly string[]): Promise<void> {
    await this.mark(tasks, 'released');
  }

  /**
   * Waits until no other member is handing any of `tasks` over, or until the
   * oldest hand-over is `timeoutMs` old. Returns the tasks whose hand-over
   * did not finish in time (their previous owner died, or is stuck).
   */
  async awaitReleased(tasks: readonly string[], cancelled: () => boolean): Promise<string[]> {
    let pending = [...tasks];
    while (pending.length > 0 && !cancelled()) {
      const now = Date.now();
      const still: string[] = [];
      const late: string[] = [];
      for (const task of pending) {
        const m = await this.read(task);
        if (m === undefined || m.state === 'released' || m.member === this.member) continue;
        if (now - m.at >= this.timeoutMs) late.push(task);
        else still.push(task);
      }
      if (still.length === 0) return late;
      pending = still;
      await sleep(POLL_MS);
    }
    return [];
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
    for (const task of tasks) {
      const storage = checkpointStorageAt(taskCheckpointDirectory(this.checkpointDir, task));
      let path = await storage.latest();
      while (path !== undefined) {
        const data = await readCheckpoint(path);
        const origin = data.origin;
        if (origin === undefined || origin.checkpointId <= (await sealed(origin.run))) {
          out.set(task, data);
          break;
        }
        path = await previousOf(storage, data.checkpointId);
      }
    }
    return out;
  }

  private async mark(tasks: readonly string[], state: Marker['state']): Promise<void> {
    const marker: Marker = { member: this.member, state, at: Date.now() };
    await Promise.all(
      tasks.map((t) => this.markers.replace(fileOf(t), `${JSON.stringify(marker)}\n`)),
    );
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

/** The task snapshot before `checkpointId` (they are numbered one by one), if kept. */
async function previousOf(
  storage: ReturnType<typeof checkpointStorageAt>,
  checkpointId: number,
): Promise<string | undefined> {
  if (checkpointId <= 1) return undefined;
  const path = `${storage.directory}/${DirectoryCheckpointStorage.nameOf(checkpointId - 1, 'checkpoint')}`;
  try {
    await readCheckpoint(path);
    return path;
  } catch {
    return undefined;
  }
}

function fileOf(task: string): string {
  return `${task.replace(/[^a-zA-Z0-9._-]/g, '_')}.json`;
}
