import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../src/runtime/operators/cep/due-queue.js';
import { EventTimeQueue } from '../../src/runtime/operators/cep/event-time-queue.js';

/** Pushes (`true`, time) and pops (`false`) interleaved; times mostly rising, as in a job. */
const operations = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constant(true), fc.integer({ min: -5, max: 40 })) },
    { weight: 2, arbitrary: fc.tuple(fc.constant(false), fc.constant(0)) },
  ),
  { maxLength: 300 },
);

describe('the operator-wide queue of records waiting for the watermark', () => {
  it('pops in timestamp order, records of one timestamp in arrival order', () => {
    fc.assert(
      fc.property(operations, (ops) => {
        const queue = new EventTimeQueue<number>();
        const model: { time: number; seq: number }[] = [];
        let base = 0;
        ops.forEach(([push, delta], seq) => {
          if (push) {
            base += Math.max(0, delta - 10);
            queue.push(base + delta, `k${seq % 3}`, seq);
            model.push({ time: base + delta, seq });
            return;
          }
          if (model.length === 0) return;
          model.sort((a, b) => a.time - b.time || a.seq - b.seq);
          const want = model.shift()!;
          expect([queue.peekTime(), queue.peekValue(), queue.peekKey()]).toEqual([
            want.time,
            want.seq,
            `k${want.seq % 3}`,
          ]);
          queue.pop();
        });
        expect(queue.size).toBe(model.length);
        const arrival: number[] = [];
        queue.forEachInArrivalOrder((_t, _k, seq) => arrival.push(seq));
        expect(arrival).toEqual(model.map((m) => m.seq).sort((a, b) => a - b));
      }),
      { numRuns: 200 },
    );
  });
});

/** Pops everything at or before `limit`, as the operator does when the watermark passes. */
function drain(queue: EventTimeQueue<number>, limit: number): number[] {
  const out: number[] = [];
  while (queue.size > 0 && queue.peekTime() <= limit) {
    out.push(queue.peekValue());
    queue.pop();
  }
  return out;
}

/** What the queue must give: records at or before `limit`, by (time, arrival), removed from `model`. */
function expected(model: { time: number; seq: number }[], limit: number): number[] {
  model.sort((a, b) => a.time - b.time || a.seq - b.seq);
  const out: number[] = [];
  while (model.length > 0 && model[0]!.time <= limit) out.push(model.shift()!.seq);
  return out;
}

describe("the event-time queue's ring of millisecond buckets", () => {
  it("keeps order across bucket words, the ring's wrap, its growth, the heap and fractional times", () => {
    // Times jump by up to 200,000 ms (past the widest ring) and go back; some are fractional.
    const step = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -40, max: 70 }) },
      { weight: 1, arbitrary: fc.integer({ min: -5_000, max: 200_000 }) },
      { weight: 1, arbitrary: fc.double({ min: -50, max: 50, noNaN: true }) },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(step, fc.boolean()), { maxLength: 400, size: 'max' }),
        fc.integer({ min: 0, max: 3 }),
        (ops, lag) => {
          const queue = new EventTimeQueue<number>();
          const model: { time: number; seq: number }[] = [];
          let time = 0;
          ops.forEach(([delta, watermark], seq) => {
            time += delta;
            queue.push(time, 'k', seq);
            model.push({ time, seq });
            if (watermark) {
              const limit = time - lag * 30;
              expect(drain(queue, limit)).toEqual(expected(model, limit));
            }
          });
          expect(queue.size).toBe(model.length);
          expect(drain(queue, Number.POSITIVE_INFINITY)).toEqual(
            expected(model, Number.POSITIVE_INFINITY),
          );
          expect(queue.size).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('releases a bucket boundary exactly: records at the watermark go, one millisecond later stay', () => {
    const queue = new EventTimeQueue<number>();
    // 31, 32 and 33 straddle the first word of the occupancy bitmap; 4095 and 4096 the ring's end.
    for (const t of [33, 31, 32, 4096, 4095, 32, 31]) queue.push(t, 'k', t);
    expect(drain(queue, 31)).toEqual([31, 31]);
    expect(drain(queue, 32)).toEqual([32, 32]);
    queue.push(32.5, 'k', 32.5);
    queue.push(33, 'k', -33);
    expect(drain(queue, 4095)).toEqual([32.5, 33, -33, 4095]);
    expect(queue.peekTime()).toBe(4096);
    // Long after the ring's window (a key or stream quiet for a long time): still in order.
    queue.push(10_000_000, 'k', 1);
    queue.push(4097, 'k', 2);
    queue.push(9_999_999, 'k', 3);
    expect(drain(queue, Number.POSITIVE_INFINITY)).toEqual([4096, 2, 3, 1]);
  });

  it("keeps a bucket's records in arrival order when the ring grows under them", () => {
    const queue = new EventTimeQueue<number>();
    for (const v of [1, 2, 3]) queue.push(100, 'k', v);
    // Far ahead of the first window: the ring widens and rehomes its buckets.
    queue.push(30_100, 'k', 5);
    queue.push(100, 'k', 4);
    queue.push(60_000, 'k', 6);
    queue.push(100, 'k', 4.5);
    expect(drain(queue, Number.POSITIVE_INFINITY)).toEqual([1, 2, 3, 4, 4.5, 5, 6]);
  });

  it('reuses the rows of released records and drops their references', () => {
    const queue = new EventTimeQueue<{ n: number }>();
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) queue.push(round * 100 + i, `k${i}`, { n: i });
      let n = 0;
      while (queue.peekTime() <= round * 100 + 99) {
        expect(queue.peekValue().n).toBe(n++);
        queue.pop();
      }
      expect(n).toBe(100);
    }
    const rows = queue as unknown as { entryEnd: number; entryValues: unknown[] };
    // 5,000 records went through; rows were reused, not one allocated per record.
    expect(rows.entryEnd).toBe(100);
    expect(rows.entryValues.every((v) => v === undefined)).toBe(true);
  });
});

describe('the queue of due hints', () => {
  it('pops the earliest time first, whether hints arrive in order or not', () => {
    fc.assert(
      fc.property(operations, (ops) => {
        const queue = new DueQueue();
        const model: number[] = [];
        let base = 0;
        for (const [push, delta] of ops) {
          if (push) {
            base += Math.max(0, delta - 10);
            queue.push(base + delta, base + delta);
            model.push(base + delta);
          } else if (model.length > 0) {
            model.sort((a, b) => a - b);
            const want = model.shift()!;
            expect(queue.peekTime()).toBe(want);
            expect(queue.pop()).toBe(want);
          }
          expect(queue.size).toBe(model.length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a long run of in-order hints compact', () => {
    const queue = new DueQueue();
    const popped: unknown[] = [];
    for (let i = 0; i < 20_000; i++) {
      queue.push(i, i);
      if (i % 2 === 1) popped.push(queue.pop());
    }
    expect(queue.size).toBe(10_000);
    while (queue.size > 0) popped.push(queue.pop());
    expect(popped).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(queue.peekTime()).toBe(Number.POSITIVE_INFINITY);
  });
});
