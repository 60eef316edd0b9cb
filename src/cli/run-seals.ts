import type { Json } from '../core/snapshot.js';
import type { CheckpointStore } from '../runtime/checkpoint/store/checkpoint-store.js';
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
 *
 * A run is fenced by the next owner of its tasks in two steps: a marker,
 * `<run>.fence`, then the run's *final* seal, `<run>.final`, created
 * exclusively from the record as read after the marker (the first fencer's
 * read wins; the others adopt it). The run itself commits a checkpoint only
 * if, after sealing it, it finds no marker ({@link sealAndCheck}). So a
 * commit the run makes was sealed before the marker existed, hence before
 * any fencer read the record, and every final covers it; a seal written
 * after the marker is committed by nobody but a fencer that read it, and
 * then by all (they share one final).
 */
export class RunSeals {
  private readonly store: CheckpointStore;

  constructor(checkpointDir: string | CheckpointStore) {
    if (typeof checkpointDir !== 'string') {
      this.store = checkpointDir;
      return;
    }
    const base = checkpointDir.endsWith('/') ? checkpointDir.slice(0, -1) : checkpointDir;
    this.store = openStore(`${base}/runs`);
  }

  write(run: string, record: RunRecord): Promise<void> {
    return this.store.replace(fileOf(run), `${JSON.stringify(record)}\n`);
  }

  /**
   * Seals `record` (a checkpoint of `run`) and says whether the run may
   * commit it: false once a fencer's marker exists, and then never again.
   */
  async sealAndCheck(run: string, record: RunRecord): Promise<boolean> {
    await this.write(run, record);
    return !(await this.isFenced(run));
  }

  /** Whether a new owner of the run's tasks has fenced it. */
  async isFenced(run: string): Promise<boolean> {
    return (await this.store.read(fenceOf(run))) !== undefined;
  }

  async read(run: string): Promise<RunRecord | undefined> {
    return parse(await this.store.read(fileOf(run)));
  }

  /** The run's final seal if it was fenced; undefined while it is not. */
  async final(run: string): Promise<RunRecord | undefined> {
    return parse(await this.store.read(finalOf(run)));
  }

  /**
   * Fences `run`: after this, it commits nothing it did not seal before,
   * and what it sealed before is in the returned final seal, the same for
   * every fencer.
   */
  async fence(run: string, by: string): Promise<RunRecord> {
    const existing = await this.final(run);
    if (existing !== undefined) return existing;
    await this.store.replace(fenceOf(run), `${JSON.stringify({ by })}\n`);
    // Read only after the marker: every seal the run may still commit is in it.
    const record = (await this.read(run)) ?? {
      tasks: [],
      sealed: 0,
      committables: [],
      ended: false,
    };
    if (await this.store.createExclusive(finalOf(run), `${JSON.stringify(record)}\n`))
      return record;
    const winner = await this.final(run);
    if (winner === undefined) throw new Error(`the final seal of run '${run}' vanished`);
    return winner;
  }

  /** The checkpoint `run` sealed last (its final seal once fenced), 0 for none. */
  async sealed(run: string): Promise<number> {
    return ((await this.final(run)) ?? (await this.read(run)))?.sealed ?? 0;
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

function parse(bytes: Buffer | undefined): RunRecord | undefined {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as RunRecord;
  } catch {
    // Cut short by a crash mid-write (object stores replace whole): as if absent.
    return undefined;
  }
}

function safe(run: string): string {
  return run.replace(/[^a-zA-Z0-9._-]/g, '_');
}

function fileOf(run: string): string {
  return `${safe(run)}.json`;
}

function fenceOf(run: string): string {
  return `${safe(run)}.fence`;
}

function finalOf(run: string): string {
  return `${safe(run)}.final`;
}
