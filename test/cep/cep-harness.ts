import type { EventComparator, PatternSpec } from '../../src/core/cep.js';
import { OutputTag } from '../../src/core/output-tag.js';
import type { StateBackendOptions } from '../../src/core/state-backend.js';
import { CepOperator } from '../../src/runtime/operators/cep/cep-operator.js';
import { KeyedOneInputHarness } from '../../src/testing/keyed-one-input-harness.js';

/** A test event: `id` is its type letter and position, e.g. `a1`; `key` partitions. */
export interface Ev {
  readonly id: string;
  readonly type: string;
  readonly ts: number;
  readonly key: string;
  readonly v: number;
}

/** `"a1 c2 b3"` as events of one key at times 1, 2, 3 (the digits), of types a, c, b. */
export function events(text: string, key = 'k'): Ev[] {
  return text
    .trim()
    .split(/\s+/)
    .map((id) => ({
      id,
      type: id.replace(/[0-9]+$/, ''),
      ts: Number(id.match(/[0-9]+$/)![0]),
      key,
      v: 0,
    }));
}

export const isType =
  (...types: string[]) =>
  (e: Ev): boolean =>
    types.includes(e.type);

/** A match as text: event ids in stage order, e.g. `"a1 b3"`. */
export function matchText(
  match: Readonly<Record<string, readonly Ev[]>>,
  stages: readonly string[],
): string {
  return stages.flatMap((s) => (match[s] ?? []).map((e) => e.id)).join(' ');
}

export const timedOutTag = new OutputTag<{ text: string; at: number }>('timed-out');
export const lateTag = new OutputTag<Ev>('late');

export interface RunResult {
  readonly matches: string[];
  readonly timedOut: string[];
  readonly late: string[];
}

export function cepHarness(
  pattern: PatternSpec<Ev>,
  options: {
    stateBackend?: StateBackendOptions;
    processingTime?: boolean;
    timeouts?: boolean;
    comparator?: EventComparator<Ev>;
  } = {},
): KeyedOneInputHarness<string, Ev, string> {
  return new KeyedOneInputHarness<string, Ev, string>(cepOperator(pattern, options), (e) => e.key, {
    ...(options.stateBackend === undefined ? {} : { stateBackend: options.stateBackend }),
  });
}

export function cepOperator(
  pattern: PatternSpec<Ev>,
  options: { processingTime?: boolean; timeouts?: boolean; comparator?: EventComparator<Ev> } = {},
): CepOperator<Ev, string> {
  const stages = stageNames(pattern);
  return new CepOperator<Ev, string>({
    pattern,
    timeDomain: options.processingTime === true ? 'processing-time' : 'event-time',
    lateTag,
    ...(options.comparator === undefined ? {} : { comparator: options.comparator }),
    fn: {
      processMatch: (m, _ctx, out) => out.collect(matchText(m, stages)),
      // Without a handler the operator may apply timeouts lazily (nobody sees them).
      ...(options.timeouts === false
        ? {}
        : {
            processTimedOutMatch: (m, ctx) =>
              ctx.output(timedOutTag, { text: matchText(m, stages), at: ctx.timestamp }),
          }),
    },
  });
}

export function stageNames(pattern: PatternSpec<Ev>): string[] {
  const names: string[] = [];
  const visit = (p: PatternSpec<Ev>) => {
    for (const s of p.stages) {
      if (s.group !== undefined) visit(s.group);
      else if (!names.includes(s.name)) names.push(s.name);
    }
  };
  visit(pattern);
  return names;
}

/** Feeds `input` in order (each event its own batch), then the final watermark. */
export function runPattern(pattern: PatternSpec<Ev>, input: readonly Ev[]): RunResult {
  const h = cepHarness(pattern);
  for (const e of input) h.processElement(e, e.ts);
  h.processWatermark(Number.POSITIVE_INFINITY);
  return resultOf(h);
}

export function resultOf(h: KeyedOneInputHarness<string, Ev, string>): RunResult {
  return {
    matches: h.outputValues(),
    timedOut: h.sideOutput(timedOutTag).map((r) => `${r.value.text}@${r.value.at}`),
    late: h.sideOutput(lateTag).map((r) => r.value.id),
  };
}

export const sorted = (xs: readonly string[]): string[] => [...xs].sort();
