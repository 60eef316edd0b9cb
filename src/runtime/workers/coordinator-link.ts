import type { MessagePort } from 'node:worker_threads';
import type { ExecutorDriver } from '../execution/executor.js';
import { type CheckpointListener, SourceTask, type Task, type TaskSnapshot } from '../task/task.js';
import type { PeerChannels } from './peer-channels.js';
import { type FromWorker, serializeError, type ToWorker } from './protocol.js';
import type { Wakeup } from './wakeup.js';

/**
 * A worker's link to the checkpoint coordinator on the main thread, and the
 * driver of the worker's executor: it drives checkpoints of the worker's
 * tasks on the coordinator's behalf (barriers are injected at its sources
 * when asked, snapshots are sent back), answers the main thread's commands,
 * flushes the channels to the other workers once per executor round, and
 * tells the main thread when its tasks have finished.
 */
export class CoordinatorLink implements ExecutorDriver, CheckpointListener {
  failure: unknown;
  private readonly triggers: { slot: number; id: number; savepoint: boolean; stop: boolean }[] = [];
  private readonly sourceStates = new Map<number, string>();
  private readonly reportedFinished = new Set<Task>();
  private readonly slotOf: Map<Task, number>;
  private readonly taskAt: Map<number, Task>;
  private notifications: Promise<void> = Promise.resolve();
  private closeRequested!: () => void;
  private readonly closing = new Promise<void>((resolve) => {
    this.closeRequested = resolve;
  });
  /** Set by the worker's main loop: stops the executor at its next step. */
  onStop: (() => void) | undefined;
  /** Set by the worker's main loop: sends its metrics to the main thread. */
  onReportMetrics: (() => void) | undefined;

  constructor(
    private readonly parent: MessagePort,
    private readonly peers: readonly PeerChannels[],
    private readonly tasks: readonly Task[],
    slots: readonly number[],
    private readonly wakeup: Wakeup,
  ) {
    this.slotOf = new Map(tasks.map((t, i) => [t, slots[i]!]));
    this.taskAt = new Map(tasks.map((t, i) => [slots[i]!, t]));
    for (const t of tasks) t.checkpoints = this;
    parent.on('message', (m: ToWorker) => this.onCommand(m));
  }

  private post(message: FromWorker): void {
    this.parent.postMessage(message);
  }

  private onCommand(m: ToWorker): void {
    switch (m.t) {
      case 'trigger':
        this.triggers.push(m);
        break;
      case 'resume':
        // The stop's savepoint was abandoned: a barrier still waiting here belongs to it.
        this.triggers.length = 0;
        for (const t of this.tasks) t.resume();
        break;
      case 'complete': {
        const done = this.notifications.then(async () => {
          for (const t of this.tasks) await t.notifyCheckpointComplete(m.id);
        });
        this.notifications = done.catch((e: unknown) => {
          this.failure ??= e;
        });
        done.then(
          () => this.post({ t: 'reply', req: m.req }),
          () => {},
        );
        break;
      }
      case 'final-snapshot': {
        const snapshots: [number, TaskSnapshot][] = this.tasks.map((t) => [
          this.slotOf.get(t)!,
          t.finalSnapshot(m.id),
        ]);
        this.post({ t: 'reply', req: m.req, snapshots });
        break;
      }
      case 'precommit':
        Promise.all(this.tasks.map((t) => t.preCommitSinks(m.id))).then(
          () => this.post({ t: 'reply', req: m.req }),
          (e: unknown) => {
            this.failure ??= e;
          },
        );
        break;
      case 'stop':
        this.onStop?.();
        this.closeRequested();
        break;
      case 'close':
        this.closeRequested();
        break;
      case 'report-metrics':
        this.onReportMetrics?.();
        break;
      case 'query': {
        const task = this.taskAt.get(m.slot);
        const read =
          task === undefined ? Promise.resolve(undefined) : task.queryState(m.uid, m.key);
        read.then(
          (state) => this.post({ t: 'reply', req: m.req, state: state ?? null }),
          (error: unknown) => this.post({ t: 'reply', req: m.req, error: serializeError(error) }),
        );
        break;
      }
    }
    this.wakeup.notify();
  }

  acknowledge(task: Task, checkpointId: number, snapshot: TaskSnapshot): void {
    this.post({
      t: 'ack',
      slot: this.slotOf.get(task)!,
      id: checkpointId,
      snapshot,
      alignmentMs: task.lastAlignmentMs,
    });
  }

  tick(): boolean {
    let progressed = false;
    for (let i = 0; i < this.triggers.length; i++) {
      const trigger = this.triggers[i]!;
      const task = this.taskAt.get(trigger.slot);
      if (!(task instanceof SourceTask)) continue;
      if (task.finished || !task.checkpointable) {
        this.post({
          t: 'decline',
          id: trigger.id,
          reason: task.finished ? 'input has ended' : 'a source cannot record its position',
        });
      } else if (!task.readyForBarrier) continue;
      else task.triggerCheckpoint(trigger.id, trigger.savepoint, trigger.stop);
      this.triggers.splice(i--, 1);
      progressed = true;
    }
    this.reportStates();
    for (const peer of this.peers) {
      peer.flush();
      if (peer.poll()) progressed = true;
    }
    return progressed;
  }

  /** Tells the main thread which tasks finished and whether sources can take part in checkpoints. */
  reportStates(): void {
    for (const task of this.tasks) {
      if (task.finished && !this.reportedFinished.has(task)) {
        this.reportedFinished.add(task);
        this.post({ t: 'task-finished', slot: this.slotOf.get(task)! });
      }
      if (!(task instanceof SourceTask)) continue;
      const slot = this.slotOf.get(task)!;
      const state = `${task.finished}/${task.checkpointable}`;
      if (this.sourceStates.get(slot) === state) continue;
      this.sourceStates.set(slot, state);
      this.post({
        t: 'source-state',
        slot,
        finished: task.finished,
        checkpointable: task.checkpointable,
      });
    }
  }

  wakeUp(): Promise<void> {
    // The executor is about to wait: nothing held back may be what the peer waits for.
    let sleep = true;
    for (const peer of this.peers) {
      peer.flush(true);
      if (!peer.prepareToSleep()) sleep = false;
    }
    // Data came in between the last poll and now: go round again rather than wait.
    if (!sleep) this.wakeup.notify();
    return this.wakeup.wait();
  }

  async drain(): Promise<void> {
    await this.notifications;
    for (const peer of this.peers) peer.flush(true);
  }

  /** All local tasks finished: the main thread takes the final checkpoint, then says close. */
  async finalCheckpoint(): Promise<void> {
    this.reportStates();
    for (const peer of this.peers) peer.flush(true);
    this.post({ t: 'finished' });
    await this.closing;
    await this.notifications;
    if (this.failure !== undefined) throw this.failure;
  }
}
