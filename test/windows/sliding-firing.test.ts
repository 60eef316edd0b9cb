/**
 * Incremental firing of sliding windows: the slice operator, driven directly
 * with batches, watermarks and a snapshot/restore, against a plain-loop
 * oracle that merges a window's slices one by one when it fires. The merge is
 * associative but not commutative (records joined in slice order), and one
 * variant mutates its first argument, so a wrong order, a slice missed or
 * counted twice, or a shared slice accumulator changed by a firing all show.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Operator } from '../../src/core/operator.js';
import type { WindowResult } from '../../src/index.js';
import type { LocalWindowElement } from '../../src/runtime/windowing/local-window-combiner.js';
import { SliceWindowOperator } from '../../src/runtime/windowing/slice-window-operator.js';
import {
  resultFiring,
  type WindowAggregation,
} from '../../src/runtime/windowing/window-aggregation.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';

interface Rec {
  readonly k: string;
  readonly t: number;
  readonly id: string;
}
type Step = { rec: Rec } | { wm: number };

interface Spec {
  readonly size: number;
  readonly slide: number;
  readonly offset: number;
  readonly lateness: number;
}

type Acc = string[] | string;

/** Record ids in order; `merge` appends to (mutates) its first argument. */
function listJoin(counter: { merges: number }): WindowAggregation<Rec, Acc, string> {
  return {
    create: () => [],
    add: (r, acc) => {
      (acc as string[]).push(r.id);
      return acc;
    },
    merge: (a, b) => {
      counter.merges++;
      for (const id of b as string[]) (a as string[]).push(id);
      return a;
    },
    result: (acc) => (acc as string[]).join(' '),
  };
}

/** The same as immutable strings: `add` and `merge` return new values. */
function stringJoin(counter: { merges: number }): WindowAggregation<Rec, Acc, string> {
  const cat = (a: string, b: string) => (a === '' ? b : b === '' ? a : `${a} ${b}`);
  return {
    create: () => '',
    add: (r, acc) => cat(acc as string, r.id),
    merge: (a, b) => {
      counter.merges++;
      return cat(a as string, b as string);
    },
    result: (acc) => acc as string,
  };
}

function line(k: string, end: number, size: number, value: string, timing: string, upd: boolean) {
  return `${k} [${end - size},${end}) ${value} ${timing}${upd ? ' upd' : ''}`;
}

/** The largest s <= t with s ≡ offset (mod period). */
function periodStart(t: number, offset: number, period: number): number {
  return t - ((((t - offset) % period) + period) % period);
}

function gcdOf(a: number, b: number): number {
  return b === 0 ? a : gcdOf(b, a % b);
}

/**
 * Plain loops: slices of gcd(size, slide) hold each key's record ids in
 * arrival order; a window's value joins its slices' ids oldest slice first;
 * keys come in order of their first slice in the window, then of arrival.
 */
function oracle(spec: Spec, steps: readonly Step[]): string[] {
  const { size, slide, offset, lateness } = spec;
  const pane = gcdOf(size, slide);
  const slices = new Map<number, Map<string, string[]>>();
  const out: string[] = [];
  let wm = Number.NEGATIVE_INFINITY;
  let firedUpTo = Number.NEGATIVE_INFINITY;
  const idsIn = (end: number, key: string): string[] | undefined => {
    let ids: string[] | undefined;
    for (let s = end - size + pane; s <= end; s += pane) {
      const own = slices.get(s)?.get(key);
      if (own !== undefined) ids = [...(ids ?? []), ...own];
    }
    return ids;
  };
  const keysIn = (end: number): string[] => {
    const keys: string[] = [];
    for (let s = end - size + pane; s <= end; s += pane) {
      for (const k of slices.get(s)?.keys() ?? []) if (!keys.includes(k)) keys.push(k);
    }
    return keys;
  };
  const add = (r: Rec) => {
    const end = periodStart(r.t, offset, pane) + pane;
    const slice = slices.get(end) ?? new Map<string, string[]>();
    slices.set(end, slice);
    slice.set(r.k, [...(slice.get(r.k) ?? []), r.id]);
  };
  // The operator's input ends with the watermark +Infinity.
  for (const step of [...steps, { wm: Number.POSITIVE_INFINITY }]) {
    if ('rec' in step) {
      const r = step.rec;
      if (r.t > wm) {
        add(r);
        continue;
      }
      const lastEnd = periodStart(r.t, offset, slide) + size;
      if (lastEnd - 1 + lateness <= wm) continue;
      const refire: number[] = [];
      for (let end = lastEnd; end > r.t; end -= slide) {
        if (end - 1 <= wm && end - 1 + lateness > wm) refire.unshift(end);
      }
      const had = refire.map((end) => idsIn(end, r.k) !== undefined);
      add(r);
      refire.forEach((end, i) => {
        out.push(line(r.k, end, size, idsIn(end, r.k)!.join(' '), 'late', had[i]!));
      });
      continue;
    }
    if (step.wm <= wm) continue;
    wm = step.wm;
    const ends = [...slices.keys()];
    if (ends.length > 0) {
      const lo = Number.isFinite(firedUpTo) ? firedUpTo : Math.min(...ends) - pane;
      const hi = Math.min(wm + 1, Math.max(...ends) + size);
      for (
        let end = periodStart(lo - size, offset, slide) + slide + size;
        end <= hi;
        end += slide
      ) {
        for (const k of keysIn(end)) {
          out.push(line(k, end, size, idsIn(end, k)!.join(' '), 'on-time', false));
        }
      }
    }
    firedUpTo = wm === Number.POSITIVE_INFINITY ? wm : wm + 1;
  }
  return out;
}

interface RunOptions {
  readonly aggregation: WindowAggregation<Rec, Acc, string>;
  readonly twoPhase: boolean;
  /** Snapshot after this many steps and continue in a restored operator. */
  readonly restoreAt?: number | undefined;
}

type Input = Rec | LocalWindowElement<Rec, Acc>;

/** The slice operator in a harness; `restoreFrom` continues from a snapshot in a fresh instance. */
function harnessFor(spec: Spec, options: RunOptions, restoreFrom?: OperatorSnapshot) {
  const op = new SliceWindowOperator<Rec, Acc, string, WindowResult<string, string>>({
    size: spec.size,
    slide: spec.slide,
    offset: spec.offset,
    allowedLateness: spec.lateness,
    lateDataTag: undefined,
    aggregation: options.aggregation,
    firing: resultFiring<string, string>(),
    localFolding: options.twoPhase,
  });
  // With two-phase input the operator takes the local half's elements instead of records.
  return new KeyedOneInputHarness(
    op as unknown as Operator<Input, WindowResult<string, string>>,
    (e: Input) => ('k' in e ? e.k : e.key),
    // One key group: a restore then keeps the keys in arrival order, as the oracle
    // orders them (with many, keys come back in key-group order).
    { operatorId: 'w', maxParallelism: 1, ...(restoreFrom === undefined ? {} : { restoreFrom }) },
  );
}

/** Feeds the steps (consecutive records as one batch) and returns the emitted lines. */
function runOperator(spec: Spec, steps: readonly Step[], options: RunOptions): string[] {
  const lines: string[] = [];
  const take = (h: ReturnType<typeof harnessFor>) => {
    for (const r of h.outputValues()) {
      lines.push(line(r.key, r.window.end, spec.size, r.value, r.timing, r.isUpdate));
    }
    h.clearOutput();
  };
  let h = harnessFor(spec, options);
  const pane = gcdOf(spec.size, spec.slide);
  const { aggregation } = options;
  let wm = Number.NEGATIVE_INFINITY;
  let pending: Rec[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const values = options.twoPhase
      ? pending.map(
          (r): LocalWindowElement<Rec, Acc> =>
            // Partials only for open slices, as the local half sends them.
            r.t > wm
              ? {
                  key: r.k,
                  sliceEnd: periodStart(r.t, spec.offset, pane) + pane,
                  accumulator: aggregation.add(r, aggregation.create()),
                }
              : { key: r.k, record: r },
        )
      : pending;
    h.processElements(
      values,
      pending.map((r) => r.t),
    );
    pending = [];
  };
  steps.forEach((step, i) => {
    if (i === options.restoreAt) {
      flush();
      // Restored through JSON, as stored: the restored operator shares no accumulator.
      const snapshot = h.snapshot(1);
      take(h);
      h = harnessFor(spec, options, snapshot);
    }
    if ('rec' in step) {
      pending.push(step.rec);
      return;
    }
    flush();
    h.processWatermark(step.wm);
    wm = Math.max(wm, step.wm);
  });
  flush();
  h.processWatermark(Number.POSITIVE_INFINITY);
  take(h);
  return lines;
}

/** Mostly sliding (the size often not a multiple of the slide, offsets both ways), some tumbling. */
const specArb = fc
  .record({
    slide: fc.integer({ min: 1, max: 8 }),
    extra: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(0)),
    offsetRaw: fc.integer({ min: -20, max: 20 }),
    lateness: fc.constantFrom(0, 0, 3, 10, 40),
  })
  .map(
    ({ slide, extra, offsetRaw, lateness }): Spec => ({
      slide,
      size: slide + extra,
      offset: offsetRaw % slide,
      lateness,
    }),
  );

const stepsArb = fc
  .array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          // One busy key, so its slices are often adjacent; three sparse ones.
          k: fc.constantFrom('a', 'a', 'a', 'b', 'c', 'd'),
          t: fc.integer({ min: -10, max: 120 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ wm: fc.integer({ min: -10, max: 130 }) }) },
    ),
    { maxLength: 120, size: 'max' },
  )
  .map((raw) =>
    raw.map((s, i): Step => ('wm' in s ? { wm: s.wm } : { rec: { k: s.k, t: s.t, id: `r${i}` } })),
  );

describe('incremental firing of sliding windows', () => {
  it('equals a direct merge of the slices (order, late updates, two-phase input, restore)', () => {
    fc.assert(
      fc.property(
        specArb,
        stepsArb,
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.nat({ max: 120 }), { nil: undefined }),
        (spec, steps, immutable, twoPhase, restoreAt) => {
          const counter = { merges: 0 };
          const aggregation = immutable ? stringJoin(counter) : listJoin(counter);
          const expected = oracle(spec, steps);
          expect(runOperator(spec, steps, { aggregation, twoPhase, restoreAt })).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  }, 60_000);

  /*
   * size 6, slide 4 (slices of 2), offset 1, lateness 4; windows end at 3, 7, 11, ...
   *
   *   time      -1   1   3   5   7   9   11
   *   slices     |   |   |   |   |   |   |
   *   [1,7)          [-----------)            a1 b2 a5
   *   [5,11)                 [-----------)    a5 a9
   *
   * b@6 and a@6 arrive after W 7: [1,7) fired (queued for the next window)
   * and is updated; [5,11) takes them when it fires, in the slice [5,7) that
   * is already queued, before a9 of a newer slice.
   */
  it('keeps slice order and key order across a late record in a queued slice', () => {
    const rec = (k: string, t: number, id: string): Step => ({ rec: { k, t, id } });
    const spec: Spec = { size: 6, slide: 4, offset: 1, lateness: 4 };
    const steps: Step[] = [
      rec('a', 1, 'a1'),
      rec('b', 2, 'b2'),
      rec('a', 5, 'a5'),
      { wm: 7 },
      rec('a', 9, 'a9'),
      rec('b', 6, 'b6'),
      rec('a', 6, 'a6'),
      { wm: 11 },
    ];
    const lines = runOperator(spec, steps, {
      aggregation: listJoin({ merges: 0 }),
      twoPhase: false,
    });
    expect(lines).toEqual([
      'a [-3,3) a1 on-time',
      'b [-3,3) b2 on-time',
      'a [1,7) a1 a5 on-time',
      'b [1,7) b2 on-time',
      'b [1,7) b2 b6 late upd',
      'a [1,7) a1 a5 a6 late upd',
      'a [5,11) a5 a6 a9 on-time',
      'b [5,11) b6 on-time',
      'a [9,15) a9 on-time',
    ]);
    expect(oracle(spec, steps)).toEqual(lines);
  });

  /*
   * size 5, slide 2 (slices of 1): windows end at 1, 3, 5, 7, ...; a@t for t = 0..11.
   *
   *   [-4,1) fires with slice 0 alone: the front stack is [0], later slices go behind.
   *   [2,7) drops slices 0 and 1 at once: the front is emptied and one slice
   *   leaves the back stack, whose running merge must not be used any more.
   */
  it('drops slices from both stacks in one step when the size is not a multiple of the slide', () => {
    const spec: Spec = { size: 5, slide: 2, offset: 0, lateness: 0 };
    const steps: Step[] = [];
    for (let t = 0; t < 12; t++) steps.push({ rec: { k: 'a', t, id: `a${t}` } });
    const lines = runOperator(spec, steps, {
      aggregation: listJoin({ merges: 0 }),
      twoPhase: false,
    });
    expect(lines.slice(0, 5)).toEqual([
      'a [-4,1) a0 on-time',
      'a [-2,3) a0 a1 a2 on-time',
      'a [0,5) a0 a1 a2 a3 a4 on-time',
      'a [2,7) a2 a3 a4 a5 a6 on-time',
      'a [4,9) a4 a5 a6 a7 a8 on-time',
    ]);
    expect(lines).toEqual(oracle(spec, steps));
  });

  it('merges O(1) times per fired window and key, not once per slice', () => {
    // size 100, slide 1: each window spans 100 slices; 5 keys, every key in every slice.
    const spec: Spec = { size: 100, slide: 1, offset: 0, lateness: 0 };
    const steps: Step[] = [];
    for (let t = 0; t < 2000; t++) {
      for (const k of ['a', 'b', 'c', 'd', 'e']) steps.push({ rec: { k, t, id: `${k}${t}` } });
      if (t % 10 === 9) steps.push({ wm: t });
    }
    const counter = { merges: 0 };
    const lines = runOperator(spec, steps, { aggregation: stringJoin(counter), twoPhase: false });
    expect(lines).toEqual(oracle(spec, steps));
    // 2,099 windows per key, every one fired with data.
    expect(lines).toHaveLength(5 * 2099);
    const perWindow = counter.merges / lines.length;
    // A direct merge would take up to 100; two stacks take about 5.
    expect(perWindow).toBeLessThan(6);
  }, 30_000);
});
