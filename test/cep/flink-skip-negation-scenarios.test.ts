/**
 * Scenarios of Flink CEP's negation, same-element and after-match-skip tests, run through
 * Weir's pattern API (`Pattern`, `AfterMatchSkipStrategy`, `toSpec()`) and CEP operator in
 * the CEP test harness (cep-harness.ts), compared with the matches Flink's tests expect.
 *
 * Ported classes (org.apache.flink.cep.nfa): `NotPatternITCase`, `SameElementITCase`,
 * `AfterMatchSkipITCase`. Each `it` names the Flink class and method.
 *
 * How the scenarios are translated:
 * - Flink's tests feed timestamped events straight to the NFA. Here every event enters in
 *   event time with its Flink timestamp, and one watermark after the input releases them.
 *   `AfterMatchSkipITCase` feeds records without a timestamp: here they all have time 0,
 *   so they enter in arrival order. The `NotPatternITCase` tests with a window also get a
 *   watermark at each event's time after it, as Flink's harness advances the NFA's time to
 *   each event's.
 * - Two `NotPatternITCase` methods (`testIgnoreStateOfTimesWithNotFollowedBy`,
 *   `testTimesWithNotFollowedByAfter`) feed events whose timestamps are out of order, and
 *   Flink's NFA takes them in arrival order. In event time Weir would sort them, which is
 *   another scenario, so these two run in processing time (arrival order).
 * - Flink's `Event(id, name, price)` becomes a harness event: `type` is the name, `v` the
 *   price, `id` a label. Flink compares matches as a multiset of lists of events, each list
 *   sorted, with events compared by value; so do these tests (`asFlinkCompares`), and events
 *   equal by value (the point of `SameElementITCase`) share a label.
 *
 * Deliberate differences:
 * - `SameElementITCase.testClearingBuffer` and `testClearingBufferWithUntilAtTheEnd` also
 *   check the NFA's partial matches at the end; only their matches are checked here.
 * - Flink's `testSkipToLastNonExistentPositionWithoutException` runs `skipToFirst("b")`
 *   (not `skipToLast`); ported as written.
 * - A skip strategy with `throwOnMiss` (Flink's `throwExceptionOnMiss()`) throws an error
 *   out of the operator here (when the watermark releases the events), where Flink's NFA
 *   throws a `FlinkRuntimeException`.
 *
 * Not ported: `AfterMatchSkipITCase.testSharedBufferIsProperlyCleared`, which checks only
 * that Flink's shared buffer is empty afterwards (no matches to compare).
 */
import { describe, expect, it } from 'vitest';
import { AfterMatchSkipStrategy, Pattern } from '../../src/api/cep/pattern.js';
import type { SkipStrategySpec } from '../../src/core/cep.js';
import type { Ev } from './cep-harness.js';
import { asFlinkCompares, matches, named } from './flink-scenario-helpers.js';

function expectAsFlink(actual: readonly string[], expected: readonly string[]): void {
  expect(asFlinkCompares(actual)).toEqual(asFlinkCompares(expected));
}

describe('Flink NotPatternITCase', () => {
  const start = () => Pattern.begin<Ev>('start').where(named('a'));
  const acbcd = 'a1=1@1 c1=2@2 b1=3@3 c2=4@4 d=4@5';

  it('NotPatternITCase.testNotNext', () => {
    const p = start()
      .notNext('notPattern')
      .where(named('b'))
      .followedByAny('middle')
      .where(named('c'))
      .followedBy('end')
      .where(named('d'));
    expectAsFlink(matches(p, acbcd), ['a1 c1 d', 'a1 c2 d']);
  });

  it('NotPatternITCase.testNotNextNoMatches', () => {
    const p = start()
      .notNext('notPattern')
      .where(named('b'))
      .followedBy('middle')
      .where(named('c'))
      .followedBy('end')
      .where(named('d'));
    expect(matches(p, 'a1=1@1 b1=3@2 c1=2@3 c2=4@4 d=4@5')).toEqual([]);
  });

  it('NotPatternITCase.testNotNextNoMatchesAtTheEnd', () => {
    const p = start()
      .followedByAny('middle')
      .where(named('c'))
      .followedByAny('end')
      .where(named('d'))
      .notNext('notPattern')
      .where(named('b'));
    expect(matches(p, 'a1=1@1 c1=2@2 c2=4@3 d=4@4 b1=3@5')).toEqual([]);
  });

  it('NotPatternITCase.testNotFollowedBy', () => {
    const p = start()
      .notFollowedBy('notPattern')
      .where(named('b'))
      .followedByAny('middle')
      .where(named('c'))
      .followedBy('end')
      .where(named('d'));
    expectAsFlink(matches(p, acbcd), ['a1 c1 d']);
  });

  it('NotPatternITCase.testNotFollowedByBeforeOptional', () => {
    const p = start()
      .notFollowedBy('notPattern')
      .where(named('b'))
      .followedByAny('middle')
      .where(named('c'))
      .optional()
      .followedBy('end')
      .where(named('d'));
    expectAsFlink(matches(p, acbcd), ['a1 c1 d']);
  });

  it('NotPatternITCase.testTimesWithNotFollowedBy', () => {
    const p = start()
      .followedByAny('middle')
      .where(named('b'))
      .times(2)
      .notFollowedBy('notPattern')
      .where(named('c'))
      .followedBy('end')
      .where(named('d'));
    expect(matches(p, 'a1=1@1 b1=2@2 c=3@3 b2=4@4 d=4@5')).toEqual([]);
  });

  it('NotPatternITCase.testIgnoreStateOfTimesWithNotFollowedBy', () => {
    const p = start()
      .notFollowedBy('notPattern')
      .where(named('b'))
      .followedByAny('middle')
      .where(named('c'))
      .times(2)
      .optional()
      .followedBy('end')
      .where(named('d'));
    const events = 'a1=1@1 d1=6@2 e=2@1 b1=4@3 c1=3@2 c2=5@4 d2=7@5';
    expectAsFlink(matches(p, events, { arrival: true }), ['a1 d1']);
  });

  it('NotPatternITCase.testTimesWithNotFollowedByAfter', () => {
    const p = start()
      .followedByAny('middle')
      .where(named('b'))
      .times(2)
      .notFollowedBy('notPattern')
      .where(named('c'))
      .followedBy('end')
      .where(named('d'));
    const events = 'a1=1@1 d1=7@2 e=2@1 b1=4@3 b2=5@3 c1=3@2 d2=8@5';
    expect(matches(p, events, { arrival: true })).toEqual([]);
  });

  it('NotPatternITCase.testNotFollowedByBeforeOptionalAtTheEnd', () => {
    const p = start()
      .notFollowedBy('notPattern')
      .where(named('b'))
      .followedByAny('end')
      .where(named('c'))
      .optional();
    expectAsFlink(matches(p, 'a1=1@1 c1=2@2 b1=3@3 c2=4@4'), ['a1 c1', 'a1']);
  });

  it('NotPatternITCase.testNotFollowedByBeforeOptionalTimes', () => {
    const p = start()
      .notFollowedBy('notPattern')
      .where(named('b'))
      .followedByAny('middle')
      .where(named('c'))
      .times(2)
      .optional()
      .followedBy('end')
      .where(named('d'));
    expectAsFlink(matches(p, acbcd), ['a1 c1 c2 d']);
  });

  it('NotPatternITCase.testNotFollowedByWithBranchingAtStart', () => {
    const p = start()
      .notFollowedBy('notPattern')
      .where(named('b'))
      .followedBy('middle')
      .where(named('c'))
      .followedBy('end')
      .where(named('d'));
    expectAsFlink(matches(p, 'a1=1@1 b1=3@2 c1=2@3 a2=4@4 c2=5@5 d=6@6'), ['a2 c2 d']);
  });

  // Flink's NotFollowByData: A_1, B_1 ... B_6, C_1, D_1 (prices 1 to 9).
  const notNextAfter = (any: boolean) => {
    const a = Pattern.begin<Ev>('a').where(named('a'));
    return (any ? a.followedByAny('b*') : a.followedBy('b*'))
      .where(named('b'))
      .oneOrMore()
      .notNext('not c')
      .where(named('c'))
      .followedBy('d')
      .where(named('d'));
  };
  const abcbd = 'A1:a=1@0 B1:b=2@1 C1:c=5@2 B2:b=3@3 D1:d=9@4';

  it('NotPatternITCase.testNotNextAfterOneOrMoreSkipTillNext', () => {
    expect(matches(notNextAfter(false), abcbd)).toEqual([]);
  });

  it('NotPatternITCase.testNotNextAfterOneOrMoreSkipTillAny', () => {
    expectAsFlink(matches(notNextAfter(true), abcbd), ['A1 B2 D1']);
  });

  const notFollowedByAfter = (eager: boolean, any: boolean) => {
    const a = Pattern.begin<Ev>('a').where(named('a'));
    const b = (any ? a.followedByAny('b*') : a.followedBy('b*')).where(named('b')).oneOrMore();
    return (eager ? b : b.allowCombinations())
      .notFollowedBy('not c')
      .where(named('c'))
      .followedBy('d')
      .where(named('d'));
  };
  const after = 'A1:a=1@0 B1:b=2@1 B2:b=3@2 B3:b=4@3 C1:c=5@4 B4:b=6@5 B5:b=7@6 B6:b=8@7 D1:d=9@8';

  it('NotPatternITCase.testNotFollowedByNextAfterOneOrMoreEager', () => {
    expect(matches(notFollowedByAfter(true, false), after)).toEqual([]);
  });

  it('NotPatternITCase.testNotFollowedByAnyAfterOneOrMoreEager', () => {
    expectAsFlink(matches(notFollowedByAfter(true, true), after), [
      'A1 B4 B5 B6 D1',
      'A1 B4 B5 D1',
      'A1 B4 D1',
      'A1 B5 B6 D1',
      'A1 B5 D1',
      'A1 B6 D1',
    ]);
  });

  it('NotPatternITCase.testNotFollowedByNextAfterOneOrMoreCombinations', () => {
    expect(matches(notFollowedByAfter(false, false), after)).toEqual([]);
  });

  it('NotPatternITCase.testNotFollowedByAnyAfterOneOrMoreCombinations', () => {
    expectAsFlink(matches(notFollowedByAfter(false, true), after), [
      'A1 B4 B5 B6 D1',
      'A1 B4 B5 D1',
      'A1 B4 B6 D1',
      'A1 B4 D1',
      'A1 B5 B6 D1',
      'A1 B5 D1',
      'A1 B6 D1',
    ]);
  });

  const notFollowedByBefore = (eager: boolean, any: boolean, optional: boolean) => {
    const a = Pattern.begin<Ev>('a').where(named('a')).notFollowedBy('not c').where(named('c'));
    const b = (any ? a.followedByAny('b*') : a.followedBy('b*')).where(named('b')).oneOrMore();
    const q = optional ? b.optional() : b;
    return (eager ? q : q.allowCombinations()).followedBy('d').where(named('d'));
  };
  const before = 'A1:a=1@0 B1:b=2@1 C1:c=5@2 B4:b=6@3 B5:b=7@4 B6:b=8@5 D1:d=9@6';
  const eagerBefore = ['A1 B1 B4 B5 B6 D1', 'A1 B1 B4 B5 D1', 'A1 B1 B4 D1', 'A1 B1 D1'];
  const combinationsBefore = [
    'A1 B1 B4 B5 B6 D1',
    'A1 B1 B4 B6 D1',
    'A1 B1 B4 B5 D1',
    'A1 B1 B4 D1',
    'A1 B1 B5 B6 D1',
    'A1 B1 B5 D1',
    'A1 B1 B6 D1',
    'A1 B1 D1',
  ];

  it('NotPatternITCase.testNotFollowedByAnyBeforeOneOrMoreEager', () => {
    expectAsFlink(matches(notFollowedByBefore(true, true, false), before), eagerBefore);
  });

  it('NotPatternITCase.testNotFollowedByAnyBeforeOneOrMoreCombinations', () => {
    expectAsFlink(matches(notFollowedByBefore(false, true, false), before), combinationsBefore);
  });

  it('NotPatternITCase.testNotFollowedByBeforeOneOrMoreEager', () => {
    expectAsFlink(matches(notFollowedByBefore(true, false, false), before), eagerBefore);
  });

  it('NotPatternITCase.testNotFollowedByBeforeOneOrMoreCombinations', () => {
    expectAsFlink(matches(notFollowedByBefore(false, false, false), before), combinationsBefore);
  });

  it('NotPatternITCase.testNotFollowedByBeforeZeroOrMoreEagerSkipTillNext', () => {
    expectAsFlink(matches(notFollowedByBefore(true, false, true), before), eagerBefore);
  });

  it('NotPatternITCase.testNotFollowedByBeforeZeroOrMoreCombinationsSkipTillNext', () => {
    expectAsFlink(matches(notFollowedByBefore(false, false, true), before), combinationsBefore);
  });

  it('NotPatternITCase.testNotFollowedByBeforeZeroOrMoreEagerSkipTillAny', () => {
    expectAsFlink(matches(notFollowedByBefore(true, true, true), before), eagerBefore);
  });

  it('NotPatternITCase.testNotFollowedByBeforeZeroOrMoreCombinationsSkipTillAny', () => {
    expectAsFlink(matches(notFollowedByBefore(false, true, true), before), combinationsBefore);
  });
});

describe('Flink NotPatternITCase, with windows', () => {
  const aNotB = (type: 'firstAndLast' | 'previousAndCurrent') =>
    Pattern.begin<Ev>('a').where(named('a')).notFollowedBy('b').where(named('b')).within(3, type);
  const atEnd = 'a1=1@1 b1=2@2 a2=3@4 c=4@5 b2=5@10 a3=7@11 b3=8@13';

  it('NotPatternITCase.testNotFollowedByWithinFirstAndLastAtEnd', () => {
    expectAsFlink(matches(aNotB('firstAndLast'), atEnd, { watermarkEach: true }), ['a2']);
  });

  it('NotPatternITCase.testNotFollowedByWithinPreviousAndCurrentAtEnd', () => {
    expectAsFlink(matches(aNotB('previousAndCurrent'), atEnd, { watermarkEach: true }), ['a2']);
  });

  it('NotPatternITCase.testNotFollowByBeforeTimesWithin', () => {
    // times(0, 2) in Flink.
    const p = Pattern.begin<Ev>('a')
      .where(named('a'))
      .notFollowedBy('b')
      .where(named('b'))
      .followedBy('c')
      .where(named('c'))
      .times(1, 2)
      .optional()
      .within(3);
    const events = 'a1=1@1 b1=2@2 a2=3@10 c1=4@11 c2=5@12 a3=7@20 c3=8@21 c4=8@24';
    expectAsFlink(matches(p, events, { watermarkEach: true }), [
      'a1',
      'a2',
      'a2 c1',
      'a2 c1 c2',
      'a3',
      'a3 c3',
    ]);
  });

  it('NotPatternITCase.testNotFollowedByWithinAtEndAfterMatch', () => {
    const p = Pattern.begin<Ev>('a', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(named('a'))
      .oneOrMore()
      .allowCombinations()
      .followedBy('c')
      .where(named('c'))
      .notFollowedBy('b')
      .where(named('b'))
      .within(5);
    const events = 'a1=1@1 a2=2@2 a3=3@3 c1=4@4 c2=5@10';
    expectAsFlink(matches(p, events, { watermarkEach: true }), ['a1 a2 a3 c1']);
  });
});

describe('Flink SameElementITCase', () => {
  const startC = () => Pattern.begin<Ev>('start').where(named('c'));

  it('SameElementITCase.testEagerZeroOrMoreSameElement', () => {
    const p = startC()
      .followedBy('middle')
      .where(named('a'))
      .oneOrMore()
      .optional()
      .followedBy('end1')
      .where(named('b'));
    const events =
      's:c=1@1 m1:a=2@3 m1:a=2@3 m1:a=2@3 m2:a=3@4 x:d=6@5 m3:a=4@6 m3:a=4@6 end:b=5@7';
    expectAsFlink(matches(p, events), [
      's m1 m1 m1 m2 m3 m3 end',
      's m1 m1 m1 m2 m3 end',
      's m1 m1 m1 m2 end',
      's m1 m1 m1 end',
      's m1 m1 end',
      's m1 end',
      's end',
    ]);
  });

  it('SameElementITCase.testClearingBuffer', () => {
    const p = Pattern.begin<Ev>('a')
      .where(named('a'))
      .followedBy('b')
      .where(named('b'))
      .followedBy('c')
      .where(named('c'))
      .followedBy('d')
      .where(named('d'));
    expectAsFlink(matches(p, 'a1=1@1 b1=2@2 c1=2@2 d=2@2'), ['a1 b1 c1 d']);
  });

  it('SameElementITCase.testClearingBufferWithUntilAtTheEnd', () => {
    const p = Pattern.begin<Ev>('a')
      .where(named('a'))
      .followedBy('d')
      .where(named('d'))
      .oneOrMore()
      .until((_e, ctx) => ctx.eventsFor('d').length === 3);
    // d1 to d4 are equal by value.
    expectAsFlink(matches(p, 'a1=1@1 d=2@2 d=2@2 d=2@2 d=2@4'), ['a1 d d d', 'a1 d d', 'a1 d']);
  });

  it('SameElementITCase.testZeroOrMoreSameElement', () => {
    const p = startC()
      .followedByAny('middle')
      .where(named('a'))
      .oneOrMore()
      .optional()
      .allowCombinations()
      .followedByAny('end1')
      .where(named('b'));
    // middleEvent1 and middleEvent1a (and 3 and 3a) are equal by value.
    const events = 's:c=1@1 m1:a=2@3 m1:a=2@3 m2:a=3@4 x:d=6@5 m3:a=4@6 m3:a=4@6 end:b=5@7';
    // Flink lists every subset of the five middle events (32 matches).
    const middles = ['m1', 'm1', 'm2', 'm3', 'm3'];
    const expected: string[] = [];
    for (let mask = 0; mask < 1 << middles.length; mask++) {
      const chosen = middles.filter((_, i) => (mask & (1 << i)) !== 0);
      expected.push(['s', ...chosen, 'end'].join(' '));
    }
    expectAsFlink(matches(p, events), expected);
  });

  it('SameElementITCase.testSimplePatternWSameElement', () => {
    const p = startC()
      .followedByAny('middle')
      .where(named('a'))
      .followedBy('end1')
      .where(named('b'));
    expectAsFlink(matches(p, 's:c=1@1 m1:a=2@3 m1:a=2@3 end:b=5@7'), ['s m1 end', 's m1 end']);
  });

  const threeSame = 's:c=1@1 m:a=2@3 m:a=2@3 m:a=2@3 end:b=5@7';

  it('SameElementITCase.testIterativeConditionWSameElement', () => {
    const p = startC()
      .followedByAny('middle')
      .where(named('a'))
      .oneOrMore()
      .optional()
      .allowCombinations()
      .followedBy('end')
      .where((_e, ctx) => ctx.eventsFor('middle').reduce((s, e) => s + e.v, 0) === 4);
    expectAsFlink(matches(p, threeSame), ['s m m end', 's m m m', 's m m end']);
  });

  it('SameElementITCase.testEndWLoopingWSameElement', () => {
    const p = startC().followedByAny('middle').where(named('a')).oneOrMore().optional();
    expectAsFlink(matches(p, threeSame), ['s', 's m', 's m', 's m', 's m m', 's m m', 's m m m']);
  });

  it('SameElementITCase.testRepeatingPatternWSameElement', () => {
    const p = startC()
      .followedBy('middle1')
      .where(named('a'))
      .oneOrMore()
      .optional()
      .followedBy('middle2')
      .where(named('b'))
      .optional()
      .followedBy('end')
      .where(named('a'));
    // x1 (middle1Event1) is fed twice.
    const events = 's:c=1@1 x1:a=2@3 x1:a=2@3 x2:a=3@3 d=6@5 y:b=5@6 x3:a=4@7';
    expectAsFlink(matches(p, events), [
      's x1',
      's x1 x1',
      's y x3',
      's x1 x1 x2',
      's x1 y x3',
      's x1 x1 x2 x3',
      's x1 x1 y x3',
      's x1 x1 x2 y x3',
    ]);
  });
});

describe('Flink AfterMatchSkipITCase', () => {
  /**
   * Flink's records here carry no timestamp: all events at time 0, in arrival order. A token
   * is `label`, `label:name` or either with `=price`; the name defaults to the label.
   */
  const untimed = (text: string): string =>
    text
      .trim()
      .split(/\s+/)
      .map((t) => (t.includes(':') ? `${t}@0` : `${t.replace(/=.*$/, '')}:${t}@0`))
      .join(' ');
  const has =
    (part: string) =>
    (e: Ev): boolean =>
      e.type.includes(part);
  const skip = AfterMatchSkipStrategy;
  const sixA = untimed('a1:a a2:a a3:a a4:a a5:a a6:a');

  it('AfterMatchSkipITCase.testNoSkip', () => {
    const p = Pattern.begin<Ev>('start', skip.noSkip()).where(named('a')).times(3);
    expectAsFlink(matches(p, sixA), ['a1 a2 a3', 'a2 a3 a4', 'a3 a4 a5', 'a4 a5 a6']);
  });

  const twoVariables = (strategy: SkipStrategySpec) =>
    matches(
      Pattern.begin<Ev>('start', strategy).where(named('a')).followedByAny('end').where(named('b')),
      untimed('a1:a b1:b a2:a b2:b'),
    );

  it('AfterMatchSkipITCase.testNoSkipWithFollowedByAny', () => {
    expectAsFlink(twoVariables(skip.noSkip()), ['a1 b1', 'a1 b2', 'a2 b2']);
  });

  it('AfterMatchSkipITCase.testSkipToNextWithFollowedByAny', () => {
    expectAsFlink(twoVariables(skip.skipToNext()), ['a1 b1', 'a2 b2']);
  });

  const quantifierAtEnd = (strategy: SkipStrategySpec) =>
    matches(
      Pattern.begin<Ev>('start', strategy)
        .where(named('a'))
        .next('end')
        .where(named('b'))
        .oneOrMore(),
      untimed('a1:a b1:b b2:b b3:b'),
    );

  it('AfterMatchSkipITCase.testNoSkipWithQuantifierAtTheEnd', () => {
    expectAsFlink(quantifierAtEnd(skip.noSkip()), ['a1 b1 b2 b3', 'a1 b1 b2', 'a1 b1']);
  });

  it('AfterMatchSkipITCase.testSkipToNextWithQuantifierAtTheEnd', () => {
    expectAsFlink(quantifierAtEnd(skip.skipToNext()), ['a1 b1']);
  });

  it('AfterMatchSkipITCase.testSkipPastLast', () => {
    const p = Pattern.begin<Ev>('start', skip.skipPastLastEvent()).where(named('a')).times(3);
    expectAsFlink(matches(p, sixA), ['a1 a2 a3', 'a4 a5 a6']);
  });

  const abTimes = (strategy: SkipStrategySpec) =>
    Pattern.begin<Ev>('start', strategy)
      .where(has('a'))
      .times(2)
      .next('end')
      .where(has('b'))
      .times(2);

  it('AfterMatchSkipITCase.testSkipToFirst', () => {
    const events = untimed('ab1:ab ab2:ab ab3:ab ab4:ab ab5:ab ab6:ab');
    expectAsFlink(matches(abTimes(skip.skipToFirst('end')), events), [
      'ab1 ab2 ab3 ab4',
      'ab3 ab4 ab5 ab6',
    ]);
  });

  it('AfterMatchSkipITCase.testSkipToLast', () => {
    const events = untimed('ab1:ab ab2:ab ab3:ab ab4:ab ab5:ab ab6:ab ab7:ab');
    expectAsFlink(matches(abTimes(skip.skipToLast('end')), events), [
      'ab1 ab2 ab3 ab4',
      'ab4 ab5 ab6 ab7',
    ]);
  });

  it('AfterMatchSkipITCase.testSkipPastLast2', () => {
    const p = Pattern.begin<Ev>('a', skip.skipPastLastEvent())
      .where(has('a'))
      .followedByAny('b')
      .where(has('b'))
      .followedByAny('c')
      .where(has('c'))
      .followedBy('d')
      .where(has('d'));
    expectAsFlink(matches(p, untimed('a1 a2 b1 b2 c1 c2 d1 d2')), ['a1 b1 c1 d1']);
  });

  it('AfterMatchSkipITCase.testSkipPastLast3', () => {
    const p = Pattern.begin<Ev>('a', skip.skipPastLastEvent())
      .where(has('a'))
      .next('b')
      .where(has('b'));
    expectAsFlink(matches(p, untimed('a1 c a2 b2')), ['a2 b2']);
  });

  it('AfterMatchSkipITCase.testSkipToFirstWithOptionalMatch', () => {
    const p = Pattern.begin<Ev>('x', skip.skipToFirst('b'))
      .where(has('x'))
      .oneOrMore()
      .optional()
      .next('b')
      .where(has('b'))
      .next('c')
      .where(has('c'));
    expectAsFlink(matches(p, untimed('ab1 c1 ab2 c2')), ['ab1 c1', 'ab2 c2']);
  });

  it('AfterMatchSkipITCase.testSkipToFirstAtStartPosition', () => {
    const p = Pattern.begin<Ev>('b', skip.skipToFirst('b'))
      .where(has('b'))
      .next('c')
      .where(has('c'));
    expectAsFlink(matches(p, untimed('ab1 c1 ab2 c2')), ['ab1 c1', 'ab2 c2']);
  });

  const aThenBs = (strategy: SkipStrategySpec) =>
    Pattern.begin<Ev>('a', strategy)
      .where(has('a'))
      .next('b')
      .where(has('b'))
      .oneOrMore()
      .consecutive();
  const abab = untimed('a1 b1 a2 b2 b3 a3 b4');

  it('AfterMatchSkipITCase.testSkipToFirstWithOneOrMore', () => {
    expectAsFlink(matches(aThenBs(skip.skipToFirst('b')), abab), ['a1 b1', 'a2 b2', 'a3 b4']);
  });

  it('AfterMatchSkipITCase.testSkipToFirstElementOfMatch', () => {
    const p = Pattern.begin<Ev>('a', skip.skipToFirst('a', { throwOnMiss: true })).where(has('a'));
    expect(() => matches(p, untimed('a1'))).toThrow(/skip strategy/);
  });

  const missedSkipTo = (strategy: SkipStrategySpec) =>
    matches(
      Pattern.begin<Ev>('a', strategy)
        .where(has('a'))
        .next('b')
        .where(has('b'))
        .oneOrMore()
        .optional()
        .consecutive()
        .next('c')
        .where(has('c')),
      untimed('a c'),
    );

  it('AfterMatchSkipITCase.testSkipToFirstNonExistentPosition', () => {
    expect(() => missedSkipTo(skip.skipToFirst('b', { throwOnMiss: true }))).toThrow(
      /skip strategy/,
    );
  });

  it('AfterMatchSkipITCase.testSkipToFirstNonExistentPositionWithoutException', () => {
    expectAsFlink(missedSkipTo(skip.skipToFirst('b')), ['a c']);
  });

  it('AfterMatchSkipITCase.testSkipToLastNonExistentPosition', () => {
    expect(() => missedSkipTo(skip.skipToLast('b', { throwOnMiss: true }))).toThrow(
      /skip strategy/,
    );
  });

  it('AfterMatchSkipITCase.testSkipToLastNonExistentPositionWithoutException', () => {
    // skipToFirst, as Flink's test has it.
    expectAsFlink(missedSkipTo(skip.skipToFirst('b')), ['a c']);
  });

  it('AfterMatchSkipITCase.testSkipToLastWithOneOrMore', () => {
    expectAsFlink(matches(aThenBs(skip.skipToLast('b')), abab), ['a1 b1', 'a2 b2', 'a3 b4']);
  });

  const greedyAs = (strategy: SkipStrategySpec) =>
    matches(
      Pattern.begin<Ev>('a', strategy)
        .where(has('a'))
        .oneOrMore()
        .consecutive()
        .greedy()
        .next('b')
        .where(has('b')),
      untimed('a1 a2 a3 b1'),
    );

  it('AfterMatchSkipITCase.testSkipPastLastWithOneOrMoreAtBeginning', () => {
    expectAsFlink(greedyAs(skip.skipPastLastEvent()), ['a1 a2 a3 b1']);
  });

  it('AfterMatchSkipITCase.testSkipToLastWithOneOrMoreAtBeginning', () => {
    expectAsFlink(greedyAs(skip.skipToLast('a')), ['a1 a2 a3 b1', 'a3 b1']);
  });

  it('AfterMatchSkipITCase.testSkipToFirstWithOneOrMoreAtBeginning', () => {
    expectAsFlink(greedyAs(skip.skipToFirst('a')), ['a1 a2 a3 b1', 'a2 a3 b1', 'a3 b1']);
  });

  it('AfterMatchSkipITCase.testNoSkipWithOneOrMoreAtBeginning', () => {
    expectAsFlink(greedyAs(skip.noSkip()), ['a1 a2 a3 b1', 'a2 a3 b1', 'a3 b1']);
  });

  it('AfterMatchSkipITCase.testSkipToFirstDiscarding', () => {
    const p = Pattern.begin<Ev>('a or c', skip.skipToFirst('c*'))
      .where((e) => has('a')(e) || has('c')(e))
      .followedBy('b or c')
      .where((e) => has('b')(e) || has('c')(e))
      .followedBy('c*')
      .where(has('c'))
      .oneOrMore()
      .greedy()
      .followedBy('d')
      .where(has('d'));
    expectAsFlink(matches(p, untimed('a b c1 c2 c3 d')), ['a b c1 c2 c3 d', 'c1 c2 c3 d']);
  });

  it('AfterMatchSkipITCase.testSkipBeforeOtherAlreadyCompleted', () => {
    const p = Pattern.begin<Ev>('a', skip.skipToFirst('c'))
      .where(has('a'))
      .followedBy('c')
      .where(has('c'))
      .followedBy('b')
      .where((e, ctx) => has('b')(e) && ctx.eventsFor('a')[0]?.v === e.v);
    const events = untimed('a1 c1 a2=1 c2 b1=1 b2');
    expectAsFlink(matches(p, events), ['a1 c1 b2', 'a2 c2 b1']);
  });
});
