import { type Key, keyGroupOf } from '../../core/key-groups.js';
import { MAX_WATERMARK, MIN_WATERMARK } from '../../core/messages.js';
import type { Blocking, Operator, Output, SnapshotContext } from '../../core/operator.js';
import { isQueryableState, type StateQueryAnswer } from '../../core/queryable-state.js';
import type { Json, OperatorSnapshot } from '../../core/snapshot.js';
import type { SourceReader } from '../../core/source.js';
import type { Counter } from '../../metrics/registry.js';
import type { InputObserver } from '../instrumentation/operator-probe.js';
import type { StepTimer } from '../instrumentation/step-timer.js';
import { SinkOperator } from '../operators/basic/sink.js';
import { ChainAsyncWork } from './async-work.js';
import { type AlignedCheckpoint, BarrierAligner } from './barrier-aligner.js';
import { InputDebloater } from './buffer-debloat.js';
import type { ChannelEnd } from './channel.js';
import type { ExchangeWriter } from './exchange.js';
import { WatermarkValve } from './watermark-valve.js';

/** An operator of a task's chain, with the id its state is stored under. */
export interface ChainMember {
  readonly uid: string;
  readonly operator: Operator<unknown, unknown>;
}

/** What one task contributes to a checkpoint. */
export interface TaskSnapshot {
  readonly subtask: number;
  readonly operators: readonly {
    readonly uid: string;
    readonly snapshot: OperatorSnapshot | undefined;
  }[];
  readonly source?: { readonly uid: string; readonly position: Json };
}

/** Receives the snapshots of tasks as barriers pass them. */
export interface CheckpointListener {
  acknowledge(task: Task, checkpointId: number, snapshot: TaskSnapshot): void;
  /** Checkpoint `checkpointId` is complete; called by every task before its operators hear of it. */
  completed?(task: Task, checkpointId: number): void;
}

export interface TaskWiring {
  readonly name: string;
  readonly subtask: number;
  readonly maxParallelism: number;
  /** Operators of the chain, head first; opened in reverse so consumers are ready before producers. */
  readonly members: readonly ChainMember[];
  /** Exchange writers at the ends of the chain: the task runs only while all have room. */
  readonly writers: readonly ExchangeWriter<unknown>[];
  readonly blockers: readonly Blocking[];
  /** Instrumentation: where the task's time goes (the executor records each step). */
  readonly stepTimer?: StepTimer | undefined;
  /** Instrumentation of an input task's head operator: records in, input watermark. */
  readonly input?: InputObserver | undefined;
  /**
   * Buffer debloating of an input task's channels: the time (ms) the records
   * queued on each may take to drain at the rate the task takes them;
   * undefined: channels are bounded by their batch capacity only.
   */
  readonly debloatTargetMs?: number | undefined;
}

/**
 * One subtask's chain of operators, driven by the executor. `step` runs a
 * bounded amount of synchronous work and reports whether anything happened.
 */
export abstract class Task {
  finished = false;
  /**
   * The task passed the barrier of a stop-with-savepoint: it does nothing
   * more (no input, no async results, no processing-time timers), so its
   * output ends exactly at the savepoint. Cleared by {@link resume} if that
   * savepoint fails.
   */
  halted = false;
  checkpoints: CheckpointListener | undefined;
  readonly name: string;
  readonly subtask: number;
  readonly stepTimer: StepTimer | undefined;
  /** How long the last checkpoint barrier waited for barriers on the other inputs (ms). */
  lastAlignmentMs = 0;
  protected readonly members: readonly ChainMember[];
  private readonly writers: readonly ExchangeWriter<unknown>[];
  private readonly blockers: readonly Blocking[];
  private readonly maxParallelism: number;
  /** Async I/O operators of the chain (see async-work.ts); undefined when it has none. */
  private readonly asyncWork: ChainAsyncWork | undefined;
  /** All input has been handed to the chain; the task finishes once its async operators settle. */
  protected inputEnded = false;

  constructor(wiring: TaskWiring) {
    this.name = wiring.name;
    this.subtask = wiring.subtask;
    this.members = wiring.members;
    this.writers = wiring.writers;
    this.blockers = wiring.blockers;
    this.maxParallelism = wiring.maxParallelism;
    this.stepTimer = wiring.stepTimer;
    this.asyncWork = ChainAsyncWork.of(wiring.members.map((m) => m.operator));
  }

  async open(): Promise<void> {
    for (let i = this.members.length - 1; i >= 0; i--) this.members[i]!.operator.open();
  }

  abstract step(): boolean;

  protected outputHasRoom(): boolean {
    for (const w of this.writers) if (!w.hasRoom()) return false;
    for (const b of this.blockers) if (b.blocked() !== undefined) return false;
    return true;
  }

  /** Whether the chain may take more input: outputs have room and no async operator is full. */
  protected canTakeInput(): boolean {
    return this.outputHasRoom() && (this.asyncWork?.acceptsInput() ?? true);
  }

  /** Lets async operators emit what completed since the last step. Returns whether anything moved. */
  protected advanceAsync(): boolean {
    return this.asyncWork !== undefined && this.outputHasRoom() && this.asyncWork.advance();
  }

  /** After end of input: finishes once no async operator holds anything. Returns whether it finished. */
  protected finishWhenSettled(): boolean {
    this.inputEnded = true;
    this.finished = this.asyncWork?.isSettled() ?? true;
    return this.finished;
  }

  /** Whether the task is held up downstream: an output channel is full or a sink is flushing. */
  isBackpressured(): boolean {
    return !this.outputHasRoom();
  }

  /** What the task waits on when it cannot progress by itself. */
  waitFor(): Promise<void> | undefined {
    const blocked = this.waitForBlockers();
    if (blocked !== undefined || this.asyncWork === undefined) return blocked;
    // With full outputs a completion changes nothing: the consumer's progress wakes the executor.
    return this.outputHasRoom() ? this.asyncWork.nextCompletion() : undefined;
  }

  /** A flush in progress in one of the chain's sinks, if any. */
  protected waitForBlockers(): Promise<void> | undefined {
    for (const b of this.blockers) {
      const p = b.blocked();
      if (p !== undefined) return p;
    }
    return undefined;
  }

  /** Snapshots every operator of the chain (the caller forwards the barrier). */
  snapshotChain(checkpointId: number, savepoint = false): TaskSnapshot['operators'] {
    const maxParallelism = this.maxParallelism;
    const context: SnapshotContext = {
      checkpointId,
      kind: savepoint ? 'savepoint' : 'checkpoint',
      keyGroupOf: (key: Key) => keyGroupOf(key, maxParallelism),
    };
    // A deep copy at the barrier: the checkpoint is written asynchronously
    // while operators go on changing the objects their snapshot refers to.
    return this.members.map((m) => {
      const snapshot = m.operator.snapshotState(context);
      return {
        uid: m.uid,
        snapshot: snapshot === undefined ? undefined : structuredClone(snapshot),
      };
    });
  }

  /**
   * Snapshot and barrier: everything this task emitted so far belongs to the
   * checkpoint. With `stop` the task halts after the barrier.
   */
  protected checkpoint(
    checkpointId: number,
    savepoint: boolean,
    stop: boolean,
    source?: TaskSnapshot['source'],
  ): void {
    const operators = this.snapshotChain(checkpointId, savepoint);
    for (const w of this.writers) w.emitBarrier(checkpointId, savepoint, stop);
    if (stop) this.halted = true;
    this.checkpoints?.acknowledge(this, checkpointId, {
      subtask: this.subtask,
      operators,
      ...(source === undefined ? {} : { source }),
    });
  }

  /** The stop-with-savepoint this task halted for failed: the job goes on running. */
  resume(): void {
    this.halted = false;
  }

  /**
   * Reads the state operator `uid` of this chain keeps for `key`
   * (interactive queries); undefined when the chain has no such operator.
   * Runs on the task's thread between two steps, so it sees whole batches.
   */
  queryState(uid: string, key: Key): Promise<StateQueryAnswer | undefined> {
    const member = this.members.find((m) => m.uid === uid);
    return member === undefined ? Promise.resolve(undefined) : readState(member.operator, key);
  }

  /** A snapshot of a finished task, for the final checkpoint at end of input. */
  finalSnapshot(checkpointId: number): TaskSnapshot {
    return { subtask: this.subtask, operators: this.snapshotChain(checkpointId) };
  }

  /** {@link finalSnapshot}, for a coordinator that may wait for it (tasks on another thread). */
  async collectFinalSnapshot(checkpointId: number): Promise<TaskSnapshot> {
    return this.finalSnapshot(checkpointId);
  }

  /** At the end of a job without checkpoint storage: seal the sinks' last transactions. */
  preCommitSinks(checkpointId: number): void | Promise<void> {
    const context: SnapshotContext = { checkpointId, kind: 'checkpoint', keyGroupOf: () => 0 };
    for (const m of this.members)
      if (m.operator instanceof SinkOperator) m.operator.snapshotState(context);
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    this.checkpoints?.completed?.(this, checkpointId);
    for (const m of this.members) await m.operator.notifyCheckpointComplete(checkpointId);
  }

  async close(): Promise<void> {
    let failure: unknown;
    for (const m of this.members) {
      try {
        await m.operator.close();
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

/** Reads an operator's or reader's state for `key`, if it exposes it; a throw becomes a rejection. */
function readState(target: unknown, key: Key): Promise<StateQueryAnswer> {
  if (!isQueryableState(target)) return Promise.resolve({ kind: 'not-queryable' });
  try {
    return Promise.resolve(target.queryState(key));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A task whose chain starts at a source reader. */
export class SourceTask<T> extends Task {
  private waiting: Promise<void> | undefined;
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private idle = false;

  constructor(
    wiring: TaskWiring,
    private readonly sourceUid: string,
    private readonly reader: SourceReader<T>,
    private readonly output: Output<T>,
    private readonly recordsOut: Counter,
  ) {
    super(wiring);
  }

  /** The source's own state (a reader that exposes it), or that of an operator chained after it. */
  override queryState(uid: string, key: Key): Promise<StateQueryAnswer | undefined> {
    return uid === this.sourceUid ? readState(this.reader, key) : super.queryState(uid, key);
  }

  override async open(): Promise<void> {
    await super.open();
    await this.reader.open();
  }

  step(): boolean {
    if (this.finished) return false;
    const advanced = this.advanceAsync();
    if (this.inputEnded) return this.finishWhenSettled() || advanced;
    if (!this.canTakeInput()) {
      this.waiting = undefined; // waiting on the chain now, not on the reader
      return advanced;
    }
    const result = this.reader.poll();
    if (result === 'wait') {
      this.waiting = this.reader.available();
      return this.forwardSourceTime() || advanced;
    }
    this.waiting = undefined;
    if (result === 'end') {
      // End of bounded input: event time jumps to +infinity so every window
      // and event-time timer fires, then end-of-input flows down the chain.
      this.output.emitWatermark(MAX_WATERMARK);
      this.output.end();
      this.finishWhenSettled();
      return true;
    }
    this.recordsOut.inc(result.values.length);
    this.idle = false;
    this.output.emit(result);
    this.forwardSourceTime();
    return true;
  }

  /** Watermarks and idleness decided by the reader itself. Returns whether anything was emitted. */
  private forwardSourceTime(): boolean {
    const reader = this.reader;
    if (reader.currentWatermark !== undefined) {
      const w = reader.currentWatermark();
      if (w > this.lastWatermark) {
        this.lastWatermark = w;
        this.idle = false;
        this.output.emitWatermark(w);
        return true;
      }
    }
    if (!this.idle && reader.isIdle?.() === true) {
      this.idle = true;
      this.output.emitIdle();
      return true;
    }
    return false;
  }

  /**
   * Starts checkpoint `checkpointId` at this source: position, chain state,
   * then the barrier. With `stop` (the savepoint of a stop-with-savepoint) the
   * source reads nothing more: the barrier is the last thing it emits.
   */
  triggerCheckpoint(checkpointId: number, savepoint: boolean, stop = false): boolean {
    if (this.finished || this.halted) return false;
    const snapshot = this.reader.snapshot;
    if (snapshot === undefined) return false;
    this.checkpoint(checkpointId, savepoint, stop, {
      uid: this.sourceUid,
      position: snapshot.call(this.reader, checkpointId),
    });
    return true;
  }

  get checkpointable(): boolean {
    return typeof this.reader.snapshot === 'function' && this.reader.canSnapshot?.() !== false;
  }

  /**
   * A barrier may start here only between batches and while no sink of the
   * chain is still flushing, so that everything before the barrier is in the
   * sinks' current transaction.
   */
  get readyForBarrier(): boolean {
    // After end of input (async operators still answering) the final checkpoint covers the rest.
    return this.waitForBlockers() === undefined && !this.inputEnded;
  }

  override finalSnapshot(checkpointId: number): TaskSnapshot {
    const base = super.finalSnapshot(checkpointId);
    const position = this.reader.snapshot?.call(this.reader, checkpointId);
    return position === undefined ? base : { ...base, source: { uid: this.sourceUid, position } };
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await super.notifyCheckpointComplete(checkpointId);
    await this.reader.notifyCheckpointComplete?.(checkpointId);
  }

  override waitFor(): Promise<void> | undefined {
    const chain = super.waitFor();
    const waiting = this.waiting;
    return chain !== undefined && waiting !== undefined
      ? Promise.race([chain, waiting])
      : (chain ?? waiting);
  }

  override async close(): Promise<void> {
    try {
      await this.reader.close();
    } finally {
      await super.close();
    }
  }
}

/** Messages a task consumes per step before yielding to others; keeps queues short and fair. */
const MESSAGES_PER_STEP = 8;
/** A step also ends after this long, so slow operators do not starve timers and checkpoint I/O. */
const STEP_BUDGET_MS = 4;

/**
 * A task whose chain starts at an input gate: the channels from upstream
 * subtasks. Checkpoint barriers are aligned: a channel that delivered the
 * barrier is not read again until every channel has, so the snapshot holds
 * exactly the effects of the records before the barrier.
 */
export class InputTask<T> extends Task {
  private readonly valve: WatermarkValve;
  private readonly ended: boolean[];
  private endedCount = 0;
  private nextChannel = 0;
  private readonly aligner: BarrierAligner;
  private alignmentStartedAt = 0;
  private readonly input: InputObserver | undefined;
  /** Bounds what each input channel queues by the time this task needs to drain it. */
  private readonly debloater: InputDebloater | undefined;
  /** Two-input heads: the channels of each input, and each input's own watermark so far. */
  private readonly inputs:
    | { readonly channels: readonly [number[], number[]]; readonly watermarks: [number, number] }
    | undefined;

  constructor(
    wiring: TaskWiring,
    private readonly channels: readonly ChannelEnd<T>[],
    private readonly head: Operator<T, unknown>,
    /** For each channel, the operator input it feeds (two-input operators); all 0 otherwise. */
    private readonly channelInputs: readonly number[] = [],
  ) {
    super(wiring);
    if (channelInputs.includes(1)) {
      const byInput: [number[], number[]] = [[], []];
      channelInputs.forEach((input, channel) => {
        byInput[input === 1 ? 1 : 0].push(channel);
      });
      this.inputs = { channels: byInput, watermarks: [MIN_WATERMARK, MIN_WATERMARK] };
    }
    this.ended = new Array<boolean>(channels.length).fill(false);
    this.aligner = new BarrierAligner(channels.length);
    this.debloater =
      wiring.debloatTargetMs === undefined
        ? undefined
        : new InputDebloater(channels, wiring.debloatTargetMs);
    const input = wiring.input;
    this.input = input;
    this.valve = new WatermarkValve(
      channels.length,
      input === undefined
        ? (t) => head.processWatermark(t)
        : (t) => {
            input.onWatermark(t);
            head.processWatermark(t);
          },
      () => head.processIdle(),
    );
  }

  step(): boolean {
    if (this.finished) return false;
    let progressed = this.advanceAsync();
    if (this.inputEnded) return this.finishWhenSettled() || progressed;
    const n = this.channels.length;
    const now = performance.now();
    this.debloater?.tick(now);
    const deadline = now + STEP_BUDGET_MS;
    for (let budget = MESSAGES_PER_STEP; budget > 0; budget--) {
      if (!this.canTakeInput()) return progressed;
      if (progressed && performance.now() > deadline) return true;
      let message: ReturnType<ChannelEnd<T>['shift']>;
      let c = this.nextChannel;
      let tried = 0;
      do {
        message = this.aligner.isBlocked(c) ? undefined : this.channels[c]!.shift();
        c = c + 1 === n ? 0 : c + 1;
      } while (message === undefined && ++tried < n);
      if (message === undefined) return progressed;
      const channel = c === 0 ? n - 1 : c - 1;
      this.nextChannel = c;
      progressed = true;
      switch (message.kind) {
        case 'batch':
          this.valve.activate(channel);
          this.input?.onBatch(message.batch);
          if (this.channelInputs[channel] === 1) this.head.processSecondBatch(message.batch);
          else this.head.processBatch(message.batch);
          break;
        case 'watermark':
          this.valve.watermark(channel, message.time);
          this.advanceInputWatermark(channel);
          break;
        case 'idle':
          this.valve.markIdle(channel);
          break;
        case 'barrier': {
          const decision = this.aligner.barrier(
            channel,
            message.checkpointId,
            message.savepoint,
            message.stop,
          );
          if (decision.kind === 'started') this.alignmentStartedAt = performance.now();
          else if (decision.kind === 'aligned') this.checkpointAligned(decision);
          // A stop's barrier was the last input: nothing more is read.
          if (this.halted) return true;
          break;
        }
        case 'end': {
          if (!this.ended[channel]) {
            this.ended[channel] = true;
            this.endedCount++;
            this.valve.end(channel);
            this.advanceInputWatermark(channel);
          }
          const decision = this.aligner.channelEnded(channel);
          if (decision.kind === 'aligned') this.checkpointAligned(decision);
          if (this.halted) return true;
          if (this.endedCount === n) {
            this.head.endInput();
            this.head.endOutput();
            this.finishWhenSettled();
            return true;
          }
          break;
        }
      }
    }
    return progressed;
  }

  /** Tells a two-input head that the watermark of the input `channel` feeds advanced. */
  private advanceInputWatermark(channel: number): void {
    if (this.inputs === undefined) return;
    const input = this.channelInputs[channel] === 1 ? 1 : 0;
    const least = this.valve.leastOf(this.inputs.channels[input]);
    if (least <= this.inputs.watermarks[input]) return;
    this.inputs.watermarks[input] = least;
    this.head.processInputWatermark(input, least);
  }

  /** Every channel delivered the barrier or ended: the chain's state now reflects exactly the records before it. */
  private checkpointAligned(aligned: AlignedCheckpoint): void {
    const now = performance.now();
    if (aligned.started) this.alignmentStartedAt = now;
    this.lastAlignmentMs = now - this.alignmentStartedAt;
    this.checkpoint(aligned.checkpointId, aligned.savepoint, aligned.stop);
  }
}
