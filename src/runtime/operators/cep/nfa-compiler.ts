import type {
  CepConditionContext,
  ConditionSpec,
  Contiguity,
  InnerContiguity,
  PatternSpec,
  StageSpec,
} from '../../../core/cep.js';
import { invalidArgument } from '../../../core/errors.js';

/** A compiled condition; `undefined` stands for "always". */
export type Test<T> = ((event: T, ctx: CepConditionContext<T>) => boolean) | undefined;

/**
 * - `take`: the event joins the partial match, which moves to `target`.
 * - `ignore`: the event is skipped; the partial match waits in `target`.
 * - `proceed`: moves to `target` without consuming the event (the same event
 *   is then tried there); a proceed to the stop state ends the partial match.
 */
export type EdgeAction = 'take' | 'ignore' | 'proceed';

export interface NfaEdge<T> {
  readonly action: EdgeAction;
  readonly target: number;
  readonly test: Test<T>;
}

/** `pending`: a trailing `notFollowedBy` waiting for the window to close (then it is a match). */
export type NfaStateKind = 'normal' | 'final' | 'stop' | 'pending';

export interface NfaState<T> {
  readonly id: number;
  /** The stage whose events this state takes. */
  readonly stage: string;
  readonly kind: NfaStateKind;
  readonly edges: NfaEdge<T>[];
  /**
   * A per-stage window (`within(ms, 'previousAndCurrent')`): a partial match
   * waiting here times out this long after the event it took last; 0 if none.
   */
  readonly windowMs: number;
}

/** The NFA of a pattern: states and edges as data, plus what the runtime needs. */
export interface Nfa<T> {
  readonly states: readonly NfaState<T>[];
  readonly start: number;
  readonly final: number;
  readonly stop: number;
  /** Names of the stages, in pattern order, each once (repeated groups share names). */
  readonly stageNames: readonly string[];
  readonly withinMs: number;
  /** Whether any state has a per-stage window (see {@link NfaState.windowMs}). */
  readonly stateWindows: boolean;
}

const ALWAYS = undefined;

function compileCondition<T>(spec: ConditionSpec<T> | undefined): Test<T> {
  if (spec === undefined) return ALWAYS;
  switch (spec.kind) {
    case 'where':
      return spec.fn;
    case 'subtype': {
      const guard = spec.guard;
      return (event) => guard(event);
    }
    case 'and': {
      const parts = spec.parts.map(compileCondition).filter((p) => p !== undefined);
      if (parts.length === 0) return ALWAYS;
      if (parts.length === 1) return parts[0];
      return (event, ctx) => {
        for (const p of parts) if (!p(event, ctx)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = spec.parts.map(compileCondition);
      if (parts.some((p) => p === undefined)) return ALWAYS;
      const defined = parts as ((event: T, ctx: CepConditionContext<T>) => boolean)[];
      return (event, ctx) => {
        for (const p of defined) if (p(event, ctx)) return true;
        return false;
      };
    }
  }
}

const NEVER = (): boolean => false;

/** Each negation made by `not`, to the test it negates (see {@link negationOf}). */
const negations = new WeakMap<object, object>();

function not<T>(test: Test<T>): Test<T> {
  if (test === undefined) return NEVER;
  const negated: Test<T> = (event, ctx) => !test(event, ctx);
  negations.set(negated, test);
  return negated;
}

/**
 * The test that `test` is the negation of, if `not` made it: a relaxed stage
 * skips exactly the events it does not take, and the runner can then reuse
 * the take's result instead of running the user's condition twice.
 */
export function negationOf<T>(test: Test<T>): Test<T> {
  return test === undefined ? undefined : (negations.get(test) as Test<T>);
}

function and<T>(a: Test<T>, b: Test<T>): Test<T> {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return (event, ctx) => a(event, ctx) && b(event, ctx);
}

/** Every edge of `state` needs `test` too. */
function restrictEdges<T>(state: NfaState<T>, test: Test<T>): void {
  for (let i = 0; i < state.edges.length; i++) {
    const e = state.edges[i]!;
    state.edges[i] = { ...e, test: and(e.test, test) };
  }
}

/** The ignore condition that a contiguity implies for a stage with take condition `take`. */
function ignoreTest<T>(contiguity: InnerContiguity, take: Test<T>): Test<T> | null {
  if (contiguity === 'strict') return null;
  if (contiguity === 'any') return ALWAYS;
  return not(take);
}

function asInner(c: Contiguity): InnerContiguity {
  return c === 'strict' || c === 'any' ? c : 'relaxed';
}

/**
 * Compiles a pattern into an NFA, building backwards from the final state as
 * Flink's compiler does. Each stage becomes one state per event it still
 * needs (a looping state for unbounded stages); a state that may also move on
 * (optional, or past its minimum) skips events through a separate state that
 * must take, so "skip and stay" and "move on and skip" are distinct paths.
 */
export function compileNfa<T>(spec: PatternSpec<T>): Nfa<T> {
  validatePattern(spec, true);
  const states: NfaState<T>[] = [];
  const newState = (stage: string, kind: NfaStateKind = 'normal', windowMs = 0): NfaState<T> => {
    const s: NfaState<T> = { id: states.length, stage, kind, edges: [], windowMs };
    states.push(s);
    return s;
  };
  const final = newState('$final', 'final');
  const stop = newState('$stop', 'stop');
  const names: string[] = [];
  collectNames(spec.stages, names);

  /** A state with the same edges (a self-loop stays a self-loop of the copy). */
  const copyState = (state: NfaState<T>): NfaState<T> => {
    const copy = newState(state.stage, state.kind, state.windowMs);
    for (const e of state.edges) {
      copy.edges.push(e.target === state.id ? { ...e, target: copy.id } : e);
    }
    return copy;
  };

  const addStops = (state: NfaState<T>, nots: readonly Test<T>[]) => {
    for (const n of nots) state.edges.push({ action: 'proceed', target: stop.id, test: n });
  };

  /** A stage's entry state and the state an optional one waits in after skipping events. */
  const entryStates = (entry: NfaState<T>): NfaState<T>[] => [
    entry,
    ...entry.edges
      .filter((e) => e.action === 'ignore' && e.target !== entry.id)
      .map((e) => states[e.target]!)
      .filter((w) => w.stage === entry.stage),
  ];

  /** A copy of a stage's entry state, with its own copy of the state it waits in. */
  const copyEntry = (entry: NfaState<T>): NfaState<T> => {
    const copy = copyState(entry);
    for (let k = 0; k < copy.edges.length; k++) {
      const e = copy.edges[k]!;
      const target = states[e.target]!;
      if (e.action === 'ignore' && e.target !== copy.id && target.stage === entry.stage) {
        copy.edges[k] = { ...e, target: copyState(target).id };
      }
    }
    return copy;
  };

  /**
   * A `notFollowedBy` before `stages[at]` (entered at `entry`) ends the partial matches
   * waiting there. As in Flink, it also holds past an optional stage left without taking an
   * event: the stage after it is then entered through a copy that stops too.
   */
  const stopAtEntry = (
    entry: NfaState<T>,
    tests: readonly Test<T>[],
    stages: readonly StageSpec<T>[],
    at: number,
  ): void => {
    const entries = entryStates(entry);
    for (const s of entries) addStops(s, tests);
    const spec = stages[at];
    if (spec === undefined || spec.group !== undefined || !spec.quantifier.optional) return;
    for (const s of entries) {
      for (let k = 0; k < s.edges.length; k++) {
        const e = s.edges[k]!;
        const target = states[e.target]!;
        if (e.action !== 'proceed' || target.kind !== 'normal' || target.stage === s.stage)
          continue;
        const copy = copyEntry(target);
        s.edges[k] = { ...e, target: copy.id };
        stopAtEntry(copy, tests, stages, at + 1);
      }
    }
  };

  /** Compiles `stages` in front of `sink`; the first stage follows with `firstContiguity`. */
  const compileSequence = (
    stages: readonly StageSpec<T>[],
    sink: NfaState<T>,
    firstContiguity: Contiguity,
  ): NfaState<T> => {
    let next = sink;
    let notsAfter: Test<T>[] = [];
    for (let i = stages.length - 1; i >= 0; i--) {
      const stage = stages[i]!;
      const contiguity = i === 0 ? firstContiguity : stage.contiguity;
      if (stage.contiguity === 'not-followed-by') {
        const test = compileCondition(stage.condition);
        if (next === final) {
          // At the end (only with within): a matching event ends the partial match; the window
          // closing without one completes it, as Flink's pending state does.
          const pending = newState(stage.name, 'pending', stage.withinPreviousMs ?? 0);
          pending.edges.push({ action: 'proceed', target: stop.id, test });
          pending.edges.push({ action: 'ignore', target: pending.id, test: not(test) });
          next = pending;
          continue;
        }
        notsAfter.push(test);
        // While waiting for the following stage, a matching event ends the partial match.
        stopAtEntry(next, [test], stages, i + 1);
        continue;
      }
      if (stage.contiguity === 'not-next') {
        const test = compileCondition(stage.condition);
        const state = newState(stage.name, 'normal', stage.withinPreviousMs ?? 0);
        if (next.kind === 'final') {
          // At the end, the match completes only once an event shows the negation held.
          state.edges.push({ action: 'ignore', target: next.id, test: not(test) });
        } else {
          state.edges.push({ action: 'proceed', target: next.id, test: not(test) });
        }
        state.edges.push({ action: 'proceed', target: stop.id, test });
        next = state;
        continue;
      }
      next =
        stage.group !== undefined
          ? compileGroup(stage, next, contiguity)
          : compileStage(stage, next, contiguity, notsAfter);
      notsAfter = [];
    }
    return next;
  };

  const compileStage = (
    stage: StageSpec<T>,
    sink: NfaState<T>,
    contiguity: Contiguity,
    nots: readonly Test<T>[],
  ): NfaState<T> => {
    const q = stage.quantifier;
    // An event meeting `until` is neither taken nor skipped by the stage: it ends the loop.
    const until = stage.until === undefined ? ALWAYS : not(compileCondition(stage.until));
    const condition = compileCondition(stage.condition);
    const take = and(condition, until);
    // Waiting for the stage's first event, an event meeting `until` (and the condition) is not
    // skipped either: as in Flink, whose first state skips only events failing the condition.
    const outerIgnore = ignoreTest(
      asInner(contiguity),
      stage.until === undefined ? take : condition,
    );
    const innerRaw = ignoreTest(q.inner, take);
    const innerIgnore = innerRaw === null ? null : and(innerRaw, until);

    // Greedy, as Flink compiles it: the following stage may neither take nor skip an event this
    // stage could take. An event meeting `until` leaves the loop for an unrestricted copy.
    let untilSink: NfaState<T> | undefined;
    if (q.greedy && q.min !== q.max) {
      const raw = compileCondition(stage.condition);
      if (stage.until !== undefined) untilSink = copyState(sink);
      restrictEdges(sink, not(raw));
    }

    /** Moving on to `sink`; past a greedy stage, an event meeting `until` moves to the unrestricted copy. */
    const proceedFrom = (state: NfaState<T>): void => {
      if (untilSink === undefined) {
        state.edges.push({ action: 'proceed', target: sink.id, test: ALWAYS });
        return;
      }
      const untilTest = compileCondition(stage.until);
      state.edges.push({ action: 'proceed', target: untilSink.id, test: untilTest });
      state.edges.push({ action: 'proceed', target: sink.id, test: not(untilTest) });
    };

    /**
     * A state that takes toward `target`, optionally may move on to `sink`, and skips with
     * `ignore`. A per-stage window holds in it, but not in the state an optional stage waits in
     * after skipping events: Flink's compiler gives the window to the taking state only.
     */
    const single = (
      target: NfaState<T>,
      takeTest: Test<T>,
      ignore: Test<T> | null,
      canProceed: boolean,
      stopsHere: boolean,
    ): NfaState<T> => {
      const s = newState(stage.name, 'normal', stage.withinPreviousMs ?? 0);
      s.edges.push({ action: 'take', target: target.id, test: takeTest });
      if (canProceed) proceedFrom(s);
      if (ignore !== null) {
        if (canProceed) {
          const waiting = newState(stage.name);
          waiting.edges.push({ action: 'take', target: target.id, test: takeTest });
          waiting.edges.push({ action: 'ignore', target: waiting.id, test: ignore });
          if (stopsHere) addStops(waiting, nots);
          s.edges.push({ action: 'ignore', target: waiting.id, test: ignore });
        } else {
          s.edges.push({ action: 'ignore', target: s.id, test: ignore });
        }
      }
      if (stopsHere) addStops(s, nots);
      return s;
    };

    let after: NfaState<T>;
    let count: number;
    if (q.max === Number.POSITIVE_INFINITY) {
      const loopTake = take;
      const loop = newState(stage.name);
      loop.edges.push({ action: 'take', target: loop.id, test: loopTake });
      proceedFrom(loop);
      if (innerIgnore !== null) {
        const loopIgnore = innerIgnore;
        const waiting = newState(stage.name);
        waiting.edges.push({ action: 'take', target: loop.id, test: loopTake });
        waiting.edges.push({ action: 'ignore', target: waiting.id, test: loopIgnore });
        addStops(waiting, nots);
        loop.edges.push({ action: 'ignore', target: waiting.id, test: loopIgnore });
      }
      addStops(loop, nots);
      after = loop;
      // The states before the loop take the first min events, the last of them into the loop.
      count = Math.max(1, q.min);
    } else {
      after = sink;
      count = q.max;
    }
    // States waiting for the count-th, ..., first event, built backwards.
    for (let i = count; i >= 1; i--) {
      const first = i === 1;
      const canProceed = first ? q.optional || q.min === 0 : i > q.min;
      after = single(after, take, first ? outerIgnore : innerIgnore, canProceed, !first);
    }
    return after;
  };

  const compileGroup = (
    stage: StageSpec<T>,
    sink: NfaState<T>,
    contiguity: Contiguity,
  ): NfaState<T> => {
    const q = stage.quantifier;
    const body = stage.group!.stages;
    const inner: Contiguity = q.inner;
    const branch = (to: NfaState<T>): NfaState<T> => {
      const b = newState(stage.name);
      b.edges.push({ action: 'proceed', target: to.id, test: ALWAYS });
      b.edges.push({ action: 'proceed', target: sink.id, test: ALWAYS });
      return b;
    };
    // A repetition after the first that may be left out moves on from the head state of the
    // group, as Flink compiles it: so also after skipping events there (under `next`, too).
    const mayLeave = (head: NfaState<T>): NfaState<T> => {
      head.edges.push({ action: 'proceed', target: sink.id, test: ALWAYS });
      return head;
    };
    let after: NfaState<T>;
    let count: number;
    if (q.max === Number.POSITIVE_INFINITY) {
      // The loop: each repetition ends in `loop`, which starts the next at `again`'s head.
      const loop = newState(stage.name);
      const again = mayLeave(compileSequence(body, loop, inner));
      loop.edges.push({ action: 'proceed', target: again.id, test: ALWAYS });
      after = again;
      count = Math.max(1, q.min);
    } else {
      after = sink;
      count = q.max;
    }
    for (let i = count; i >= 1; i--) {
      const first = i === 1;
      const entry = compileSequence(body, after, first ? contiguity : inner);
      if (first) after = q.optional || q.min === 0 ? branch(entry) : entry;
      else after = i > q.min ? mayLeave(entry) : entry;
    }
    return after;
  };

  const start = compileSequence(spec.stages, final, 'strict');
  // The start state never times out (nothing was taken before it), as in Flink.
  if (start.windowMs > 0) states[start.id] = { ...start, windowMs: 0 };
  return {
    states,
    start: start.id,
    final: final.id,
    stop: stop.id,
    stageNames: names,
    withinMs: spec.withinMs ?? 0,
    stateWindows: states.some((s) => s.windowMs > 0),
  };
}

function collectNames<T>(stages: readonly StageSpec<T>[], into: string[]): void {
  for (const s of stages) {
    if (s.group !== undefined) collectNames(s.group.stages, into);
    else if (!into.includes(s.name)) into.push(s.name);
  }
}

/** Rejects what the NFA cannot express, with the reason. */
export function validatePattern<T>(
  spec: PatternSpec<T>,
  topLevel: boolean,
  withinMs = spec.withinMs,
): void {
  const { stages } = spec;
  if (stages.length === 0) throw invalidArgument('a pattern needs at least one stage');
  const first = stages[0]!;
  if (first.contiguity === 'not-next' || first.contiguity === 'not-followed-by') {
    throw invalidArgument(`pattern cannot begin with a negation ('${first.name}')`);
  }
  const last = stages[stages.length - 1]!;
  if (
    topLevel &&
    last.contiguity === 'not-followed-by' &&
    !((spec.withinMs ?? 0) > 0) &&
    !((last.withinPreviousMs ?? 0) > 0)
  ) {
    throw invalidArgument(
      `notFollowedBy ('${last.name}') cannot end a pattern without within(): nothing would ever confirm the match`,
    );
  }
  const seen = new Set<string>();
  for (const s of stages) {
    validateStageWindow(s, topLevel && s === last, withinMs);
    if (s.group !== undefined) {
      if (s.quantifier.greedy) throw invalidArgument('greedy() is not supported on a group');
      validatePattern(s.group, false, withinMs);
      continue;
    }
    if (seen.has(s.name)) throw invalidArgument(`stage name '${s.name}' is used twice`);
    seen.add(s.name);
    const q = s.quantifier;
    if (
      (s.contiguity === 'not-next' || s.contiguity === 'not-followed-by') &&
      (q.optional || q.min !== 1 || q.max !== 1)
    ) {
      throw invalidArgument(`negated stage '${s.name}' cannot be optional or quantified`);
    }
    if (s.until !== undefined && q.max !== Number.POSITIVE_INFINITY) {
      throw invalidArgument(`until() on '${s.name}' needs oneOrMore() or timesOrMore()`);
    }
  }
  if (topLevel) {
    const skip = spec.skip;
    if (skip.kind === 'skip-to-first' || skip.kind === 'skip-to-last') {
      const all: string[] = [];
      collectNames(stages, all);
      if (!all.includes(skip.stage)) {
        throw invalidArgument(
          `skip strategy names stage '${skip.stage}', which is not in the pattern`,
        );
      }
    }
    if (spec.withinMs !== undefined && !(spec.withinMs > 0)) {
      throw invalidArgument(
        `within() needs a positive number of milliseconds, got ${spec.withinMs}`,
      );
    }
  }
}

/**
 * A per-stage window goes where Flink CEP applies one; where Flink would
 * accept and ignore it, it is refused rather than silently dropped.
 */
function validateStageWindow<T>(
  stage: StageSpec<T>,
  endsPattern: boolean,
  withinMs: number | undefined,
): void {
  const ms = stage.withinPreviousMs;
  if (ms === undefined) return;
  const refuse = (why: string) => {
    throw invalidArgument(`within(${ms}, 'previousAndCurrent') on '${stage.name}': ${why}`);
  };
  if (!(ms > 0)) refuse('needs a positive number of milliseconds');
  if (stage.group !== undefined) refuse('Flink CEP ignores a per-stage window on a group');
  if (stage.contiguity === 'not-followed-by' && !endsPattern) {
    refuse('Flink CEP ignores a per-stage window on notFollowedBy between stages');
  }
  const q = stage.quantifier;
  if (q.min !== 1 || q.max !== 1) {
    refuse(
      'Flink CEP ignores a per-stage window on a quantified stage; give it to a stage that takes one event',
    );
  }
  if (withinMs !== undefined && ms > withinMs) {
    refuse(
      `it cannot be longer than the window from the first to the last event (${withinMs} ms), as in Flink`,
    );
  }
}
