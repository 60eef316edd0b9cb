/**
 * The scenarios of Flink CEP's `NFAITCase` (org.apache.flink.cep.nfa, current version) run
 * through Weir's pattern API: each test's events with their timestamps, its pattern and the
 * matches (and timed-out or pending partial matches) Flink expects. Each `it` names the Flink
 * method it ports.
 *
 * How the scenarios are run:
 * - Flink feeds its NFA directly: before each event it advances time to the event's timestamp
 *   (pruning and timing out partial matches), then processes the event. Here the events go
 *   through the CEP operator in event time (the project's CEP harness, `cep-harness.ts`), in
 *   Flink's order, followed by one watermark at the last event's timestamp. Weir applies the
 *   same pruning before each event it releases, and the final watermark ends where Flink's last
 *   time advance does, so no partial match times out (or completes pending) that Flink would
 *   not have seen. Events of one timestamp keep their input order, as in Flink's feed.
 * - Flink compares matches as multisets of event lists, ignoring the order of events inside a
 *   match; here a match is its events in stage order (`matchText`) and the lists are compared
 *   sorted, duplicates kept. Timed-out partial matches are compared as sets, as Flink does.
 * - Flink's `Event(id, name, price)` becomes an `Ev` whose `type` is the name and whose id is
 *   the name and timestamp (`a4`, then `a4.2` for a second `a` at 4); no condition here reads
 *   the price. A `SubEvent` carries a `volume`, and `subtype` takes a type guard for it.
 * - Every scenario checked through `matchesOf` runs again at the end as a whole job
 *   (`CEP.pattern(keyed stream, pattern).select`), without watermarks until the end of the input,
 *   and must give the same matches. `testNFAResultKeyOrdering` runs only as a job, since it
 *   looks at the match object itself.
 *
 * Deliberate differences:
 * - The shared-buffer clearing tests (`test*ClearingBuffer*`) assert how many partial matches
 *   the NFA keeps after time passes the window. Weir keeps no "start" partial match and exposes
 *   what a key holds through the `weir_state_entries` and `weir_cep_buffered` gauges: those
 *   tests check that a key holds nothing where Flink keeps only its start state, and still
 *   holds state where Flink keeps more.
 * - `testAtLeastOneClearingBufferWithPreviousAndCurrent` passes no window type to `within` in
 *   Flink, so it is the first-and-last window there and here.
 * - `testLoopClearingWithinPreviousAndCurrent` puts a per-stage window on a `times(4)` stage.
 *   Flink ignores a per-stage window there; Weir refuses the pattern with the reason (docs/cep.md,
 *   "Per-stage windows"), which is what its port checks.
 *
 * Not ported (no Weir equivalent):
 * - `testSharedBufferClearing`: verifies calls on a mocked shared-buffer accessor.
 * - `testLoopClearingWithinFirstAndLast`: asserts the number of events in Flink's shared buffer.
 * Earlier versions of this class also held iterative-condition scenarios; they now live in
 * `IterativeConditionsITCase`, ported with the other CEP ITCases.
 */
import { describe, expect, it } from 'vitest';
import { AfterMatchSkipStrategy, type LastStage, Pattern } from '../../src/api/cep/pattern.js';
import type { PatternSpec } from '../../src/core/cep.js';
import { CEP, StreamEnvironment, WatermarkStrategy } from '../../src/index.js';
import { collect } from '../helpers/timeline.js';
import {
  cepHarness,
  type Ev,
  isType,
  matchText,
  type RunResult,
  resultOf,
  sorted,
  stageNames,
} from './cep-harness.js';

/** Flink's `SubEvent`: an event with a volume. */
interface SubEv extends Ev {
  readonly volume: number;
}

const isSub = (e: Ev): e is SubEv => 'volume' in e;

/**
 * `"start@1 foo@3~10 a@4 a@4"`: events in input order, `name@timestamp`, `~volume` for a
 * `SubEvent`. Ids are the name and timestamp, with `.2`, `.3` for repeats (`a4`, `a4.2`).
 */
function input(text: string): Ev[] {
  const seen = new Map<string, number>();
  return text
    .trim()
    .split(/\s+/)
    .map((token) => {
      const m = /^([a-z-]+)@(\d+)(?:~(\d+(?:\.\d+)?))?$/.exec(token);
      if (m === null) throw new Error(`bad input token '${token}'`);
      const [, name, ts, volume] = m;
      const base = `${name}${ts}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      const e: Ev = {
        id: n === 1 ? base : `${base}.${n}`,
        type: name!,
        ts: Number(ts),
        key: 'k',
        v: 0,
      };
      return volume === undefined ? e : { ...e, volume: Number(volume) };
    });
}

type Spec = PatternSpec<Ev>;
type AnyPattern = { toSpec(): Spec };

/** Feeds `events` in order, then a watermark at the last timestamp (where Flink's feed ends). */
function run(p: AnyPattern, events: readonly Ev[], watermark?: number): RunResult {
  const h = cepHarness(p.toSpec());
  for (const e of events) h.processElement(e, e.ts);
  h.processWatermark(watermark ?? Math.max(...events.map((e) => e.ts)));
  return resultOf(h);
}

/** The scenarios run by {@link matchesOf}, run again as whole jobs at the end. */
const scenarios: {
  name: string;
  job: (env: StreamEnvironment) => { readonly values: readonly string[] };
  matches: string[];
}[] = [];

/** The matches of `p` over `text`, sorted; the scenario is kept to be run as a whole job too. */
function matchesOf<S extends { readonly [stage: string]: Ev }>(
  p: Pattern<Ev, S, LastStage<S>>,
  text: string,
): string[] {
  const events = input(text);
  const matches = sorted(run(p, events).matches);
  const stages = stageNames(p.toSpec());
  scenarios.push({
    name: expect.getState().currentTestName ?? text,
    job: (env) => {
      const stream = env
        .fromArray(events)
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.noWatermarks<Ev>().withTimestampAssigner((e) => e.ts),
        )
        .keyBy((e) => e.key);
      return collect(CEP.pattern(stream, p).select((m) => matchText(m, stages)));
    },
    matches,
  });
  return matches;
}

const is = isType;
const named =
  (prefix: string) =>
  (e: Ev): boolean =>
    e.type.startsWith(prefix);

describe('NFAITCase: contiguity, conditions and subtypes', () => {
  it('testNoConditionNFA', () => {
    const p = Pattern.begin<Ev>('start').followedBy('end');
    expect(matchesOf(p, 'a@1 b@2 c@3 d@4 e@5')).toEqual(
      sorted(['a1 b2', 'b2 c3', 'c3 d4', 'd4 e5']),
    );
  });

  it('testNoConditionLoopingNFA', () => {
    const p = Pattern.begin<Ev>('start').followedBy('end').oneOrMore();
    expect(matchesOf(p, 'a@1 b@2 c@3 d@4 e@5')).toEqual(
      sorted([
        'a1 b2 c3 d4 e5',
        'a1 b2 c3 d4',
        'a1 b2 c3',
        'a1 b2',
        'b2 c3 d4 e5',
        'b2 c3 d4',
        'b2 c3',
        'c3 d4 e5',
        'c3 d4',
        'd4 e5',
      ]),
    );
  });

  it('testAnyWithNoConditionNFA', () => {
    const p = Pattern.begin<Ev>('start').followedByAny('end');
    expect(matchesOf(p, 'a@1 b@2 c@3 d@4 e@5')).toEqual(
      sorted([
        'a1 b2',
        'a1 c3',
        'a1 d4',
        'a1 e5',
        'b2 c3',
        'b2 d4',
        'b2 e5',
        'c3 d4',
        'c3 e5',
        'd4 e5',
      ]),
    );
  });

  it('testSimplePatternNFA', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('start'))
      .followedBy('middle')
      .subtype(isSub)
      .where((e) => e.volume > 5)
      .followedBy('end')
      .where(is('end'));
    expect(matchesOf(p, 'start@1 foobar@2 barfoo@3~5 foo@3~10 start@4 end@5')).toEqual([
      'start1 foo3 end5',
    ]);
  });

  it('testStrictContinuityWithResults', () => {
    const p = Pattern.begin<Ev>('middle').where(is('a')).next('end').where(is('b'));
    expect(matchesOf(p, 'a@3 b@5')).toEqual(['a3 b5']);
  });

  it('testStrictContinuityNoResults', () => {
    const p = Pattern.begin<Ev>('middle').where(is('a')).next('end').where(is('b'));
    expect(matchesOf(p, 'a@3 c@4 b@5')).toEqual([]);
  });

  // start@1, foo1..foo3 (volume 10) at 3..5, next-one (volume 2) at 6 and 7, end@8.
  const branchingInput = 'start@1 foo@3~10 foo@4~10 foo@5~10 next-one@6~2 next-one@7~2 end@8';
  const branching = (
    first: 'followedBy' | 'followedByAny',
    second: 'followedBy' | 'followedByAny',
  ) =>
    Pattern.begin<Ev>('start')
      .where(is('start'))
      [first]('middle-first')
      .subtype(isSub)
      .where((e) => e.volume > 5)
      [second]('middle-second')
      .subtype(isSub)
      .where((e) => e.type === 'next-one')
      .followedByAny('end')
      .where(is('end'));

  it('testBranchingPattern', () => {
    expect(matchesOf(branching('followedByAny', 'followedByAny'), branchingInput)).toEqual(
      sorted([
        'start1 foo3 next-one6 end8',
        'start1 foo4 next-one6 end8',
        'start1 foo5 next-one6 end8',
        'start1 foo3 next-one7 end8',
        'start1 foo4 next-one7 end8',
        'start1 foo5 next-one7 end8',
      ]),
    );
  });

  it('testBranchingPatternSkipTillNext', () => {
    expect(matchesOf(branching('followedBy', 'followedBy'), branchingInput)).toEqual([
      'start1 foo3 next-one6 end8',
    ]);
  });

  it('testBranchingPatternMixedFollowedBy', () => {
    expect(matchesOf(branching('followedByAny', 'followedBy'), branchingInput)).toEqual(
      sorted([
        'start1 foo3 next-one6 end8',
        'start1 foo4 next-one6 end8',
        'start1 foo5 next-one6 end8',
      ]),
    );
  });
});

describe('NFAITCase: windows, timeouts and pending matches', () => {
  const windowInput = 'start@1 start@2 middle@3 foobar@4 end@11 end@13';
  const threeStages = (contiguity: 'followedBy' | 'followedByAny') =>
    Pattern.begin<Ev>('start')
      .where(is('start'))
      [contiguity]('middle')
      .where(is('middle'))
      [contiguity]('end')
      .where(is('end'));

  it('testSimplePatternWithTimeWindowNFAWithinFirstAndLast', () => {
    expect(matchesOf(threeStages('followedBy').within(10), windowInput)).toEqual([
      'start2 middle3 end11',
    ]);
  });

  it('testSimplePatternWithTimeWindowNFAWithinPreviousAndCurrent', () => {
    const p = threeStages('followedBy').within(9, 'previousAndCurrent');
    expect(matchesOf(p, windowInput)).toEqual(
      sorted(['start1 middle3 end11', 'start2 middle3 end11']),
    );
  });

  it('testSimplePatternWithTimeoutHandlingWithinFirstAndLast', () => {
    const r = run(threeStages('followedByAny').within(10), input(windowInput));
    // Flink asserts one match; it is start2 middle3 end11 (start1 is out of its window at 11).
    expect(r.matches).toEqual(['start2 middle3 end11']);
    expect(sorted(r.timedOut)).toEqual(
      sorted(['start1 middle3@11', 'start2 middle3@12', 'start1@11', 'start2@12']),
    );
  });

  it('testSimplePatternWithTimeoutHandlingWithinPreviousAndCurrent', () => {
    const r = run(
      threeStages('followedByAny').within(10, 'previousAndCurrent'),
      input(windowInput),
    );
    // Flink asserts two matches: end11 comes 8 after middle3, end13 comes 10 after it.
    expect(sorted(r.matches)).toEqual(sorted(['start1 middle3 end11', 'start2 middle3 end11']));
    expect(sorted(r.timedOut)).toEqual(sorted(['start1 middle3@13', 'start2 middle3@13']));
  });

  const pendingInput = 'start@1 middle@4 start@5 start@11 middle@18';
  const pending = () =>
    Pattern.begin<Ev>('start').where(is('start')).notFollowedBy('middle').where(is('middle'));

  it('testPendingStateMatchesWithinFirstAndLast', () => {
    expect(matchesOf(pending().within(5), pendingInput)).toEqual(sorted(['start5', 'start11']));
  });

  it('testPendingStateMatchesWithinPreviousAndCurrent', () => {
    expect(matchesOf(pending().within(5, 'previousAndCurrent'), pendingInput)).toEqual(
      sorted(['start5', 'start11']),
    );
  });
});

describe('NFAITCase: looping, optional and times', () => {
  it('testComplexBranchingAfterZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedByAny('middle')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .optional()
      .followedByAny('end1')
      .where(is('b'))
      .followedByAny('end2')
      .where(is('d'))
      .followedByAny('end3')
      .where(is('e'));
    const subsets = ['a3 a4 a5 ', 'a3 a4 ', 'a3 a5 ', 'a4 a5 ', 'a3 ', 'a4 ', 'a5 ', ''];
    expect(matchesOf(p, 'c@1 a@3 a@4 a@5 b@6 d@7 d@8 e@9')).toEqual(
      sorted(subsets.flatMap((s) => [`c1 ${s}b6 d7 e9`, `c1 ${s}b6 d8 e9`])),
    );
  });

  it('testZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedByAny('middle')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .optional()
      .followedBy('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 a@3 a@4 b@6')).toEqual(
      sorted(['c1 a3 a4 b6', 'c1 a3 b6', 'c1 a4 b6', 'c1 b6']),
    );
  });

  it('testEagerZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .oneOrMore()
      .optional()
      .followedBy('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 a@3 a@4 d@5 a@6 b@7')).toEqual(
      sorted(['c1 a3 a4 a6 b7', 'c1 a3 a4 b7', 'c1 a3 b7', 'c1 b7']),
    );
  });

  it('testBeginWithZeroOrMore', () => {
    const p = Pattern.begin<Ev>('middle')
      .where(is('a'))
      .oneOrMore()
      .optional()
      .followedBy('end')
      .where(is('b'));
    expect(matchesOf(p, 'a@3 a@4 a@5 b@6')).toEqual(
      sorted(['a3 a4 a5 b6', 'a3 a4 b6', 'a4 a5 b6', 'a3 b6', 'a4 b6', 'a5 b6', 'b6']),
    );
  });

  it('testZeroOrMoreAfterZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedByAny('middle-first')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .optional()
      .followedBy('middle-second')
      .where(is('d'))
      .oneOrMore()
      .allowCombinations()
      .optional()
      .followedBy('end')
      .where(is('e'));
    expect(matchesOf(p, 'c@1 a@3 d@4 d@5 e@6')).toEqual(
      sorted(['c1 a3 d4 d5 e6', 'c1 a3 d4 e6', 'c1 d4 d5 e6', 'c1 d4 e6', 'c1 a3 e6', 'c1 e6']),
    );
  });

  it('testZeroOrMoreAfterBranching', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedByAny('branching')
      .where(is('a'))
      .followedByAny('merging')
      .where(is('f'))
      .followedByAny('kleene')
      .where(is('d'))
      .oneOrMore()
      .allowCombinations()
      .optional()
      .followedBy('end')
      .where(is('e'));
    const kleene = ['', 'd6 ', 'd7 ', 'd6 d7 '];
    expect(matchesOf(p, 'c@1 a@3 a@4 f@5 d@6 d@7 e@8')).toEqual(
      sorted(['a3', 'a4'].flatMap((a) => kleene.map((k) => `c1 ${a} f5 ${k}e8`))),
    );
  });

  it('testStrictContinuityNoResultsAfterZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('d'))
      .followedBy('middle')
      .where(is('a'))
      .oneOrMore()
      .optional()
      .next('end')
      .where(is('b'));
    expect(matchesOf(p, 'd@1 a@2 a@3 c@4 b@5')).toEqual([]);
  });

  it('testStrictContinuityResultsAfterZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('d'))
      .followedByAny('middle')
      .where(is('a'))
      .oneOrMore()
      .optional()
      .allowCombinations()
      .next('end')
      .where(is('b'));
    expect(matchesOf(p, 'd@1 a@2 a@3 b@5')).toEqual(sorted(['d1 a2 a3 b5', 'd1 a3 b5']));
  });

  it('testAtLeastOne', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedByAny('middle')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .followedByAny('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 a@3 a@4 b@6')).toEqual(
      sorted(['c1 a3 a4 b6', 'c1 a3 b6', 'c1 a4 b6']),
    );
  });

  it('testBeginWithAtLeastOne', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .followedBy('end')
      .where(is('b'));
    expect(matchesOf(p, 'a@3 a@4 a@5 b@6')).toEqual(
      sorted(['a3 a4 a5 b6', 'a3 a4 b6', 'a3 a5 b6', 'a4 a5 b6', 'a3 b6', 'a4 b6', 'a5 b6']),
    );
  });

  it('testNextZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('start'))
      .next('middle')
      .where(is('middle'))
      .oneOrMore()
      .optional()
      .consecutive()
      .followedBy('end')
      .where(is('end'));
    expect(matchesOf(p, 'start@1 event@2 middle@3 middle@4 middle@5 end@6')).toEqual([
      'start1 end6',
    ]);
  });

  it('testAtLeastOneEager', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedByAny('middle')
      .where(is('a'))
      .oneOrMore()
      .followedByAny('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 a@3 a@4 a@5 b@6')).toEqual(
      sorted(['c1 a3 a4 a5 b6', 'c1 a3 a4 b6', 'c1 a4 a5 b6', 'c1 a5 b6', 'c1 a4 b6', 'c1 a3 b6']),
    );
  });

  it('testOptional', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .optional()
      .followedBy('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 a@5 b@6')).toEqual(sorted(['c1 a5 b6', 'c1 b6']));
  });

  it('testTimes', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .next('middle')
      .where(is('a'))
      .times(2)
      .allowCombinations()
      .followedBy('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 a@2 a@3 a@4 b@6')).toEqual(sorted(['c1 a2 a3 b6', 'c1 a2 a4 b6']));
  });

  it('testStartWithTimes', () => {
    const p = Pattern.begin<Ev>('middle')
      .where(is('a'))
      .times(2)
      .consecutive()
      .followedBy('end1')
      .where(is('b'));
    expect(matchesOf(p, 'a@2 a@3 a@4 b@6')).toEqual(sorted(['a2 a3 b6', 'a3 a4 b6']));
  });

  it('testStartWithOptional', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .optional()
      .followedBy('end1')
      .where(is('b'));
    expect(matchesOf(p, 'c@1 b@6')).toEqual(sorted(['c1 b6', 'b6']));
  });

  it('testEndWithZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .oneOrMore()
      .optional();
    expect(matchesOf(p, 'c@1 a@3 a@4 a@5')).toEqual(
      sorted(['c1 a3 a4 a5', 'c1 a3 a4', 'c1 a3', 'c1']),
    );
  });

  it('testStartAndEndWithZeroOrMore', () => {
    const p = Pattern.begin<Ev>('start').where(is('a')).oneOrMore().optional();
    expect(matchesOf(p, 'c@1 a@3 a@4 a@5 d@6 d@6 d@6')).toEqual(
      sorted(['a3 a4 a5', 'a3 a4', 'a3', 'a4 a5', 'a4', 'a5']),
    );
  });

  it('testEndWithOptional', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .optional();
    expect(matchesOf(p, 'c@1 a@3')).toEqual(sorted(['c1 a3', 'c1']));
  });

  it('testEndWithOneOrMore', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .oneOrMore();
    expect(matchesOf(p, 'c@1 a@3 a@4 a@5')).toEqual(sorted(['c1 a3 a4 a5', 'c1 a3 a4', 'c1 a3']));
  });
});

/**
 * Flink's `ConsecutiveData`: c (start), a (middle 1 to 4), b (end), with `f` or `d` events
 * between them depending on the test.
 */
describe('NFAITCase: times and optional over the consecutive data', () => {
  type Middle = ReturnType<typeof middleAfter>;
  const middleAfter = (contiguity: 'next' | 'followedBy' | 'followedByAny') =>
    Pattern.begin<Ev>('start').where(is('c'))[contiguity]('middle').where(is('a'));
  const thenEnd = (p: Middle) => p.followedBy('end1').where(is('b'));

  const withNext = 'c@1 a@2 f@3 a@4 f@5 a@6 b@7';
  const eager = 'c@1 a@2 a@4 a@6 b@7';
  const interleaved = 'c@1 f@2 a@3 f@4 a@5 a@6 b@7';

  it('testTimesNonStrictWithNext', () => {
    const p = thenEnd(middleAfter('next').times(2).allowCombinations());
    expect(matchesOf(p, withNext)).toEqual(sorted(['c1 a2 a4 b7', 'c1 a2 a6 b7']));
  });

  it('testTimesNotStrictWithFollowedByEager', () => {
    const p = thenEnd(middleAfter('followedBy').times(2));
    expect(matchesOf(p, eager)).toEqual(['c1 a2 a4 b7']);
  });

  it('testTimesNotStrictWithFollowedByNotEager', () => {
    const p = thenEnd(middleAfter('followedByAny').times(2).allowCombinations());
    expect(matchesOf(p, eager)).toEqual(sorted(['c1 a2 a4 b7', 'c1 a4 a6 b7', 'c1 a2 a6 b7']));
  });

  it('testTimesStrictWithNextAndConsecutive', () => {
    const p = thenEnd(middleAfter('next').times(2).consecutive());
    expect(matchesOf(p, 'c@1 a@2 f@3 a@4 a@6 b@7')).toEqual([]);
  });

  it('testTimesNonStrictOptional1', () => {
    const p = thenEnd(middleAfter('followedBy').times(3).optional());
    expect(matchesOf(p, 'c@1 f@2 b@7')).toEqual(['c1 b7']);
  });

  it('testTimesNonStrictOptional2', () => {
    const p = thenEnd(middleAfter('followedByAny').times(2).allowCombinations().optional());
    expect(matchesOf(p, interleaved)).toEqual(
      sorted(['c1 a3 a5 b7', 'c1 a3 a6 b7', 'c1 a5 a6 b7', 'c1 b7']),
    );
  });

  it('testTimesNonStrictOptional3', () => {
    const p = thenEnd(middleAfter('followedByAny').times(2).optional());
    expect(matchesOf(p, interleaved)).toEqual(sorted(['c1 a3 a5 b7', 'c1 a5 a6 b7', 'c1 b7']));
  });

  it('testTimesStrictOptional', () => {
    const p = thenEnd(middleAfter('followedByAny').times(2).consecutive().optional());
    expect(matchesOf(p, interleaved)).toEqual(sorted(['c1 a5 a6 b7', 'c1 b7']));
  });

  it('testOneOrMoreStrictOptional', () => {
    const p = thenEnd(middleAfter('followedByAny').oneOrMore().consecutive().optional());
    expect(matchesOf(p, interleaved)).toEqual(
      sorted(['c1 a5 a6 b7', 'c1 a3 b7', 'c1 a5 b7', 'c1 a6 b7', 'c1 b7']),
    );
  });

  it('testTimesStrictOptional1', () => {
    const p = thenEnd(middleAfter('next').times(2).consecutive().optional());
    expect(matchesOf(p, 'c@1 a@3 a@5 a@6 b@7')).toEqual(sorted(['c1 a3 a5 b7', 'c1 b7']));
  });

  it('testOptionalTimesNonStrictWithNext', () => {
    const p = thenEnd(middleAfter('next').times(2).allowCombinations().optional());
    expect(matchesOf(p, withNext)).toEqual(sorted(['c1 a2 a4 b7', 'c1 a2 a6 b7', 'c1 b7']));
  });

  it('testTimesStrict', () => {
    const p = thenEnd(middleAfter('followedByAny').times(2).consecutive());
    expect(matchesOf(p, interleaved)).toEqual(['c1 a5 a6 b7']);
  });

  it('testTimesNonStrict', () => {
    const p = thenEnd(middleAfter('followedByAny').times(2).allowCombinations());
    expect(matchesOf(p, interleaved)).toEqual(
      sorted(['c1 a3 a5 b7', 'c1 a3 a6 b7', 'c1 a5 a6 b7']),
    );
  });

  // Flink's testOneOrMore / testZeroOrMore input: the second and third `a` share timestamp 4.
  const loopInput = 'c@1 d@2 a@3 a@4 a@4 d@5 a@6 b@7';
  const loop = (optional: boolean, inner: 'strict' | 'relaxed' | 'any') => {
    let p = middleAfter('followedBy').oneOrMore();
    if (optional) p = p.optional();
    if (inner === 'strict') p = p.consecutive();
    if (inner === 'any') p = p.allowCombinations();
    return thenEnd(p);
  };

  it('testStrictOneOrMore', () => {
    expect(matchesOf(loop(false, 'strict'), loopInput)).toEqual(
      sorted(['c1 a3 a4 a4.2 b7', 'c1 a3 a4 b7', 'c1 a3 b7']),
    );
  });

  it('testSkipTillNextOneOrMore', () => {
    expect(matchesOf(loop(false, 'relaxed'), loopInput)).toEqual(
      sorted(['c1 a3 a4 a4.2 a6 b7', 'c1 a3 a4 a4.2 b7', 'c1 a3 a4 b7', 'c1 a3 b7']),
    );
  });

  it('testSkipTillAnyOneOrMore', () => {
    expect(matchesOf(loop(false, 'any'), loopInput)).toEqual(
      sorted([
        'c1 a3 a4 a4.2 a6 b7',
        'c1 a3 a4.2 a6 b7',
        'c1 a3 a4 a4.2 b7',
        'c1 a3 a4 a6 b7',
        'c1 a3 a4 b7',
        'c1 a3 a4.2 b7',
        'c1 a3 a6 b7',
        'c1 a3 b7',
      ]),
    );
  });

  it('testStrictEagerZeroOrMore', () => {
    expect(matchesOf(loop(true, 'strict'), loopInput)).toEqual(
      sorted(['c1 a3 a4 a4.2 b7', 'c1 a3 a4 b7', 'c1 a3 b7', 'c1 b7']),
    );
  });

  it('testSkipTillAnyZeroOrMore', () => {
    expect(matchesOf(loop(true, 'any'), loopInput)).toEqual(
      sorted([
        'c1 a3 a4 a4.2 a6 b7',
        'c1 a3 a4 a6 b7',
        'c1 a3 a4.2 a6 b7',
        'c1 a3 a6 b7',
        'c1 a3 a4 a4.2 b7',
        'c1 a3 a4 b7',
        'c1 a3 a4.2 b7',
        'c1 a3 b7',
        'c1 b7',
      ]),
    );
  });

  it('testSkipTillNextZeroOrMore', () => {
    expect(matchesOf(loop(true, 'relaxed'), loopInput)).toEqual(
      sorted(['c1 a3 a4 a4.2 a6 b7', 'c1 a3 a4 a4.2 b7', 'c1 a3 a4 b7', 'c1 a3 b7', 'c1 b7']),
    );
  });

  // The same events (c, a, c again, a, a) for a pattern that begins with a strict loop.
  const startWithStrictLoop = 'c@1 a@3 c@4 a@5 a@6';

  it('testStartWithZeroOrMoreStrict', () => {
    const p = Pattern.begin<Ev>('start').where(is('a')).oneOrMore().optional().consecutive();
    expect(matchesOf(p, startWithStrictLoop)).toEqual(sorted(['a3', 'a5 a6', 'a5', 'a6']));
  });

  it('testStartWithOneOrMoreStrict', () => {
    const p = Pattern.begin<Ev>('start').where(is('a')).oneOrMore().consecutive();
    expect(matchesOf(p, startWithStrictLoop)).toEqual(sorted(['a3', 'a5 a6', 'a5', 'a6']));
  });
});

/**
 * Flink checks which partial matches its NFA still holds once time passes 10 (every pattern
 * here has an 8 ms window). Weir's equivalent: whether the key holds any state then.
 */
describe('NFAITCase: state cleared by the window', () => {
  const stateAfter = (p: AnyPattern, text: string) => {
    const h = cepHarness(p.toSpec());
    for (const e of input(text)) h.processElement(e, e.ts);
    h.processWatermark(10);
    return { entries: h.metric('weir_state_entries'), buffered: h.metric('weir_cep_buffered') };
  };
  const cleared = { entries: 0, buffered: 0 };

  const times = () =>
    Pattern.begin<Ev>('start')
      .where(is('c'))
      .next('middle')
      .where(is('a'))
      .times(2)
      .followedBy('end1')
      .where(is('b'));
  const timesInput = 'c@1 a@2 a@3 a@4 b@6';

  it('testTimesClearingBufferWithinFirstAndLast', () => {
    expect(stateAfter(times().within(8), timesInput)).toEqual(cleared);
  });

  it('testTimesClearingBufferWithinPreviousAndCurrent', () => {
    expect(stateAfter(times().within(8, 'previousAndCurrent'), timesInput)).toEqual(cleared);
  });

  const optional = () =>
    Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .optional()
      .followedBy('end1')
      .where(is('b'));

  it('testOptionalClearingBufferWithinFirstAndLast', () => {
    expect(stateAfter(optional().within(8), 'c@1 a@5 b@6')).toEqual(cleared);
  });

  it('testOptionalClearingBufferWithinPreviousAndCurrent', () => {
    expect(stateAfter(optional().within(8, 'previousAndCurrent'), 'c@1 a@5 b@6')).toEqual(cleared);
  });

  const loop = (optionalLoop: boolean) => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations();
    return (optionalLoop ? p.optional() : p).followedBy('end1').where(is('b'));
  };
  const loopInput = 'c@1 a@3 a@4 b@6';

  it('testAtLeastOneClearingBufferWithinFirstAndLast', () => {
    expect(stateAfter(loop(false).within(8), loopInput)).toEqual(cleared);
  });

  it('testAtLeastOneClearingBufferWithPreviousAndCurrent', () => {
    // Flink's test passes no window type here: the window is first-and-last.
    expect(stateAfter(loop(false).within(8), loopInput)).toEqual(cleared);
  });

  it('testZeroOrMoreClearingBufferWithinFirstAndLast', () => {
    expect(stateAfter(loop(true).within(8), loopInput)).toEqual(cleared);
  });

  it('testZeroOrMoreClearingBufferWithinPreviousAndCurrent', () => {
    // Flink keeps two partial matches in the loop (c1 a3, c1 a3 a4): the per-stage window of
    // end1 does not apply while they wait there. The key still holds them.
    const s = stateAfter(loop(true).within(8, 'previousAndCurrent'), loopInput);
    expect(s.entries).toBe(1);
    expect(s.buffered).toBeGreaterThan(0);
  });

  it('testLoopClearingWithinPreviousAndCurrent', () => {
    // Flink ignores a per-stage window on a quantified stage; Weir refuses it.
    const p = Pattern.begin<Ev>('start', AfterMatchSkipStrategy.skipPastLastEvent())
      .times(4)
      .where(is('a'))
      .within(3, 'previousAndCurrent');
    expect(() => cepHarness(p.toSpec())).toThrow(/quantified stage/);
  });
});

describe('NFAITCase: duplicate and ordered results', () => {
  it('testMultipleTakesVersionCollision', () => {
    const p = Pattern.begin<Ev>('start')
      .where(is('c'))
      .followedBy('middle1')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .followedBy('middle2')
      .where(is('a'))
      .oneOrMore()
      .allowCombinations()
      .followedBy('end')
      .where(is('b'));
    const m = (middles: string) => `c1 ${middles} b10`;
    expect(matchesOf(p, 'c@1 a@3 a@4 a@5 a@6 a@7 b@10')).toEqual(
      sorted([
        m('a3 a4 a5 a6 a7'),
        m('a3 a4 a5 a6 a7'),
        m('a3 a4 a5 a6 a7'),
        m('a3 a4 a5 a6 a7'),
        m('a3 a4 a5 a6'),
        m('a3 a4 a6 a7'),
        m('a3 a4 a5 a6'),
        m('a3 a4 a5 a7'),
        m('a3 a5 a6 a7'),
        m('a3 a5 a6 a7'),
        m('a3 a4 a5 a6'),
        m('a3 a4 a5 a7'),
        m('a3 a4 a6 a7'),
        m('a3 a4 a5'),
        m('a3 a5 a6'),
        m('a3 a6 a7'),
        m('a3 a4 a5'),
        m('a3 a4 a6'),
        m('a3 a4 a7'),
        m('a3 a4'),
      ]),
    );
  });

  it('testNFAResultOrdering', () => {
    const p = Pattern.begin<Ev>('start')
      .where(named('a-'))
      .times(4)
      .allowCombinations()
      .followedByAny('middle')
      .where(named('b-'))
      .times(3)
      .consecutive();
    const ev = (name: string, ts: number): Ev => ({ id: name, type: name, ts, key: 'k', v: 0 });
    const events = [
      ev('a-1', 1),
      ev('a-2', 3),
      ev('a-3', 4),
      ev('a-4', 5),
      ev('b-1', 6),
      ev('b-2', 7),
      ev('b-3', 10),
    ];
    // One match; its stages list their events in order (matchText keeps each stage's order).
    expect(run(p, events).matches).toEqual(['a-1 a-2 a-3 a-4 b-1 b-2 b-3']);
  });

  it('testNFAResultKeyOrdering', async () => {
    const p = Pattern.begin<Ev>('a')
      .where(is('a'))
      .next('b')
      .where(is('b'))
      .next('aa')
      .where(is('aa'))
      .next('bb')
      .where(is('bb'))
      .next('ab')
      .where(is('ab'));
    const env = new StreamEnvironment({ parallelism: 1 });
    const events = env
      .fromArray(input('a@1 b@3 aa@4 bb@5 ab@6'))
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Ev>(0).withTimestampAssigner((e) => e.ts),
      )
      .keyBy((e) => e.key);
    const keys = collect(CEP.pattern(events, p).select((m) => Object.keys(m).join(',')));
    await env.execute();
    expect(keys.values).toEqual(['a,b,aa,bb,ab']);
  });
});

describe('NFAITCase scenarios as whole jobs', () => {
  it('every scenario above gives the same matches through CEP.pattern(...).select in a job', async () => {
    // Without watermarks event time advances once, at the end of the input: the events enter
    // the NFA in timestamp order then, pruned by the window before each as in the harness.
    expect(scenarios.length).toBeGreaterThan(50);
    for (const s of scenarios) {
      const env = new StreamEnvironment({ parallelism: 1 });
      const out = s.job(env);
      await env.execute();
      expect({ name: s.name, matches: sorted(out.values) }).toEqual({
        name: s.name,
        matches: s.matches,
      });
    }
  });
});
