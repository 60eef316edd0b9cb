/**
 * Hand-written cases: every contiguity, negation, quantifier, group, skip strategy and
 * `within`, ties, out-of-order and late events. Their Flink answers are in
 * test/cep/fixtures/flink/hand.json (`npm run golden:cep`).
 */
import type { SkipStrategySpec } from '../../../src/core/cep.js';
import type { CaseJson } from './case.js';
import {
  all,
  begin,
  followedBy,
  followedByAny,
  group,
  isType,
  kase,
  next,
  not,
  notFollowedBy,
  notNext,
  pattern,
  quantifier,
  vBelow,
} from './dsl.js';

const oneOrMore = quantifier(1, null);
const skips: Record<string, SkipStrategySpec> = {
  noSkip: { kind: 'no-skip' },
  skipToNext: { kind: 'skip-to-next' },
  skipPastLastEvent: { kind: 'skip-past-last-event' },
  skipToFirstB: { kind: 'skip-to-first', stage: 'b', throwOnMiss: false },
  skipToLastB: { kind: 'skip-to-last', stage: 'b', throwOnMiss: false },
};

const contiguity: CaseJson[] = [
  kase('next', pattern([begin('a'), next('b')]), 'a1 c2 b3 b4 a5 b6'),
  kase('followedBy', pattern([begin('a'), followedBy('b')]), 'a1 c2 b3 b4 a5 b6'),
  kase('followedByAny', pattern([begin('a'), followedByAny('b')]), 'a1 c2 b3 b4 a5 b6'),
  kase(
    'three stages mixed',
    pattern([begin('a'), followedByAny('b'), next('c')]),
    'a1 b2 c3 b4 d5 b6 c7 a8 b9 c10',
  ),
  ...(['relaxed', 'strict', 'any'] as const).map((inner) =>
    kase(
      `inner contiguity ${inner}: c a+ b`,
      pattern([
        begin('c'),
        followedBy('a', { q: quantifier(1, null, { inner }) }),
        followedBy('b'),
      ]),
      'c1 d2 a3 a4 a5 d6 a7 b8',
    ),
  ),
];

const negation: CaseJson[] = [
  kase(
    'notNext between',
    pattern([begin('a'), notNext('b'), followedBy('c')]),
    'a1 b2 c3 a4 d5 c6',
  ),
  kase(
    'notFollowedBy between',
    pattern([begin('a'), notFollowedBy('b'), followedBy('c')]),
    'a1 b2 c3 a4 d5 c6',
  ),
  kase('notNext at the end', pattern([begin('a'), notNext('b')]), 'a1 b2 a3 c4 a5'),
  kase(
    'notFollowedBy at the end with within',
    pattern([begin('a'), notFollowedBy('b')], { within: 5 }),
    'a1 b3 a4 c6 a10 c11 b16 a20',
  ),
  kase(
    'notFollowedBy at the end without within',
    pattern([begin('a'), notFollowedBy('b')]),
    'a1 c2',
  ),
  kase(
    'notFollowedBy at the end after a loop, with within',
    pattern([begin('a', { q: oneOrMore }), notFollowedBy('b')], { within: 4 }),
    'a1 a2 c3 a7 b8 a12',
  ),
  kase(
    'notFollowedBy at the end with skipPastLastEvent',
    pattern([begin('a'), followedBy('c'), notFollowedBy('b')], {
      within: 5,
      skip: { kind: 'skip-past-last-event' },
    }),
    'a1 a2 c3 d4 a8 c9 b10 a11 c12',
  ),
  kase(
    'notFollowedBy after a loop',
    pattern([begin('a', { q: oneOrMore }), notFollowedBy('b'), followedBy('c')]),
    'a1 a2 b3 a4 c5',
  ),
  kase(
    'notNext after an optional stage',
    pattern([
      begin('a'),
      followedBy('o', { q: quantifier(1, 1, { optional: true }) }),
      notNext('b'),
      followedBy('c'),
    ]),
    'a1 o2 b3 c4 a5 b6 c7 a8 d9 c10',
  ),
];

const quantifiers: CaseJson[] = [
  kase(
    'oneOrMore greedy until, then a stage taking the same events',
    pattern([
      begin('a'),
      followedBy('b', { q: quantifier(1, null, { greedy: true }), until: isType('u') }),
      followedBy('x', { where: isType('x', 'b') }),
    ]),
    'a1 b2 b3 u4 b5 x6',
  ),
  kase(
    'timesOrMore(2) consecutive, within, skipToLast',
    pattern(
      [begin('a'), next('b', { q: quantifier(2, null, { inner: 'strict' }) }), followedBy('c')],
      {
        within: 6,
        skip: { kind: 'skip-to-last', stage: 'b', throwOnMiss: false },
      },
    ),
    'a1 b2 b3 b4 c5 a6 b7 b8 d9 c10 a11 b12 b13 b14 b15 b16 b17 c18',
  ),
  kase(
    'times(2)',
    pattern([begin('a'), followedBy('b', { q: quantifier(2, 2) }), followedBy('c')]),
    'a1 b2 d3 b4 b5 c6',
  ),
  kase(
    'times(2, 3)',
    pattern([begin('a'), followedBy('b', { q: quantifier(2, 3) }), followedBy('c')]),
    'a1 b2 b3 b4 b5 c6',
  ),
  kase(
    'times(2, 3) greedy',
    pattern([
      begin('a'),
      followedBy('b', { q: quantifier(2, 3, { greedy: true }) }),
      followedBy('c'),
    ]),
    'a1 b2 b3 b4 b5 c6',
  ),
  kase(
    'timesOrMore(2)',
    pattern([begin('a'), followedBy('b', { q: quantifier(2, null) }), followedBy('c')]),
    'a1 b2 b3 b4 c5',
  ),
  kase(
    'oneOrMore at the end',
    pattern([begin('a'), followedBy('b', { q: oneOrMore })]),
    'a1 b2 b3 c4 b5',
  ),
  kase('oneOrMore at the start', pattern([begin('a', { q: oneOrMore }), next('b')]), 'a1 a2 a3 b4'),
  kase(
    'optional',
    pattern([
      begin('a'),
      followedBy('o', { q: quantifier(1, 1, { optional: true }) }),
      followedBy('b'),
    ]),
    'a1 o2 b3 a4 b5',
  ),
  kase(
    'optional first',
    pattern([begin('o', { q: quantifier(1, 1, { optional: true }) }), next('b')]),
    'o1 b2 b3',
  ),
  kase(
    'oneOrMore optional',
    pattern([
      begin('a'),
      followedBy('b', { q: quantifier(1, null, { optional: true }) }),
      followedBy('c'),
    ]),
    'a1 b2 b3 c4',
  ),
  kase(
    'oneOrMore greedy before a stage taking the same events',
    pattern([
      begin('a'),
      followedBy('b', { q: quantifier(1, null, { greedy: true }), where: isType('b', 'x') }),
      followedBy('x', { where: isType('x', 'b') }),
    ]),
    'a1 b2 x3 b4 c5',
  ),
  kase(
    'times(2) consecutive',
    pattern([begin('a'), followedBy('b', { q: quantifier(2, 2, { inner: 'strict' }) })]),
    'a1 b2 c3 b4 b5',
  ),
  kase(
    'times(3) allowCombinations',
    pattern([begin('a'), followedBy('b', { q: quantifier(3, 3, { inner: 'any' }) })]),
    'a1 b2 b3 b4 b5',
  ),
  kase(
    'oneOrMore until',
    pattern([begin('a'), followedBy('b', { q: oneOrMore, until: isType('u') }), followedBy('c')]),
    'a1 b2 b3 u4 b5 c6',
  ),
  kase(
    'oneOrMore consecutive until',
    pattern([
      begin('a'),
      next('b', { q: quantifier(1, null, { inner: 'strict' }), until: isType('u') }),
    ]),
    'a1 b2 b3 u4 b5',
  ),
];

const groups: CaseJson[] = [
  kase(
    'followedByAny a group',
    pattern([begin('s'), group('any', 'g', [begin('a'), next('b')]), followedBy('c')]),
    's1 a2 b3 a4 b5 c6',
  ),
  kase(
    'group oneOrMore relaxed: events skipped at the head of a repetition',
    pattern([
      begin('s'),
      group('relaxed', 'g', [begin('a'), next('b')], oneOrMore),
      followedBy('e'),
    ]),
    's1 a2 b3 x4 a5 b6 e7',
  ),
  kase(
    'group times(2) next',
    pattern([
      begin('s'),
      group('strict', 'g', [begin('a'), next('b')], quantifier(2, 2)),
      next('e'),
    ]),
    's1 a2 b3 a4 b5 e6 s7 a8 b9 e10',
  ),
  kase(
    'group times(2)',
    pattern([
      begin('s'),
      followedBy('x'),
      group('relaxed', 'g', [begin('a'), followedBy('b')], quantifier(2, 2)),
    ]),
    's1 x2 a3 b4 c5 a6 b7 a8 b9',
  ),
  kase(
    'begin with a group oneOrMore, then next',
    pattern([group('strict', 'g', [begin('a'), next('b')], oneOrMore), next('c')]),
    'a1 b2 a3 b4 c5 a6 b7 d8 c9',
  ),
  kase(
    'group optional',
    pattern([
      begin('s'),
      group('relaxed', 'g', [begin('a'), next('b')], quantifier(1, 1, { optional: true })),
      followedBy('c'),
    ]),
    's1 a2 b3 c4 s5 c6',
  ),
  kase(
    'group oneOrMore consecutive',
    pattern([
      begin('s'),
      group('strict', 'g', [begin('a'), next('b')], quantifier(1, null, { inner: 'strict' })),
      followedBy('c'),
    ]),
    's1 a2 b3 a4 b5 d6 a7 b8 c9',
  ),
  kase(
    'group times(1, 2) allowCombinations',
    pattern([
      begin('s'),
      group('any', 'g', [begin('a'), followedBy('b')], quantifier(1, 2, { inner: 'any' })),
      followedBy('c'),
    ]),
    's1 a2 b3 a4 b5 c6',
  ),
];

const within: CaseJson[] = [
  kase(
    'within: matches, and timeouts at first + window',
    pattern([begin('a'), followedBy('b')], { within: 5 }),
    'a1 b4 a10 b15 a20',
  ),
  kase(
    'within: a loop times out with what it holds',
    pattern([begin('a'), followedBy('b', { q: oneOrMore }), followedBy('c')], { within: 4 }),
    'a1 b2 b3 c5 a6 b7 c9',
  ),
  kase(
    'within: watermarks time out before later events arrive',
    pattern([begin('a'), followedBy('b')], { within: 3 }),
    'a1 W2 a2 W5 b6 a7 W20 b8',
  ),
];

const skip: CaseJson[] = [
  ...Object.entries(skips).map(([name, s]) =>
    kase(
      `${name}: b+ consecutive then c`,
      pattern([begin('b', { q: quantifier(1, null, { inner: 'strict' }) }), next('c')], {
        skip: s,
      }),
      'b1 b2 b3 c4',
    ),
  ),
  ...Object.entries(skips).map(([name, s]) =>
    kase(
      `${name}: a b+ c relaxed`,
      pattern(
        [
          begin('a', { q: quantifier(1, 1, { optional: true }) }),
          followedBy('b', { q: oneOrMore }),
          followedBy('c'),
        ],
        { skip: s },
      ),
      'a1 b2 a3 b4 b5 c6 b7 c8',
    ),
  ),
  kase(
    'skipToFirst on a stage the match lacks',
    pattern(
      [begin('a'), followedBy('o', { q: quantifier(1, 1, { optional: true }) }), followedBy('b')],
      {
        skip: { kind: 'skip-to-first', stage: 'o', throwOnMiss: false },
      },
    ),
    'a1 a2 b3 a4 o5 b6',
  ),
  kase(
    'skipToLast throwOnMiss on a stage the match lacks',
    pattern(
      [begin('a'), followedBy('o', { q: quantifier(1, 1, { optional: true }) }), followedBy('b')],
      {
        skip: { kind: 'skip-to-last', stage: 'o', throwOnMiss: true },
      },
    ),
    'a1 b2',
  ),
  kase(
    'skipToFirst on the first stage',
    pattern([begin('a'), followedBy('b')], {
      skip: { kind: 'skip-to-first', stage: 'a', throwOnMiss: false },
    }),
    'a1 a2 b3',
  ),
  kase(
    'skipPastLastEvent with within and timeouts',
    pattern([begin('a'), followedByAny('b')], { within: 4, skip: skips.skipPastLastEvent! }),
    'a1 a2 b3 a4 a5 b10',
  ),
];

const time: CaseJson[] = [
  kase('ties keep arrival order', pattern([begin('a'), next('b')]), 'a1 b1 b1.2 a2.1 b2'),
  kase('ties arriving swapped', pattern([begin('a'), next('b')]), 'b1 a1 a2 W1 b2'),
  kase(
    'out of order before the watermark is sorted',
    pattern([begin('a'), next('b'), next('c')]),
    'c3 a1 b2 W3 c6 b5 a4',
  ),
  kase(
    'late events go to the side output',
    pattern([begin('a'), followedBy('b')]),
    'a2 W2 b1 a2.2 b3 W5 b4 b5 b6',
  ),
  kase(
    'keys match apart',
    pattern([begin('a'), followedBy('b')], { within: 10 }),
    'x:a1 y:a2 y:b3 x:c4 W8 x:b9 y:a15',
  ),
  kase(
    'processing time',
    pattern([begin('a'), next('b'), followedBy('c')]),
    'a1 b2 c3 a4 d5 b6',
    'processing',
  ),
  kase(
    'processing time, loop and skip',
    pattern([begin('b', { q: oneOrMore }), followedBy('c')], { skip: skips.skipPastLastEvent! }),
    'b1 b2 c3 b4 c5',
    'processing',
  ),
];

const iterative: CaseJson[] = [
  kase(
    'sum of the loop stays below a bound',
    pattern([
      begin('s'),
      followedBy('m', {
        q: oneOrMore,
        where: all(isType('m'), { kind: 'sum', stage: 'm', op: '<', value: 5 }),
      }),
      followedBy('e'),
    ]),
    's1 m2=1 m3=2 m4=3 m5=1 e6',
  ),
  kase(
    'each value above the last one of the same stage',
    pattern([
      begin('a'),
      followedBy('b', {
        q: quantifier(2, null, { inner: 'strict' }),
        where: all(isType('b'), { kind: 'vsLast', stage: 'b', op: '>' }),
      }),
    ]),
    'a1 b2=1 b3=2 b4=2 b5=3 b6=4',
  ),
  kase(
    'compared with another stage, and a count',
    pattern([
      begin('a'),
      followedBy('b', { where: all(isType('b'), { kind: 'vsLast', stage: 'a', op: '>' }) }),
      followedBy('c', {
        q: oneOrMore,
        where: all(isType('c'), { kind: 'count', stage: 'c', op: '<', value: 2 }),
      }),
    ]),
    'a1=5 b2=3 b3=7 c4 c5 c6',
  ),
  kase(
    'where with not and a value',
    pattern([begin('a', { where: all(not(isType('b', 'c')), vBelow(3)) }), next('b')]),
    'a1=4 b2 d3=1 b4 a5=2 b6',
  ),
];

/** Every hand-written case, names unique. */
export const HAND_CASES: readonly CaseJson[] = [
  ...contiguity,
  ...negation,
  ...quantifiers,
  ...groups,
  ...within,
  ...skip,
  ...time,
  ...iterative,
];
