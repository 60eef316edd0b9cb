/**
 * Random cases from fast-check with a fixed seed: patterns of one to four stages with every
 * contiguity, negation, quantifier, inner contiguity, `until`, groups, iterative conditions,
 * `within` and skip strategy, over short keyed streams that arrive out of order, with
 * watermarks and late events. The same seed gives the same cases; their Flink answers are in
 * test/cep/fixtures/flink/random.json (`npm run golden:cep`).
 */
import fc from 'fast-check';
import type { SkipStrategySpec } from '../../../src/core/cep.js';
import type {
  CaseJson,
  CondJson,
  ItemJson,
  PatternJson,
  QuantifierJson,
  StageJson,
} from './case.js';
import { quantifier } from './dsl.js';

export const RANDOM_SEED = 20_261_202;
export const RANDOM_CASES = 160;

const TYPES = ['a', 'b', 'c'] as const;

const typeSet = fc.subarray([...TYPES], { minLength: 1, maxLength: 2 });

const QUANTIFIERS: readonly QuantifierJson[] = [
  quantifier(1, 1),
  quantifier(1, 1),
  quantifier(1, 1, { optional: true }),
  quantifier(2, 2),
  quantifier(1, 2),
  quantifier(1, null),
  quantifier(2, null),
  quantifier(1, null, { optional: true }),
];

const quantifierArb: fc.Arbitrary<QuantifierJson> = fc
  .record({
    base: fc.constantFrom(...QUANTIFIERS),
    inner: fc.constantFrom('relaxed', 'relaxed', 'strict', 'any'),
    greedy: fc.boolean(),
  })
  // Flink takes greedy() only on loops whose events need not be contiguous in any combination.
  .map(({ base, inner, greedy }) =>
    base.max === 1
      ? base
      : { ...base, inner, greedy: greedy && base.min !== base.max && inner !== 'any' },
  );

interface StageDraft {
  readonly contiguity: 'strict' | 'relaxed' | 'any';
  readonly types: string[];
  readonly q: QuantifierJson;
  /** 0: type only; 1: value above the previous stage's last; 2: sum of the own loop below 4. */
  readonly iterative: 0 | 1 | 2;
  readonly until?: string;
  /** A negation placed before this stage. */
  readonly negation?: { readonly kind: 'not-next' | 'not-followed-by'; readonly types: string[] };
  /** Turns this stage and the next into a group with this quantifier. */
  readonly group?: QuantifierJson;
}

const draftArb: fc.Arbitrary<StageDraft> = fc.record(
  {
    contiguity: fc.constantFrom('strict', 'relaxed', 'relaxed', 'any'),
    types: typeSet,
    q: quantifierArb,
    iterative: fc.constantFrom(0, 0, 0, 1, 2),
    until: fc.constantFrom(...TYPES, 'd'),
    negation: fc.record({
      kind: fc.constantFrom('not-next', 'not-followed-by'),
      types: typeSet,
    }),
    group: fc.constantFrom(
      quantifier(2, 2),
      quantifier(1, null),
      quantifier(1, 1, { optional: true }),
      quantifier(1, 2, { inner: 'strict' }),
    ),
  },
  { requiredKeys: ['contiguity', 'types', 'q', 'iterative'] },
) as fc.Arbitrary<StageDraft>;

function condition(d: StageDraft, name: string, previous: string | undefined): CondJson {
  const type: CondJson = { kind: 'type', types: d.types };
  if (d.iterative === 1 && previous !== undefined) {
    return { kind: 'and', parts: [type, { kind: 'vsLast', stage: previous, op: '>' }] };
  }
  if (d.iterative === 2 && d.q.max !== 1) {
    return { kind: 'and', parts: [type, { kind: 'sum', stage: name, op: '<', value: 4 }] };
  }
  return type;
}

function stagesOf(drafts: readonly StageDraft[], withinMs: number | undefined): StageJson[] {
  const out: StageJson[] = [];
  let previous: string | undefined;
  let n = 0;
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!;
    // Flink rejects a negation after an optional stage ("optional path to NOT condition").
    const before = out[out.length - 1];
    if (i > 0 && d.negation !== undefined && before?.quantifier?.optional !== true) {
      out.push({
        name: `n${n++}`,
        contiguity: d.negation.kind,
        where: { kind: 'type', types: d.negation.types },
      });
    }
    const single = (draft: StageDraft, contiguity: StageJson['contiguity']): StageJson => {
      const name = `s${n++}`;
      // Flink: "Optional pattern cannot be preceded by greedy pattern".
      const q =
        draft.q.optional && out[out.length - 1]?.quantifier?.greedy === true
          ? { ...draft.q, optional: false }
          : draft.q;
      draft = { ...draft, q };
      const stage: StageJson = {
        name,
        contiguity,
        where: condition(draft, name, previous),
        ...(draft.q.max === 1 && !draft.q.optional ? {} : { quantifier: draft.q }),
        ...(draft.until !== undefined && draft.q.max === null
          ? { until: { kind: 'type', types: [draft.until] } as CondJson }
          : {}),
      };
      previous = name;
      return stage;
    };
    const partner = drafts[i + 1];
    if (d.group !== undefined && partner !== undefined && i + 1 < drafts.length) {
      const plain = { q: quantifier(1, 1), iterative: 0 as const };
      const body = [
        single({ ...d, ...plain }, 'strict'),
        single({ ...partner, ...plain }, partner.contiguity),
      ];
      out.push({
        name: `g${n++}`,
        contiguity: d.contiguity,
        group: { stages: body },
        quantifier: d.group,
      });
      i++;
      continue;
    }
    out.push(single(d, d.contiguity));
  }
  // notFollowedBy may end a pattern only with a window.
  const last = drafts[drafts.length - 1]!;
  const tail = out[out.length - 1]!;
  if (
    withinMs !== undefined &&
    last.negation !== undefined &&
    last.until === 'd' &&
    tail.quantifier?.optional !== true
  ) {
    out.push({
      name: `n${n++}`,
      contiguity: 'not-followed-by',
      where: { kind: 'type', types: last.negation.types },
    });
  }
  return out;
}

function skipOf(kind: number, stages: readonly StageJson[]): SkipStrategySpec {
  // Flink looks for the stage of skipToFirst / skipToLast among the top-level stages only.
  const named = stages.filter((s) => s.group === undefined && !s.contiguity.startsWith('not'));
  const stage = named[kind % Math.max(1, named.length)]?.name;
  switch (stage === undefined ? kind % 3 : kind % 5) {
    case 0:
      return { kind: 'no-skip' };
    case 1:
      return { kind: 'skip-to-next' };
    case 2:
      return { kind: 'skip-past-last-event' };
    case 3:
      return { kind: 'skip-to-first', stage: stage!, throwOnMiss: false };
    default:
      return { kind: 'skip-to-last', stage: stage!, throwOnMiss: false };
  }
}

/** Events of types a..d at times 1..10 (ties likely), shuffled a little, with watermarks. */
export const inputArb: fc.Arbitrary<ItemJson[]> = fc
  .record({
    events: fc.array(
      fc.record({
        type: fc.constantFrom('a', 'a', 'b', 'b', 'c', 'c', 'd'),
        ts: fc.integer({ min: 1, max: 10 }),
        v: fc.integer({ min: 0, max: 4 }),
        key: fc.constantFrom('k', 'k', 'k', 'j'),
        /** How far the event arrives ahead of its time order. */
        jump: fc.constantFrom(0, 0, 0, 1, 2),
        /** A watermark after it: this far behind the largest time so far (0: none). */
        watermark: fc.constantFrom(0, 0, 0, 1, 3),
      }),
      { minLength: 3, maxLength: 9 },
    ),
  })
  .map(({ events }) => {
    const sorted = events
      .map((e, i) => ({ ...e, order: i }))
      .sort((a, b) => a.ts - b.ts || a.order - b.order);
    const arrival = sorted
      .map((e, i) => ({ e, at: i - e.jump }))
      .sort((a, b) => a.at - b.at)
      .map((x) => x.e);
    const items: ItemJson[] = [];
    const seen = new Map<string, number>();
    let maxTs = 0;
    for (const e of arrival) {
      const base = `${e.type}${e.ts}`;
      const k = seen.get(base) ?? 0;
      seen.set(base, k + 1);
      items.push({
        id: k === 0 ? base : `${base}.${k}`,
        type: e.type,
        key: e.key,
        ts: e.ts,
        v: e.v,
      });
      maxTs = Math.max(maxTs, e.ts);
      if (e.watermark > 0) items.push({ watermark: maxTs - e.watermark });
    }
    return items;
  });

/** A random pattern (stages, window, skip strategy) over a random input. */
export const caseArb = fc
  .record({
    drafts: fc.array(draftArb, { minLength: 1, maxLength: 4 }),
    within: fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined, freq: 2 }),
    skip: fc.nat(20),
    input: inputArb,
  })
  .map(({ drafts, within, skip, input }) => {
    const stages = stagesOf(drafts, within);
    const pattern: PatternJson = {
      stages,
      skip: skipOf(skip, stages),
      ...(within === undefined ? {} : { withinMs: within }),
    };
    return { pattern, input };
  });

/** The seeded random cases, named `random <n>`. */
export function randomCases(): CaseJson[] {
  return fc
    .sample(caseArb, { seed: RANDOM_SEED, numRuns: RANDOM_CASES })
    .map((c, i) => ({ name: `random ${i}`, time: 'event', ...c }));
}
