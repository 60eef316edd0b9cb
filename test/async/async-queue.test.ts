/**
 * The result queues of async operators, against their rules, for random
 * interleavings of records and watermarks completed in random order:
 * ordered releases records in input order; unordered releases each record
 * after the markers before it and before the markers after it; both release
 * every record and marker exactly once, markers in input order, and hold
 * nothing not yet completed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AsyncEntry,
  OrderedQueue,
  type QueueItem,
  type ResultQueue,
  UnorderedQueue,
} from '../../src/runtime/operators/async/async-queue.js';

type Input = { kind: 'record'; id: number } | { kind: 'watermark'; time: number };

const inputs = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constant('r' as const) }, fc.constant('w' as const)), {
    maxLength: 60,
  })
  .map((kinds) => {
    let id = 0;
    let time = 0;
    return kinds.map(
      (k): Input =>
        k === 'r' ? { kind: 'record', id: id++ } : { kind: 'watermark', time: ++time },
    );
  });

/** Feeds the input, completes records in an order picked by `order`, draining after each. */
function play(
  queue: ResultQueue<number, number>,
  input: readonly Input[],
  order: readonly number[],
): QueueItem<number, number>[] {
  const out: QueueItem<number, number>[] = [];
  const entries: AsyncEntry<number, number>[] = [];
  for (const item of input) {
    if (item.kind === 'record') {
      const entry: AsyncEntry<number, number> = {
        kind: 'record',
        value: item.id,
        timestamp: item.id,
        results: undefined,
      };
      entries.push(entry);
      queue.addRecord(entry);
    } else {
      queue.addMarker({ kind: 'watermark', time: item.time });
    }
  }
  queue.drain((i) => out.push(i));
  // Complete in a shuffled order, draining after each completion.
  const pending = entries.map((_, i) => i);
  for (const pick of order) {
    if (pending.length === 0) break;
    const [index] = pending.splice(pick % pending.length, 1);
    const entry = entries[index!]!;
    entry.results = [entry.value * 10];
    queue.completed(entry);
    queue.drain((i) => {
      if (i.kind === 'record') expect(i.results).toBeDefined();
      out.push(i);
    });
  }
  for (const index of pending) {
    const entry = entries[index]!;
    entry.results = [entry.value * 10];
    queue.completed(entry);
  }
  queue.drain((i) => out.push(i));
  return out;
}

/** For each record of the input: the number of watermarks before it. */
function segmentOf(input: readonly Input[]): Map<number, number> {
  const segment = new Map<number, number>();
  let watermarks = 0;
  for (const item of input) {
    if (item.kind === 'watermark') watermarks++;
    else segment.set(item.id, watermarks);
  }
  return segment;
}

describe('async result queues', () => {
  it('ordered: everything leaves once, in input order', () => {
    fc.assert(
      fc.property(inputs, fc.array(fc.nat(), { maxLength: 60 }), (input, order) => {
        const queue = new OrderedQueue<number, number>();
        const out = play(queue, input, order);
        expect(
          out.map((i) =>
            i.kind === 'record' ? `r${i.value}` : `w${(i as { time: number }).time}`,
          ),
        ).toEqual(input.map((i) => (i.kind === 'record' ? `r${i.id}` : `w${i.time}`)));
        expect(queue.empty).toBe(true);
        expect(queue.records).toBe(0);
      }),
    );
  });

  it('unordered: each record leaves between the watermarks around it, all exactly once', () => {
    fc.assert(
      fc.property(inputs, fc.array(fc.nat(), { maxLength: 60 }), (input, order) => {
        const queue = new UnorderedQueue<number, number>();
        const out = play(queue, input, order);
        const segment = segmentOf(input);
        let watermarksSeen = 0;
        const records: number[] = [];
        const marks: number[] = [];
        for (const item of out) {
          if (item.kind === 'record') {
            expect(segment.get(item.value), `record ${item.value}`).toBe(watermarksSeen);
            records.push(item.value);
          } else if (item.kind === 'watermark') {
            watermarksSeen++;
            marks.push(item.time);
          }
        }
        expect(records.sort((a, b) => a - b)).toEqual([...segment.keys()]);
        expect(marks).toEqual(input.flatMap((i) => (i.kind === 'watermark' ? [i.time] : [])));
        expect(queue.empty).toBe(true);
        expect(queue.records).toBe(0);
      }),
    );
  });

  it('unordered: completed records leave at once, in completion order, ahead of earlier ones still running', () => {
    const queue = new UnorderedQueue<number, number>();
    const entry = (id: number): AsyncEntry<number, number> => ({
      kind: 'record',
      value: id,
      timestamp: id,
      results: undefined,
    });
    const [a, b, c] = [entry(0), entry(1), entry(2)];
    for (const e of [a, b, c]) queue.addRecord(e);
    const out: number[] = [];
    const take = (i: QueueItem<number, number>) => {
      if (i.kind === 'record') out.push(i.value);
    };
    c.results = [2];
    queue.completed(c);
    queue.drain(take);
    a.results = [0];
    queue.completed(a);
    queue.drain(take);
    expect(out).toEqual([2, 0]);
    expect(queue.records).toBe(1);
  });
});
