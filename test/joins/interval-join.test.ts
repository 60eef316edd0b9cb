/**
 * Interval join against a batch oracle (all pairs with equal keys and
 * `l.t + lower <= r.t <= l.t + upper`), with out-of-order and late input, at
 * parallelism 1 and 2, across a savepoint, and with flat state on a long run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectSink, OutputTag, StreamEnvironment, WatermarkStrategy } from '../../src/index.js';
import {
  deliver,
  type Side,
  savepointRoundTrip,
  sidesArb,
  twoSides,
  watermarksBefore,
} from './helpers.js';

const pair = (l: Side, r: Side, ts: number) => `${l.k} L${l.id} R${r.id} @${ts}`;

function oracle(events: readonly Side[], lower: number, upper: number): string[] {
  const out: string[] = [];
  for (const l of events) {
    if (l.side !== 'L') continue;
    for (const r of events) {
      if (r.side !== 'R' || r.k !== l.k) continue;
      if (l.t + lower <= r.t && r.t <= l.t + upper) out.push(pair(l, r, Math.max(l.t, r.t)));
    }
  }
  return out.sort();
}

async function run(
  arrival: readonly Side[],
  bounds: { lower: number; upper: number },
  opts: { bound: number; parallelism: number; batchSize?: number },
) {
  const env = new StreamEnvironment({
    parallelism: opts.parallelism,
    batchSize: opts.batchSize ?? 1,
  });
  const { left, right } = twoSides(env, arrival, opts.bound);
  const leftLate = new OutputTag<Side>('left-late');
  const rightLate = new OutputTag<Side>('right-late');
  const joined = left
    .keyBy((l) => l.k)
    .intervalJoin(right.keyBy((r) => r.k))
    .between(bounds.lower, bounds.upper)
    .sideOutputLeftLateData(leftLate)
    .sideOutputRightLateData(rightLate)
    .process<string>((l, r, ctx, out) => {
      expect(ctx.leftTimestamp).toBe(l.t);
      expect(ctx.rightTimestamp).toBe(r.t);
      expect(ctx.key).toBe(l.k);
      out.collect(pair(l, r, ctx.timestamp));
    });
  const sink = new CollectSink<string>();
  joined.sinkTo(sink);
  const lateSink = new CollectSink<Side>();
  joined.getSideOutput(leftLate).union(joined.getSideOutput(rightLate)).sinkTo(lateSink);
  const result = await env.execute();
  // The record's timestamp is the pair's: the larger of the two.
  for (const [i, p] of sink.values.entries())
    expect(p.endsWith(`@${sink.timestamps[i]}`)).toBe(true);
  return {
    pairs: [...sink.values].sort(),
    late: lateSink.values,
    lateCount: result.metric('weir_join_late_records_total'),
  };
}

const DENSE = { minLength: 10, maxLength: 60, maxT: 120 };

const boundsArb = fc
  .tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: 0, max: 25 }))
  .map(([lower, width]) => ({ lower, upper: lower + width }));

describe('interval join', () => {
  it('joins right records within [l.t + lower, l.t + upper], stamped with the later timestamp', async () => {
    //  between(-2, 3): L a@10 joins right records of a at 8..13
    //  right a@7 (too early)  a@8 ✓  a@13 ✓  a@14 (too late)   b@10 (other key)
    const events: Side[] = [
      { side: 'R', k: 'a', t: 7, id: 1 },
      { side: 'R', k: 'a', t: 8, id: 2 },
      { side: 'L', k: 'a', t: 10, id: 3 },
      { side: 'R', k: 'b', t: 10, id: 4 },
      { side: 'R', k: 'a', t: 13, id: 5 },
      { side: 'R', k: 'a', t: 14, id: 6 },
    ];
    const got = await run(events, { lower: -2, upper: 3 }, { bound: 5, parallelism: 1 });
    expect(got.pairs).toEqual(['a L3 R2 @10', 'a L3 R5 @13']);
  });

  it('exclusive bounds leave out the edges', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const events: Side[] = [
      { side: 'L', k: 'a', t: 10, id: 0 },
      { side: 'R', k: 'a', t: 8, id: 1 },
      { side: 'R', k: 'a', t: 9, id: 2 },
      { side: 'R', k: 'a', t: 12, id: 3 },
      { side: 'R', k: 'a', t: 13, id: 4 },
    ];
    const { left, right } = twoSides(env, events, 10);
    const out = await left
      .keyBy((l) => l.k)
      .intervalJoin(right.keyBy((r) => r.k))
      .between(-2, 3)
      .lowerBoundExclusive()
      .upperBoundExclusive()
      .join((l, r) => `L${l.id} R${r.id}`)
      .executeAndCollect();
    expect(out.sort()).toEqual(['L0 R2', 'L0 R3']);
  });

  it('refuses bad bounds and records without event time, naming the record', async () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([{ k: 'a' }]);
    const ij = s.keyBy((x) => x.k).intervalJoin(s.keyBy((x) => x.k));
    expect(() => ij.between(5, 1)).toThrow(/lower <= upper/);
    expect(() =>
      ij
        .between(1, 1)
        .lowerBoundExclusive()
        .join((a) => a),
    ).toThrow(/empty/);
    ij.between(0, 1)
      .join((a, b) => [a, b])
      .sinkTo(new CollectSink());
    await expect(env.execute()).rejects.toThrow(/threw on record .*k.*a.*needs event time/);
  });

  it('equals the batch oracle on out-of-order input within the bound, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(sidesArb(15, DENSE), boundsArb, async (events, bounds) => {
        const expected = oracle(events, bounds.lower, bounds.upper);
        for (const parallelism of [1, 2]) {
          const got = await run(deliver(events), bounds, { bound: 15, parallelism, batchSize: 3 });
          expect(got.late).toEqual([]);
          expect(got.pairs).toEqual(expected);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("a record at the watermark is not late (Flink's IntervalJoinOperator), and still meets a buffered record at the far end of its interval", async () => {
    const e = (side: 'L' | 'R', k: string, t: number, id: number): Side => ({ side, k, t, id });
    // Watermark = newest - 1. R@11 and L@11 bring it to 10; L@10 is at it: it joins R@11.
    const atWatermark = await run(
      [e('R', 'a', 11, 1), e('L', 'a', 11, 2), e('L', 'a', 10, 3)],
      { lower: 0, upper: 5 },
      { bound: 0, parallelism: 1 },
    );
    expect(atWatermark.pairs).toEqual(['a L2 R1 @11', 'a L3 R1 @11']);
    expect(atWatermark.late).toEqual([]);
    // L@0's retention ends at 5, where the watermark stands when R@5 comes: still buffered.
    const farEnd = await run(
      [e('L', 'a', 0, 1), e('R', 'b', 6, 2), e('R', 'a', 5, 3), e('R', 'a', 4, 4)],
      { lower: 0, upper: 5 },
      { bound: 0, parallelism: 1 },
    );
    expect(farEnd.pairs).toEqual(['a L1 R3 @5']);
    // R@4 is behind the watermark (5): late.
    expect(farEnd.late.map((x) => x.id)).toEqual([4]);
    expect(farEnd.lateCount).toBe(1);
  });

  it('with late input: equals the oracle over the records not dropped; each drop was behind the watermark, counted and side-output', async () => {
    const BOUND = 5;
    await fc.assert(
      fc.asyncProperty(sidesArb(80, DENSE), boundsArb, async (events, bounds) => {
        const arrival = deliver(events);
        const wmBefore = watermarksBefore(arrival, BOUND);
        for (const parallelism of [1, 2]) {
          const got = await run(arrival, bounds, { bound: BOUND, parallelism });
          const dropped = new Set(got.late.map((e) => e.id));
          expect(got.lateCount).toBe(dropped.size);
          for (const e of got.late) expect(e.t).toBeLessThan(wmBefore.get(e.id)!);
          expect(got.pairs).toEqual(
            oracle(
              arrival.filter((e) => !dropped.has(e.id)),
              bounds.lower,
              bounds.upper,
            ),
          );
        }
      }),
      { numRuns: 30 },
    );
  });

  /** Bids against clicks: a steady stream of both sides over 101 keys. */
  function generated(env: StreamEnvironment, count: number, rate: number | undefined) {
    const events = env
      .fromGenerator({
        count,
        ...(rate === undefined ? {} : { ratePerSecond: rate }),
        generate: (i): Side => ({
          side: i % 2 === 0 ? 'L' : 'R',
          k: `k${(i * 13) % 101}`,
          t: i * 3 - (i % 7) * 11,
          id: i,
        }),
      })
      .setParallelism(1)
      .uid('events')
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Side>(80).withTimestampAssigner((e) => e.t),
      )
      .uid('wm');
    return events
      .filter((e) => e.side === 'L')
      .keyBy((l) => l.k)
      .intervalJoin(events.filter((e) => e.side === 'R').keyBy((r) => r.k))
      .between(-300, 200)
      .join((l, r) => `${l.id}-${r.id}`)
      .uid('ij');
  }

  it('a run stopped with a savepoint and restored (also at another parallelism) equals an uninterrupted one', async () => {
    const { expected, got, beforeStop } = await savepointRoundTrip(
      (env, rate) => generated(env, 6000, rate),
      { parallelism: 2, restoreParallelism: 1, rate: 5_000, stopAfterMs: 150 },
    );
    expect(expected.length).toBeGreaterThan(1000);
    expect(beforeStop).toBeGreaterThan(0);
    expect(beforeStop).toBeLessThan(expected.length);
    expect(got).toEqual(expected);
  });

  it('keeps state flat on a long run: entries stay bounded by the bounds, not the input length', async () => {
    const env = new StreamEnvironment({ batchSize: 50 });
    let pairs = 0;
    generated(env, 120_000, 100_000).sinkTo({
      name: 'count',
      createWriter: () => ({
        write: (b) => {
          pairs += b.values.length;
        },
        close() {},
      }),
    });
    const client = env.executeAsync('flat');
    const samples: number[] = [];
    let done = false;
    void client.result.then(() => {
      done = true;
    });
    while (!done) {
      samples.push(client.metrics.total('weir_state_entries', { operator: 'ij' }));
      await sleep(20);
    }
    await client.result;
    expect(pairs).toBeGreaterThan(20_000);
    // Ignore the start (state filling up) and the end (input over, state drained).
    const steady = samples.slice(
      Math.floor(samples.length / 4),
      Math.floor((samples.length * 9) / 10),
    );
    expect(steady.length).toBeGreaterThan(10);
    const half = Math.floor(steady.length / 2);
    const early = Math.max(...steady.slice(0, half));
    const late = Math.max(...steady.slice(half));
    // Retention is 300 ms of event time (3 ms per record): ~100 buffered records per side, plus
    // their timers and the out-of-orderness; far below the 120,000 records of the run.
    expect(early).toBeGreaterThan(0);
    expect(late).toBeLessThan(2_000);
    expect(late).toBeLessThanOrEqual(early * 1.5);
  });
});
