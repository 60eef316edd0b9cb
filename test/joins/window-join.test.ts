/**
 * Window join and co-group against a batch oracle (plain loops over all
 * records), with out-of-order and late input, at parallelism 1 and 2, and
 * across a savepoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CollectSink,
  OutputTag,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import {
  deliver,
  type Side,
  savepointRoundTrip,
  sidesArb,
  twoSides,
  watermarksBefore,
} from './helpers.js';

type Spec = { size: number; slide: number };

/** Window starts of `t` for windows of `size` every `slide` (offset 0). */
function startsOf(t: number, { size, slide }: Spec): number[] {
  const out: number[] = [];
  const first = t - (((t % slide) + slide) % slide);
  for (let s = first; s > t - size; s -= slide) out.push(s);
  return out;
}

/** Enough records per key that windows usually hold both sides. */
const DENSE = { minLength: 10, maxLength: 60, maxT: 120 };

const pair = (l: Side, r: Side, ts: number) => `${l.k} L${l.id} R${r.id} @${ts}`;

/** Batch oracle: every (left, right) pair with equal keys sharing a window, stamped with the window's last ms. */
function oracle(
  events: readonly Side[],
  spec: Spec,
  inWindow: (e: Side, start: number) => boolean = () => true,
): string[] {
  const out: string[] = [];
  for (const l of events) {
    if (l.side !== 'L') continue;
    for (const r of events) {
      if (r.side !== 'R' || r.k !== l.k) continue;
      const rs = new Set(startsOf(r.t, spec));
      for (const s of startsOf(l.t, spec)) {
        if (rs.has(s) && inWindow(l, s) && inWindow(r, s)) out.push(pair(l, r, s + spec.size - 1));
      }
    }
  }
  return out.sort();
}

/** Batch sessions per key over both sides (a record within `gap` of a session's end, inclusive, joins it). */
function sessionOracle(events: readonly Side[], gap: number): string[] {
  const out: string[] = [];
  for (const k of new Set(events.map((e) => e.k))) {
    const es = events.filter((e) => e.k === k).sort((a, b) => a.t - b.t);
    let members: Side[] = [];
    let end = Number.NEGATIVE_INFINITY;
    const flush = () => {
      for (const l of members)
        if (l.side === 'L')
          for (const r of members) if (r.side === 'R') out.push(pair(l, r, end - 1));
    };
    for (const e of es) {
      if (members.length > 0 && e.t <= end) {
        members.push(e);
        end = Math.max(end, e.t + gap);
      } else {
        flush();
        members = [e];
        end = e.t + gap;
      }
    }
    flush();
  }
  return out.sort();
}

async function run(
  arrival: readonly Side[],
  spec: Spec | { gap: number },
  opts: { bound: number; parallelism: number },
): Promise<{ pairs: string[]; late: Side[]; lateCount: number }> {
  const env = new StreamEnvironment({ parallelism: opts.parallelism, batchSize: 1 });
  const { left, right } = twoSides(env, arrival, opts.bound);
  const leftLate = new OutputTag<Side>('left-late');
  const rightLate = new OutputTag<Side>('right-late');
  const joined = left
    .join(right)
    .where((l) => l.k)
    .equalTo((r) => r.k)
    .window(
      'gap' in spec
        ? Windows.session(spec.gap)
        : spec.slide === spec.size
          ? Windows.tumbling(spec.size)
          : Windows.sliding(spec.size, spec.slide),
    )
    .sideOutputLeftLateData(leftLate)
    .sideOutputRightLateData(rightLate)
    .apply((l, r) => ({ l, r }));
  const sink = new CollectSink<{ l: Side; r: Side }>();
  joined.sinkTo(sink);
  const lateSink = new CollectSink<Side>();
  joined.getSideOutput(leftLate).union(joined.getSideOutput(rightLate)).sinkTo(lateSink);
  const result = await env.execute();
  return {
    pairs: sink.values.map((p, i) => pair(p.l, p.r, sink.timestamps[i]!)).sort(),
    late: lateSink.values,
    lateCount: result.metric('weir_join_late_records_total'),
  };
}

describe('window join', () => {
  it('joins pairs per key and tumbling window, stamped with the window end - 1', async () => {
    //  key a:  L1@1  R3@3 | R12@12  L15@15        window [0,10) and [10,20)
    //  key b:  L5@5 (no right side: nothing)
    //  output: (L1,R3)@9, (L15,R12)@19
    const env = new StreamEnvironment({ batchSize: 1 });
    const events: Side[] = [
      { side: 'L', k: 'a', t: 1, id: 1 },
      { side: 'R', k: 'a', t: 3, id: 3 },
      { side: 'L', k: 'b', t: 5, id: 5 },
      { side: 'R', k: 'a', t: 12, id: 12 },
      { side: 'L', k: 'a', t: 15, id: 15 },
    ];
    const { left, right } = twoSides(env, events, 0);
    const sink = new CollectSink<string>();
    left
      .join(right)
      .where((l) => l.k)
      .equalTo((r) => r.k)
      .window(Windows.tumbling(10))
      .apply((l, r) => `${l.k} L${l.id} R${r.id}`)
      .sinkTo(sink);
    await env.execute();
    expect(sink.values).toEqual(['a L1 R3', 'a L15 R12']);
    expect(sink.timestamps).toEqual([9, 19]);
  });

  it('coGroup sees both sides per window and key, one of them possibly empty', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const events: Side[] = [
      { side: 'L', k: 'a', t: 1, id: 1 },
      { side: 'L', k: 'a', t: 2, id: 2 },
      { side: 'R', k: 'a', t: 3, id: 3 },
      { side: 'R', k: 'b', t: 4, id: 4 },
      { side: 'L', k: 'c', t: 14, id: 14 },
    ];
    const { left, right } = twoSides(env, events, 0);
    const out = await left
      .coGroup(right)
      .where((l) => l.k)
      .equalTo((r) => r.k)
      .window(Windows.tumbling(10))
      .apply<string>((ls, rs, out, { key, window }) =>
        out.collect(`${key} [${window.start},${window.end}) L${ls.length} R${rs.length}`),
      )
      .executeAndCollect();
    expect(out.sort()).toEqual(['a [0,10) L2 R1', 'b [0,10) L0 R1', 'c [10,20) L1 R0']);
  });

  it('rejects dynamic-gap sessions and processing-time windows with a clear error', () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([1, 2]);
    const eq = s
      .join(s)
      .where((x) => x)
      .equalTo((x) => x);
    expect(() => eq.window(Windows.dynamicSession<never>(() => 10))).toThrow(/fixed gap/);
    expect(() => eq.window(Windows.tumblingProcessingTime(10))).toThrow(/event time/);
  });

  it('session windows: sessions form over both sides together and merge when they touch', async () => {
    //  gap 5, key a:  L1@0  R2@3  (session [0,8))   L3@8 touches it: [0,13)   R4@20: [20,25)
    //  pairs of [0,13): (L1,R2) (L3,R2) @12; [20,25) has no left record
    const events: Side[] = [
      { side: 'L', k: 'a', t: 0, id: 1 },
      { side: 'R', k: 'a', t: 3, id: 2 },
      { side: 'L', k: 'a', t: 8, id: 3 },
      { side: 'R', k: 'a', t: 20, id: 4 },
    ];
    const got = await run(events, { gap: 5 }, { bound: 0, parallelism: 1 });
    expect(got.pairs).toEqual(['a L1 R2 @12', 'a L3 R2 @12']);
  });

  it('session windows equal the batch sessions on out-of-order input within the bound, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(sidesArb(15, DENSE), fc.constantFrom(3, 8, 20), async (events, gap) => {
        const expected = sessionOracle(events, gap);
        for (const parallelism of [1, 2]) {
          const got = await run(deliver(events), { gap }, { bound: 15, parallelism });
          expect(got.late).toEqual([]);
          expect(got.pairs).toEqual(expected);
        }
      }),
      { numRuns: 25 },
    );
  });

  const specArb = fc.constantFrom<Spec>(
    { size: 10, slide: 10 },
    { size: 25, slide: 25 },
    { size: 20, slide: 5 },
    { size: 30, slide: 10 },
  );

  it('equals the batch oracle on out-of-order input within the bound, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(sidesArb(15, DENSE), specArb, async (events, spec) => {
        const expected = oracle(events, spec);
        for (const parallelism of [1, 2]) {
          const got = await run(deliver(events), spec, { bound: 15, parallelism });
          expect(got.late).toEqual([]);
          expect(got.pairs).toEqual(expected);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('with late input: the pairs lie between what surely joined and what could have joined; every drop is counted and side-output', async () => {
    const BOUND = 5;
    await fc.assert(
      fc.asyncProperty(sidesArb(120, DENSE), specArb, async (events, spec) => {
        const arrival = deliver(events);
        const wmBefore = watermarksBefore(arrival, BOUND);
        const surelyOpen = (e: Side, start: number) => start + spec.size - 1 > wmBefore.get(e.id)!;
        for (const parallelism of [1, 2]) {
          const got = await run(arrival, spec, { bound: BOUND, parallelism });
          const dropped = new Set(got.late.map((e) => e.id));
          expect(got.lateCount).toBe(got.late.length);
          const kept = arrival.filter((e) => !dropped.has(e.id));
          const could = oracle(kept, spec);
          const surely = oracle(kept, spec, surelyOpen);
          const gotSet = new Set(got.pairs);
          for (const p of surely) expect(gotSet).toContain(p);
          const couldSet = new Set(could);
          for (const p of got.pairs) expect(couldSet).toContain(p);
          if (spec.size === spec.slide) expect(got.pairs).toEqual(could); // one window per record
          // A dropped record was behind every window it belongs to.
          for (const e of got.late) {
            const lastWindowEnd = Math.max(...startsOf(e.t, spec)) + spec.size;
            expect(wmBefore.get(e.id)!).toBeGreaterThanOrEqual(lastWindowEnd - 1);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it.each([
    ['sliding', Windows.sliding(100, 50), 10_000],
    ['session', Windows.session(30), 1_000],
  ] as const)(
    '%s: a run stopped with a savepoint and restored (also at another parallelism) equals an uninterrupted one',
    async (_name, assigner, minPairs) => {
      const build = (env: StreamEnvironment, rate: number | undefined) => {
        const events = env
          .fromGenerator({
            count: 6000,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            generate: (i): Side => ({
              side: i % 3 === 0 ? 'R' : 'L',
              k: `k${i % 13}`,
              t: i * 2 - (i % 5) * 7,
              id: i,
            }),
          })
          .setParallelism(1)
          .uid('events')
          .assignTimestampsAndWatermarks(
            WatermarkStrategy.forBoundedOutOfOrderness<Side>(40).withTimestampAssigner((e) => e.t),
          )
          .uid('wm');
        return events
          .filter((e) => e.side === 'L')
          .join(events.filter((e) => e.side === 'R'))
          .where((l) => l.k)
          .equalTo((r) => r.k)
          .window(assigner)
          .apply((l, r) => `${l.id}-${r.id}`)
          .uid('join');
      };
      const { expected, got, beforeStop } = await savepointRoundTrip(build, {
        parallelism: 2,
        restoreParallelism: 1,
        rate: 5_000,
        stopAfterMs: 150,
      });
      expect(expected.length).toBeGreaterThan(minPairs);
      expect(beforeStop).toBeGreaterThan(0);
      expect(beforeStop).toBeLessThan(expected.length);
      expect(got).toEqual(expected);
    },
  );
});
