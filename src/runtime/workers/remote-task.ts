import type { Key } from '../../core/key-groups.js';
import type { StateQueryAnswer } from '../../core/queryable-state.js';
import { Task, type TaskSnapshot } from '../task/task.js';
import type { WorkerThread } from './worker-thread.js';

/**
 * A task running on a worker, as the checkpoint coordinator on the main
 * thread sees it: checkpoint completion, final snapshots and sink pre-commits
 * become requests to the worker; `slot` numbers the task the same way on
 * every thread.
 */
export class RemoteTask extends Task {
  constructor(
    name: string,
    subtask: number,
    maxParallelism: number,
    readonly slot: number,
    protected readonly worker: WorkerThread,
  ) {
    super({ name, subtask, maxParallelism, members: [], writers: [], blockers: [] });
  }

  /** The task runs on its worker: there is nothing to step here. */
  step(): boolean {
    return false;
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    this.checkpoints?.completed?.(this, checkpointId);
    await this.worker.request('complete', checkpointId);
  }

  override async collectFinalSnapshot(checkpointId: number): Promise<TaskSnapshot> {
    const reply = await this.worker.request('final-snapshot', checkpointId);
    const found = reply.snapshots?.find(([slot]) => slot === this.slot);
    if (found === undefined)
      throw new Error(`worker ${this.worker.index} sent no snapshot of ${this.name}`);
    return found[1];
  }

  override async preCommitSinks(checkpointId: number): Promise<void> {
    await this.worker.request('precommit', checkpointId);
  }

  override queryState(uid: string, key: Key): Promise<StateQueryAnswer | undefined> {
    return this.worker.query(this.slot, uid, key);
  }

  override resume(): void {
    // The worker resumes all its tasks; the same message from its other tasks changes nothing.
    this.worker.post({ t: 'resume' });
  }
}

/**
 * A source task running on a worker. What it can do (finished, able to take
 * part in checkpoints) is what its worker last reported.
 */
export class RemoteSourceTask extends RemoteTask {
  checkpointable = false;

  get readyForBarrier(): boolean {
    // The worker holds the barrier back itself until no sink of the chain is flushing.
    return true;
  }

  /** Asks the worker to inject the barrier at this source between two polls. */
  triggerCheckpoint(checkpointId: number, savepoint: boolean, stop = false): boolean {
    if (this.finished || !this.checkpointable) return false;
    this.worker.post({ t: 'trigger', slot: this.slot, id: checkpointId, savepoint, stop });
    return true;
  }
}
