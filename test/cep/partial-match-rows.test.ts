/**
 * Partial matches as rows: rows freed by timeouts, matches and negations are
 * reused (the table does not grow round after round); snapshots taken with
 * many live partial matches restore, again and again, into the run that
 * went on; and keys that see no record for a long time (longer than the
 * event-time queue's window) behave as if they were alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Pattern } from '../../src/api/cep/pattern.js';
import type { PatternSpec } from '../../src/core/cep.js';
import { KS_BUFFER, KS_COUNT } from '../../src/runtime/operators/cep/key-state-columns.js';
import { compileNfa } from '../../src/runtime/operators/cep/nfa-compiler.js';
import { NfaRunner } from '../../src/runtime/operators/cep/nfa-runner.js';
import type { OperatorSnapshot } from '../../src/testing/index.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { type Ev, resultOf, sorted } from './cep-harness.js';
import { backendOf, removeBackendDirs, type Subtasks, subtasks } from './subtasks.js';

afterEach(removeBackendDirs);

/** `a`, then any number of `b` choices (each a partial match of its own), then `c`, within `ms`. */
function fanOut(ms: number): PatternSpec<Ev> {
  return Pattern.begin<Ev>('a')
    .where((e) => e.type === 'a')
    .followedByAny('b')
    .where((e) => e.type === 'b')
    .followedByAny('c')
    .where((e) => e.type === 'c')
    .within(ms)
    .toSpec();
}

/** Random a/b/c/o events over `keys` keys, slightly out of order, with a watermark every 10. */
function stream(n: number, keys: number, seed: number, gapAt = -1, gap = 0) {
  const random = new DeterministicRandom(seed);
  const events: Ev[] = [];
  const watermarks = new Map<number, number>();
  let time = 0;
  for (let i = 0; i < n; i++) {
    time += random.int(3) + (i === gapAt ? gap : 0);
    const type = 'aabbbco'[random.int(7)]!;
    const ts = Math.max(1, time - random.int(5));
    events.push({ id: `${type}${i}`, type, ts, key: `k${random.int(keys)}`, v: 0 });
    if (i % 10 === 9) watermarks.set(i, time - 5);
  }
  return { events, watermarks };
}

function collect(s: Subtasks) {
  const all = s.harnesses.map(resultOf);
  return {
    matches: all.flatMap((r) => r.matches),
    timedOut: all.flatMap((r) => r.timedOut),
    late: all.flatMap((r) => r.late),
  };
}

/** Runs `input`, cut at each of `cuts` by a snapshot and a restore (alternating parallelism 1 and 2). */
async function run(
  spec: PatternSpec<Ev>,
  input: ReturnType<typeof stream>,
  kind: 'heap' | 'disk',
  cuts: readonly number[] = [],
) {
  const parts: ReturnType<typeof collect>[] = [];
  let parallelism = 1;
  let current = subtasks(spec, parallelism, await backendOf(kind));
  let mostBuffered = 0;
  for (let i = 0; i < input.events.length; i++) {
    if (cuts.includes(i)) {
      const buffered = current.harnesses.reduce((n, h) => n + h.metric('weir_cep_buffered'), 0);
      mostBuffered = Math.max(mostBuffered, buffered);
      const snapshots: OperatorSnapshot[] = current.harnesses.map((h) => h.snapshot(1));
      parts.push(collect(current));
      for (const h of current.harnesses) await h.close();
      parallelism = 3 - parallelism;
      current = subtasks(spec, parallelism, await backendOf(kind), { restoreFrom: snapshots });
    }
    current.feed(input.events[i]!);
    const w = input.watermarks.get(i);
    if (w !== undefined) current.watermark(w);
  }
  current.watermark(Number.POSITIVE_INFINITY);
  parts.push(collect(current));
  for (const h of current.harnesses) await h.close();
  return {
    result: {
      matches: sorted(parts.flatMap((r) => r.matches)),
      timedOut: sorted(parts.flatMap((r) => r.timedOut)),
      late: sorted(parts.flatMap((r) => r.late)),
    },
    mostBuffered,
  };
}

describe('partial matches as rows', () => {
  it('frees the rows of timed-out, negated and completed matches and reuses them round after round', () => {
    const spec = Pattern.begin<Ev>('a')
      .where((e) => e.type === 'a')
      .notNext('x')
      .where((e) => e.type === 'x')
      .followedByAny('b')
      .where((e) => e.type === 'b')
      .within(50)
      .toSpec();
    let matched = 0;
    let timedOut = 0;
    const runner = new NfaRunner<Ev>(compileNfa(spec), spec.skip, {
      match: () => matched++,
      timedOut: () => timedOut++,
      started: () => {},
    });
    // Key k<n> runs in slot n + 1 of the runner's columns.
    const keys = runner.keys;
    keys.ensure(30);
    const slots = Array.from({ length: 30 }, (_, k) => k + 1);
    const rowsEnd = () => (runner.rows as unknown as { end: number }).end;
    let endAfterFirstRound = 0;
    for (let round = 0; round < 20; round++) {
      const t0 = round * 1000;
      for (let k = 0; k < 30; k++) {
        const key = `k${k}`;
        const slot = slots[k]!;
        // Two starts, a negation for every third key, a b for every other one.
        const types = ['a', 'a', k % 3 === 0 ? 'x' : 'o', k % 2 === 0 ? 'b' : 'o'];
        types.forEach((type, i) => {
          runner.advanceTime(slot, t0 + i);
          runner.process(slot, { id: `${type}${i}`, type, ts: t0 + i, key, v: 0 }, t0 + i);
        });
      }
      const live = slots.reduce((n, slot) => n + keys.get(slot, KS_COUNT), 0);
      expect(runner.rows.live).toBe(live);
      expect(live).toBeGreaterThan(0);
      // Everything times out before the next round.
      for (const slot of slots) {
        runner.advanceTime(slot, t0 + 500);
        expect(keys.get(slot, KS_COUNT)).toBe(0);
        expect(keys.get(slot, KS_BUFFER)).toBe(0);
      }
      expect(runner.rows.live).toBe(0);
      if (round === 0) endAfterFirstRound = rowsEnd();
      expect(rowsEnd()).toBe(endAfterFirstRound);
    }
    // Per round: keys with b (15) match once per start that no x cut short.
    expect(matched).toBe(20 * (10 * 2 + 5 * 1));
    expect(timedOut).toBeGreaterThan(0);
  });

  for (const kind of ['heap', 'disk'] as const) {
    it(`restores snapshots taken with many live partial matches, one after another (${kind})`, async () => {
      const spec = fanOut(400);
      const input = stream(1500, 6, 11);
      const whole = await run(spec, input, kind);
      expect(whole.result.matches.length).toBeGreaterThan(100);
      expect(whole.result.timedOut.length).toBeGreaterThan(100);
      const cut = await run(spec, input, kind, [300, 700, 701, 1100]);
      // Hundreds of partial matches and buffer entries were live at the cuts.
      expect(cut.mostBuffered).toBeGreaterThan(500);
      expect(cut.result).toEqual(whole.result);
    });
  }

  for (const timeouts of [true, false]) {
    it(`treats keys quiet for longer than the queue's window as if alone (${timeouts ? 'eager' : 'lazy'} timeouts)`, async () => {
      const spec = fanOut(100_000);
      // After record 400 every key is quiet for 300,000 ms; then key k0 for longer still.
      const input = stream(900, 4, 5, 400, 300_000);
      const events = input.events.map((e, i) =>
        i > 600 && e.key === 'k0' ? { ...e, ts: e.ts + 200_000 } : e,
      );
      const together = subtasks(spec, 1, { kind: 'heap' }, { timeouts });
      events.forEach((e, i) => {
        together.feed(e);
        const w = input.watermarks.get(i);
        if (w !== undefined) together.watermark(w);
      });
      together.watermark(Number.POSITIVE_INFINITY);
      const got = collect(together);
      // Each key alone, with only the final watermark: what the key's NFA must give.
      const alone = { matches: [] as string[], timedOut: [] as string[] };
      for (const key of ['k0', 'k1', 'k2', 'k3']) {
        const late = new Set(got.late);
        const one = subtasks(spec, 1, { kind: 'heap' }, { timeouts });
        for (const e of events) if (e.key === key && !late.has(e.id)) one.feed(e);
        one.watermark(Number.POSITIVE_INFINITY);
        const r = collect(one);
        alone.matches.push(...r.matches);
        alone.timedOut.push(...r.timedOut);
      }
      expect(sorted(got.matches)).toEqual(sorted(alone.matches));
      expect(sorted(got.timedOut)).toEqual(sorted(alone.timedOut));
      expect(got.matches.length).toBeGreaterThan(50);
      if (timeouts) expect(got.timedOut.length).toBeGreaterThan(10);
    });
  }
});
