import type { PatternSpec, QuantifierSpec, StageSpec } from '../../src/core/cep.js';
import type { Ev } from './cep-harness.js';

/**
 * A brute-force reading of a pattern's definition, for small inputs: every
 * way to assign increasing events to the stages is enumerated and checked
 * against the rules directly (conditions, contiguity, quantifiers, negations,
 * `within`, per-stage windows on single-event stages), with no automaton. Supports single-event stages with type-set
 * conditions (as the random patterns build them), `until`, no groups, no
 * greedy loops and no skip strategy.
 */
export interface OracleStage {
  readonly spec: StageSpec<Ev>;
  readonly types: readonly string[];
  readonly untilTypes?: readonly string[];
}

interface Assigned {
  readonly stage: number;
  readonly indices: readonly number[];
}

export function oracleMatches(
  stages: readonly OracleStage[],
  withinMs: number | undefined,
  input: readonly Ev[],
): string[] {
  const results: string[] = [];
  const real = stages.filter((s) => !isNegation(s.spec));
  const names = real.map((s) => s.spec.name);
  const has = (s: OracleStage, e: Ev) => s.types.includes(e.type);

  const assign = (si: number, p: number, acc: Assigned[]): void => {
    if (si === stages.length) {
      check(acc);
      return;
    }
    const stage = stages[si]!;
    if (isNegation(stage.spec)) {
      assign(si + 1, p, acc);
      return;
    }
    const q = stage.spec.quantifier;
    const counts: number[] = [];
    if (q.optional || q.min === 0) counts.push(0);
    for (let k = Math.max(1, q.min); k <= Math.min(q.max, input.length); k++) counts.push(k);
    for (const k of counts) {
      if (k === 0) {
        assign(si + 1, p, [...acc, { stage: si, indices: [] }]);
        continue;
      }
      choose(si, stage, p, k, [], (indices) => {
        assign(si + 1, indices[indices.length - 1]!, [...acc, { stage: si, indices }]);
      });
    }
  };

  /** Picks `k` events for `stage` after index `p` obeying its condition and contiguities. */
  const choose = (
    si: number,
    stage: OracleStage,
    p: number,
    k: number,
    picked: number[],
    done: (indices: number[]) => void,
  ): void => {
    if (picked.length === k) {
      done(picked);
      return;
    }
    const prev = picked.length === 0 ? p : picked[picked.length - 1]!;
    const contiguity =
      picked.length === 0
        ? p === -1
          ? 'any'
          : outerContiguity(stages, si)
        : stage.spec.quantifier.inner;
    for (let i = prev + 1; i < input.length; i++) {
      const e = input[i]!;
      if (!has(stage, e)) continue;
      if (stage.untilTypes?.includes(e.type)) continue;
      if (contiguity === 'strict' && i !== prev + 1) break;
      if (contiguity === 'relaxed' && prev !== -1) {
        let skipped = false;
        for (let j = prev + 1; j < i; j++) {
          // Relaxed contiguity skips only events the stage does not take: one that meets its
          // condition and until too (so it cannot be taken) is not skipped but ends the match.
          if (has(stage, input[j]!)) skipped = true;
        }
        if (skipped) break;
      }
      // Inside a loop with until, no event between its events may meet until.
      if (picked.length > 0 && stage.untilTypes !== undefined) {
        let stopped = false;
        for (let j = prev + 1; j < i; j++)
          if (stage.untilTypes.includes(input[j]!.type)) stopped = true;
        if (stopped) break;
      }
      choose(si, stage, p, k, [...picked, i], done);
    }
  };

  const check = (acc: Assigned[]): void => {
    const all = acc.flatMap((a) => a.indices);
    if (all.length === 0) return;
    const first = all[0]!;
    let last = all[all.length - 1]!;
    const byStage = new Map<number, readonly number[]>();
    for (const a of acc) byStage.set(a.stage, a.indices);
    for (let si = 0; si < stages.length; si++) {
      const stage = stages[si]!;
      if (!isNegation(stage.spec)) continue;
      const before = byStage.get(si - 1) ?? [];
      if (before.length === 0) return; // not generated: negation after a skipped stage
      const after = si + 1 < stages.length ? (byStage.get(si + 1) ?? []) : [];
      if (stage.spec.contiguity === 'not-next') {
        const next = before[before.length - 1]! + 1;
        if (si === stages.length - 1) {
          // At the end: the next event must exist and not match; it completes the match.
          if (next >= input.length || has(stage, input[next]!)) return;
          last = next;
        } else if (next < input.length && has(stage, input[next]!)) {
          return;
        }
      } else {
        const from = before[0]!;
        const to = after[0]!;
        for (let j = from + 1; j <= to; j++) if (has(stage, input[j]!)) return;
      }
    }
    if (withinMs !== undefined && input[last]!.ts - input[first]!.ts >= withinMs) return;
    // A per-stage window: the stage's event comes less than it after the event taken before.
    let previous = -1;
    for (const a of acc) {
      const w = stages[a.stage]!.spec.withinPreviousMs;
      const at = a.indices[0];
      if (at === undefined) continue;
      if (w !== undefined && previous >= 0 && input[at]!.ts - input[previous]!.ts >= w) return;
      previous = a.indices[a.indices.length - 1]!;
    }
    const text = names
      .map((_, ri) => {
        const si = stages.indexOf(real[ri]!);
        return (byStage.get(si) ?? []).map((i) => input[i]!.id).join(' ');
      })
      .filter((t) => t.length > 0)
      .join(' ');
    results.push(text);
  };

  assign(0, -1, []);
  return results;
}

function isNegation(s: StageSpec<Ev>): boolean {
  return s.contiguity === 'not-next' || s.contiguity === 'not-followed-by';
}

/** How stage `si`'s first event follows the previous non-empty stage: its own contiguity. */
function outerContiguity(stages: readonly OracleStage[], si: number): 'strict' | 'relaxed' | 'any' {
  const c = stages[si]!.spec.contiguity;
  return c === 'strict' || c === 'any' ? c : 'relaxed';
}

export function toSpec(
  stages: readonly OracleStage[],
  withinMs: number | undefined,
): PatternSpec<Ev> {
  return {
    stages: stages.map((s) => s.spec),
    skip: { kind: 'no-skip' },
    ...(withinMs === undefined ? {} : { withinMs }),
  };
}

export const QUANTIFIERS: Readonly<Record<string, QuantifierSpec>> = {
  one: { min: 1, max: 1, optional: false, greedy: false, inner: 'relaxed' },
  optional: { min: 1, max: 1, optional: true, greedy: false, inner: 'relaxed' },
  times2: { min: 2, max: 2, optional: false, greedy: false, inner: 'relaxed' },
  times1to2: { min: 1, max: 2, optional: false, greedy: false, inner: 'relaxed' },
  oneOrMore: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    optional: false,
    greedy: false,
    inner: 'relaxed',
  },
  timesOrMore2: {
    min: 2,
    max: Number.POSITIVE_INFINITY,
    optional: false,
    greedy: false,
    inner: 'relaxed',
  },
  oneOrMoreOptional: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    optional: true,
    greedy: false,
    inner: 'relaxed',
  },
};
