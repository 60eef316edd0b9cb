import { invalidArgument } from '../core/errors.js';
import type { Evictor } from '../core/evictors.js';
import type { AggregateFunction, ReduceFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import { type Trigger, Triggers } from '../core/triggers.js';
import type { ProcessWindowFunction, WindowResult } from '../core/window-result.js';
import { type WindowAssigner, Windows } from '../core/windows.js';
import { describeAssigner } from '../plan/logical/describe.js';
import type { WindowAggregationSpec, WindowFiringSpec } from '../plan/logical/nodes.js';
import { addNodeRefs, type KeyedParts, type StreamRef } from './stream-builder.js';
import type { ChangelogStream, DataStream, WindowedStream } from './streams.js';

interface WindowSettings<T> {
  readonly trigger: Trigger<T> | undefined;
  readonly triggerLabel: string | undefined;
  readonly allowedLateness: number;
  readonly lateDataTag: OutputTag<T> | undefined;
  readonly processingTimeCloseMs: number | undefined;
  readonly queryable: boolean;
  readonly evictor: Evictor<T> | undefined;
  /** `windowAll`: the window's step runs at parallelism 1. */
  readonly oneSubtask: boolean;
}

/**
 * The windows of a keyed stream (`keyBy(...).window(...)` or `countWindow`);
 * count windows are a global window with a count trigger, and with a slide,
 * eviction down to the last `size` records. With `oneSubtask` (`windowAll`), the
 * window functions run at parallelism 1.
 */
export function windowedStream<T, K extends Key>(
  input: KeyedParts,
  assigner: WindowAssigner<T>,
  count?: { readonly size: number; readonly slide: number | undefined },
  oneSubtask = false,
): WindowedStream<T, K> {
  const settings = { ...DEFAULT_SETTINGS, oneSubtask };
  if (count === undefined)
    return new WindowedStreamImpl<T, K>(input, assigner, undefined, settings);
  const { size, slide } = count;
  if (!Number.isInteger(size) || size <= 0) {
    throw invalidArgument(`count window size must be a positive whole number, got ${size}`);
  }
  if (slide !== undefined && (!Number.isInteger(slide) || slide <= 0)) {
    throw invalidArgument(`count window slide must be a positive whole number, got ${slide}`);
  }
  if (slide === undefined) {
    return new WindowedStreamImpl<T, K>(input, Windows.global(), undefined, settings).withTrigger(
      Triggers.purging(Triggers.count<T>(size)),
      `count ${size}, purging`,
    );
  }
  return new WindowedStreamImpl<T, K>(input, Windows.global(), size, settings).withTrigger(
    Triggers.count<T>(slide),
    `count ${slide}, keep last ${size}`,
  );
}

const DEFAULT_SETTINGS: WindowSettings<never> = {
  trigger: undefined,
  triggerLabel: undefined,
  allowedLateness: 0,
  lateDataTag: undefined,
  processingTimeCloseMs: undefined,
  queryable: false,
  evictor: undefined,
  oneSubtask: false,
};

/** The implementation of {@link WindowedStream}: immutable settings over a keyed input. */
class WindowedStreamImpl<T, K extends Key> implements WindowedStream<T, K> {
  private readonly settings: WindowSettings<T>;

  constructor(
    private readonly input: KeyedParts,
    private readonly assigner: WindowAssigner<T>,
    /** Count windows with a slide keep only this many most recent records. */
    private readonly keepLast?: number,
    settings?: WindowSettings<T>,
  ) {
    this.settings = settings ?? DEFAULT_SETTINGS;
  }

  private with(
    change: Partial<WindowSettings<T>>,
    keepLast = this.keepLast,
  ): WindowedStreamImpl<T, K> {
    return new WindowedStreamImpl(this.input, this.assigner, keepLast, {
      ...this.settings,
      ...change,
    });
  }

  trigger(trigger: Trigger<T>): WindowedStream<T, K> {
    return this.withTrigger(trigger, 'custom');
  }

  /** Replaces the trigger, saying how it reads in a plan (`count 5, purging`). */
  withTrigger(trigger: Trigger<T>, label: string): WindowedStreamImpl<T, K> {
    if (trigger.onMerge === undefined && this.assigner.kind === 'session') {
      throw invalidArgument('session windows need a trigger that supports merging (onMerge)');
    }
    return this.with({ trigger, triggerLabel: label });
  }

  allowedLateness(ms: number): WindowedStream<T, K> {
    if (!Number.isFinite(ms) || ms < 0 || !Number.isInteger(ms)) {
      throw invalidArgument(`allowed lateness must be a whole number of ms >= 0, got ${ms}`);
    }
    return this.with({ allowedLateness: ms });
  }

  closeByProcessingTime(graceMs: number): WindowedStream<T, K> {
    if (!Number.isFinite(graceMs) || graceMs < 0) {
      throw invalidArgument(
        `processing-time close grace must be a number of ms >= 0, got ${graceMs}`,
      );
    }
    if (this.assigner.timeDomain !== 'event-time') {
      throw invalidArgument('closeByProcessingTime applies to event-time windows only');
    }
    return this.with({ processingTimeCloseMs: graceMs });
  }

  sideOutputLateData(tag: OutputTag<T>): WindowedStream<T, K> {
    return this.with({ lateDataTag: tag });
  }

  queryable(): WindowedStream<T, K> {
    return this.with({ queryable: true });
  }

  evictor(evictor: Evictor<T>): WindowedStream<T, K> {
    if (
      evictor === null ||
      typeof evictor !== 'object' ||
      (typeof evictor.evictBefore !== 'function' && typeof evictor.evictAfter !== 'function')
    ) {
      throw invalidArgument('evictor() needs an object with evictBefore and/or evictAfter');
    }
    // As Flink's countWindow(size, slide), whose eviction is an evictor the call replaces.
    return this.with({ evictor }, undefined);
  }

  reduce(fn: ReduceFunction<T>): DataStream<WindowResult<K, T>>;
  reduce<OUT>(fn: ReduceFunction<T>, windowFn: ProcessWindowFunction<T, OUT, K>): DataStream<OUT>;
  reduce<OUT>(
    fn: ReduceFunction<T>,
    windowFn?: ProcessWindowFunction<T, OUT, K>,
  ): DataStream<WindowResult<K, T>> | DataStream<OUT> {
    return this.build('window reduce', reducing(fn), windowFn);
  }

  aggregate<ACC, R>(fn: AggregateFunction<T, ACC, R>): DataStream<WindowResult<K, R>>;
  aggregate<ACC, R, OUT>(
    fn: AggregateFunction<T, ACC, R>,
    windowFn: ProcessWindowFunction<R, OUT, K>,
  ): DataStream<OUT>;
  aggregate<ACC, R, OUT>(
    fn: AggregateFunction<T, ACC, R>,
    windowFn?: ProcessWindowFunction<R, OUT, K>,
  ): DataStream<WindowResult<K, R>> | DataStream<OUT> {
    return this.build('window aggregate', this.aggregating(fn), windowFn);
  }

  aggregateChanges<ACC, R>(
    fn: AggregateFunction<T, ACC, R>,
    mode: 'retract' | 'upsert' = 'retract',
  ): ChangelogStream<WindowResult<K, R>> {
    const results = this.addWindow('window aggregate', this.aggregating(fn), { kind: 'result' });
    return this.input.builder.streams.windowChangelog<WindowResult<K, R>>(
      { builder: this.input.builder, refs: results },
      this.settings.allowedLateness,
      mode,
    );
  }

  reduceChanges(
    fn: ReduceFunction<T>,
    mode: 'retract' | 'upsert' = 'retract',
  ): ChangelogStream<WindowResult<K, T>> {
    const results = this.addWindow('window reduce', reducing(fn), { kind: 'result' });
    return this.input.builder.streams.windowChangelog<WindowResult<K, T>>(
      { builder: this.input.builder, refs: results },
      this.settings.allowedLateness,
      mode,
    );
  }

  process<OUT>(fn: ProcessWindowFunction<T, OUT, K>): DataStream<OUT> {
    if (typeof fn?.process !== 'function') {
      throw invalidArgument(
        'process() needs an object with a process(key, context, elements, out) method',
      );
    }
    return this.stream('window process', { kind: 'list' }, processing(fn, false));
  }

  /** The aggregation of `fn`, checked: sessions merge, so they need `fn.merge`. */
  private aggregating<ACC, R>(fn: AggregateFunction<T, ACC, R>): WindowAggregationSpec {
    if (typeof fn?.add !== 'function' || typeof fn.createAccumulator !== 'function') {
      throw invalidArgument(
        'aggregate() needs an object with createAccumulator, add and getResult',
      );
    }
    // With an evictor the window keeps records, so sessions merge lists, not accumulators.
    if (
      this.assigner.kind === 'session' &&
      fn.merge === undefined &&
      this.settings.evictor === undefined
    ) {
      throw invalidArgument(
        'aggregate() on session windows needs AggregateFunction.merge: sessions merge as records bridge them',
      );
    }
    return { kind: 'aggregate', fn: fn as AggregateFunction<unknown, unknown, unknown> };
  }

  private build<R, OUT>(
    name: string,
    aggregation: WindowAggregationSpec,
    windowFn: ProcessWindowFunction<R, OUT, K> | undefined,
  ): DataStream<WindowResult<K, R>> | DataStream<OUT> {
    return windowFn === undefined
      ? this.stream<WindowResult<K, R>>(name, aggregation, { kind: 'result' })
      : this.stream<OUT>(name, aggregation, processing(windowFn, true));
  }

  private stream<OUT>(
    name: string,
    aggregation: WindowAggregationSpec,
    firing: WindowFiringSpec,
  ): DataStream<OUT> {
    const refs = this.addWindow(name, aggregation, firing);
    return this.input.builder.streams.dataStream<OUT>(this.input.builder, refs);
  }

  /** Adds the window node at parallelism 1 for `windowAll`. */
  private addWindow(
    name: string,
    aggregation: WindowAggregationSpec,
    firing: WindowFiringSpec,
  ): StreamRef[] {
    const refs = this.addWindowNode(name, aggregation, firing);
    if (this.settings.oneSubtask)
      this.input.builder.streams.dataStream<unknown>(this.input.builder, refs).setParallelism(1);
    return refs;
  }

  /** Adds the window node; the planner chooses the operator that runs it. */
  private addWindowNode(
    name: string,
    aggregation: WindowAggregationSpec,
    firing: WindowFiringSpec,
  ): StreamRef[] {
    const { assigner, settings, keepLast, input } = this;
    const label = `${name} (${describeAssigner(assigner)})`;
    return addNodeRefs(
      input.builder,
      {
        kind: 'window',
        assigner: assigner as WindowAssigner<unknown>,
        trigger: settings.trigger as Trigger<unknown> | undefined,
        triggerLabel: settings.triggerLabel,
        aggregation,
        firing,
        allowedLateness: settings.allowedLateness,
        lateDataTag: settings.lateDataTag as OutputTag<unknown> | undefined,
        processingTimeCloseMs: settings.processingTimeCloseMs,
        queryable: settings.queryable,
        keepLast,
        evictor: settings.evictor as Evictor<unknown> | undefined,
        label,
      },
      label,
      input.refs,
      input.partitioning,
      { stateful: true, keyed: true },
    );
  }
}

/** A window reduce's aggregation. */
function reducing<T>(fn: ReduceFunction<T>): WindowAggregationSpec {
  return { kind: 'reduce', fn: fn as ReduceFunction<unknown> };
}

/** Calls of a user window function: with the aggregate (`incremental`) or all records. */
function processing<IN, OUT, K extends Key>(
  fn: ProcessWindowFunction<IN, OUT, K>,
  incremental: boolean,
): WindowFiringSpec {
  return {
    kind: 'process',
    fn: fn as unknown as ProcessWindowFunction<unknown, unknown, Key>,
    incremental,
  };
}
