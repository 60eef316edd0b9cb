import { describe, expect, it } from 'vitest';
import { AfterMatchSkipStrategy, Pattern } from '../../src/api/cep/pattern.js';
import type { SkipStrategySpec } from '../../src/core/cep.js';
import { type Ev, events, isType, runPattern, sorted } from './cep-harness.js';

const a = isType('a');
const b = isType('b');
const c = isType('c');

const matches = (p: { toSpec(): ReturnType<Pattern<Ev, never, never>['toSpec']> }, text: string) =>
  sorted(runPattern(p.toSpec(), events(text)).matches);

describe('contiguity', () => {
  it('next takes only the very next event', () => {
    const p = Pattern.begin<Ev>('a').where(a).next('b').where(b);
    expect(matches(p, 'a1 c2 b3 a4 b5')).toEqual(['a4 b5']);
  });

  it('followedBy takes the next matching event', () => {
    const p = Pattern.begin<Ev>('a').where(a).followedBy('b').where(b);
    expect(matches(p, 'a1 c2 b3 b4')).toEqual(['a1 b3']);
  });

  it('followedByAny takes every later matching event', () => {
    const p = Pattern.begin<Ev>('a').where(a).followedByAny('b').where(b);
    expect(matches(p, 'a1 c2 b3 b4')).toEqual(['a1 b3', 'a1 b4']);
  });
});

describe('quantifiers', () => {
  // The looping examples of Flink's documentation: C D A1 A2 A3 D A4 B.
  type Loop = ReturnType<typeof aLoop>;
  const aLoop = () => Pattern.begin<Ev>('c').where(c).followedBy('a').where(a).oneOrMore();
  const loop = (inner: (p: Loop) => Loop = (p) => p) => inner(aLoop()).followedBy('b').where(b);
  const input = 'c1 d2 a3 a4 a5 d6 a7 b8';

  it('oneOrMore is relaxed inside by default', () => {
    expect(matches(loop(), input)).toEqual(
      sorted(['c1 a3 b8', 'c1 a3 a4 b8', 'c1 a3 a4 a5 b8', 'c1 a3 a4 a5 a7 b8']),
    );
  });

  it('consecutive makes the loop strict', () => {
    expect(
      matches(
        loop((p) => p.consecutive()),
        input,
      ),
    ).toEqual(sorted(['c1 a3 b8', 'c1 a3 a4 b8', 'c1 a3 a4 a5 b8']));
  });

  it('allowCombinations takes any subset', () => {
    expect(
      matches(
        loop((p) => p.allowCombinations()),
        input,
      ),
    ).toEqual(
      sorted([
        'c1 a3 b8',
        'c1 a3 a4 b8',
        'c1 a3 a5 b8',
        'c1 a3 a7 b8',
        'c1 a3 a4 a5 b8',
        'c1 a3 a4 a7 b8',
        'c1 a3 a5 a7 b8',
        'c1 a3 a4 a5 a7 b8',
      ]),
    );
  });

  it('times(n) needs exactly n events', () => {
    const p = Pattern.begin<Ev>('a').where(a).times(2);
    expect(matches(p, 'a1 a2 a3')).toEqual(['a1 a2', 'a2 a3']);
  });

  it('times(from, to) and timesOrMore', () => {
    const range = Pattern.begin<Ev>('x').where(c).next('a').where(a).times(1, 2);
    expect(matches(range, 'c1 a2 a3 a4')).toEqual(['c1 a2', 'c1 a2 a3']);
    const more = Pattern.begin<Ev>('x').where(c).next('a').where(a).timesOrMore(2);
    expect(matches(more, 'c1 a2 a3 a4')).toEqual(['c1 a2 a3', 'c1 a2 a3 a4']);
  });

  it('optional stages may be skipped', () => {
    const p = Pattern.begin<Ev>('a').where(a).next('b').where(b).optional().next('c').where(c);
    expect(matches(p, 'a1 c2 a3 b4 c5')).toEqual(['a1 c2', 'a3 b4 c5']);
  });

  it('greedy loops never stop early', () => {
    const bOrC = isType('b', 'c');
    const loop = () => Pattern.begin<Ev>('a').where(a).next('b').where(bOrC).oneOrMore();
    const plain = loop().next('c').where(c);
    const greedy = loop().greedy().next('c').where(c);
    expect(matches(plain, 'a1 b2 c3 c4')).toEqual(['a1 b2 c3', 'a1 b2 c3 c4']);
    // The greedy loop takes every c itself, so none is left to end the match.
    expect(matches(greedy, 'a1 b2 c3 c4')).toEqual([]);
    const greedyThenD = Pattern.begin<Ev>('a')
      .where(a)
      .next('b')
      .where(bOrC)
      .oneOrMore()
      .greedy()
      .next('d')
      .where(isType('d'));
    expect(matches(greedyThenD, 'a1 b2 c3 d4')).toEqual(['a1 b2 c3 d4']);
  });

  it('until ends a loop', () => {
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .followedBy('b')
      .where(b)
      .oneOrMore()
      .until((e) => e.type === 'x')
      .followedBy('c')
      .where(c);
    expect(matches(p, 'a1 b2 x3 b4 c5')).toEqual(['a1 b2 c5']);
  });

  it('a group repeats as a unit', () => {
    const pair = Pattern.begin<Ev>('a').where(a).next('b').where(b);
    const p = Pattern.begin<Ev>('s')
      .where(isType('s'))
      .next(pair)
      .times(2)
      .next('e')
      .where(isType('e'));
    expect(matches(p, 's1 a2 b3 a4 b5 e6 s7 a8 b9 e10')).toEqual(['s1 a2 a4 b3 b5 e6']);
    const loop = Pattern.begin<Ev>('s')
      .where(isType('s'))
      .followedBy(pair)
      .oneOrMore()
      .followedBy('e')
      .where(isType('e'));
    // Twice, as Flink CEP gives it: x4 is skipped both while waiting for another repetition
    // and after moving on to e (test/cep/flink/cases.ts has the same case).
    expect(matches(loop, 's1 a2 b3 x4 a5 b6 e7')).toEqual(
      sorted(['s1 a2 b3 e7', 's1 a2 b3 e7', 's1 a2 a5 b3 b6 e7']),
    );
  });
});

describe('conditions', () => {
  it('or widens and subtype narrows', () => {
    interface Up extends Ev {
      readonly up: true;
    }
    const isUp = (e: Ev): e is Up => e.type === 'u';
    const p = Pattern.begin<Ev>('x').where(a).or(b).next('u').subtype(isUp);
    expect(matches(p, 'a1 u2 b3 u4 c5 u6')).toEqual(['a1 u2', 'b3 u4']);
  });

  it('iterative conditions see the events matched so far', () => {
    // Rising values: each loop event above the previous one.
    const rising = Pattern.begin<Ev>('up')
      .where((e, ctx) => {
        const seen = ctx.eventsFor('up');
        return seen.length === 0 || e.v > seen[seen.length - 1]!.v;
      })
      .times(3)
      .consecutive();
    const input = [1, 3, 2, 4, 5].map((v, i) => ({
      id: `e${i + 1}`,
      type: 'e',
      ts: i + 1,
      key: 'k',
      v,
    }));
    expect(sorted(runPattern(rising.toSpec(), input).matches)).toEqual(['e3 e4 e5']);
  });

  it('a relaxed stage runs its condition once per event and partial match', () => {
    // Its skip is the negation of its take: the result is reused, not computed again.
    const calls: string[] = [];
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .followedBy('b')
      .where((e, ctx) => {
        const held = ctx.eventsFor('a').map((x) => x.id);
        calls.push(`${e.id} after ${held.join(' ')}`);
        return b(e);
      });
    expect(matches(p, 'a1 c2 a3 b4')).toEqual(['a1 b4', 'a3 b4']);
    expect(calls).toEqual(['c2 after a1', 'a3 after a1', 'b4 after a1', 'b4 after a3']);
  });

  it("eventsFor lists a stage's events oldest first, and none for a stage not reached", () => {
    const seen: string[] = [];
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .times(3)
      .consecutive()
      .next('b')
      .where((e, ctx) => {
        seen.push(
          `${ctx
            .eventsFor('a')
            .map((x) => x.id)
            .join(' ')}|${ctx.eventsFor('b').length}`,
        );
        return b(e);
      });
    expect(matches(p, 'a1 a2 a3 b4')).toEqual(['a1 a2 a3 b4']);
    expect(seen).toEqual(['a1 a2 a3|0']);
  });
});

describe('negation', () => {
  it('notNext forbids the event right after', () => {
    const p = Pattern.begin<Ev>('a').where(a).notNext('nb').where(b).followedBy('c').where(c);
    expect(matches(p, 'a1 b2 c3 a4 d5 c6')).toEqual(['a4 c6']);
  });

  it('notNext at the end completes on the next event', () => {
    const p = Pattern.begin<Ev>('a').where(a).notNext('nb').where(b);
    expect(matches(p, 'a1 b2 a3 c4 a5')).toEqual(['a3']);
  });

  it('notFollowedBy forbids events in between', () => {
    const p = Pattern.begin<Ev>('a').where(a).notFollowedBy('nb').where(b).followedBy('c').where(c);
    expect(matches(p, 'a1 b2 c3 a4 d5 c6')).toEqual(['a4 c6']);
  });

  it('rejects a pattern ending with notFollowedBy without within', () => {
    const p = Pattern.begin<Ev>('a').where(a).notFollowedBy('nb').where(b);
    expect(() => runPattern(p.toSpec(), [])).toThrow(/cannot end a pattern/);
  });
});

describe('after-match skip strategies (b+ c over b1 b2 b3 c4)', () => {
  // Consecutive, so no partial match outlives c4 and holds matches back.
  const run = (skip: SkipStrategySpec) =>
    runPattern(
      Pattern.begin<Ev>('b', skip).where(b).oneOrMore().consecutive().next('c').where(c).toSpec(),
      events('b1 b2 b3 c4'),
    ).matches;

  it.each([
    ['noSkip', AfterMatchSkipStrategy.noSkip(), ['b1 b2 b3 c4', 'b2 b3 c4', 'b3 c4']],
    ['skipToNext', AfterMatchSkipStrategy.skipToNext(), ['b1 b2 b3 c4', 'b2 b3 c4', 'b3 c4']],
    ['skipPastLastEvent', AfterMatchSkipStrategy.skipPastLastEvent(), ['b1 b2 b3 c4']],
    [
      'skipToFirst(b)',
      AfterMatchSkipStrategy.skipToFirst('b'),
      ['b1 b2 b3 c4', 'b2 b3 c4', 'b3 c4'],
    ],
    ['skipToLast(b)', AfterMatchSkipStrategy.skipToLast('b'), ['b1 b2 b3 c4', 'b3 c4']],
  ] as const)('%s', (_, skip, expected) => {
    expect(run(skip)).toEqual(expected);
  });

  it('skipPastLastEvent starts again after the match', () => {
    const p = Pattern.begin<Ev>('a', AfterMatchSkipStrategy.skipPastLastEvent())
      .where(a)
      .followedBy('b')
      .where(b);
    expect(runPattern(p.toSpec(), events('a1 a2 b3 a4 b5')).matches).toEqual(['a1 b3', 'a4 b5']);
  });

  it('skipToNext holds a match back while an earlier partial match runs', () => {
    const p = Pattern.begin<Ev>('a', AfterMatchSkipStrategy.skipToNext())
      .where(a)
      .followedByAny('b')
      .where(b)
      .followedBy('c')
      .where(c);
    // a1 b2 [a3] c4 ... both starts match at c4; a1's matches come first.
    expect(runPattern(p.toSpec(), events('a1 b2 a3 b5 c6')).matches).toEqual([
      'a1 b2 c6',
      'a3 b5 c6',
    ]);
  });
});

describe('within and time', () => {
  const p = () => Pattern.begin<Ev>('a').where(a).followedBy('b').where(b).within(5);

  it('drops matches that end too late and reports the partial match', () => {
    const r = runPattern(p().toSpec(), events('a1 b4 a10 b15 a20'));
    expect(r.matches).toEqual(['a1 b4']);
    expect(r.timedOut).toEqual(['a10@15', 'a20@25']);
  });

  it('sorts out-of-order events by timestamp and sends late ones aside', () => {
    const h = runPatternOutOfOrder();
    expect(h.matches).toEqual(['a2 b3']);
    expect(h.late).toEqual(['a1']);
  });

  function runPatternOutOfOrder() {
    const all = events('b3 a2');
    // b3 arrives before a2; the watermark 2 makes a1 (arriving after) late.
    return runWithWatermarks(p().toSpec(), [all[0]!, all[1]!, 2, { ...all[1]!, id: 'a1', ts: 1 }]);
  }
});

import type { PatternSpec } from '../../src/core/cep.js';
import { cepHarness, resultOf } from './cep-harness.js';

function runWithWatermarks(spec: PatternSpec<Ev>, steps: readonly (Ev | number)[]) {
  const h = cepHarness(spec);
  for (const s of steps) {
    if (typeof s === 'number') h.processWatermark(s);
    else h.processElement(s, s.ts);
  }
  h.processWatermark(Number.POSITIVE_INFINITY);
  return resultOf(h);
}
