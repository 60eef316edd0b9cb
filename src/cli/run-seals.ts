import type { Json } from '../core/snapshot.js';
import { openStore } from '../runtime/checkpoint/store/open-store.js';

/**
 * What a member run of a process group has made final: the tasks it holds,
 * the newest of its checkpoints whose task snapshots are all written
 * (sealed), that checkpoint's committables, and whether it ended cleanly
 * (its last checkpoint sealed and nothing open after it).
 */
export interface RunRecord {
  readonly tasks: readonly string[];
  readonly sealed: number;
  readonly committables: readonly Json[];
  readonly ended: boolean;
}

/**
 * The records of member runs, `<checkpoint dir>/runs/<run>.json`. A run
 * writes its record when it starts (nothing sealed), after writing every
 * task snapshot of a checkpoint and before its sinks commit that checkpoint
 * (the seal), and when it ends cleanly. A task snapshot counts only once its
 * run has sealed its checkpoint: a member that dies while writing a
 * checkpoint's task snapshots has committed none of that checkpoint's
 * transactions, so its tasks restore the checkpoint before, whole.
 */
export class RunSeals {
  private readonly store;

  constructor(checkpointDir: string) {
    const base = checkpointDir.endsWith('/') ? checkpointDir.slice(0, -1) : checkpointDir;
    this.store = openStore(`${base}/runs`);
  }

  write(run: string, record: RunRecord): Promise<void> {
    return this.store.replace(fileOf(run), `${JSON.stringify(record)}\n`);
  }

  async read(run: string): Promise<RunRecord | undefined> {
    const bytes = await this.store.read(fileOf(run));
    if (bytes === undefined) return undefined;
    try {
      return JSON.parse(bytes.toString('utf8')) as RunRecord;
    } catch {
      // Cut short by a crash mid-write (object stores replace whole): as if absent.
      return undefined;
    }
  }

  /** The checkpoint `run` sealed last, 0 for none. */
  async sealed(run: string): Promise<number> {
    return (await this.read(run))?.sealed ?? 0;
  }

  /** Runs other than `except` that held any of `tasks` and did not end cleanly, with their records. */
  async crashedRunsHolding(
    tasks: readonly string[],
    except: string,
  ): Promise<Map<string, RunRecord>> {
    const wanted = new Set(tasks);
    const out = new Map<string, RunRecord>();
    for (const name of await this.store.list()) {
      if (!name.endsWith('.json')) continue;
      const run = name.slice(0, -'.json'.length);
      if (run === except) continue;
      const record = await this.read(run);
      if (record === undefined || record.ended) continue;
      if (record.tasks.some((t) => wanted.has(t))) out.set(run, record);
    }
    return out;
  }
}

function fileOf(run: string): string {
  return `${run.replace(/[^a-zA-Z0-9._-]/g, '_')}.json`;
}
