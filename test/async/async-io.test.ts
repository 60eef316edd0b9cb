/**
 * Async I/O (`flatMapAsync`) end to end, at parallelism 1 and 2: results
 * equal a plain loop over the input; ordered mode keeps input order;
 * unordered mode reorders but never across a watermark; capacity bounds the
 * requests in flight; timeouts and retries. Latencies are real but only
 * decide completion order: the asserted results do not depend on them.
 */
import { describe, expect, it } from 'vitest';
import {
  type AsyncFunction,
  AsyncRetry,
  CollectSink,
  type DataStream,
  type ProcessFunction,
  StreamEnvironment,
  WatermarkStrategy,
  WeirError,
} from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';

interface Rec {
  readonly id: number;
  readonly t: number;
}

/** Timestamps ascending with jitter, so watermarks advance between batches. */
function records(n: number, seed = 7): Rec[] {
  const random = new DeterministicRandom(seed);
  return Array.from({ length: n }, (_, id) => ({ id, t: id * 10 + random.int(25) }));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What a record saw at a point of the pipeline: subtask and current watermark. */
interface Seen {
  readonly id: number;
  readonly subtask: number;
  readonly watermark: number;
}

/** A pass-through process function that notes the watermark each record arrives under. */
function observe<T extends { id: number }>(into: Seen[]): ProcessFunction<T, T> {
  return {
    open(ctx) {
      (this as { subtask?: number }).subtask = ctx.subtaskIndex;
    },
    processElement(value, ctx, out) {
      into.push({
        id: value.id,
        subtask: (this as { subtask?: number }).subtask ?? -1,
        watermark: ctx.timerService.currentWatermark(),
      });
      out.collect(value);
    },
  };
}

function source(env: StreamEnvironment, input: readonly Rec[]): DataStream<Rec> {
  return env
    .fromArray(input)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Rec>(30).withTimestampAssigner((r) => r.t),
    )
    .rebalance();
}

/** Doubles the id after a latency drawn per record (so completions come out of order). */
function slowDouble(seed: number, maxMs = 3): AsyncFunction<Rec, Rec> {
  const random = new DeterministicRandom(seed);
  return {
    async asyncInvoke(r) {
      await sleep(random.int(maxMs + 1));
      return [{ id: r.id, t: r.id * 2 }];
    },
  };
}

describe('flatMapAsync', () => {
  for (const parallelism of [1, 2]) {
    for (const order of ['ordered', 'unordered'] as const) {
      it(`${order} at parallelism ${parallelism}: plain-loop results, timestamps kept, every record leaves under the watermark it came in under`, async () => {
        const input = records(400);
        const env = new StreamEnvironment({ batchSize: 8, parallelism });
        const before: Seen[] = [];
        const after: Seen[] = [];
        const sink = new CollectSink<Rec>();
        source(env, input)
          .process(observe<Rec>(before))
          .flatMapAsync(slowDouble(1), { order, capacity: 16 })
          .process(observe<Rec>(after))
          .sinkTo(sink);
        await env.execute('async');

        // Oracle: a plain loop.
        const expected = input.map((r) => ({ id: r.id, t: r.id * 2 }));
        const byId = (a: Rec, b: Rec) => a.id - b.id;
        expect([...sink.values].sort(byId)).toEqual(expected);
        const inputTime = new Map(input.map((r) => [r.id, r.t]));
        sink.values.forEach((r, i) => {
          expect(sink.timestamps[i]).toBe(inputTime.get(r.id));
        });

        // Watermarks: a record leaves after the watermarks before it and before those after it.
        const seenBefore = new Map(before.map((s) => [s.id, s]));
        for (const s of after) {
          expect(s.subtask).toBe(seenBefore.get(s.id)!.subtask);
          expect(s.watermark, `record ${s.id}`).toBe(seenBefore.get(s.id)!.watermark);
        }

        const sequence = (seen: Seen[], subtask: number) =>
          seen.filter((s) => s.subtask === subtask).map((s) => s.id);
        for (let s = 0; s < parallelism; s++) {
          if (order === 'ordered') expect(sequence(after, s)).toEqual(sequence(before, s));
          else expect([...sequence(after, s)].sort((a, b) => a - b)).toEqual(sequence(before, s));
        }
        if (order === 'unordered' && parallelism === 1) {
          // Completion order did differ from input order somewhere.
          expect(sequence(after, 0)).not.toEqual(sequence(before, 0));
        }
      });
    }
  }

  it('emits zero or several results per record', async () => {
    const env = new StreamEnvironment({ batchSize: 5 });
    const out = await env
      .fromArray([0, 1, 2, 3, 4, 5, 6])
      .flatMapAsync(async (n: number) => Array.from({ length: n % 3 }, (_, i) => `${n}.${i}`))
      .executeAndCollect();
    expect(out).toEqual(['1.0', '2.0', '2.1', '4.0', '5.0', '5.1']);
  });

  for (const parallelism of [1, 2]) {
    for (const capacity of [1, 3, 10]) {
      it(`never has more than capacity ${capacity} requests in flight per subtask, and fills it (parallelism ${parallelism})`, async () => {
        const inFlight = [0, 0];
        const maxInFlight = [0, 0];
        const env = new StreamEnvironment({ batchSize: 7, parallelism });
        const sink = new CollectSink<number>();
        env
          .fromArray(Array.from({ length: 120 }, (_, i) => i))
          .rebalance()
          .flatMapAsync(
            {
              open(ctx) {
                (this as { subtask?: number }).subtask = ctx.subtaskIndex;
              },
              async asyncInvoke(n: number) {
                const s = (this as { subtask?: number }).subtask ?? 0;
                inFlight[s]!++;
                maxInFlight[s] = Math.max(maxInFlight[s]!, inFlight[s]!);
                await sleep(1);
                inFlight[s]!--;
                return [n];
              },
            },
            { capacity },
          )
          .sinkTo(sink);
        await env.execute('capacity');
        expect([...sink.values].sort((a, b) => a - b)).toEqual(
          Array.from({ length: 120 }, (_, i) => i),
        );
        expect(maxInFlight.slice(0, parallelism)).toEqual(new Array(parallelism).fill(capacity));
      });
    }
  }

  it('holds completed results of an ordered operator within the capacity too', async () => {
    // Record 0 is slow; the others complete at once but must wait behind it.
    let started = 0;
    let maxStartedBeforeFirstDone = 0;
    let firstDone = false;
    const env = new StreamEnvironment({ batchSize: 20 });
    const out = await env
      .fromArray(Array.from({ length: 20 }, (_, i) => i))
      .flatMapAsync(
        async (n: number) => {
          started++;
          if (!firstDone) maxStartedBeforeFirstDone = started;
          if (n === 0) {
            await sleep(30);
            firstDone = true;
          }
          return [n];
        },
        { capacity: 5 },
      )
      .executeAndCollect();
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(maxStartedBeforeFirstDone).toBe(5);
  });

  it('fails the job naming the record when a request times out', async () => {
    const env = new StreamEnvironment({ batchSize: 4 });
    const run = env
      .fromArray([{ id: 1 }, { id: 2 }, { id: 3 }])
      .flatMapAsync(
        (r: { id: number }) =>
          r.id === 2 ? new Promise<never>(() => {}) : Promise.resolve([r.id]),
        { timeoutMs: 50 },
      )
      .executeAndCollect();
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('ASYNC_TIMEOUT');
    expect((error as WeirError).message).toMatch(/timed out after 50 ms .* on record \{"id":2\}/);
  });

  it('emits what the timeout handler returns for a request that timed out', async () => {
    const env = new StreamEnvironment({ batchSize: 4 });
    const stream = env.fromArray([1, 2, 3, 4]).flatMapAsync(
      {
        asyncInvoke: (n: number) =>
          n % 2 === 0 ? new Promise<never>(() => {}) : Promise.resolve([`ok ${n}`]),
        timeout: (n: number) => [`timeout ${n}`],
      },
      { timeoutMs: 40 },
    );
    const sink = new CollectSink<string>();
    stream.sinkTo(sink);
    const result = await env.execute('timeouts');
    expect(sink.values).toEqual(['ok 1', 'timeout 2', 'ok 3', 'timeout 4']);
    expect(result.metric('weir_async_timeouts_total')).toBe(2);
  });

  it('fails the job naming the record when the function rejects', async () => {
    const env = new StreamEnvironment();
    const run = env
      .fromArray(['a', 'b'])
      .flatMapAsync(async (s: string) => {
        if (s === 'b') throw new Error('service said no');
        return [s];
      })
      .executeAndCollect();
    await expect(run).rejects.toThrow(
      /async function in operator '.*' failed on record "b": service said no/,
    );
  });

  for (const parallelism of [1, 2]) {
    it(`retries failed requests with a fixed delay (parallelism ${parallelism})`, async () => {
      // Record n fails its first n % 3 attempts: with 3 attempts all succeed.
      const attempts = new Map<number, number>();
      const env = new StreamEnvironment({ batchSize: 10, parallelism });
      const sink = new CollectSink<number>();
      env
        .fromArray(Array.from({ length: 50 }, (_, i) => i))
        .rebalance()
        .flatMapAsync(
          async (n: number) => {
            const a = (attempts.get(n) ?? 0) + 1;
            attempts.set(n, a);
            if (a <= n % 3) throw new Error(`flaky ${n}`);
            return [n];
          },
          { retry: AsyncRetry.fixedDelay({ maxAttempts: 3, delayMs: 2 }), capacity: 8 },
        )
        .sinkTo(sink);
      const result = await env.execute('retries');
      expect([...sink.values].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
      // Plain-loop count of retries: n % 3 per record.
      let retries = 0;
      for (let n = 0; n < 50; n++) retries += n % 3;
      expect(result.metric('weir_async_retries_total')).toBe(retries);
    });
  }

  it('fails naming the record and the attempts when retries run out', async () => {
    const env = new StreamEnvironment();
    const run = env
      .fromArray([1, 2])
      .flatMapAsync(
        async (n: number) => {
          if (n === 2) throw new Error('always down');
          return [n];
        },
        { retry: AsyncRetry.fixedDelay({ maxAttempts: 3, delayMs: 1 }) },
      )
      .executeAndCollect();
    await expect(run).rejects.toThrow(/failed on record 2 \(after 3 attempts\): always down/);
  });

  it('retries only errors the predicate accepts', async () => {
    let calls = 0;
    const env = new StreamEnvironment();
    const run = env
      .fromArray([1])
      .flatMapAsync(
        async () => {
          calls++;
          throw new Error('permanent');
        },
        {
          retry: AsyncRetry.fixedDelay({
            maxAttempts: 5,
            delayMs: 1,
            retryOnError: (e) => e instanceof Error && e.message === 'transient',
          }),
        },
      )
      .executeAndCollect();
    await expect(run).rejects.toThrow(/permanent/);
    expect(calls).toBe(1);
  });

  it('retries unsatisfying results with exponential backoff, then emits the last results', async () => {
    // Rows "appear" after 3 attempts for even records; odd records never get any.
    const attempts = new Map<number, number>();
    const attemptTimes: number[] = [];
    const env = new StreamEnvironment();
    const out = await env
      .fromArray([0, 1, 2])
      .flatMapAsync(
        async (n: number) => {
          const a = (attempts.get(n) ?? 0) + 1;
          attempts.set(n, a);
          if (n === 1) attemptTimes.push(performance.now());
          return n % 2 === 0 && a >= 3 ? [`row ${n}`] : [];
        },
        {
          retry: AsyncRetry.exponentialBackoff({
            maxAttempts: 4,
            initialDelayMs: 10,
            maxDelayMs: 25,
            retryOnResult: (results) => results.length === 0,
          }),
        },
      )
      .executeAndCollect();
    expect(out).toEqual(['row 0', 'row 2']);
    expect([...attempts.entries()].sort()).toEqual([
      [0, 3],
      [1, 4],
      [2, 3],
    ]);
    // Backoff 10, 20, then capped at 25 ms.
    const gaps = attemptTimes.slice(1).map((t, i) => t - attemptTimes[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(9);
    expect(gaps[1]).toBeGreaterThanOrEqual(19);
    expect(gaps[2]).toBeGreaterThanOrEqual(24);
  });

  it('exponential backoff delays grow by the multiplier up to the cap', () => {
    const s = AsyncRetry.exponentialBackoff({
      maxAttempts: 6,
      initialDelayMs: 100,
      maxDelayMs: 1000,
      multiplier: 3,
    });
    expect([1, 2, 3, 4, 5].map((r) => s.delayBefore(r))).toEqual([100, 300, 900, 1000, 1000]);
    expect(AsyncRetry.fixedDelay({ maxAttempts: 2, delayMs: 7 }).delayBefore(1)).toBe(7);
  });

  it('refuses bad options when the job is built', () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([1]);
    const fn = async (n: number) => [n];
    expect(() => s.flatMapAsync(fn, { capacity: 0 })).toThrow(/capacity must be a whole number/);
    expect(() => s.flatMapAsync(fn, { timeoutMs: -1 })).toThrow(/timeoutMs must be a positive/);
    expect(() => AsyncRetry.fixedDelay({ maxAttempts: 0, delayMs: 1 })).toThrow(/maxAttempts/);
  });
});
