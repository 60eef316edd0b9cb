import { invalidArgument } from '../core/errors.js';
import type { AggregateFunction, ReduceFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { Operator } from '../core/operator.js';
import type { OutputTag } from '../core/output-tag.js';
import { type Trigger, Triggers } from '../core/triggers.js';
import type { ProcessWindowFunction, WindowResult } from '../core/window-result.js';
import type { WindowAssigner } from '../core/windows.js';
import {
  LocalWindowCombiner,
  type LocalWindowElement,
} from '../runtime/windowing/local-window-combiner.js';
import { gcd, SliceWindowOperator } from '../runtime/windowing/slice-window-operator.js';
import {
  aggregateAggregation,
  evictingAggregation,
  listAggregation,
  processFiring,
  reduceAggregation,
  resultFiring,
  type WindowAggregation,
  type WindowFiring,
} from '../runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../runtime/windowing/window-operator.js';
import type { ChangelogStream } from './changelog-stream.js';
import type { DataStream, KeyedStream, TwoPhaseDecision } from './data-stream.js';

/** Accumulators a two-phase window's local half holds before it flushes them all. */
const LOCAL_COMBINER_MAX_ENTRIES = 65_536;

interface WindowSettings<T> {
  readonly trigger: Trigger<T> | undefined;
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
    if (trigger.onMerge === undefined && this.assigner.kind === 'session') {
      throw invalidArgument('session windows need a trigger that supports merging (onMerge)');
    }
    return this.with({ trigger });
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
    return this.build('window reduce', reduceAggregation(fn), windowFn);
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
    return this.build('window aggregate', aggregateAggregation(fn), windowFn);
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
    return this.buildWith<T[], T[], OUT>(
      'window process',
      listAggregation<T>(),
      () => processFiring<K, T, OUT>(fn, false) as WindowFiring<Key, T[], OUT>,
    );
  }

  private build<ACC, R, OUT>(
    name: string,
    aggregation: WindowAggregation<T, ACC, R>,
    windowFn: ProcessWindowFunction<R, OUT, K> | undefined,
  ): DataStream<WindowResult<K, R>> | DataStream<OUT> {
    if (windowFn === undefined) {
      return this.buildWith<ACC, R, WindowResult<K, R>>(
        name,
        aggregation,
        () => resultFiring<K, R>() as unknown as WindowFiring<Key, R, WindowResult<K, R>>,
      );
    }
    return this.buildWith<ACC, R, OUT>(
      name,
      aggregation,
      () => processFiring<K, R, OUT>(windowFn, true) as WindowFiring<Key, R, OUT>,
    );
  }

  private buildWith<ACC, R, OUT>(
    name: string,
    aggregation: WindowAggregation<T, ACC, R>,
    firing: () => WindowFiring<Key, R, OUT>,
  ): DataStream<OUT> {
    const { assigner, settings, keepLast } = this;
    const { allowedLateness, lateDataTag, processingTimeCloseMs } = settings;
    const label = `${name} (${describeAssigner(assigner)})`;
    // Time windows with the default trigger share per-slice partial aggregates
    // (sliding windows need `merge` to combine slices).
    const sliceable =
      settings.trigger === undefined &&
      keepLast === undefined &&
      assigner.timeDomain === 'event-time' &&
      (assigner.kind === 'tumbling' ||
        (assigner.kind === 'sliding' && aggregation.merge !== undefined));
    if (sliceable && (assigner.kind === 'tumbling' || assigner.kind === 'sliding')) {
      const slide = assigner.kind === 'sliding' ? assigner.slide : assigner.size;
      const create = (twoPhase?: TwoPhaseDecision) => () =>
        new SliceWindowOperator<T, ACC, R, OUT>({
          size: assigner.size,
          slide,
          offset: assigner.offset,
          allowedLateness,
          lateDataTag,
          aggregation,
          firing: firing(),
          processingTimeCloseMs,
          ...(twoPhase === undefined ? {} : { localFolding: twoPhase.folding }),
        }) as Operator<T, OUT>;
      // A wall-clock close could fire a window before a partial reaches it.
      if (aggregation.foldsLocally !== true || processingTimeCloseMs !== undefined) {
        return this.input.addKeyedOperator<OUT>(label, create());
      }
      const twoPhase: TwoPhaseDecision = { folding: false };
      return this.input.addTwoPhaseKeyedOperator<OUT, LocalWindowElement<T, ACC>>(
        label,
        (selectKey) =>
          new LocalWindowCombiner<T, ACC>({
            pane: gcd(assigner.size, slide),
            offset: assigner.offset,
            aggregation,
            selectKey,
            folding: twoPhase.folding,
            maxEntries: LOCAL_COMBINER_MAX_ENTRIES,
          }),
        twoPhase,
        create(twoPhase),
      );
    }
    const trigger = settings.trigger ?? defaultTrigger(assigner);
    const contents =
      keepLast === undefined
        ? (aggregation as WindowAggregation<T, unknown, R>)
        : (evictingAggregation(aggregation, keepLast) as WindowAggregation<T, unknown, R>);
    return this.input.addKeyedOperator<OUT>(
      label,
      () =>
        new WindowOperator<T, unknown, R, OUT>({
          assigner,
          trigger,
          allowedLateness,
          lateDataTag,
          aggregation: contents,
          firing: firing(),
          processingTimeCloseMs,
        }) as Operator<T, OUT>,
    );
  }
}

function defaultTrigger<T>(assigner: WindowAssigner<T>): Trigger<T> {
  if (assigner.kind === 'global') return Triggers.never<T>();
  return assigner.timeDomain === 'event-time'
    ? Triggers.eventTime<T>()
    : Triggers.processingTime<T>();
}

function describeAssigner(a: WindowAssigner<unknown>): string {
  switch (a.kind) {
    case 'tumbling':
      return `tumbling ${a.size}ms`;
    case 'sliding':
      return `sliding ${a.size}ms/${a.slide}ms`;
    case 'session':
      return typeof a.gap === 'number' ? `session ${a.gap}ms` : 'session (dynamic gap)';
    case 'global':
      return 'global';
  }
}
