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
