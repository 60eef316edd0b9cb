import { invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { WindowAssigner } from '../core/windows.js';
import type { IntervalJoinNode, Partitioning, WindowJoinApply } from '../plan/logical/nodes.js';
import {
  type CoGroupWindowFunction,
  type FixedWindows,
  fixedWindowsOf,
  type ProcessJoinFunction,
} from '../plan/logical/specs.js';
import { type DataStream, keyedBy } from './data-stream.js';

export type {
  CoGroupWindowFunction,
  IntervalJoinContext,
  ProcessJoinFunction,
} from '../plan/logical/specs.js';

function checkKeySelector(fn: unknown, method: string): void {
  if (typeof fn !== 'function') {
    throw invalidArgument(`${method}() needs a key selector function, e.g. (r) => r.id`);
  }
}

type Mode = 'join' | 'coGroup';

/**
 * `a.join(b)` or `a.coGroup(b)`: name the key of the first stream with `where`,
 * the key of the second with `equalTo`, then the windows.
 */
export class TwoStreams<L, R, M extends Mode> {
  /** @internal */
  constructor(
    private readonly left: DataStream<L>,
    private readonly right: DataStream<R>,
    private readonly mode: M,
  ) {}

  /** The key of the first stream's records. */
  where<K extends Key>(keyOfLeft: (left: L) => K): TwoStreamsWhere<L, R, K, M> {
    checkKeySelector(keyOfLeft, 'where');
    return new TwoStreamsWhere(this.left, this.right, this.mode, keyOfLeft);
  }
}

export class TwoStreamsWhere<L, R, K extends Key, M extends Mode> {
  /** @internal */
  constructor(
    private readonly left: DataStream<L>,
    private readonly right: DataStream<R>,
    private readonly mode: M,
    private readonly keyOfLeft: (left: L) => K,
  ) {}

  /** The key of the second stream's records; records join when the keys are equal (`===`). */
  equalTo(keyOfRight: (right: R) => K): TwoStreamsEqualTo<L, R, K, M> {
    checkKeySelector(keyOfRight, 'equalTo');
    return new TwoStreamsEqualTo(this.left, this.right, this.mode, this.keyOfLeft, keyOfRight);
  }
}

export class TwoStreamsEqualTo<L, R, K extends Key, M extends Mode> {
  /** @internal */
  constructor(
    private readonly left: DataStream<L>,
    private readonly right: DataStream<R>,
    private readonly mode: M,
    private readonly keyOfLeft: (left: L) => K,
    private readonly keyOfRight: (right: R) => K,
  ) {}

  /**
   * The event-time windows both streams are cut into: `Windows.tumbling`,
   * `Windows.sliding` or `Windows.session(gap)` (sessions over the records of
   * both streams together). Records meet only within a window.
   */
  window(
    assigner: WindowAssigner<never>,
  ): M extends 'join' ? WindowJoin<L, R, K> : WindowCoGroup<L, R, K> {
    const windows: JoinWindows =
      assigner?.kind === 'session' && assigner.timeDomain === 'event-time'
        ? { gap: sessionGap(assigner.gap, this.mode) }
        : fixedWindowsOf(assigner, `${this.mode}.window()`);
    const settings: WindowJoinSettings<L, R, K> = {
      left: this.left,
      right: this.right,
      keyOfLeft: this.keyOfLeft,
      keyOfRight: this.keyOfRight,
      windows,
      leftLateTag: undefined,
      rightLateTag: undefined,
    };
    return (
      this.mode === 'join' ? new WindowJoin(settings) : new WindowCoGroup(settings)
    ) as M extends 'join' ? WindowJoin<L, R, K> : WindowCoGroup<L, R, K>;
  }
}

interface WindowJoinSettings<L, R, K extends Key> {
  readonly left: DataStream<L>;
  readonly right: DataStream<R>;
  readonly keyOfLeft: (left: L) => K;
  readonly keyOfRight: (right: R) => K;
  readonly windows: JoinWindows;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
}

/** Fixed windows, or event-time sessions with a fixed gap. */
type JoinWindows = FixedWindows | { readonly gap: number };

function sessionGap(gap: number | ((value: never) => number), mode: Mode): number {
  if (typeof gap !== 'number') {
    throw invalidArgument(
      `${mode}.window() supports session windows with a fixed gap, not a dynamic gap`,
    );
  }
  return gap;
}

abstract class WindowedTwoStreams<L, R, K extends Key> {
  /** @internal */
  constructor(protected readonly settings: WindowJoinSettings<L, R, K>) {}

  protected abstract with(settings: WindowJoinSettings<L, R, K>): this;

  /** First-stream records that arrive after all their windows fired go to `tag` (they are always counted). */
  sideOutputLeftLateData(tag: OutputTag<L>): this {
    return this.with({ ...this.settings, leftLateTag: tag });
  }

  /** Second-stream records that arrive after all their windows fired go to `tag`. */
  sideOutputRightLateData(tag: OutputTag<R>): this {
    return this.with({ ...this.settings, rightLateTag: tag });
  }

  protected build<OUT>(name: string, apply: WindowJoinApply): DataStream<OUT> {
    const s = this.settings;
    return s.left.addTwoInputNode<OUT>(
      {
        kind: 'window-join',
        windows: s.windows,
        apply,
        leftLateTag: s.leftLateTag as OutputTag<unknown> | undefined,
        rightLateTag: s.rightLateTag as OutputTag<unknown> | undefined,
      },
      name,
      s.right,
      [keyedBy(s.keyOfLeft, 'where'), keyedBy(s.keyOfRight, 'equalTo')],
      { keyed: true, stateful: true },
    );
  }
}

/**
 * A window join: every pair (left, right) with equal keys in the same window,
 * emitted when the window fires (the watermark, the minimum of both inputs,
 * passes the window's last timestamp), stamped with that last timestamp.
 */
export class WindowJoin<L, R, K extends Key> extends WindowedTwoStreams<L, R, K> {
  protected with(settings: WindowJoinSettings<L, R, K>): this {
    return new WindowJoin(settings) as this;
  }

  /** Emits `join(left, right)` for every pair. */
  apply<OUT>(join: (left: L, right: R) => OUT): DataStream<OUT> {
    if (typeof join !== 'function')
      throw invalidArgument('apply() needs a function (left, right) => result');
    return this.build('window join', {
      kind: 'join',
      fn: join as (left: never, right: never) => unknown,
    });
  }
}

/**
 * A window co-group: once per fired window and key, the records of both
 * sides (either list may be empty, so outer joins can be written with it).
 */
export class WindowCoGroup<L, R, K extends Key> extends WindowedTwoStreams<L, R, K> {
  protected with(settings: WindowJoinSettings<L, R, K>): this {
    return new WindowCoGroup(settings) as this;
  }

  /** Calls `fn(lefts, rights, out, { key, window })` per fired window and key. */
  apply<OUT>(fn: CoGroupWindowFunction<K, L, R, OUT>): DataStream<OUT> {
    if (typeof fn !== 'function') {
      throw invalidArgument('apply() needs a function (lefts, rights, out, context) => void');
    }
    return this.build('window coGroup', {
      kind: 'co-group',
      fn: fn as unknown as CoGroupWindowFunction<Key, never, never, unknown>,
    });
  }
}

interface IntervalJoinSettings<L, R> {
  readonly left: KeyedInput<L>;
  readonly right: KeyedInput<R>;
  readonly lower: number;
  readonly upper: number;
  readonly lowerExclusive: boolean;
  readonly upperExclusive: boolean;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
}

/** @internal A keyed stream as a join input: its records and how they are partitioned. */
export interface KeyedInput<T> {
  readonly stream: DataStream<T>;
  readonly partitioning: Partitioning;
}

/** `left.keyBy(k).intervalJoin(right.keyBy(k))`: set the bounds with `between`. */
export class IntervalJoin<L, R, K extends Key> {
  /** @internal */
  constructor(
    private readonly left: KeyedInput<L>,
    private readonly right: KeyedInput<R>,
  ) {}

  /**
   * A right record joins a left record with the same key when
   * `left.t + lower <= right.t <= left.t + upper` (both bounds inclusive,
   * in ms, either may be negative; `lower <= upper`).
   */
  between(lower: number, upper: number): IntervalJoined<L, R, K> {
    if (!Number.isInteger(lower) || !Number.isInteger(upper) || lower > upper) {
      throw invalidArgument(
        `intervalJoin().between(lower, upper) needs whole numbers of ms with lower <= upper, got (${lower}, ${upper})`,
      );
    }
    return new IntervalJoined({
      left: this.left,
      right: this.right,
      lower,
      upper,
      lowerExclusive: false,
      upperExclusive: false,
      leftLateTag: undefined,
      rightLateTag: undefined,
    });
  }
}

/**
 * An interval join with its bounds: finish with `join` or `process`. Late
 * records (at or behind the watermark) of either side are never joined: they
 * are counted in `weir_join_late_records_total` and go to the late-data tag
 * of their side if set.
 */
export class IntervalJoined<L, R, K extends Key> {
  /** @internal */
  constructor(private readonly settings: IntervalJoinSettings<L, R>) {}

  /** Makes the lower bound exclusive: `left.t + lower < right.t`. */
  lowerBoundExclusive(): IntervalJoined<L, R, K> {
    return new IntervalJoined({ ...this.settings, lowerExclusive: true });
  }

  /** Makes the upper bound exclusive: `right.t < left.t + upper`. */
  upperBoundExclusive(): IntervalJoined<L, R, K> {
    return new IntervalJoined({ ...this.settings, upperExclusive: true });
  }

  /** Late left records go to `tag`. */
  sideOutputLeftLateData(tag: OutputTag<L>): IntervalJoined<L, R, K> {
    return new IntervalJoined({ ...this.settings, leftLateTag: tag });
  }

  /** Late right records go to `tag`. */
  sideOutputRightLateData(tag: OutputTag<R>): IntervalJoined<L, R, K> {
    return new IntervalJoined({ ...this.settings, rightLateTag: tag });
  }

  /** Emits `join(left, right)` for every pair, stamped with the larger of the two timestamps. */
  join<OUT>(join: (left: L, right: R) => OUT): DataStream<OUT> {
    if (typeof join !== 'function') {
      throw invalidArgument('join() needs a function (left, right) => result');
    }
    return this.process<OUT>((l, r, _ctx, out) => out.collect(join(l, r)));
  }

  /** Calls `fn(left, right, context, out)` for every pair (context: key, both timestamps, side outputs). */
  process<OUT>(fn: ProcessJoinFunction<K, L, R, OUT>): DataStream<OUT> {
    if (typeof fn !== 'function') {
      throw invalidArgument('process() needs a function (left, right, context, out) => void');
    }
    const s = this.settings;
    const lower = s.lowerExclusive ? s.lower + 1 : s.lower;
    const upper = s.upperExclusive ? s.upper - 1 : s.upper;
    if (lower > upper) {
      throw invalidArgument(
        `intervalJoin(): with exclusive bounds the interval (${s.lower}, ${s.upper}) is empty`,
      );
    }
    const spec = { lower, upper, fn, leftLateTag: s.leftLateTag, rightLateTag: s.rightLateTag };
    return s.left.stream.addTwoInputNode<OUT>(
      { kind: 'interval-join', spec: spec as unknown as IntervalJoinNode['spec'] },
      'interval join',
      s.right.stream,
      [s.left.partitioning, s.right.partitioning],
      { keyed: true, stateful: true },
    );
  }
}
