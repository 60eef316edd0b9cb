import type {
  CepConditionContext,
  ConditionSpec,
  Contiguity,
  PatternSpec,
  QuantifierSpec,
  SkipStrategySpec,
  StageSpec,
} from '../../core/cep.js';
import { invalidArgument } from '../../core/errors.js';

/** Stage names of a pattern mapped to the type of event each stage takes. */
export type StageTypes = { readonly [stage: string]: unknown };

/** The events of a match, by stage: `match.fail` is the `fail` stage's events, oldest first. */
export type Match<S extends StageTypes> = { readonly [K in keyof S]: readonly S[K][] };

/** What an iterative condition sees: the events the partial match already holds. */
export interface PatternContext<S extends StageTypes> {
  /** Events matched so far for `stage` (empty if none). */
  eventsFor<K extends keyof S & string>(stage: K): readonly S[K][];
  /** Time of the event being tested. */
  readonly timestamp: number;
}

/** After a match, which other partial matches are discarded. */
export const AfterMatchSkipStrategy = {
  /** Keep every partial match: every match is emitted. */
  noSkip(): SkipStrategySpec {
    return { kind: 'no-skip' };
  },
  /** Discard partial matches that began with the same event as the match. */
  skipToNext(): SkipStrategySpec {
    return { kind: 'skip-to-next' };
  },
  /** Discard partial matches that began at or before the match's last event. */
  skipPastLastEvent(): SkipStrategySpec {
    return { kind: 'skip-past-last-event' };
  },
  /** Discard partial matches that began before the first event of `stage` in the match. */
  skipToFirst(stage: string, options: { readonly throwOnMiss?: boolean } = {}): SkipStrategySpec {
    return { kind: 'skip-to-first', stage, throwOnMiss: options.throwOnMiss ?? false };
  },
  /** Discard partial matches that began before the last event of `stage` in the match. */
  skipToLast(stage: string, options: { readonly throwOnMiss?: boolean } = {}): SkipStrategySpec {
    return { kind: 'skip-to-last', stage, throwOnMiss: options.throwOnMiss ?? false };
  },
} as const;

const ONE: QuantifierSpec = { min: 1, max: 1, optional: false, greedy: false, inner: 'relaxed' };

type Condition<E, S extends StageTypes> = (event: E, ctx: PatternContext<S>) => boolean;

/** Adds a stage named `N` taking events of type `E`. */
type With<S extends StageTypes, N extends string, E> = S & { readonly [K in N]: E };

/** Replaces the event type of stage `L`. */
type Narrow<S extends StageTypes, L extends keyof S, U> = Omit<S, L> & { readonly [K in L]: U };

/** A marker for "the last stage is a group": conditions do not apply to it. */
declare const groupStage: unique symbol;
type GroupStage = typeof groupStage;

/** Any last stage of a pattern with stages `S`: a stage name, or a group. */
export type LastStage<S extends StageTypes> = (keyof S & string) | GroupStage;

let groupCounter = 0;

/** A pattern of any stages, as methods that take a group see it. */
// biome-ignore lint/suspicious/noExplicitAny: the stage map of a group is checked by the public overloads
type AnyPattern<T> = Pattern<T, any, any>;

/**
 * A pattern over events of type `T`, built stage by stage. `S` maps stage
 * names to the event type each takes (narrowed by `subtype`), `L` is the stage
 * the condition and quantifier methods apply to. Every method returns a new
 * pattern; {@link toSpec} gives the pattern as data.
 *
 * @example
 * ```ts
 * const p = Pattern.begin<Login>('fail').where((e) => !e.ok).times(3)
 *   .followedBy('success').where((e, ctx) => e.ok && e.country !== ctx.eventsFor('fail')[0]?.country)
 *   .within(Time.minutes(10));
 * ```
 */
export class Pattern<T, S extends StageTypes, L extends (keyof S & string) | GroupStage> {
  private constructor(
    private readonly stages: readonly StageSpec<T>[],
    private readonly skipStrategy: SkipStrategySpec,
    private readonly withinMs: number | undefined,
  ) {}

  /**
   * Starts a pattern over `T` with a first stage named `name`, or with a group
   * (a pattern repeated or made optional as a unit). Give the stage name as a
   * type argument too (`Pattern.begin<Login, 'fail'>('fail')`) to have stage
   * names checked; with `T` alone any name is accepted.
   */
  static begin<T, N extends string = string>(
    name: N,
    skip?: SkipStrategySpec,
  ): Pattern<T, { readonly [K in N]: T }, N>;
  static begin<T, G extends StageTypes>(
    group: Pattern<T, G, (keyof G & string) | GroupStage>,
    skip?: SkipStrategySpec,
  ): Pattern<T, G, GroupStage>;
  static begin<T>(
    first: string | AnyPattern<T>,
    skip: SkipStrategySpec = AfterMatchSkipStrategy.noSkip(),
  ): unknown {
    return new Pattern<T, StageTypes, string>([], skip, undefined).add(first, 'strict');
  }

  /** The pattern as data, for the runtime (and for any other engine that runs it). */
  toSpec(): PatternSpec<T> {
    return {
      stages: this.stages,
      skip: this.skipStrategy,
      ...(this.withinMs === undefined ? {} : { withinMs: this.withinMs }),
    };
  }

  private add(
    next: string | AnyPattern<T>,
    contiguity: Contiguity,
  ): Pattern<T, StageTypes, string> {
    let stage: StageSpec<T>;
    if (typeof next === 'string') {
      if (next.length === 0) throw invalidArgument('a pattern stage needs a non-empty name');
      stage = { name: next, contiguity, quantifier: ONE };
    } else {
      if (!(next instanceof Pattern)) {
        throw invalidArgument('a pattern stage is a name or a Pattern (a group)');
      }
      if (contiguity === 'not-next' || contiguity === 'not-followed-by') {
        throw invalidArgument('a group cannot be negated');
      }
      stage = {
        name: `(group ${++groupCounter})`,
        contiguity,
        quantifier: ONE,
        group: next.toSpec(),
      };
    }
    return new Pattern<T, StageTypes, string>(
      [...this.stages, stage],
      this.skipStrategy,
      this.withinMs,
    );
  }

  private withLast(change: (stage: StageSpec<T>) => StageSpec<T>): Pattern<T, S, L> {
    const last = this.stages[this.stages.length - 1]!;
    return new Pattern<T, S, L>(
      [...this.stages.slice(0, -1), change(last)],
      this.skipStrategy,
      this.withinMs,
    );
  }

  private quantify(change: (q: QuantifierSpec, name: string) => QuantifierSpec): Pattern<T, S, L> {
    return this.withLast((s) => {
      if (s.contiguity === 'not-next' || s.contiguity === 'not-followed-by') {
        throw invalidArgument(`negated stage '${s.name}' cannot be quantified`);
      }
      return { ...s, quantifier: change(s.quantifier, s.name) };
    });
  }

  private conditioned(
    what: string,
    change: (stage: StageSpec<T>) => StageSpec<T>,
  ): Pattern<T, S, L> {
    return this.withLast((s) => {
      if (s.group !== undefined) throw invalidArgument(`${what}() does not apply to a group`);
      return change(s);
    });
  }

  // -- stages ---------------------------------------------------------------

  /** The next stage must take the very next event (strict contiguity). */
  next<N extends string>(name: N): Pattern<T, With<S, N, T>, N>;
  next<G extends StageTypes>(
    group: Pattern<T, G, (keyof G & string) | GroupStage>,
  ): Pattern<T, S & G, GroupStage>;
  next(next: string | AnyPattern<T>): unknown {
    return this.add(next, 'strict');
  }

  /** The next stage takes the next matching event; others in between are skipped (relaxed). */
  followedBy<N extends string>(name: N): Pattern<T, With<S, N, T>, N>;
  followedBy<G extends StageTypes>(
    group: Pattern<T, G, (keyof G & string) | GroupStage>,
  ): Pattern<T, S & G, GroupStage>;
  followedBy(next: string | AnyPattern<T>): unknown {
    return this.add(next, 'relaxed');
  }

  /** The next stage may take any later matching event; each choice is its own match. */
  followedByAny<N extends string>(name: N): Pattern<T, With<S, N, T>, N>;
  followedByAny<G extends StageTypes>(
    group: Pattern<T, G, (keyof G & string) | GroupStage>,
  ): Pattern<T, S & G, GroupStage>;
  followedByAny(next: string | AnyPattern<T>): unknown {
    return this.add(next, 'any');
  }

  /** The event right after the previous stage must not meet this stage's condition. */
  notNext<N extends string>(name: N): Pattern<T, With<S, N, T>, N> {
    return this.add(name, 'not-next') as never;
  }

  /** No event meeting this stage's condition may come between the stages around it. */
  notFollowedBy<N extends string>(name: N): Pattern<T, With<S, N, T>, N> {
    return this.add(name, 'not-followed-by') as never;
  }

  // -- conditions -----------------------------------------------------------

  /** The stage's events must also meet `condition` (combined with AND). */
  where(condition: Condition<L extends keyof S ? S[L] : never, S>): Pattern<T, S, L> {
    const where = asSpec<T>(condition);
    return this.conditioned('where', (s) => ({
      ...s,
      condition: s.condition === undefined ? where : { kind: 'and', parts: [s.condition, where] },
    }));
  }

  /** The stage's events meet the conditions so far, or `condition`. */
  or(condition: Condition<L extends keyof S ? S[L] : never, S>): Pattern<T, S, L> {
    const or = asSpec<T>(condition);
    return this.conditioned('or', (s) => ({
      ...s,
      condition: s.condition === undefined ? or : { kind: 'or', parts: [s.condition, or] },
    }));
  }

  /** Only events that `guard` accepts; the stage's events are typed `U` from here on. */
  subtype<U extends T>(
    guard: (event: T) => event is U,
  ): L extends keyof S ? Pattern<T, Narrow<S, L, U>, L> : never {
    const spec: ConditionSpec<T> = { kind: 'subtype', guard };
    return this.conditioned('subtype', (s) => ({
      ...s,
      condition: s.condition === undefined ? spec : { kind: 'and', parts: [s.condition, spec] },
    })) as never;
  }

  /** Ends a looping stage (`oneOrMore`, `timesOrMore`) at the first event meeting `condition`. */
  until(condition: Condition<T, S>): Pattern<T, S, L> {
    return this.conditioned('until', (s) => ({ ...s, until: asSpec<T>(condition) }));
  }

  // -- quantifiers ----------------------------------------------------------

  /** Exactly `n` events (or `from` to `to`). */
  times(n: number, to?: number): Pattern<T, S, L> {
    const from = n;
    const max = to ?? n;
    if (!Number.isInteger(from) || from < 1 || !Number.isInteger(max) || max < from) {
      throw invalidArgument(`times() needs whole numbers 1 <= from <= to, got ${from}, ${max}`);
    }
    return this.quantify((q) => ({ ...q, min: from, max }));
  }

  /** At least `n` events. */
  timesOrMore(n: number): Pattern<T, S, L> {
    if (!Number.isInteger(n) || n < 1) {
      throw invalidArgument(`timesOrMore() needs a whole number >= 1, got ${n}`);
    }
    return this.quantify((q) => ({ ...q, min: n, max: Number.POSITIVE_INFINITY }));
  }

  /** One or more events. */
  oneOrMore(): Pattern<T, S, L> {
    return this.quantify((q) => ({ ...q, min: 1, max: Number.POSITIVE_INFINITY }));
  }

  /** The stage may take no event at all. */
  optional(): Pattern<T, S, L> {
    return this.quantify((q) => ({ ...q, optional: true }));
  }

  /** Repeat as often as possible before moving on. */
  greedy(): Pattern<T, S, L> {
    return this.quantify((q, name) => {
      if (q.max === 1) throw invalidArgument(`greedy() on '${name}' needs a quantifier`);
      return { ...q, greedy: true };
    });
  }

  /** The repeated events must follow each other directly (strict inner contiguity). */
  consecutive(): Pattern<T, S, L> {
    return this.quantify((q, name) => {
      if (q.max === 1) throw invalidArgument(`consecutive() on '${name}' needs a quantifier`);
      return { ...q, inner: 'strict' };
    });
  }

  /** Any combination of the matching events counts (non-deterministic inner contiguity). */
  allowCombinations(): Pattern<T, S, L> {
    return this.quantify((q, name) => {
      if (q.max === 1) throw invalidArgument(`allowCombinations() on '${name}' needs a quantifier`);
      return { ...q, inner: 'any' };
    });
  }

  // -- whole pattern --------------------------------------------------------

  /**
   * A time window, as Flink CEP's `within(duration, withinType)`:
   * - `'firstAndLast'` (the default): a match must end less than `ms`
   *   milliseconds after its first event. Given more than once, the smallest
   *   window holds, as in Flink.
   * - `'previousAndCurrent'`: the event of the last stage so far must come
   *   less than `ms` after the event taken before it; a partial match waiting
   *   for it longer times out (stamped with that event's time plus `ms`). As
   *   Flink applies it: on a stage that takes one event (plain or optional;
   *   while an optional relaxed stage waits after skipping events, Flink does
   *   not check it), `notNext`, and a trailing `notFollowedBy` (which then
   *   completes `ms` after the last event). Flink ignores it on quantified
   *   stages, groups and `notFollowedBy` between stages, so there it is
   *   refused. It may not exceed a `'firstAndLast'` window.
   */
  within(ms: number, type: WithinType = 'firstAndLast'): Pattern<T, S, L> {
    if (!(ms > 0)) throw invalidArgument(`within() needs a positive duration, got ${ms}`);
    if (type === 'previousAndCurrent') {
      // Where Flink would ignore it, the compiler refuses it (with the reason).
      return this.withLast((s) => ({ ...s, withinPreviousMs: ms }));
    }
    if (type !== 'firstAndLast') {
      throw invalidArgument(
        `within() takes 'firstAndLast' or 'previousAndCurrent', got '${String(type)}'`,
      );
    }
    const window = this.withinMs === undefined ? ms : Math.min(this.withinMs, ms);
    return new Pattern<T, S, L>(this.stages, this.skipStrategy, window);
  }

  /** What is discarded after a match (default: nothing). */
  skip(strategy: SkipStrategySpec): Pattern<T, S, L> {
    return new Pattern<T, S, L>(this.stages, strategy, this.withinMs);
  }
}

/**
 * Which window `within(ms, type)` sets: from a match's first event to its
 * last, or from each event to the one before it (Flink's
 * `WithinType.FIRST_AND_LAST` and `WithinType.PREVIOUS_AND_CURRENT`).
 */
export type WithinType = 'firstAndLast' | 'previousAndCurrent';

/** Any condition the typed methods accept; its parameter types were checked there. */
function asSpec<T>(fn: Condition<never, never>): ConditionSpec<T> {
  if (typeof fn !== 'function') throw invalidArgument('a pattern condition must be a function');
  return { kind: 'where', fn: fn as (event: T, ctx: CepConditionContext<T>) => boolean };
}
