/**
 * Async operators chained into one task, one after the other or side by side: one held back by
 * a full neighbour must not make the task spin on its completions (which starved the timers the
 * neighbour's requests wait on, until the process ran out of memory).
 */
import { describe, expect, it } from 'vitest';
import { CollectSink, StreamEnvironment } from '../../src/index.js';

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const echo = async (x: number) => {
  await sleep(x % 3);
  return [x];
};
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('async operators in one chain', () => {
  it('one after the other, the second with a smaller capacity', async () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const sink = new CollectSink<number>();
    env
      .fromArray(range(300))
      .flatMapAsync(echo, { capacity: 20 })
      .flatMapAsync(echo, { capacity: 5 })
      .sinkTo(sink);
    await env.execute();
    expect(sink.values).toEqual(range(300));
  });

  it('side by side on one input, ordered and unordered', async () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const ordered = new CollectSink<number>();
    const unordered = new CollectSink<number>();
    const input = env.fromArray(range(300));
    input.flatMapAsync(echo, { capacity: 20 }).sinkTo(ordered);
    input.flatMapAsync(echo, { order: 'unordered', capacity: 10 }).sinkTo(unordered);
    await env.execute();
    expect(ordered.values).toEqual(range(300));
    expect([...unordered.values].sort((a, b) => a - b)).toEqual(range(300));
  });
});
