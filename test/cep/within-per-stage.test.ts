import { describe, expect, it } from 'vitest';
import { Pattern } from '../../src/api/cep/pattern.js';
import { compileNfa } from '../../src/runtime/operators/cep/nfa-compiler.js';
import { type Ev, events, isType, runPattern, sorted } from './cep-harness.js';

const a = isType('a');
const b = isType('b');
const c = isType('c');
const is = isType;

const run = (p: { toSpec(): ReturnType<Pattern<Ev, never, never>['toSpec']> }, text: string) => {
  const r = runPattern(p.toSpec(), events(text));
  return { matches: sorted(r.matches), timedOut: sorted(r.timedOut) };
};

describe("within(ms, 'previousAndCurrent'): a window between an event and the one before it", () => {
  // The pattern of Flink's compiler test for per-stage windows: 10 between start and middle,
  // 20 between middle and then, none before end.
  const flinkExample = () =>
    Pattern.begin<Ev>('s')
      .where(is('s'))
      .followedBy('m')
      .where(is('m'))
      .within(10, 'previousAndCurrent')
      .followedBy('t')
      .where(is('t'))
      .within(20, 'previousAndCurrent')
      .followedBy('e')
      .where(is('e'));

  it('times each stage from the event taken before it, not from the first', () => {
    // s40 m49 (9 < 10), t68 (19 < 20), e100 (no window): a match 60 after its first event.
    expect(run(flinkExample(), 's40 m49 t68 e100')).toEqual({
      matches: ['s40 m49 t68 e100'],
      timedOut: [],
    });
  });

  it('a partial match times out at its last event plus the window of the stage it waits for', () => {
    // s1 m5: then t must come before 25; t30 is too late. s50 then m61 (11 >= 10) is too late.
    expect(run(flinkExample(), 's1 m5 t30 e31 s50 m61')).toEqual({
      matches: [],
      timedOut: ['s1 m5@25', 's50@60'],
    });
  });

  it('with a whole-pattern window too, a per-stage timeout is stamped with its own end (as Flink)', () => {
    // a1 b4 (3 < 4); c waits with 8 after b4 (until 12) and 10 after a1 (until 11): c13 is past
    // both, and Flink stamps the per-stage end, 12, although the whole window closed first.
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .followedBy('b')
      .where(b)
      .within(4, 'previousAndCurrent')
      .followedBy('c')
      .where(c)
      .within(8, 'previousAndCurrent')
      .within(10);
    expect(run(p, 'a1 b4 c13')).toEqual({ matches: [], timedOut: ['a1 b4@12'] });
    expect(run(p, 'a1 b4 c10')).toEqual({ matches: ['a1 b4 c10'], timedOut: [] });
  });

  it("ends a trailing notFollowedBy: Flink's test of notFollowedBy within(3, PREVIOUS_AND_CURRENT)", () => {
    // a1 b2: b came. a4: c5 is no b, and at b10 the 3 after a4 have passed: {a4}. a11 b13: b came.
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .notFollowedBy('b')
      .where(b)
      .within(3, 'previousAndCurrent');
    expect(run(p, 'a1 b2 a4 c5 b10 a11 b13').matches).toEqual(['a4']);
  });

  it('on notNext: the next event must come within the window', () => {
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .notNext('x')
      .where(b)
      .within(3, 'previousAndCurrent')
      .followedBy('c')
      .where(c);
    // a1 waits at notNext: d2 (1 < 3) shows no b, c5 completes. a10 waits: d14 comes 4 after.
    expect(run(p, 'a1 d2 c5 a10 d14 c15')).toEqual({ matches: ['a1 c5'], timedOut: ['a10@13'] });
  });

  it("an optional relaxed stage checks it only until it skips an event (Flink's compilation)", () => {
    const p = Pattern.begin<Ev>('a')
      .where(a)
      .followedBy('b')
      .where(b)
      .optional()
      .within(3, 'previousAndCurrent')
      .followedBy('c')
      .where(c);
    // Waiting for b right after a1, the window holds: b5 comes 4 after a1, too late.
    expect(run(p, 'a1 b5 c6')).toEqual({ matches: [], timedOut: ['a1@4'] });
    // After skipping x2 the partial match waits in a state without the window: b5 is taken.
    expect(run(p, 'a1 x2 b5 c6').matches).toEqual(['a1 b5 c6', 'a1 c6']);
  });

  it('holds in every repetition of a group, on the stage inside it', () => {
    const p = Pattern.begin<Ev>('s')
      .where(is('s'))
      .followedBy(
        Pattern.begin<Ev>('a').where(a).followedBy('b').where(b).within(2, 'previousAndCurrent'),
      )
      .times(2)
      .followedBy('e')
      .where(is('e'));
    // s1 (a2 b3) (a5 b6) e9 matches; in s10 (a11 b12) (a13 b16) e17, b16 is 3 after a13.
    const r = run(p, 's1 a2 b3 a5 b6 e9 s10 a11 b12 a13 b16 e17');
    expect(r.matches).toEqual(['s1 a2 a5 b3 b6 e9']);
    expect(r.timedOut).toContain('s10 a11 a13 b12@15');
  });

  it('is refused where Flink would accept and ignore it, and must fit the whole window', () => {
    const quantified = Pattern.begin<Ev>('a')
      .followedBy('b')
      .oneOrMore()
      .within(3, 'previousAndCurrent');
    expect(() => compileNfa(quantified.toSpec())).toThrow(/quantified stage/);
    const group = Pattern.begin<Ev>('a')
      .followedBy(Pattern.begin<Ev>('b').next('c'))
      .within(3, 'previousAndCurrent');
    expect(() => compileNfa(group.toSpec())).toThrow(/on a group/);
    const between = Pattern.begin<Ev>('a')
      .notFollowedBy('b')
      .within(3, 'previousAndCurrent')
      .followedBy('c');
    expect(() => compileNfa(between.toSpec())).toThrow(/notFollowedBy between stages/);
    const tooLong = Pattern.begin<Ev>('a')
      .followedBy('b')
      .within(30, 'previousAndCurrent')
      .within(10);
    expect(() => compileNfa(tooLong.toSpec())).toThrow(/cannot be longer than the window/);
  });

  it("keeps the smallest 'firstAndLast' window when given more than once, as Flink", () => {
    const p = Pattern.begin<Ev>('a').where(a).within(5).followedBy('b').where(b).within(50);
    expect(p.toSpec().withinMs).toBe(5);
  });
});
