import type { Collector } from './functions.js';
import type { OutputTag } from './output-tag.js';

/**
 * Complex event processing contracts: a pattern described as data. The
 * pattern API builds a {@link PatternSpec}; the runtime compiles it into an
 * NFA. Only the conditions are functions; everything else (stages, their
 * order, contiguity, quantifiers, windows, skip strategy) is plain data, so a
 * query planner can produce the same description and a test harness can send
 * it to another engine.
 */

/** What a condition sees besides the event: the events the partial match already holds. */
export interface CepConditionContext<T> {
  /** Events matched so far for `stage`, oldest first; empty if none. Do not mutate. */
  eventsFor(stage: string): readonly T[];
  /** Event time (or processing time) of the event being tested. */
  readonly timestamp: number;
}

/** A condition over one event; `ctx` makes it iterative. */
export type CepCondition<T> = (event: T, ctx: CepConditionContext<T>) => boolean;

/** A condition as a tree, so combinations stay inspectable. */
export type ConditionSpec<T> =
  | { readonly kind: 'where'; readonly fn: CepCondition<T>; readonly label?: string }
  | { readonly kind: 'subtype'; readonly guard: (event: T) => boolean; readonly label?: string }
  | { readonly kind: 'and'; readonly parts: readonly ConditionSpec<T>[] }
  | { readonly kind: 'or'; readonly parts: readonly ConditionSpec<T>[] };

/**
 * How a stage follows the one before it.
 * - `strict`: the very next event (`next`).
 * - `relaxed`: the next matching event; events that do not match are skipped (`followedBy`).
 * - `any`: any later matching event; every choice is a separate match (`followedByAny`).
 * - `not-next`: the next event must not match (`notNext`).
 * - `not-followed-by`: no matching event before the following stage (`notFollowedBy`).
 */
export type Contiguity = 'strict' | 'relaxed' | 'any' | 'not-next' | 'not-followed-by';

/** How the events of one looping or repeated stage follow each other. */
export type InnerContiguity = 'strict' | 'relaxed' | 'any';

export interface QuantifierSpec {
  /** Fewest events (or group repetitions); 1 for a plain stage. */
  readonly min: number;
  /** Most events; `Infinity` for `oneOrMore` and `timesOrMore`. */
  readonly max: number;
  /** The stage may be skipped entirely. */
  readonly optional: boolean;
  /** Take as many events as possible before moving on. */
  readonly greedy: boolean;
  /** Between the repeated events; default `relaxed`. */
  readonly inner: InnerContiguity;
}

/** One stage of a pattern: a single-event stage, or a group of stages. */
export interface StageSpec<T> {
  readonly name: string;
  /** How the stage follows the previous one; the first stage's is ignored. */
  readonly contiguity: Contiguity;
  readonly quantifier: QuantifierSpec;
  /** The condition an event must meet; absent means every event. Unused for groups. */
  readonly condition?: ConditionSpec<T>;
  /** For looping stages: an event meeting it ends the loop (and is not taken by it). */
  readonly until?: ConditionSpec<T>;
  /** For group stages: the stages repeated as a unit. */
  readonly group?: PatternSpec<T>;
  /**
   * A per-stage window (Flink's `WithinType.PREVIOUS_AND_CURRENT`): a partial
   * match waiting for this stage's event times out this many milliseconds
   * after the event it took last. Only on a stage that takes one event (plain
   * or optional), `notNext` and a trailing `notFollowedBy`, where Flink CEP
   * applies it.
   */
  readonly withinPreviousMs?: number;
}

/** What happens to other partial matches once a match is emitted. */
export type SkipStrategySpec =
  | { readonly kind: 'no-skip' }
  | { readonly kind: 'skip-to-next' }
  | { readonly kind: 'skip-past-last-event' }
  | { readonly kind: 'skip-to-first'; readonly stage: string; readonly throwOnMiss: boolean }
  | { readonly kind: 'skip-to-last'; readonly stage: string; readonly throwOnMiss: boolean };

/** A whole pattern as data. */
export interface PatternSpec<T> {
  readonly stages: readonly StageSpec<T>[];
  /** A match must end less than this many milliseconds after its first event (Flink's `WithinType.FIRST_AND_LAST`). */
  readonly withinMs?: number;
  readonly skip: SkipStrategySpec;
}

/**
 * Orders events of one timestamp before they enter the NFA, as Flink's
 * `EventComparator`: negative if `a` comes first, positive if `b` does, 0 to
 * keep their arrival order.
 */
export type EventComparator<T> = (a: T, b: T) => number;

/** The events of one match by stage name, oldest first; a stage that took no event has `[]`. */
export type MatchEvents<T> = Readonly<Record<string, readonly T[]>>;

/** A partial match that ran out of time (`within`): the events matched so far. */
export interface TimedOutMatch<T> {
  readonly events: MatchEvents<T>;
  /**
   * When it timed out: its first event's time plus the window, or for a
   * per-stage window, its last event's time plus that window.
   */
  readonly timeoutTimestamp: number;
}

/** What a pattern process function may do besides emitting matches. */
export interface PatternProcessContext {
  /** Time of the event (or timer) that completed the match, or of the timeout. */
  readonly timestamp: number;
  currentProcessingTime(): number;
  /** Emits to a side output. */
  output<S>(tag: OutputTag<S>, value: S): void;
}

/** Turns matches (and, optionally, timed-out partial matches) into output records. */
export interface PatternProcessFunction<T, OUT> {
  processMatch(match: MatchEvents<T>, ctx: PatternProcessContext, out: Collector<OUT>): void;
  /** Partial matches that `within` cut short; `ctx.timestamp` is the timeout time. */
  processTimedOutMatch?(match: MatchEvents<T>, ctx: PatternProcessContext): void;
}
