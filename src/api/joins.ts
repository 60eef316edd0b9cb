import { invalidArgument } from '../core/errors.js';
import type { JoinSides } from '../core/joins.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { RecordWindows, RecordWindowsOfSides, WindowAssigner } from '../core/windows.js';
import type { IntervalJoinNode, WindowJoinApply } from '../plan/logical/nodes.js';
import {
  type CoGroupWindowFunction,
  type FixedWindows,
  fixedWindowsOf,
  keyedWindowsOf,
  type ProcessJoinFunction,
} from '../plan/logical/specs.js';
import { addTwoInputNode, type KeyedParts, keyedBy, type StreamParts } from './stream-builder.js';
import type {
  DataStream,
  IntervalJoin,
  IntervalJoined,
  TwoStreams,
  TwoStreamsEqualTo,
  TwoStreamsWhere,
  WindowCoGroup,
  WindowJoin,
} from './streams.js';

function checkKeySelector(fn: unknown, method: string): void {
  if (typeof fn !== 'function') {
    throw invalidArgument(`${method}() needs a key selector function, e.g. (r) => r.id`);
  }
}

type Mode = 'join' | 'coGroup';

/** The implementation of {@link TwoStreams}: `a.join(b)` or `a.coGroup(b)`. */
export class TwoStreamsImpl<L, R, M extends Mode> implements TwoStreams<L, R, M> {
  constructor(
    private readonly left: StreamParts,
    private readonly right: StreamParts,
    private readonly mode: M,
  ) {}

  where<K extends Key>(keyOfLeft: (left: L) => K): TwoStreamsWhere<L, R, K, M> {
    checkKeySelector(keyOfLeft, 'where');
    return new TwoStreamsWhereImpl(this.left, this.right, this.mode, keyOfLeft);
  }
}

/** The implementation of {@link TwoStreamsWhere}: a window join with the first stream's key. */
class TwoStreamsWhereImpl<L, R, K extends Key, M extends Mode>
  implements TwoStreamsWhere<L, R, K, M>
{
  constructor(
    private readonly left: StreamParts,
    private readonly right: StreamParts,
    private readonly mode: M,
    private readonly keyOfLeft: (left: L) => K,
  ) {}

  equalTo(keyOfRight: (right: R) => K): TwoStreamsEqualTo<L, R, K, M> {
    checkKeySelector(keyOfRight, 'equalTo');
    return new TwoStreamsEqualToImpl(this.left, this.right, this.mode, this.keyOfLeft, keyOfRight);
  }
}

/** The implementation of {@link TwoStreamsEqualTo}: a window join with both keys. */
class TwoStreamsEqualToImpl<L, R, K extends Key, M extends Mode>
  implements TwoStreamsEqualTo<L, R, K, M>
{
  constructor(
    private readonly left: StreamParts,
    private readonly right: StreamParts,
    private readonly mode: M,
    private readonly keyOfLeft: (left: L) => K,
    private readonly keyOfRight: (right: R) => K,
  ) {}

  window(
    assigner: WindowAssigner<never> | RecordWindowsOfSides<L, R>,
  ): M extends 'join' ? WindowJoin<L, R, K> : WindowCoGroup<L, R, K> {
    const windows = joinWindowsOf(assigner, this.mode);
    const settings: WindowJoinSettings<L, R, K> = {
      left: this.left,
      right: this.right,
      keyOfLeft: this.keyOfLeft,
      keyOfRight: this.keyOfRight,
      windows,
      leftLateTag: undefined,
      rightLateTag: undefined,
    };
    const windowed: WindowJoin<L, R, K> | WindowCoGroup<L, R, K> =
      this.mode === 'join' ? new WindowJoinImpl(settings) : new WindowCoGroupImpl(settings);
    return windowed as M extends 'join' ? WindowJoin<L, R, K> : WindowCoGroup<L, R, K>;
  }
}

interface WindowJoinSettings<L, R, K extends Key> {
  readonly left: StreamParts;
  readonly right: StreamParts;
  readonly keyOfLeft: (left: L) => K;
  readonly keyOfRight: (right: R) => K;
  readonly windows: JoinWindows;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
  readonly ownLateness?: JoinSides;
}

/** Fixed windows, event-time sessions with a fixed gap, or windows each side's records name. */
type JoinWindows = FixedWindows | { readonly gap: number } | RecordWindowsOfSides<never, never>;

function joinWindowsOf(
  windows: WindowAssigner<never> | RecordWindowsOfSides<never, never>,
  mode: Mode,
): JoinWindows {
  if (windows !== null && typeof windows === 'object' && 'left' in windows) {
    const what = `${mode}.window()`;
    keyedWindowsOf(windows.left as RecordWindows<never>, `${what} left`);
    keyedWindowsOf(windows.right as RecordWindows<never>, `${what} right`);
    return windows;
  }
  return windows?.kind === 'session' && windows.timeDomain === 'event-time'
    ? { gap: sessionGap(windows.gap, mode) }
    : fixedWindowsOf(windows, `${mode}.window()`);
}

function sessionGap(gap: number | ((value: never) => number), mode: Mode): number {
  if (typeof gap !== 'number') {
    throw invalidArgument(
      `${mode}.window() supports session windows with a fixed gap, not a dynamic gap`,
    );
  }
  return gap;
}

/** What window joins and co-groups share: their settings and the late-data tags. */
abstract class WindowedTwoStreams<L, R, K extends Key> {
  constructor(protected readonly settings: WindowJoinSettings<L, R, K>) {}

  protected abstract with(settings: WindowJoinSettings<L, R, K>): this;

  sideOutputLeftLateData(tag: OutputTag<L>): this {
    return this.with({ ...this.settings, leftLateTag: tag });
  }

  sideOutputRightLateData(tag: OutputTag<R>): this {
    return this.with({ ...this.settings, rightLateTag: tag });
  }

  /** See {@link judgingLatenessByInput}. */
  withOwnLateness(sides: JoinSides): this {
    return this.with({ ...this.settings, ownLateness: sides });
  }

  protected build<OUT>(name: string, apply: WindowJoinApply): DataStream<OUT> {
    const s = this.settings;
    return addTwoInputNode<OUT>(
      s.left,
      s.right,
      {
        kind: 'window-join',
        windows: s.windows,
        apply,
        leftLateTag: s.leftLateTag as OutputTag<unknown> | undefined,
        rightLateTag: s.rightLateTag as OutputTag<unknown> | undefined,
        ownLateness: s.ownLateness,
      },
      name,
      [keyedBy(s.keyOfLeft, 'where'), keyedBy(s.keyOfRight, 'equalTo')],
      { keyed: true, stateful: true },
    );
  }
}

/**
 * Internal (Weir SQL): a window co-group whose `sides` are judged late by their own input's
 * watermark, not the join's (runtime/operators/joins/window-join.ts says when that matters).
 */
export function judgingLatenessByInput<L, R, K extends Key>(
  coGroup: WindowCoGroup<L, R, K>,
  sides: JoinSides,
): WindowCoGroup<L, R, K> {
  if (!(coGroup instanceof WindowedTwoStreams))
    throw new TypeError('judgingLatenessByInput needs a window co-group of this library');
  return (coGroup as WindowCoGroupImpl<L, R, K>).withOwnLateness(sides);
}

/** The implementation of {@link WindowJoin}. */
class WindowJoinImpl<L, R, K extends Key>
  extends WindowedTwoStreams<L, R, K>
  implements WindowJoin<L, R, K>
{
  protected with(settings: WindowJoinSettings<L, R, K>): this {
    return new WindowJoinImpl(settings) as this;
  }

  apply<OUT>(join: (left: L, right: R) => OUT): DataStream<OUT> {
    if (typeof join !== 'function')
      throw invalidArgument('apply() needs a function (left, right) => result');
    return this.build('window join', {
      kind: 'join',
      fn: join as (left: never, right: never) => unknown,
    });
  }
}

/** The implementation of {@link WindowCoGroup}. */
class WindowCoGroupImpl<L, R, K extends Key>
  extends WindowedTwoStreams<L, R, K>
  implements WindowCoGroup<L, R, K>
{
  protected with(settings: WindowJoinSettings<L, R, K>): this {
    return new WindowCoGroupImpl(settings) as this;
  }

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
  readonly left: KeyedParts;
  readonly right: KeyedParts;
  readonly lower: number;
  readonly upper: number;
  readonly lowerExclusive: boolean;
  readonly upperExclusive: boolean;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
}

/** The implementation of {@link IntervalJoin}: two keyed inputs, waiting for their bounds. */
export class IntervalJoinImpl<L, R, K extends Key> implements IntervalJoin<L, R, K> {
  constructor(
    private readonly left: KeyedParts,
    private readonly right: KeyedParts,
  ) {}

  between(lower: number, upper: number): IntervalJoined<L, R, K> {
    if (!Number.isInteger(lower) || !Number.isInteger(upper) || lower > upper) {
      throw invalidArgument(
        `intervalJoin().between(lower, upper) needs whole numbers of ms with lower <= upper, got (${lower}, ${upper})`,
      );
    }
    return new IntervalJoinedImpl({
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

/** The implementation of {@link IntervalJoined}: an interval join's immutable settings. */
class IntervalJoinedImpl<L, R, K extends Key> implements IntervalJoined<L, R, K> {
  constructor(private readonly settings: IntervalJoinSettings<L, R>) {}

  lowerBoundExclusive(): IntervalJoined<L, R, K> {
    return new IntervalJoinedImpl({ ...this.settings, lowerExclusive: true });
  }

  upperBoundExclusive(): IntervalJoined<L, R, K> {
    return new IntervalJoinedImpl({ ...this.settings, upperExclusive: true });
  }

  sideOutputLeftLateData(tag: OutputTag<L>): IntervalJoined<L, R, K> {
    return new IntervalJoinedImpl({ ...this.settings, leftLateTag: tag });
  }

  sideOutputRightLateData(tag: OutputTag<R>): IntervalJoined<L, R, K> {
    return new IntervalJoinedImpl({ ...this.settings, rightLateTag: tag });
  }

  join<OUT>(join: (left: L, right: R) => OUT): DataStream<OUT> {
    if (typeof join !== 'function') {
      throw invalidArgument('join() needs a function (left, right) => result');
    }
    return this.process<OUT>((l, r, _ctx, out) => out.collect(join(l, r)));
  }

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
    return addTwoInputNode<OUT>(
      s.left,
      s.right,
      { kind: 'interval-join', spec: spec as unknown as IntervalJoinNode['spec'] },
      'interval join',
      [s.left.partitioning, s.right.partitioning],
      { keyed: true, stateful: true },
    );
  }
}
