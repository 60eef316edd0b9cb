/**
 * Checkpoint and restore in the middle of partial matches: a run cut at a
 * snapshot and restored (on either state backend, at the same or another
 * parallelism) emits exactly the matches and timeouts of an uninterrupted run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AfterMatchSkipStrategy, Pattern } from '../../src/api/cep/pattern.js';
import type { PatternSpec } from '../../src/core/cep.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { type Ev, resultOf, sorted } from './cep-harness.js';
import { backendOf, removeBackendDirs, type Subtasks, subtasks } from './subtasks.js';

afterEach(removeBackendDirs);

/** Failed logins (f), successes (s), other events (o), for 20 keys, slightly out of order. */
function stream(n: number, seed: number): { events: Ev[]; watermarks: Map<number, number> } {
  const random = new DeterministicRandom(seed);
  const events: Ev[] = [];
  const watermarks = new Map<number, number>();
  let time = 0;
  for (let i = 0; i < n; i++) {
    time += random.int(3);
    const r = random.next();
    const type = r < 0.5 ? 'f' : r < 0.7 ? 's' : 'o';
    const ts = Math.max(1, time - random.int(7));
    events.push({ id: `${type}${i}`, type, ts, key: `k${random.int(20)}`, v: random.int(3) });
    if (i % 10 === 9) watermarks.set(i, time - 4);
  }
  return { events, watermarks };
}

const patterns: Record<string, PatternSpec<Ev>> = {
  'three failures then a success elsewhere, within 300': Pattern.begin<Ev>('fail')
    .where((e) => e.type === 'f')
    .times(3)
    .followedBy('success')
    .where((e, ctx) => e.type === 's' && e.v !== ctx.eventsFor('fail')[0]!.v)
    .within(300)
    .toSpec(),
  'a loop with until and skipPastLastEvent': Pattern.begin<Ev>(
    's',
    AfterMatchSkipStrategy.skipPastLastEvent(),
  )
    .where((e) => e.type === 's')
    .followedBy('f')
    .where((e) => e.type === 'f')
    .oneOrMore()
    .until((e) => e.type === 'o')
    .followedBy('end')
    .where((e) => e.type === 's')
    .within(60)
    .toSpec(),
  'notFollowedBy between stages': Pattern.begin<Ev>('f')
    .where((e) => e.type === 'f')
    .notFollowedBy('o')
    .where((e) => e.type === 'o')
    .followedByAny('s')
    .where((e) => e.type === 's')
    .within(30)
    .toSpec(),
  'per-stage windows, ties ordered by a comparator': Pattern.begin<Ev>('f')
    .where((e) => e.type === 'f')
    .followedBy('o')
    .where((e) => e.type === 'o')
    .within(60, 'previousAndCurrent')
    .followedBy('s')
    .where((e) => e.type === 's')
    .within(40, 'previousAndCurrent')
    .notFollowedBy('x')
    .where((e) => e.type === 'f' && e.v === 2)
    .within(30, 'previousAndCurrent')
    .toSpec(),
};

/** Patterns run with a comparator: ties by value, descending. */
const comparators: Record<string, (a: Ev, b: Ev) => number> = {
  'per-stage windows, ties ordered by a comparator': (a, b) => b.v - a.v,
};

function collect(s: Subtasks) {
  const all = s.harnesses.map(resultOf);
  return {
    matches: sorted(all.flatMap((r) => r.matches)),
    timedOut: sorted(all.flatMap((r) => r.timedOut)),
    late: sorted(all.flatMap((r) => r.late)),
  };
}

async function run(
  spec: PatternSpec<Ev>,
  input: ReturnType<typeof stream>,
  kind: 'heap' | 'disk',
  cut?: { at: number; from: number; to: number },
) {
  const { events, watermarks } = input;
  const results: ReturnType<typeof collect>[] = [];
  const comparator = Object.entries(patterns).find(([, p]) => p === spec)?.[0];
  const options = comparator === undefined ? {} : { comparator: comparators[comparator] };
  let current = subtasks(spec, cut?.from ?? 1, await backendOf(kind), options);
  for (let i = 0; i < events.length; i++) {
    if (cut !== undefined && i === cut.at) {
      const snapshots = current.harnesses.map((h) => h.snapshot(1));
      results.push(collect(current));
      for (const h of current.harnesses) await h.close();
      current = subtasks(spec, cut.to, await backendOf(kind), {
        ...options,
        restoreFrom: snapshots,
      });
    }
    current.feed(events[i]!);
    const w = watermarks.get(i);
    if (w !== undefined) current.watermark(w);
  }
  current.watermark(Number.POSITIVE_INFINITY);
  results.push(collect(current));
  for (const h of current.harnesses) await h.close();
  return {
    matches: sorted(results.flatMap((r) => r.matches)),
    timedOut: sorted(results.flatMap((r) => r.timedOut)),
    late: sorted(results.flatMap((r) => r.late)),
  };
}

describe('CEP state survives checkpoint and restore', () => {
  for (const [name, spec] of Object.entries(patterns)) {
    describe(name, () => {
      for (const kind of ['heap', 'disk'] as const) {
        it.each([
          [1, 1],
          [1, 2],
          [2, 1],
          [2, 2],
        ])(`${kind} backend, parallelism %i -> %i`, async (from, to) => {
          const input = stream(400, 7);
          const whole = await run(spec, input, kind);
          expect(whole.matches.length).toBeGreaterThan(5);
          expect(whole.timedOut.length).toBeGreaterThan(5);
          expect(whole.late.length).toBeGreaterThan(0);
          for (const at of [97, 203, 311]) {
            const cut = await run(spec, input, kind, { at, from, to });
            expect(cut).toEqual(whole);
          }
        });
      }
    });
  }

  it('restores partial matches that are in the middle of a match', async () => {
    const spec = patterns['three failures then a success elsewhere, within 300']!;
    const a = subtasks(spec, 1, { kind: 'heap' });
    const ev = (id: string, ts: number, v: number): Ev => ({ id, type: id[0]!, ts, key: 'k', v });
    for (const e of [ev('f1', 1, 0), ev('f2', 2, 0), ev('f3', 3, 0)]) a.feed(e);
    a.watermark(3);
    const harness = a.harnesses[0]!;
    expect(harness.metric('weir_cep_buffered')).toBeGreaterThan(0);
    const snapshot = harness.snapshot(1);
    const b = subtasks(spec, 1, { kind: 'heap' }, { restoreFrom: [snapshot] });
    b.feed(ev('s4', 4, 1));
    b.watermark(10);
    expect(resultOf(b.harnesses[0]!).matches).toEqual(['f1 f2 f3 s4']);
  });
});
