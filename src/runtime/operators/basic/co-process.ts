import type {
  CoFlatMapFunction,
  CoMapFunction,
  CoProcessFunction,
  KeyedCoFlatMapFunction,
  KeyedCoMapFunction,
  KeyedCoProcessFunction,
} from '../../../core/co-functions.js';
import type { Collector, OnTimerContext, ProcessFunction } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import { ProcessOperator } from './process.js';

/**
 * Runs a co-process function over two non-keyed inputs: input 0 goes to
 * `processElement1`, input 1 to `processElement2`. Everything else (context,
 * side outputs, operator state, the watermark) is the process operator's.
 */
export class CoProcessOperator<IN1, IN2, OUT> extends ProcessOperator<IN1, OUT> {
  /** Which input the batch being processed came from; read by the adapted function. */
  private readonly route: { second: boolean };

  constructor(fn: CoProcessFunction<IN1, IN2, OUT>) {
    // The process operator calls processElement: route it by input.
    const route = { second: false };
    const adapted = Object.create(fn) as CoProcessFunction<IN1, IN2, OUT> &
      ProcessFunction<IN1, OUT>;
    adapted.processElement = function (this: typeof adapted, value, ctx, out) {
      if (route.second) this.processElement2(value as unknown as IN2, ctx, out);
      else this.processElement1(value, ctx, out);
    };
    super(adapted);
    this.route = route;
  }

  override processSecondBatch(batch: RecordBatch<unknown>): void {
    this.route.second = true;
    try {
      this.processBatch(batch as RecordBatch<IN1>);
    } finally {
      this.route.second = false;
    }
  }
}

/** A user's function over connected streams, as its logical node holds it. */
export type CoFunctionSpec =
  | { readonly kind: 'map'; readonly fn: CoMapFunction<never, never, unknown> }
  | { readonly kind: 'flat-map'; readonly fn: CoFlatMapFunction<never, never, unknown> }
  | { readonly kind: 'process'; readonly fn: CoProcessFunction<never, never, unknown> };

/** A user's function over keyed connected streams, as its logical node holds it. */
export type KeyedCoFunctionSpec =
  | { readonly kind: 'map'; readonly fn: KeyedCoMapFunction<never, never, unknown> }
  | { readonly kind: 'flat-map'; readonly fn: KeyedCoFlatMapFunction<never, never, unknown> }
  | { readonly kind: 'process'; readonly fn: KeyedCoProcessFunction<Key, never, never, unknown> };

/** What the operators call, whatever the user's function was. */
type Runner = CoProcessFunction<unknown, unknown, unknown> &
  KeyedCoProcessFunction<Key, unknown, unknown, unknown>;

/** The part of every user's co-function the runners call alike. */
interface Lifecycle {
  open?(context: never): void;
  close?(): void;
}

/**
 * Runs the user's function on an instance of its own (one runner per operator,
 * so per subtask), so the operators' per-subtask fields never land on the
 * user's object and fields it sets in `open` stay per subtask.
 */
abstract class CoRunner<F extends Lifecycle> {
  protected readonly fn: F;
  constructor(fn: F) {
    this.fn = Object.create(fn) as F;
  }
  open(context: never): void {
    this.fn.open?.(context);
  }
  close(): void {
    this.fn.close?.();
  }
}

interface MapLike extends Lifecycle {
  map1(value: unknown): unknown;
  map2(value: unknown): unknown;
}

class MapRunner extends CoRunner<MapLike> {
  processElement1(value: unknown, _ctx: unknown, out: Collector<unknown>): void {
    out.collect(this.fn.map1(value));
  }
  processElement2(value: unknown, _ctx: unknown, out: Collector<unknown>): void {
    out.collect(this.fn.map2(value));
  }
}

interface FlatMapLike extends Lifecycle {
  flatMap1(value: unknown, out: Collector<unknown>): void;
  flatMap2(value: unknown, out: Collector<unknown>): void;
}

class FlatMapRunner extends CoRunner<FlatMapLike> {
  processElement1(value: unknown, _ctx: unknown, out: Collector<unknown>): void {
    this.fn.flatMap1(value, out);
  }
  processElement2(value: unknown, _ctx: unknown, out: Collector<unknown>): void {
    this.fn.flatMap2(value, out);
  }
}

type ProcessLike = Lifecycle & KeyedCoProcessFunction<Key, unknown, unknown, unknown>;

class ProcessRunner extends CoRunner<ProcessLike> {
  processElement1(value: unknown, ctx: never, out: Collector<unknown>): void {
    this.fn.processElement1(value, ctx, out);
  }
  processElement2(value: unknown, ctx: never, out: Collector<unknown>): void {
    this.fn.processElement2(value, ctx, out);
  }
  onTimer(timestamp: number, ctx: OnTimerContext<Key>, out: Collector<unknown>): void {
    this.fn.onTimer?.(timestamp, ctx, out);
  }
}

/** A fresh runner of `spec`'s function, for one operator instance. */
export function coFunctionRunner(spec: CoFunctionSpec | KeyedCoFunctionSpec): Runner {
  switch (spec.kind) {
    case 'map':
      return new MapRunner(spec.fn as unknown as MapLike) as unknown as Runner;
    case 'flat-map':
      return new FlatMapRunner(spec.fn as unknown as FlatMapLike) as unknown as Runner;
    case 'process':
      return new ProcessRunner(spec.fn as unknown as ProcessLike) as unknown as Runner;
  }
}
