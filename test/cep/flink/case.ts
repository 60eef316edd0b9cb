/**
 * A CEP case as data, the form both engines read: a pattern (the JSON form of Weir's
 * PatternSpec, with conditions in a small language instead of functions), an input of events
 * and watermarks, and a time domain. bench/peers/flink/src/main/java/weir/cep reads the same
 * JSON and builds the Flink CEP pattern; this module builds Weir's.
 */
import type {
  CepCondition,
  ConditionSpec,
  Contiguity,
  InnerContiguity,
  MatchEvents,
  PatternSpec,
  QuantifierSpec,
  SkipStrategySpec,
  StageSpec,
} from '../../../src/core/cep.js';
import { OutputTag } from '../../../src/core/output-tag.js';
import { CepOperator } from '../../../src/runtime/operators/cep/cep-operator.js';
import { KeyedOneInputHarness } from '../../../src/testing/keyed-one-input-harness.js';
import type { Ev } from '../cep-harness.js';

export type CompareOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

/** Conditions both engines interpret (weir/cep/Cond.java is the Java side). */
export type CondJson =
  | { readonly kind: 'true' }
  | { readonly kind: 'type'; readonly types: readonly string[] }
  | {
      readonly kind: 'cmp';
      readonly field: 'v' | 'ts';
      readonly op: CompareOp;
      readonly value: number;
    }
  | { readonly kind: 'and' | 'or'; readonly parts: readonly CondJson[] }
  | { readonly kind: 'not'; readonly part: CondJson }
  /** The values of `stage`'s events so far plus the event's own, against `value`. */
  | { readonly kind: 'sum'; readonly stage: string; readonly op: CompareOp; readonly value: number }
  /** How many events `stage` holds so far, against `value`. */
  | {
      readonly kind: 'count';
      readonly stage: string;
      readonly op: CompareOp;
      readonly value: number;
    }
  /** The event's value against that of `stage`'s last event; true while `stage` has none. */
  | { readonly kind: 'vsLast'; readonly stage: string; readonly op: CompareOp };

export interface QuantifierJson {
  readonly min: number;
  /** `null`: unbounded (`oneOrMore`, `timesOrMore`). */
  readonly max: number | null;
  readonly optional: boolean;
  readonly greedy: boolean;
  readonly inner: InnerContiguity;
}

export interface StageJson {
  readonly name: string;
  readonly contiguity: Contiguity;
  readonly quantifier?: QuantifierJson;
  readonly where?: CondJson;
  readonly until?: CondJson;
  readonly group?: { readonly stages: readonly StageJson[] };
  /** `within(ms, 'previousAndCurrent')` on the stage (Flink: `WithinType.PREVIOUS_AND_CURRENT`). */
  readonly withinPreviousMs?: number;
}

export interface PatternJson {
  readonly stages: readonly StageJson[];
  readonly withinMs?: number;
  readonly skip: SkipStrategySpec;
}

/** An event (all fields), or a watermark. */
export type ItemJson =
  | {
      readonly id: string;
      readonly type: string;
      readonly key: string;
      readonly ts: number;
      readonly v: number;
    }
  | { readonly watermark: number };

export interface CaseJson {
  readonly name: string;
  readonly time: 'event' | 'processing';
  readonly pattern: PatternJson;
  readonly input: readonly ItemJson[];
  /** Events of one timestamp ordered by value (Flink: an `EventComparator`); absent: arrival order. */
  readonly comparator?: { readonly descending: boolean };
}

/**
 * What an engine made of a case, in canonical form: every list sorted; a match is its stages
 * in pattern order, those with events, each as `stage:id,id`; a timeout adds `@time`.
 */
export type CaseResult =
  | {
      readonly matches: readonly string[];
      readonly timedOut: readonly string[];
      readonly late: readonly string[];
    }
  | { readonly error: string };

// -- Weir --------------------------------------------------------------------

function compare(a: number, op: CompareOp, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
}

/** The condition as a Weir condition function. */
export function conditionOf(c: CondJson): CepCondition<Ev> {
  switch (c.kind) {
    case 'true':
      return () => true;
    case 'type':
      return (e) => c.types.includes(e.type);
    case 'cmp':
      return (e) => compare(c.field === 'v' ? e.v : e.ts, c.op, c.value);
    case 'and': {
      const parts = c.parts.map(conditionOf);
      return (e, ctx) => parts.every((p) => p(e, ctx));
    }
    case 'or': {
      const parts = c.parts.map(conditionOf);
      return (e, ctx) => parts.some((p) => p(e, ctx));
    }
    case 'not': {
      const part = conditionOf(c.part);
      return (e, ctx) => !part(e, ctx);
    }
    case 'sum':
      return (e, ctx) => {
        let sum = 0;
        for (const m of ctx.eventsFor(c.stage)) sum += m.v;
        return compare(sum + e.v, c.op, c.value);
      };
    case 'count':
      return (_e, ctx) => compare(ctx.eventsFor(c.stage).length, c.op, c.value);
    case 'vsLast':
      return (e, ctx) => {
        const held = ctx.eventsFor(c.stage);
        const last = held[held.length - 1];
        return last === undefined || compare(e.v, c.op, last.v);
      };
  }
}

const ONE: QuantifierSpec = { min: 1, max: 1, optional: false, greedy: false, inner: 'relaxed' };

function conditionSpec(c: CondJson): ConditionSpec<Ev> {
  return { kind: 'where', fn: conditionOf(c) };
}

function stageSpec(s: StageJson): StageSpec<Ev> {
  const q = s.quantifier;
  return {
    name: s.name,
    contiguity: s.contiguity,
    quantifier:
      q === undefined ? ONE : { ...q, max: q.max === null ? Number.POSITIVE_INFINITY : q.max },
    ...(s.where === undefined ? {} : { condition: conditionSpec(s.where) }),
    ...(s.until === undefined ? {} : { until: conditionSpec(s.until) }),
    ...(s.group === undefined
      ? {}
      : { group: { stages: s.group.stages.map(stageSpec), skip: { kind: 'no-skip' } } }),
    ...(s.withinPreviousMs === undefined ? {} : { withinPreviousMs: s.withinPreviousMs }),
  };
}

/** The pattern as Weir's PatternSpec. */
export function weirPattern(p: PatternJson): PatternSpec<Ev> {
  return {
    stages: p.stages.map(stageSpec),
    skip: p.skip,
    ...(p.withinMs === undefined ? {} : { withinMs: p.withinMs }),
  };
}

/** Stage names in pattern order (groups flattened), each once. */
export function stageNamesOf(stages: readonly StageJson[], into: string[] = []): string[] {
  for (const s of stages) {
    if (s.group !== undefined) stageNamesOf(s.group.stages, into);
    else if (!into.includes(s.name)) into.push(s.name);
  }
  return into;
}

/** A match in canonical form (see {@link CaseResult}). */
export function matchText(match: MatchEvents<Ev>, stages: readonly string[]): string {
  return stages
    .filter((s) => (match[s]?.length ?? 0) > 0)
    .map((s) => `${s}:${match[s]!.map((e) => e.id).join(',')}`)
    .join(' ');
}

/** The case's comparator (CepPeer.java has the same). */
function byValue(descending: boolean): (x: Ev, y: Ev) => number {
  return descending ? (x, y) => y.v - x.v : (x, y) => x.v - y.v;
}

const TIMED_OUT = new OutputTag<string>('timed-out');
const LATE = new OutputTag<Ev>('late');

/**
 * Runs a case on Weir's CEP operator: elements and watermarks in the given order, then the
 * final watermark (as Flink's bounded source ends with one). In processing time every element
 * is processed on arrival.
 */
export function runOnWeir(c: CaseJson, options: { timeouts?: boolean } = {}): CaseResult {
  const stages = stageNamesOf(c.pattern.stages);
  let operator: CepOperator<Ev, string>;
  try {
    operator = new CepOperator<Ev, string>({
      pattern: weirPattern(c.pattern),
      timeDomain: c.time === 'processing' ? 'processing-time' : 'event-time',
      lateTag: LATE,
      ...(c.comparator === undefined ? {} : { comparator: byValue(c.comparator.descending) }),
      fn: {
        processMatch: (m, _ctx, out) => out.collect(matchText(m, stages)),
        // Without a handler, timeouts that nobody sees may be applied lazily.
        ...(options.timeouts === false
          ? {}
          : {
              processTimedOutMatch: (m, ctx) =>
                ctx.output(TIMED_OUT, `${matchText(m, stages)}@${ctx.timestamp}`),
            }),
      },
    });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const h = new KeyedOneInputHarness<string, Ev, string>(operator, (e) => e.key);
  try {
    for (const item of c.input) {
      if ('watermark' in item) h.processWatermark(item.watermark);
      else h.processElement(item, item.ts);
    }
    h.processWatermark(Number.POSITIVE_INFINITY);
  } catch (e) {
    return { error: (e as Error).message };
  }
  return {
    matches: [...h.outputValues()].sort(),
    timedOut: h
      .sideOutput(TIMED_OUT)
      .map((r) => r.value)
      .sort(),
    late: h
      .sideOutput(LATE)
      .map((r) => r.value.id)
      .sort(),
  };
}
