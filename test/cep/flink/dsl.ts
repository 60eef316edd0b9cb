/** Short ways to write the cases of cases.ts as {@link CaseJson} data. */
import type { Contiguity, SkipStrategySpec } from '../../../src/core/cep.js';
import type {
  CaseJson,
  CondJson,
  ItemJson,
  PatternJson,
  QuantifierJson,
  StageJson,
} from './case.js';

export const isType = (...types: string[]): CondJson => ({ kind: 'type', types });
export const all = (...parts: CondJson[]): CondJson => ({ kind: 'and', parts });
export const any = (...parts: CondJson[]): CondJson => ({ kind: 'or', parts });
export const not = (part: CondJson): CondJson => ({ kind: 'not', part });
export const vBelow = (value: number): CondJson => ({ kind: 'cmp', field: 'v', op: '<', value });

export const quantifier = (
  min: number,
  max: number | null,
  more: Partial<Omit<QuantifierJson, 'min' | 'max'>> = {},
): QuantifierJson => ({ min, max, optional: false, greedy: false, inner: 'relaxed', ...more });

interface StageOptions {
  /** Default: events whose type is the stage name. */
  readonly where?: CondJson;
  readonly until?: CondJson;
  readonly q?: QuantifierJson;
  /** A per-stage window (`within(ms, 'previousAndCurrent')`). */
  readonly previous?: number;
}

function stage(contiguity: Contiguity, name: string, o: StageOptions = {}): StageJson {
  return {
    name,
    contiguity,
    where: o.where ?? isType(name),
    ...(o.until === undefined ? {} : { until: o.until }),
    ...(o.q === undefined ? {} : { quantifier: o.q }),
    ...(o.previous === undefined ? {} : { withinPreviousMs: o.previous }),
  };
}

export const begin = (name: string, o?: StageOptions) => stage('strict', name, o);
export const next = (name: string, o?: StageOptions) => stage('strict', name, o);
export const followedBy = (name: string, o?: StageOptions) => stage('relaxed', name, o);
export const followedByAny = (name: string, o?: StageOptions) => stage('any', name, o);
export const notNext = (name: string, o?: StageOptions) => stage('not-next', name, o);
export const notFollowedBy = (name: string, o?: StageOptions) => stage('not-followed-by', name, o);

/** A group stage: `stages` repeated as a unit by `q`. */
export function group(
  contiguity: 'strict' | 'relaxed' | 'any',
  name: string,
  stages: StageJson[],
  q?: QuantifierJson,
): StageJson {
  return { name, contiguity, group: { stages }, ...(q === undefined ? {} : { quantifier: q }) };
}

export function pattern(
  stages: StageJson[],
  o: { readonly within?: number; readonly skip?: SkipStrategySpec } = {},
): PatternJson {
  return {
    stages,
    skip: o.skip ?? { kind: 'no-skip' },
    ...(o.within === undefined ? {} : { withinMs: o.within }),
  };
}

/**
 * `"a1 c2 W2 b3=5 x:b4 a4.2"`: events of type `a` at time 1 and so on, in arrival order;
 * `=5` sets the value, `x:` the key (default `k`), `.2` tells apart events of one type and
 * time; `W2` is a watermark at 2.
 */
export function input(text: string): ItemJson[] {
  return text
    .trim()
    .split(/\s+/)
    .map((token): ItemJson => {
      const w = /^W(\d+)$/.exec(token);
      if (w !== null) return { watermark: Number(w[1]) };
      const m = /^(?:(\w+):)?(([a-z]+)(\d+)(?:\.\d+)?)(?:=(-?\d+))?$/.exec(token);
      if (m === null) throw new Error(`bad input token '${token}'`);
      return { id: m[2]!, type: m[3]!, key: m[1] ?? 'k', ts: Number(m[4]), v: Number(m[5] ?? 0) };
    });
}

export function kase(
  name: string,
  p: PatternJson,
  text: string,
  time: 'event' | 'processing' = 'event',
): CaseJson {
  return { name, time, pattern: p, input: input(text) };
}
