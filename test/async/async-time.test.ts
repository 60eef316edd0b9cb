/**
 * Timeouts and retry delays in processing time, driven by a manual clock:
 * nothing happens a millisecond early, and exactly on time it does.
 */
import { describe, expect, it } from 'vitest';
import {
  AsyncRetry,
  type Clock,
  CollectSink,
  StreamEnvironment,
  WeirError,
} from '../../src/index.js';
import { waitUntil } from '../helpers/timeline.js';

class ManualClock implements Clock {
  time = 0;
  now(): number {
    return this.time;
  }
}

/** Lets the executor run a few rounds (it polls at least every 50 ms). */
const settle = () => new Promise((r) => setTimeout(r, 120));

describe('async I/O in processing time', () => {
  it('times a request out exactly timeoutMs after it started', async () => {
    const clock = new ManualClock();
    const env = new StreamEnvironment({ clock });
    const sink = new CollectSink<string>();
    env
      .fromArray(['fast', 'stuck'])
      .flatMapAsync(
        {
          asyncInvoke: (s: string) =>
            s === 'stuck' ? new Promise<never>(() => {}) : Promise.resolve([s]),
          timeout: (s: string) => [`${s} timed out`],
        },
        { timeoutMs: 1000 },
      )
      .sinkTo(sink);
    const job = env.executeAsync('timeout');
    await waitUntil(() => sink.values.length === 1);
    clock.time = 999;
    await settle();
    expect(sink.values).toEqual(['fast']);
    clock.time = 1000;
    const result = await job.result;
    expect(sink.values).toEqual(['fast', 'stuck timed out']);
    expect(result.metric('weir_async_timeouts_total')).toBe(1);
  });

  it('waits the backoff delay before each retry, and the timeout covers all attempts', async () => {
    const clock = new ManualClock();
    const attempts: number[] = [];
    const env = new StreamEnvironment({ clock });
    env
      .fromArray([1])
      .flatMapAsync(
        async (n: number) => {
          attempts.push(clock.now());
          throw new Error(`down ${n}`);
        },
        {
          timeoutMs: 10_000,
          retry: AsyncRetry.exponentialBackoff({
            maxAttempts: 10,
            initialDelayMs: 100,
            maxDelayMs: 400,
          }),
        },
      )
      .sinkTo(new CollectSink<number>());
    const client = env.executeAsync('backoff');
    const failure = client.result.catch((e: unknown) => e);
    await waitUntil(() => attempts.length === 1);
    // Retries after 100, 200, 400, 400 ... ms of processing time.
    for (const [before, at] of [
      [99, 100],
      [299, 300],
      [699, 700],
      [1099, 1100],
    ] as const) {
      clock.time = before;
      await settle();
      expect(attempts.at(-1)).toBeLessThan(before);
      clock.time = at;
      await waitUntil(() => attempts.at(-1) === at);
    }
    expect(attempts).toEqual([0, 100, 300, 700, 1100]);
    // Jumping past both: the retry due at 1500 runs first, then the timeout.
    clock.time = 10_000;
    const error = await failure;
    expect(attempts).toEqual([0, 100, 300, 700, 1100, 10_000]);
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).message).toMatch(
      /timed out after 10000 ms \(6 attempts\) on record 1/,
    );
  });
});
