import type { SourceReader } from '../connectors/source.js';
import type { Counter } from '../metrics/registry.js';
import type { Channel } from './channel.js';
import type { ExchangeWriter } from './exchange.js';
import { MAX_WATERMARK } from './messages.js';
import type { Operator, Output } from './operator.js';
import { WatermarkValve } from './watermark-valve.js';

/** Something that can hold up a task for reasons of its own, such as a sink still flushing. */
export interface Blocking {
  /** A promise while blocked, undefined when free to proceed. */
  blocked(): Promise<void> | undefined;
}

/**
 * One subtask's chain of operators, driven by the executor. `step` runs a
 * bounded amount of synchronous work and reports whether anything happened.
 */
export abstract class Task {
  finished = false;

  constructor(
    readonly name: string,
    /** Operators of the chain, head first; opened in reverse so consumers are ready before producers. */
    protected readonly operators: readonly Operator<unknown, unknown>[],
    /** Exchange writers at the ends of the chain: the task runs only while all have room. */
    private readonly writers: readonly ExchangeWriter<unknown>[],
    private readonly blockers: readonly Blocking[],
  ) {}

  async open(): Promise<void> {
    for (let i = this.operators.length - 1; i >= 0; i--) this.operators[i]!.open();
  }

  abstract step(): boolean;

  protected outputHasRoom(): boolean {
    for (const w of this.writers) if (!w.hasRoom()) return false;
    for (const b of this.blockers) if (b.blocked() !== undefined) return false;
    return true;
  }

  /** What the task waits on when it cannot progress by itself. */
  waitFor(): Promise<void> | undefined {
    for (const b of this.blockers) {
      const p = b.blocked();
      if (p !== undefined) return p;
    }
    return undefined;
  }

  async close(): Promise<void> {
    let failure: unknown;
    for (const op of this.operators) {
      try {
        await op.close();
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

/** A task whose chain starts at a source reader. */
export class SourceTask<T> extends Task {
  private waiting: Promise<void> | undefined;

  constructor(
    name: string,
    private readonly reader: SourceReader<T>,
    private readonly output: Output<T>,
    private readonly recordsOut: Counter,
    operators: readonly Operator<unknown, unknown>[],
    writers: readonly ExchangeWriter<unknown>[],
    blockers: readonly Blocking[],
  ) {
    super(name, operators, writers, blockers);
  }

  override async open(): Promise<void> {
    await super.open();
    await this.reader.open();
  }

  step(): boolean {
    if (this.finished || !this.outputHasRoom()) return false;
    const result = this.reader.poll();
    if (result === 'wait') {
      this.waiting = this.reader.available();
      return false;
    }
    this.waiting = undefined;
    if (result === 'end') {
      // End of bounded input: event time jumps to +infinity so every window
      // and event-time timer fires, then end-of-input flows down the chain.
      this.output.emitWatermark(MAX_WATERMARK);
      this.output.end();
      this.finished = true;
      return true;
    }
    this.recordsOut.inc(result.values.length);
    this.output.emit(result);
    return true;
  }

  override waitFor(): Promise<void> | undefined {
    return super.waitFor() ?? this.waiting;
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

/** A task whose chain starts at an input gate: the channels from upstream subtasks. */
export class InputTask<T> extends Task {
  private readonly valve: WatermarkValve;
  private readonly ended: boolean[];
  private endedCount = 0;
  private nextChannel = 0;

  constructor(
    name: string,
    private readonly channels: readonly Channel<T>[],
    private readonly head: Operator<T, unknown>,
    operators: readonly Operator<unknown, unknown>[],
    writers: readonly ExchangeWriter<unknown>[],
    blockers: readonly Blocking[],
  ) {
    super(name, operators, writers, blockers);
    this.ended = new Array<boolean>(channels.length).fill(false);
    this.valve = new WatermarkValve(
      channels.length,
      (t) => head.processWatermark(t),
      () => head.processIdle(),
    );
  }

  step(): boolean {
    if (this.finished) return false;
    let progressed = false;
    const n = this.channels.length;
    for (let budget = MESSAGES_PER_STEP; budget > 0; budget--) {
      if (!this.outputHasRoom()) return progressed;
      let message: ReturnType<Channel<T>['shift']>;
      let c = this.nextChannel;
      let tried = 0;
      do {
        message = this.channels[c]!.shift();
        c = c + 1 === n ? 0 : c + 1;
      } while (message === undefined && ++tried < n);
      if (message === undefined) return progressed;
      const channel = c === 0 ? n - 1 : c - 1;
      this.nextChannel = c;
      progressed = true;
      switch (message.kind) {
        case 'batch':
          this.valve.activate(channel);
          this.head.processBatch(message.batch);
          break;
        case 'watermark':
          this.valve.watermark(channel, message.time);
          break;
        case 'idle':
          this.valve.markIdle(channel);
          break;
        case 'end':
          if (!this.ended[channel]) {
            this.ended[channel] = true;
            this.endedCount++;
            this.valve.end(channel);
          }
          if (this.endedCount === n) {
            this.head.endInput();
            this.head.endOutput();
            this.finished = true;
            return true;
          }
          break;
      }
    }
    return progressed;
  }
}
