/**
 * Helpers for the ported Flink CEP scenarios (flink-quantifier-skip-scenarios.test.ts and
 * flink-skip-negation-scenarios.test.ts): events written as text, run through the CEP
 * operator in the test harness, matches as Flink's tests compare them.
 */
import type { PatternSpec } from '../../src/core/cep.js';
import { cepHarness, type Ev, resultOf, sorted } from './cep-harness.js';

export { sorted };

/**
 * `"c@1 a1:a=2@2 dummy=1111@3"`: events in arrival order; `label:type` (the type is the
 * label without trailing digits if not given), `=price` (default 0), `@timestamp`.
 */
export function input(text: string): Ev[] {
  return text
    .trim()
    .split(/\s+/)
    .map((token) => {
      const m = /^([^:=@]+)(?::([^=@]+))?(?:=([0-9.]+))?@([0-9]+)$/.exec(token);
      if (m === null) throw new Error(`bad event ${token}`);
      const id = m[1]!;
      return {
        id,
        type: m[2] ?? id.replace(/[0-9]+$/, ''),
        v: m[3] === undefined ? 0 : Number(m[3]),
        ts: Number(m[4]),
        key: 'k',
      };
    });
}

/**
 * Runs `pattern` over `events` and returns its matches (each the ids of its events in stage
 * order) as a sorted list, a multiset. In event time with a watermark after the input, and
 * with `watermarkEach` also one at each event's time after it (Flink's NFA test harness
 * advances the time to each event's). `arrival`: in processing time, so in arrival order, as Flink's NFA tests feed
 * events whose timestamps are out of order.
 */
export function matches(
  pattern: { toSpec(): PatternSpec<Ev> },
  events: string,
  options: { readonly arrival?: boolean; readonly watermarkEach?: boolean } = {},
): string[] {
  if (options.arrival === true) {
    const h = cepHarness(pattern.toSpec(), { processingTime: true });
    h.setProcessingTime(1);
    for (const e of input(events)) h.processElement(e, e.ts);
    h.setProcessingTime(2);
    return sorted(resultOf(h).matches);
  }
  const h = cepHarness(pattern.toSpec());
  for (const e of input(events)) {
    h.processElement(e, e.ts);
    if (options.watermarkEach === true) h.processWatermark(e.ts);
  }
  h.processWatermark(Number.POSITIVE_INFINITY);
  return sorted(resultOf(h).matches);
}

/**
 * Matches as Flink's NFA tests compare them: each match as the sorted list of its events
 * (events equal by value share an id here), the matches as a multiset.
 */
export function asFlinkCompares(list: readonly string[]): string[] {
  return sorted(list.map((m) => (m === '' ? m : m.split(' ').sort().join(' '))));
}

export const named =
  (type: string) =>
  (e: Ev): boolean =>
    e.type === type;
export const price =
  (p: (v: number) => boolean) =>
  (e: Ev): boolean =>
    p(e.v);
