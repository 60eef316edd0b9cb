/**
 * The CEP operator's working set: keys holding NFA state in dense slots,
 * written into the keyed backend only at snapshots. A key that goes idle
 * keeps its slot, parked, until parked slots are too many and are given back
 * for other keys; the columns grow past their first size, and snapshots taken
 * one after another in a run (each writing only what changed, and clearing
 * keys that went idle) restore into any parallelism with the matches of an
 * uninterrupted run.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Pattern } from '../../src/api/cep/pattern.js';
import type { PatternSpec } from '../../src/core/cep.js';
import { home, KeySlotIndex } from '../../src/runtime/operators/cep/key-slot-index.js';
import {
  KS_BUFFER,
  KS_COUNT,
  KS_FIRST,
  KS_FLAGS,
  KS_NEXT_ID,
} from '../../src/runtime/operators/cep/key-state-columns.js';
import type { KeyNfaState } from '../../src/runtime/operators/cep/nfa-runner.js';
import { NfaWorkingSet, SCRATCH_SLOT } from '../../src/runtime/operators/cep/nfa-working-set.js';
import { NO_MATCH, PartialMatchRows } from '../../src/runtime/operators/cep/partial-match-rows.js';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state.js';
import { Serializers } from '../../src/state/serializers.js';
import type { OperatorSnapshot } from '../../src/testing/index.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { type Ev, resultOf, runPattern, sorted } from './cep-harness.js';
import { backendOf, removeBackendDirs, type Subtasks, subtasks } from './subtasks.js';

afterEach(removeBackendDirs);

/** The partial matches of the states made here. */
const rows = new PartialMatchRows();

/** Gives `key` a slot holding one partial match that began at `startTs` (made in the scratch slot, as the operator does). */
function addWith(work: NfaWorkingSet, key: string | number, startTs: number): number {
  const columns = work.columns;
  columns.set(SCRATCH_SLOT, KS_FIRST, rows.add(2, -1, startTs, 0));
  columns.set(SCRATCH_SLOT, KS_COUNT, 1);
  columns.set(SCRATCH_SLOT, KS_NEXT_ID, 7);
  return work.adopt(key, startTs);
}

/** The start time of a slot's first partial match. */
function firstStart(work: NfaWorkingSet, slot: number): number {
  return rows.startTsOf(work.columns.get(slot, KS_FIRST));
}

/** The start time of a stored state's first partial match. */
function storedStart(s: KeyNfaState<string> | undefined): number | undefined {
  return s === undefined ? undefined : rows.startTsOf(s.firstMatch);
}

describe('NfaWorkingSet', () => {
  it('parks the slot of a key that went idle: the key keeps it, emptied, and uses it again', () => {
    const work = new NfaWorkingSet();
    const columns = work.columns;
    const a = addWith(work, 'a', 1);
    const b = addWith(work, 'b', 2);
    expect(work.slotOf('a')).toBe(a);
    expect(firstStart(work, a)).toBe(1);
    // What the slot held besides its partial match: buffer entries, event ids, a completed match.
    columns.set(a, KS_BUFFER, 4);
    columns.setCompleted(a, [{ state: 3, node: -1, startTs: 1, startId: 0 }]);
    work.park(a);
    work.settle();
    expect(work.slotOf('a')).toBe(a);
    expect(work.inUse(a)).toBe(false);
    expect(work.size).toBe(1);
    expect(work.slotted).toBe(2);
    expect(work.earliestStart(a)).toBe(Number.POSITIVE_INFINITY);
    expect(columns.get(a, KS_FIRST)).toBe(NO_MATCH);
    expect(columns.get(a, KS_COUNT)).toBe(0);
    expect(columns.get(a, KS_BUFFER)).toBe(0);
    expect(columns.get(a, KS_NEXT_ID)).toBe(0);
    expect(columns.completed(a)).toEqual([]);
    expect(columns.isIdle(a)).toBe(true);
    // A slot looked up earlier is still the key's; a key without one is looked up again.
    expect(work.recheck(a, 'a')).toBe(a);
    expect(work.recheck(-1, 'b')).toBe(b);
    expect(work.recheck(-1, 'c')).toBe(-1);
    // The key runs on its parked slot again (as the operator does): it is in use once changed.
    columns.set(a, KS_FIRST, rows.add(2, -1, 5, 0));
    columns.set(a, KS_COUNT, 1);
    work.changed(a, 5);
    expect(work.inUse(a)).toBe(true);
    expect(work.size).toBe(2);
    // Parking twice counts once; a new key gets a new slot while parked ones are few.
    work.park(a);
    work.park(a);
    expect(work.size).toBe(1);
    const c = addWith(work, 'c', 3);
    expect([a, b]).not.toContain(c);
    expect(work.keyAt(c)).toBe('c');
    expect(columns.isIdle(SCRATCH_SLOT)).toBe(true);
    // The scratch slot and three slots.
    expect(work.slotEnd).toBe(4);
  });

  it('gives parked slots back once they outnumber four times the slots in use plus a floor', () => {
    const work = new NfaWorkingSet();
    const columns = work.columns;
    // 100 keys in use, then parked keys up to the limit: 4 x 100 + 16,384.
    for (let k = 0; k < 100; k++) addWith(work, k, k);
    const limit = 4 * 100 + 16_384;
    for (let k = 100; k < 100 + limit; k++) work.park(addWith(work, k, k));
    work.settle();
    expect(work.slotted).toBe(100 + limit);
    const end = work.slotEnd;
    // One more parked key: every parked slot is given back at the next settle.
    const last = addWith(work, 'last', 0);
    work.park(last);
    expect(work.slotOf('last')).toBe(last);
    work.settle();
    expect(work.slotted).toBe(100);
    expect(work.size).toBe(100);
    expect(work.slotOf('last')).toBe(-1);
    expect(work.slotOf(100)).toBe(-1);
    expect(columns.get(last, KS_FLAGS)).toBe(0);
    for (let k = 0; k < 100; k++) {
      const slot = work.slotOf(k);
      expect(work.inUse(slot)).toBe(true);
      expect(firstStart(work, slot)).toBe(k);
      expect(work.keyAt(slot)).toBe(k);
    }
    // New keys take the slots given back: the columns do not grow.
    for (let k = 0; k < 1_000; k++) addWith(work, `n${k}`, k);
    expect(work.slotEnd).toBe(end + 1);
    for (let k = 0; k < 1_000; k++) expect(firstStart(work, work.slotOf(`n${k}`))).toBe(k);
    for (let k = 0; k < 100; k++) expect(firstStart(work, work.slotOf(k))).toBe(k);
  });

  it('grows its columns past the first size and keeps every slot', () => {
    const work = new NfaWorkingSet();
    const n = 5_000;
    for (let i = 0; i < n; i++) addWith(work, i, i);
    expect(work.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const slot = work.slotOf(i);
      expect(work.earliestStart(slot)).toBe(i);
      expect(firstStart(work, slot)).toBe(i);
      expect(work.inUse(slot)).toBe(true);
    }
  });

  it('writes back only what changed, and clears keys that went idle', () => {
    const backend = new HeapKeyedStateBackend('cep');
    const values = backend.getValueState<KeyNfaState<string>>({
      name: 'nfa',
      serializer: Serializers.json<KeyNfaState<string>>(),
    });
    const stored = (key: string) => {
      backend.currentKey = key;
      const v = values.value();
      backend.currentKey = undefined;
      return v;
    };
    const work = new NfaWorkingSet();
    const a = addWith(work, 'a', 1);
    addWith(work, 'b', 2);
    expect(stored('a')).toBeUndefined();
    work.writeBack(backend, values);
    expect(storedStart(stored('a'))).toBe(1);
    expect(storedStart(stored('b'))).toBe(2);
    expect(stored('b')?.nextEventId).toBe(7);
    work.park(a);
    work.settle();
    // 'a' went idle; 'b' went idle and came back (on its parked slot) before the next write-back.
    addWith(work, 'c', 3);
    const b = work.slotOf('b');
    work.park(b);
    work.settle();
    work.columns.set(b, KS_FIRST, rows.add(2, -1, 4, 0));
    work.columns.set(b, KS_COUNT, 1);
    work.columns.set(b, KS_NEXT_ID, 7);
    work.changed(b, 4);
    work.writeBack(backend, values);
    expect(stored('a')).toBeUndefined();
    expect(storedStart(stored('b'))).toBe(4);
    expect(storedStart(stored('c'))).toBe(3);
    expect(backend.entryCount()).toBe(2);
    // A restored key enters a slot with the stored fields, not marked changed.
    const restored = new NfaWorkingSet();
    const slot = restored.load('b', stored('b')!);
    expect(restored.columns.get(slot, KS_NEXT_ID)).toBe(7);
    expect(firstStart(restored, slot)).toBe(4);
    const other = new HeapKeyedStateBackend('cep');
    const otherValues = other.getValueState<KeyNfaState<string>>({
      name: 'nfa',
      serializer: Serializers.json<KeyNfaState<string>>(),
    });
    restored.writeBack(other, otherValues);
    expect(other.entryCount()).toBe(0);
  });
});

/** Failures (f), successes (s) and other events (o) over `keys` keys: many go idle and come back. */
function stream(n: number, keys: number, seed: number) {
  const random = new DeterministicRandom(seed);
  const events: Ev[] = [];
  const watermarks = new Map<number, number>();
  let time = 0;
  for (let i = 0; i < n; i++) {
    time += random.int(2);
    const r = random.next();
    const type = r < 0.5 ? 'f' : r < 0.7 ? 's' : 'o';
    const ts = Math.max(1, time - random.int(5));
    events.push({ id: `${type}${i}`, type, ts, key: `k${random.int(keys)}`, v: random.int(3) });
    if (i % 50 === 49) watermarks.set(i, time - 3);
  }
  return { events, watermarks };
}

const fraud: PatternSpec<Ev> = Pattern.begin<Ev>('fail')
  .where((e) => e.type === 'f')
  .times(2)
  .consecutive()
  .followedBy('success')
  .where((e, ctx) => e.type === 's' && e.v !== ctx.eventsFor('fail')[0]!.v)
  .within(1_500)
  .toSpec();

/** Matches and timed-out matches of each subtask so far. */
const outputs = (s: Subtasks) => s.harnesses.map(resultOf);

/**
 * Runs the stream; at each of `snapshotsAt` every subtask takes a snapshot and
 * goes on; at `restoreAt` the run continues from the latest snapshots on
 * `to` subtasks (output emitted after that snapshot is discarded with the
 * old subtasks, as after a failure).
 */
async function run(
  input: ReturnType<typeof stream>,
  kind: 'heap' | 'disk',
  timeouts: boolean,
  cut?: { snapshotsAt: readonly number[]; restoreAt: number; from: number; to: number },
): Promise<string[]> {
  const { events, watermarks } = input;
  const kept: string[] = [];
  let current = subtasks(fraud, cut?.from ?? 1, await backendOf(kind), { timeouts });
  let latest: { snapshots: OperatorSnapshot[]; counts: [number, number][] } | undefined;
  for (let i = 0; i < events.length; i++) {
    if (cut?.snapshotsAt.includes(i)) {
      latest = {
        snapshots: current.harnesses.map((h, n) => h.snapshot(n + 1)),
        counts: outputs(current).map((r) => [r.matches.length, r.timedOut.length]),
      };
    }
    if (cut !== undefined && i === cut.restoreAt && latest !== undefined) {
      // What the old subtasks emitted after the snapshot is lost with them, as after a failure.
      const { counts } = latest;
      outputs(current).forEach((r, n) => {
        kept.push(...r.matches.slice(0, counts[n]![0]), ...r.timedOut.slice(0, counts[n]![1]));
      });
      for (const h of current.harnesses) await h.close();
      current = subtasks(fraud, cut.to, await backendOf(kind), {
        timeouts,
        restoreFrom: latest.snapshots,
      });
      // The restored run replays from the snapshot's position.
      i = cut.snapshotsAt.filter((s) => s <= cut.restoreAt).at(-1)!;
      latest = undefined;
    }
    current.feed(events[i]!);
    const w = watermarks.get(i);
    if (w !== undefined) current.watermark(w);
  }
  current.watermark(Number.POSITIVE_INFINITY);
  for (const r of outputs(current)) kept.push(...r.matches, ...r.timedOut);
  for (const h of current.harnesses) await h.close();
  return sorted(kept);
}

describe('CEP working set across snapshots', () => {
  // 1,100 keys: more than the first 1,024 slots, and most keys go idle and come back.
  const input = stream(12_000, 1_100, 5);

  for (const kind of ['heap', 'disk'] as const) {
    for (const timeouts of [true, false]) {
      it.each([
        [1, 2],
        [2, 1],
      ])(
        `${kind} backend, ${timeouts ? 'with' : 'without'} a timed-out handler: two snapshots in a run, restored from the second at parallelism %i -> %i`,
        async (from, to) => {
          const whole = await run(input, kind, timeouts);
          expect(whole.filter((m) => !m.includes('@')).length).toBeGreaterThan(50);
          if (timeouts) expect(whole.filter((m) => m.includes('@')).length).toBeGreaterThan(50);
          const cut = await run(input, kind, timeouts, {
            snapshotsAt: [4_000, 8_000],
            restoreAt: 10_000,
            from,
            to,
          });
          expect(cut).toEqual(whole);
        },
      );
    }
  }
});

/**
 * Keys that come and go: each is seen a few times over a short stretch and
 * never again (36,000 keys), so that parked slots pile up past the limit and
 * are given back while other keys hold state.
 */
function passingKeys(n: number, seed: number) {
  const random = new DeterministicRandom(seed);
  const events: Ev[] = [];
  const watermarks = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const r = random.next();
    const type = r < 0.5 ? 'f' : r < 0.7 ? 's' : 'o';
    const ts = Math.max(1, i - random.int(5));
    const key = `k${Math.floor(i / 2) + random.int(6)}`;
    events.push({ id: `${type}${i}`, type, ts, key, v: random.int(3) });
    if (i % 50 === 49) watermarks.set(i, i - 6);
  }
  return { events, watermarks };
}

describe('CEP working set with keys that come and go', () => {
  const input = passingKeys(72_000, 8);
  // The uninterrupted run, shared by both tests.
  let whole: Promise<string[]> | undefined;
  const wholeRun = () => {
    whole ??= run(input, 'heap', true);
    return whole;
  };

  it('gives each key the matches and timeouts it has on its own', async () => {
    const all = await wholeRun();
    // Every 61st key on its own: a key's matches depend on its own events only.
    const byKey = new Map<string, Ev[]>();
    for (const e of input.events) {
      if (Number(e.key.slice(1)) % 61 !== 0) continue;
      if (!byKey.has(e.key)) byKey.set(e.key, []);
      byKey.get(e.key)!.push(e);
    }
    expect(byKey.size).toBeGreaterThan(350);
    // The matches made of one key's events only, by that key, in one pass (ids are unique):
    // filtering the whole output once per key took seconds.
    const keyOf = new Map(input.events.map((e) => [e.id, e.key]));
    const foundBy = new Map<string, string[]>();
    for (const m of all) {
      const keys = new Set(
        m
          .split('@')[0]!
          .split(' ')
          .map((id) => keyOf.get(id)),
      );
      const [key] = keys;
      if (keys.size !== 1 || key === undefined) continue;
      const list = foundBy.get(key) ?? [];
      if (list.length === 0) foundBy.set(key, list);
      list.push(m);
    }
    let checked = 0;
    for (const [key, own] of byKey) {
      const alone = runPattern(fraud, own);
      const expected = sorted([...alone.matches, ...alone.timedOut]);
      expect(foundBy.get(key) ?? [], key).toEqual(expected);
      checked += expected.length;
    }
    expect(checked).toBeGreaterThan(100);
  }, 120_000);

  it('restores from a snapshot taken after slots were given back, at another parallelism', async () => {
    const cut = await run(input, 'heap', true, {
      snapshotsAt: [60_000],
      restoreAt: 64_000,
      from: 1,
      to: 2,
    });
    expect(cut).toEqual(await wholeRun());
  }, 120_000);
});

describe('KeySlotIndex', () => {
  it('agrees with a Map through adds and deletes of integer and other keys, across growth and wrap', () => {
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -50, max: 3000 }) },
      { weight: 1, arbitrary: fc.integer() },
      { weight: 1, arbitrary: fc.constantFrom(2 ** 31, 0.5, -0, 'k1', '7', true) },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, fc.boolean()), { maxLength: 3000, size: 'max' }),
        (ops) => {
          const index = new KeySlotIndex();
          const model = new Map<string | number | boolean, number>();
          ops.forEach(([k, add], n) => {
            if (add && !model.has(k)) {
              index.set(k, n);
              model.set(k, n);
            } else if (!add) {
              index.delete(k);
              model.delete(k);
            }
          });
          expect(index.size).toBe(model.size);
          // One expectation for all keys: one per key cost most of the time.
          const differing = ops.filter(([k]) => index.get(k) !== (model.get(k) ?? -1));
          expect(differing.map(([k]) => [k, index.get(k), model.get(k) ?? -1])).toEqual([]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps every probe chain whole when deleting from a full cluster of colliding keys', () => {
    const index = new KeySlotIndex();
    // 20,000 consecutive ids (the table grows many times), half of them deleted in a scattered order.
    for (let k = 0; k < 20_000; k++) index.set(k, k);
    for (let k = 0; k < 20_000; k += 2) index.delete((k * 7919) % 20_000);
    const deleted = new Set(Array.from({ length: 10_000 }, (_, i) => (i * 2 * 7919) % 20_000));
    for (let k = 0; k < 20_000; k++) expect(index.get(k)).toBe(deleted.has(k) ? -1 : k);
    expect(index.size).toBe(20_000 - deleted.size);
  });

  it('deletes from a cluster that wraps past the end of the table', () => {
    // Keys whose home is one of the last two places or the first (of the first table, 1,024 places).
    const near = (h: number) => {
      const found: number[] = [];
      for (let k = 0; found.length < 4; k++) if (home(k, 1023) === h) found.push(k);
      return found;
    };
    const keys = [...near(1022), ...near(1023), ...near(0)];
    for (const order of [keys, [...keys].reverse()]) {
      for (const gone of keys) {
        const index = new KeySlotIndex();
        for (const k of order) index.set(k, k);
        index.delete(gone);
        for (const k of keys) expect(index.get(k)).toBe(k === gone ? -1 : k);
      }
    }
  });
});
