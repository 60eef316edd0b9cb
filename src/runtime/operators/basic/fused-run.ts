import { userFunctionFailed } from '../../../core/errors.js';
import type { Collector } from '../../../core/functions.js';
import {
  Operator,
  type OperatorContext,
  type Output,
  type SnapshotContext,
} from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';

/** What a stateless operator does to one record, for running it inside a fused loop. */
export type StatelessStep =
  | { readonly kind: 'map'; readonly fn: (value: unknown) => unknown }
  | { readonly kind: 'filter'; readonly fn: (value: unknown) => boolean }
  | {
      readonly kind: 'flat-map';
      readonly fn: (value: unknown, out: Collector<unknown>) => void;
    };

/** An operator that can hand its per-record work to a fused loop. */
export interface FusibleOperator {
  statelessStep(): StatelessStep;
}

export function isFusible(op: unknown): op is FusibleOperator {
  return typeof (op as Partial<FusibleOperator>).statelessStep === 'function';
}

/** Where a fused loop reports records passing between its steps (metrics). */
export interface StepCounter {
  inc(n: number): void;
}

/** One step of a run, as the loop sees it, with the metrics it feeds. */
export interface FusedStep {
  readonly operatorId: string;
  readonly step: StatelessStep;
  /** Records in of this step; unused for the first, whose input is counted upstream. */
  readonly recordsIn: StepCounter | undefined;
  /** Records out of this step; unused for the last, whose output counts them. */
  readonly recordsOut: StepCounter | undefined;
}

/** Where a step sends what it produces: the next step, or the run's output batch. */
interface Downstream {
  push(value: unknown): void;
}

/** A step of the loop: counts what enters it, runs its function `fn`, pushes on. */
abstract class Step<F = unknown> implements Downstream {
  /** Records that entered this step during the current batch. */
  entered = 0;
  constructor(
    protected readonly run: FusedStatelessRun,
    protected readonly index: number,
    protected readonly next: Downstream,
    protected readonly fn: F,
  ) {}
  abstract push(value: unknown): void;
}

class MapStep extends Step<(value: unknown) => unknown> {
  push(value: unknown): void {
    this.entered++;
    let out: unknown;
    try {
      out = this.fn(value);
    } catch (cause) {
      throw this.run.failed(this.index, 'map function', value, cause);
    }
    this.next.push(out);
  }
}

class FilterStep extends Step<(value: unknown) => boolean> {
  push(value: unknown): void {
    this.entered++;
    let keep: boolean;
    try {
      keep = this.fn(value);
    } catch (cause) {
      throw this.run.failed(this.index, 'filter predicate', value, cause);
    }
    if (keep) this.next.push(value);
  }
}

/**
 * Collects a flatMap's outputs for one record and pushes them on only after
 * its function returns: user code never has a later step on its stack, so it
 * can neither catch nor be blamed for that step's errors.
 */
class FlatMapStep
  extends Step<(value: unknown, out: Collector<unknown>) => void>
  implements Collector<unknown>
{
  /** Outputs of the current record: `produced[0..count)` (the array is reused, never shrunk). */
  readonly produced: unknown[] = [];
  count = 0;
  collect(value: unknown): void {
    this.produced[this.count++] = value;
  }
  push(value: unknown): void {
    this.entered++;
    try {
      this.fn(value, this);
    } catch (cause) {
      throw this.run.failed(this.index, 'flatMap function', value, cause);
    }
    const n = this.count;
    if (n === 0) return;
    this.count = 0;
    const produced = this.produced;
    for (let j = 0; j < n; j++) {
      const out = produced[j];
      produced[j] = undefined;
      this.next.push(out);
    }
  }
}

/**
 * A run of chained stateless operators (map, filter, flatMap) executed as one
 * loop per batch: each record goes through every step, a direct call from one
 * to the next, before the next record starts, and only the last step's output
 * becomes a batch. It stands in the chain for the run's first operator:
 * watermarks, idleness, end of input and every lifecycle call go to that
 * operator, and from it through the others as in an unfused chain, so only
 * the data path changes. Records keep their timestamps; keys survive only a
 * run of filters. A failing user function is reported with its own
 * operator's id and the record it was given.
 */
export class FusedStatelessRun extends Operator<unknown, unknown> implements Downstream {
  private first!: Step;
  private steps: Step[] = [];
  private fused: readonly FusedStep[] = [];
  private last!: Output<unknown>;
  private keepKeys = false;
  /** The batch in progress has keys that this run keeps. */
  private withKeys = false;
  private outValues: unknown[] = [];
  private outTimestamps: number[] = [];
  private outKeys: unknown[] = [];
  /** Records in the output batch so far. */
  private count = 0;
  private timestamp = 0;
  private key: unknown;

  /** `head` is the run's first operator, which keeps its place for everything but data. */
  constructor(private readonly head: Operator<unknown, unknown>) {
    super();
  }

  /**
   * Gives the loop its steps (head first) and the output of the run's last
   * operator. Called once every operator of the run is set up.
   */
  connect(fused: readonly FusedStep[], last: Output<unknown>): void {
    this.fused = fused;
    this.last = last;
    this.keepKeys = fused.every((s) => s.step.kind === 'filter');
    const steps: Step[] = [];
    let next: Downstream = this;
    for (let k = fused.length - 1; k >= 0; k--) {
      const { step } = fused[k]!;
      const made: Step =
        step.kind === 'map'
          ? new MapStep(this, k, next, step.fn)
          : step.kind === 'filter'
            ? new FilterStep(this, k, next, step.fn)
            : new FlatMapStep(this, k, next, step.fn);
      steps.unshift(made);
      next = made;
    }
    this.steps = steps;
    this.first = steps[0]!;
  }

  processBatch(batch: RecordBatch<unknown>): void {
    const { values, timestamps } = batch;
    const keys = this.keepKeys ? batch.keys : undefined;
    const first = this.first;
    const n = values.length;
    // Sized for one output per input (the usual case): written by index, trimmed once.
    this.outValues = new Array(n);
    this.outTimestamps = new Array<number>(n);
    this.withKeys = keys !== undefined;
    if (keys !== undefined) this.outKeys = new Array(n);
    this.count = 0;
    for (let i = 0; i < n; i++) {
      this.timestamp = timestamps[i]!;
      if (keys !== undefined) this.key = keys[i];
      first.push(values[i]);
    }
    this.report();
    const count = this.count;
    if (count === 0) return;
    const out = this.outValues;
    const outTimestamps = this.outTimestamps;
    if (count < n) {
      out.length = count;
      outTimestamps.length = count;
      if (keys !== undefined) this.outKeys.length = count;
    }
    this.last.emit({
      values: out,
      timestamps: outTimestamps,
      keys: keys === undefined ? undefined : this.outKeys,
    });
  }

  /** The end of the last step: the record joins the output batch. */
  push(value: unknown): void {
    const j = this.count++;
    this.outValues[j] = value;
    this.outTimestamps[j] = this.timestamp;
    if (this.withKeys) this.outKeys[j] = this.key;
  }

  /** Adds the batch's counts between steps to their operators' metrics. */
  private report(): void {
    const { steps, fused } = this;
    for (let k = 1; k < steps.length; k++) {
      const n = steps[k]!.entered;
      if (n === 0) continue;
      fused[k]!.recordsIn?.inc(n);
      fused[k - 1]!.recordsOut?.inc(n);
    }
    for (const s of steps) s.entered = 0;
  }

  /** The error of step `k`'s user function on `value`; the batch in progress is dropped. */
  failed(k: number, what: string, value: unknown, cause: unknown): Error {
    for (const s of this.steps) {
      s.entered = 0;
      if (s instanceof FlatMapStep) s.produced.length = s.count = 0;
    }
    this.outValues = [];
    this.outTimestamps = [];
    this.outKeys = [];
    return userFunctionFailed(this.fused[k]!.operatorId, what, value, cause);
  }

  override setup(context: OperatorContext, output: Output<unknown>): void {
    this.head.setup(context, output);
  }
  override initializeState(state: RestoredState): void {
    this.head.initializeState(state);
  }
  override snapshotState(context: SnapshotContext): OperatorSnapshot | undefined {
    return this.head.snapshotState(context);
  }
  override notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    return this.head.notifyCheckpointComplete(checkpointId);
  }
  override open(): void {
    this.head.open();
  }
  override processWatermark(time: number): void {
    this.head.processWatermark(time);
  }
  override processIdle(): void {
    this.head.processIdle();
  }
  override endInput(): void {
    this.head.endInput();
  }
  override endOutput(): void {
    this.head.endOutput();
  }
  override close(): void | Promise<void> {
    return this.head.close();
  }
}
