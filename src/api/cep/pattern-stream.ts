import type {
  EventComparator,
  MatchEvents,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSpec,
} from '../../core/cep.js';
import { invalidArgument } from '../../core/errors.js';
import type { Collector } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { StateSerializer } from '../../core/state.js';
import type { CepOperatorSpec } from '../../runtime/operators/cep/cep-operator.js';
import { compileNfa } from '../../runtime/operators/cep/nfa-compiler.js';
import { DataStreamImpl } from '../data-stream.js';
import { implOf } from '../impl-of.js';
import { KeyedStreamImpl } from '../keyed-stream.js';
import { addKeyedNode, type KeyedParts } from '../stream-builder.js';
import type { DataStream, KeyedStream } from '../streams.js';
import type { LastStage, Match, Pattern, StageTypes } from './pattern.js';

/** A partial match that `within` cut short, as the timed-out side output carries it. */
export interface TimedOut<S extends StageTypes> {
  /** The events matched so far; stages not reached have `[]`. */
  readonly match: Match<S>;
  /**
   * The first event's time plus the window, or, when a per-stage window
   * (`within(ms, 'previousAndCurrent')`) ran out, the last event's time plus that window.
   */
  readonly timeoutTimestamp: number;
}

/** Turns typed matches into output records; see {@link PatternStream.process}. */
export interface MatchProcessFunction<S extends StageTypes, OUT> {
  processMatch(match: Match<S>, ctx: PatternProcessContext, out: Collector<OUT>): void;
  /** Partial matches that `within` cut short; `ctx.timestamp` is the timeout time. */
  processTimedOutMatch?(match: Match<S>, ctx: PatternProcessContext): void;
}

interface Settings<T> {
  readonly timeDomain: 'event-time' | 'processing-time';
  readonly comparator?: EventComparator<T>;
  readonly lateTag?: OutputTag<T>;
  readonly eventSerializer?: StateSerializer<T>;
}

/**
 * A pattern applied to a stream: choose how matches become records with
 * `select`, `flatSelect` or `process`. Matches are per key (all records form
 * one key on a non-keyed stream). Event time is the default: records are
 * matched in timestamp order once the watermark passes them.
 */
export class PatternStream<T, S extends StageTypes> {
  /** @internal */
  constructor(
    private readonly input: KeyedParts,
    private readonly pattern: PatternSpec<T>,
    private readonly settings: Settings<T>,
  ) {}

  /** Matches records in arrival order, stamped with the processing time. */
  inProcessingTime(): PatternStream<T, S> {
    return new PatternStream(this.input, this.pattern, {
      ...this.settings,
      timeDomain: 'processing-time',
    });
  }

  /** Matches records in timestamp order as the watermark passes them (the default). */
  inEventTime(): PatternStream<T, S> {
    return new PatternStream(this.input, this.pattern, {
      ...this.settings,
      timeDomain: 'event-time',
    });
  }

  /** Records at or behind the watermark go to `tag` (they are counted in `weir_cep_late_records_total` either way). */
  sideOutputLateData(tag: OutputTag<T>): PatternStream<T, S> {
    return new PatternStream(this.input, this.pattern, { ...this.settings, lateTag: tag });
  }

  /** How events are written into checkpoints (default: as JSON). */
  withEventSerializer(serializer: StateSerializer<T>): PatternStream<T, S> {
    return new PatternStream(this.input, this.pattern, {
      ...this.settings,
      eventSerializer: serializer,
    });
  }

  /** The most general form: a function called with every match and, if it has `processTimedOutMatch`, every timeout. */
  process<R>(fn: MatchProcessFunction<S, R>): DataStream<R> {
    if (typeof fn?.processMatch !== 'function') {
      throw invalidArgument(
        'process() needs an object with a processMatch(match, ctx, out) method',
      );
    }
    return this.build(fn as unknown as PatternProcessFunction<T, R>);
  }

  /**
   * One record per match. With `timedOut`, partial matches cut short by
   * `within` go to that side output.
   */
  select<R>(
    fn: (match: Match<S>) => R,
    options: { readonly timedOut?: OutputTag<TimedOut<S>> } = {},
  ): DataStream<R> {
    const tag = options.timedOut;
    return this.build<R>({
      processMatch: (match, _ctx, out) => out.collect(fn(match as Match<S>)),
      ...timeoutTo<S>(tag),
    });
  }

  /** Any number of records per match. */
  flatSelect<R>(
    fn: (match: Match<S>, out: Collector<R>) => void,
    options: { readonly timedOut?: OutputTag<TimedOut<S>> } = {},
  ): DataStream<R> {
    const tag = options.timedOut;
    return this.build<R>({
      processMatch: (match, _ctx, out) => fn(match as Match<S>, out),
      ...timeoutTo<S>(tag),
    });
  }

  private build<R>(fn: PatternProcessFunction<T, R>): DataStream<R> {
    // Compiling here reports a pattern the NFA cannot run where the job is built.
    compileNfa(this.pattern);
    const spec: CepOperatorSpec<T, R> = {
      pattern: this.pattern,
      fn,
      timeDomain: this.settings.timeDomain,
      ...(this.settings.lateTag === undefined ? {} : { lateTag: this.settings.lateTag }),
      ...(this.settings.comparator === undefined ? {} : { comparator: this.settings.comparator }),
      ...(this.settings.eventSerializer === undefined
        ? {}
        : { eventSerializer: this.settings.eventSerializer }),
    };
    return addKeyedNode<R>(
      this.input,
      { kind: 'cep', spec: spec as unknown as CepOperatorSpec<unknown, unknown> },
      'cep',
    );
  }
}

function timeoutTo<S extends StageTypes>(
  tag: OutputTag<TimedOut<S>> | undefined,
): Pick<PatternProcessFunction<unknown, unknown>, 'processTimedOutMatch'> {
  if (tag === undefined) return {};
  return {
    processTimedOutMatch: (match: MatchEvents<unknown>, ctx: PatternProcessContext) =>
      ctx.output(tag, { match: match as Match<S>, timeoutTimestamp: ctx.timestamp }),
  };
}

/** How `CEP.pattern` runs a pattern besides the pattern itself. */
export interface CepOptions<T> {
  /** Orders records of one timestamp (Flink's `EventComparator`); default: arrival order. */
  readonly comparator?: EventComparator<T>;
}

/** Applies patterns to streams. */
export const CEP = {
  /**
   * Runs `pattern` on `stream`: per key on a keyed stream, over all records
   * (as one key, so in one subtask) otherwise. Records of one timestamp enter
   * the NFA in arrival order, or, with `options.comparator`, in the order it
   * gives (ties it leaves keep arrival order), as Flink's
   * `CEP.pattern(input, pattern, comparator)`: in event time once the
   * watermark passes them, in processing time the records of one millisecond
   * together, once the clock has moved past it.
   */
  pattern<T, S extends StageTypes, K extends Key>(
    stream: KeyedStream<T, K> | DataStream<T>,
    pattern: Pattern<T, S, LastStage<S>>,
    options: CepOptions<T> = {},
  ): PatternStream<T, S> {
    const spec = pattern.toSpec();
    const comparator = options.comparator;
    if (comparator !== undefined && typeof comparator !== 'function') {
      throw invalidArgument(
        'CEP.pattern(): options.comparator must be a function (a, b) => number',
      );
    }
    const keyed =
      stream instanceof KeyedStreamImpl
        ? (stream as KeyedStreamImpl<T, K>)
        : implOf(
            implOf(stream, DataStreamImpl, 'CEP.pattern').keyBy(() => 0, 'cep-all'),
            KeyedStreamImpl,
            'CEP.pattern',
          );
    return new PatternStream<T, S>(keyed, spec, {
      timeDomain: 'event-time',
      ...(comparator === undefined ? {} : { comparator }),
    });
  },
};
