import { invalidArgument } from '../core/errors.js';
import type { AggregateFunction, ReduceFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { Trigger } from '../core/triggers.js';
import type { ProcessWindowFunction, WindowResult } from '../core/window-result.js';
import type { WindowAssigner } from '../core/windows.js';
import { describeAssigner } from '../plan/logical/describe.js';
import type { WindowAggregationSpec, WindowFiringSpec } from '../plan/logical/nodes.js';
import type { ChangelogStream } from './changelog-stream.js';
import type { DataStream, KeyedStream } from './data-stream.js';

interface WindowSettings<T> {
  readonly trigger: Trigger<T> | undefined;
  readonly triggerLabel: string | undefined;
  readonly allowedLateness: number;
  readonly lateDataTag: OutputTag<T> | undefined;
  readonly processingTimeCloseMs: number | undefined;
}

/**
 * A keyed stream grouped into windows. Configure with `trigger`,
 * `allowedLateness` and `sideOutputLateData`, then finish with a window
 * function: `reduce`, `aggregate` or `process`.
 */
export class WindowedStream<T, K extends Key> {
  private readonly settings: WindowSettings<T>;

  /** @internal */
  constructor(
    private readonly input: KeyedStream<T, K>,
    private readonly assigner: WindowAssigner<T>,
    /** Count windows with a slide keep only this many most recent records. */
    private readonly keepLast?: number,
    settings?: WindowSettings<T>,
  ) {
    this.settings = settings ?? {
      trigger: undefined,
      triggerLabel: undefined,
      allowedLateness: 0,
      lateDataTag: undefined,
      processingTimeCloseMs: undefined,
    };
  }

  private with(change: Partial<WindowSettings<T>>): WindowedStream<T, K> {
    return new WindowedStream(this.input, this.assigner, this.keepLast, {
      ...this.settings,
      ...change,
    });
  }

  /** Replaces the assigner's default trigger (event time, processing time, or never for global windows). */
  trigger(trigger: Trigger<T>): WindowedStream<T, K> {
    return this.withTrigger(trigger, 'custom');
  }

  /** @internal Replaces the trigger, saying how it reads in a plan (`count 5, purging`). */
  withTrigger(trigger: Trigger<T>, label: string): WindowedStream<T, K> {
    if (trigger.onMerge === undefined && this.assigner.kind === 'session') {
      throw invalidArgument('session windows need a trigger that supports merging (onMerge)');
    }
    return this.with({ trigger, triggerLabel: label });
  }

  /**
   * Keeps each event-time window for `ms` after it fired. A late record within
   * that time updates the window and its result is emitted again, marked as an update.
   */
  allowedLateness(ms: number): WindowedStream<T, K> {
    if (!Number.isFinite(ms) || ms < 0 || !Number.isInteger(ms)) {
      throw invalidArgument(`allowed lateness must be a whole number of ms >= 0, got ${ms}`);
    }
    return this.with({ allowedLateness: ms });
  }

  /**
   * Closes windows by the wall clock when event time stalls: once the
   * watermark trails the wall clock by more than `graceMs` (no newer events
   * arrive), event time advances to `now - graceMs` and the windows that ended
   * before it fire. Off by default; for live streams whose event time tracks
   * wall-clock time, never for replays of old data.
   */
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

  /** Records too late for any window go to this side output (they are counted either way). */
  sideOutputLateData(tag: OutputTag<T>): WindowedStream<T, K> {
    return this.with({ lateDataTag: tag });
  }

  /** Combines each window's records pairwise; emits one result per key and window. */
  reduce(fn: ReduceFunction<T>): DataStream<WindowResult<K, T>>;
  reduce<OUT>(fn: ReduceFunction<T>, windowFn: ProcessWindowFunction<T, OUT, K>): DataStream<OUT>;
  reduce<OUT>(
    fn: ReduceFunction<T>,
    windowFn?: ProcessWindowFunction<T, OUT, K>,
  ): DataStream<WindowResult<K, T>> | DataStream<OUT> {
    return this.build(
      'window reduce',
      { kind: 'reduce', fn: fn as ReduceFunction<unknown> },
      windowFn,
    );
  }

  /** Folds each window's records into an accumulator incrementally. */
  aggregate<ACC, R>(fn: AggregateFunction<T, ACC, R>): DataStream<WindowResult<K, R>>;
  aggregate<ACC, R, OUT>(
    fn: AggregateFunction<T, ACC, R>,
    windowFn: ProcessWindowFunction<R, OUT, K>,
  ): DataStream<OUT>;
  aggregate<ACC, R, OUT>(
    fn: AggregateFunction<T, ACC, R>,
    windowFn?: ProcessWindowFunction<R, OUT, K>,
  ): DataStream<WindowResult<K, R>> | DataStream<OUT> {
    if (typeof fn?.add !== 'function' || typeof fn.createAccumulator !== 'function') {
      throw invalidArgument(
        'aggregate() needs an object with createAccumulator, add and getResult',
      );
    }
    if (this.assigner.kind === 'session' && fn.merge === undefined) {
      throw invalidArgument(
        'aggregate() on session windows needs AggregateFunction.merge: sessions merge as records bridge them',
      );
    }
    return this.build(
      'window aggregate',
      { kind: 'aggregate', fn: fn as AggregateFunction<unknown, unknown, unknown> },
      windowFn,
    );
  }

  /**
   * Like `aggregate`, but the results come as a changelog keyed by (key,
   * window): a window's first firing is `+I`; a later firing of the same
   * window (after an early firing, or a late update within the allowed
   * lateness) is `-U previous, +U new` (`retract`, default) or `+U new`
   * (`upsert`). A window's last result is kept in keyed state until the
   * watermark passes its end plus the allowed lateness.
   */
  aggregateChanges<ACC, R>(
    fn: AggregateFunction<T, ACC, R>,
    mode: 'retract' | 'upsert' = 'retract',
  ): ChangelogStream<WindowResult<K, R>> {
    const results = this.aggregate(fn);
    return results.builder.changelogs.windowChangelog(results, this.settings.allowedLateness, mode);
  }

  /** Like `reduce`, but the results come as a changelog; see {@link aggregateChanges}. */
  reduceChanges(
    fn: ReduceFunction<T>,
    mode: 'retract' | 'upsert' = 'retract',
  ): ChangelogStream<WindowResult<K, T>> {
    const results = this.reduce(fn);
    return results.builder.changelogs.windowChangelog(results, this.settings.allowedLateness, mode);
  }

  /** Calls `fn` with all records of a window when it fires. */
  process<OUT>(fn: ProcessWindowFunction<T, OUT, K>): DataStream<OUT> {
    if (typeof fn?.process !== 'function') {
      throw invalidArgument(
        'process() needs an object with a process(key, context, elements, out) method',
      );
    }
    return this.buildWith<OUT>('window process', { kind: 'list' }, processing(fn, false));
  }

  private build<R, OUT>(
    name: string,
    aggregation: WindowAggregationSpec,
    windowFn: ProcessWindowFunction<R, OUT, K> | undefined,
  ): DataStream<WindowResult<K, R>> | DataStream<OUT> {
    return windowFn === undefined
      ? this.buildWith<WindowResult<K, R>>(name, aggregation, { kind: 'result' })
      : this.buildWith<OUT>(name, aggregation, processing(windowFn, true));
  }

  /** Adds the window node; the planner chooses the operator that runs it. */
  private buildWith<OUT>(
    name: string,
    aggregation: WindowAggregationSpec,
    firing: WindowFiringSpec,
  ): DataStream<OUT> {
    const { assigner, settings, keepLast } = this;
    const label = `${name} (${describeAssigner(assigner)})`;
    return this.input.addKeyedNode<OUT>(
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
        keepLast,
        label,
      },
      label,
    );
  }
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
