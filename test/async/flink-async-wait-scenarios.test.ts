/**
 * Scenarios of Flink's AsyncWaitOperatorTest (flink-streaming-java, operators/async), with
 * Flink's inputs, capacities, timeouts, retry strategies and expected outputs, run against the
 * operator behind `DataStream.flatMapAsync` in Weir's one-input harness under a manual
 * processing-time clock, and as whole jobs where Flink's test builds a job. Each `it` names the
 * Flink test method it ports.
 *
 * The harness feeds the operator; what a task does around an async operator, the test does in
 * {@link AsyncTask}: it lets the operator emit what completed (`advanceAsync`), feeds input only
 * while the operator accepts it, sleeps on the next completion when nothing moves, and ends the
 * input once all records are answered. It waits for events (completions, timeouts), never for
 * a span of time; timeouts and retry delays run on the harness's manual clock.
 *
 * Flink's functions complete on threads of an executor; here they complete in later turns of
 * the event loop (later records sooner, so unordered results do come out of order), or when the
 * test settles the request by hand (Flink's latches and result futures kept by the test).
 *
 * Where Weir differs from Flink on purpose, the test says so:
 * - a retry strategy's `maxAttempts` counts every attempt, the first included; Flink's counts
 *   retries (its `canRetry(attempts)` allows attempts up to `maxAttempts + 1`). Flink's
 *   `FixedDelayRetryStrategyBuilder(2, 10)` is `AsyncRetry.fixedDelay({ maxAttempts: 3, ... })`.
 * - without `retryOnError`, Weir retries every error; Flink's builder without `ifException`
 *   retries none. Flink's result-only strategies are given `retryOnError: () => false`.
 * - at the end of input Flink fires every delayed retry at once and takes its answer, whatever
 *   it is (its processing-time timers may not fire once the input has ended). Weir's timers
 *   keep running until the task has answered everything, so retries keep their delays and the
 *   strategy: the retry scenarios move the clock through the delays instead.
 * - a failure (an error, a timeout without handler) stops the operator at once: nothing more
 *   leaves it, as the job fails. Flink's harness only records the failure and lets later
 *   records through (testAsyncTimeoutFailure expects record 2 in the output).
 * - a timeout counts after one turn of the event loop: an answer that arrived meanwhile wins.
 *   Tests that let a request time out wait for its timeout result before they release it.
 * - the task hands the operator whole batches: a batch that arrives while the operator has
 *   room is taken whole, and records beyond the capacity wait there un-requested (they are in
 *   checkpoints). Requests in flight never exceed the capacity; Flink instead blocks the
 *   caller until there is room. testRestartWithFullQueue checks both.
 * - watermarks wait in the operator behind the records before them but take no slot of the
 *   capacity (in Flink's queues they do); outputs are the same.
 * - Flink's `ResultFuture` becomes the promise `asyncInvoke` returns, and `timeout(input,
 *   resultFuture)` returns the results.
 *
 * Not ported, because Weir has no equivalent:
 * - testObjectReused: Weir has no object-reuse mode; records handed on are never reused.
 * - testProcessingTimeRepeatedCompleteOrderedWithRetry / ...UnorderedWithRetry: a promise
 *   settles once, so a function cannot complete a request repeatedly.
 * - testAsyncOperatorIsNeverChained and testClosingWithBlockedEmitter (older versions): Weir
 *   chains async operators on purpose (the task drives them, see src/runtime/task/async-work.ts)
 *   and has no emitter thread or checkpoint lock to block on.
 */
import { describe, expect, it } from 'vitest';
import { asyncSpec } from '../../src/core/async-io.js';
import type { OperatorContext, Output, ProcessingTimeService } from '../../src/core/operator.js';
import type { OperatorSnapshot } from '../../src/core/snapshot.js';
import {
  type AsyncFunction,
  type AsyncOptions,
  AsyncRetry,
  type AsyncRetryStrategy,
  CollectSink,
  StreamEnvironment,
  WatermarkStrategy,
  WeirError,
} from '../../src/index.js';
import { AsyncWaitOperator } from '../../src/runtime/operators/async/async-wait.js';
import { type Emitted, type HarnessOptions, OneInputHarness } from '../../src/testing/index.js';

/** Flink's TIMEOUT. */
const TIMEOUT = 1000;

// ---- What a task does around an async operator --------------------------------------------------

/** Processing-time callbacks of one operator, counted: Flink's `getNumActiveTimers()`. */
class CountingTimers implements ProcessingTimeService {
  active = 0;
  constructor(private readonly inner: ProcessingTimeService) {}

  get clock() {
    return this.inner.clock;
  }

  schedule(time: number, callback: (time: number) => void): () => void {
    this.active++;
    let live = true;
    const done = () => {
      if (live) this.active--;
      live = false;
    };
    const cancel = this.inner.schedule(time, (t) => {
      done();
      callback(t);
    });
    return () => {
      done();
      cancel();
    };
  }
}

/** The async operator, with its processing-time callbacks counted. */
class ObservedAsyncWaitOperator<IN, OUT> extends AsyncWaitOperator<IN, OUT> {
  timers!: CountingTimers;

  override setup(context: OperatorContext, output: Output<OUT>): void {
    this.timers = new CountingTimers(context.processingTime);
    super.setup({ ...context, processingTime: this.timers }, output);
  }
}

/** A record or a watermark, as Flink's expected output queues hold them. */
type Element = { readonly value: number; readonly ts?: number } | { readonly watermark: number };

const rec = (value: number, ts?: number): Element => (ts === undefined ? { value } : { value, ts });
const wm = (time: number): Element => ({ watermark: time });

/** An async operator in a harness, driven as its task would drive it. */
class AsyncTask<IN> {
  readonly op: ObservedAsyncWaitOperator<IN, number>;
  readonly h: OneInputHarness<IN, number>;

  constructor(
    fn: AsyncFunction<IN, number>,
    options: AsyncOptions<IN, number>,
    harness: HarnessOptions = {},
  ) {
    this.op = new ObservedAsyncWaitOperator(fn, asyncSpec(options));
    this.h = new OneInputHarness(this.op, harness);
  }

  /**
   * Runs the task's steps until `done`: lets the operator emit what completed, and when nothing
   * moves sleeps until a request settles or a timeout arrives. Rejects when the operator fails.
   */
  async runUntil(done: () => boolean): Promise<void> {
    while (!done()) {
      if (this.op.advanceAsync()) continue;
      const next = this.op.nextCompletion();
      if (next === undefined) {
        throw new Error('nothing is in flight: only moving processing time can help');
      }
      await next;
    }
  }

  /** Takes a record once the operator accepts input (Flink's processElement yields until then). */
  async processElement(value: IN, timestamp?: number): Promise<void> {
    await this.runUntil(() => this.op.acceptsInput());
    this.h.processElement(value, timestamp);
  }

  async processWatermark(time: number): Promise<void> {
    await this.runUntil(() => this.op.acceptsInput());
    this.h.processWatermark(time);
  }

  /** Moves processing time (timeouts and retry delays fire), then takes a step, as the task would. */
  setProcessingTime(time: number): void {
    this.h.setProcessingTime(time);
    this.op.advanceAsync();
  }

  /** Ends the input and waits until every record is answered and has left (Flink's endInput). */
  async endInput(): Promise<void> {
    await this.runUntil(() => this.op.acceptsInput());
    this.h.endInput();
    await this.runUntil(() => this.op.isSettled());
  }

  /** Nothing is in flight, and every answer and timeout that came in has been handled. */
  idle(): boolean {
    return this.op.nextCompletion() === undefined;
  }

  /** Records and watermarks emitted so far, in order. */
  output(): Element[] {
    const out: Element[] = [];
    for (const e of this.h.emitted() as readonly Emitted<number>[]) {
      if (e.kind === 'record') out.push(rec(e.value, e.timestamp));
      else if (e.kind === 'watermark') out.push(wm(e.time));
    }
    return out;
  }

  metric(name: 'weir_async_retries_total' | 'weir_async_timeouts_total'): number {
    return this.h.metric(name);
  }
}

/** Flink's StreamRecordComparator: records by timestamp, then value (for unordered output). */
function sortedRecords(elements: readonly Element[]): Element[] {
  return elements
    .filter((e): e is Extract<Element, { value: number }> => 'value' in e)
    .sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || a.value - b.value);
}

/** The records a snapshot of the operator holds (requested again on restore). */
function heldRecords(snapshot: OperatorSnapshot): unknown[] {
  const queues = (snapshot.list ?? []) as { items: { v?: unknown }[] }[];
  return queues.flatMap((q) => q.items.filter((i) => i.v !== undefined).map((i) => i.v));
}

// ---- Flink's functions ----------------------------------------------------------------------------

/** Resolves after `n` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A gate requests wait on (Flink's latches and trigger futures). */
class Latch {
  private release!: () => void;
  readonly opened = new Promise<void>((r) => {
    this.release = r;
  });
  open(): void {
    this.release();
  }
}

/** Requests in flight in a function, and the most at once. */
interface InFlight {
  now: number;
  max: number;
  readonly calls: number[];
}

/** Flink's MyAsyncFunction: doubles its input, completing later (later records sooner). */
function doubling(): { fn: AsyncFunction<number, number>; inFlight: InFlight } {
  const inFlight: InFlight = { now: 0, max: 0, calls: [] };
  return {
    inFlight,
    fn: {
      async asyncInvoke(n) {
        inFlight.calls.push(n);
        inFlight.max = Math.max(inFlight.max, ++inFlight.now);
        await turns(1 + (8 - (n % 8)));
        inFlight.now--;
        return [n * 2];
      },
    },
  };
}

/** Flink's LazyAsyncFunction: answers with the input once the latch opens; counts its requests. */
function lazy(latch: Latch): AsyncFunction<number, number> & { readonly started: number[] } {
  const started: number[] = [];
  return {
    started,
    async asyncInvoke(n) {
      started.push(n);
      await latch.opened;
      return [n];
    },
  };
}

/** A request the test settles by hand (Flink's ResultFuture kept by the test). */
interface Request<IN> {
  readonly input: IN;
  resolve(results: number[]): void;
  reject(error: unknown): void;
}

/** A function whose requests wait for the test to settle them. */
function byHand<IN>(): { fn: AsyncFunction<IN, number>; requests: Request<IN>[] } {
  const requests: Request<IN>[] = [];
  return {
    requests,
    fn: {
      asyncInvoke: (input) =>
        new Promise<number[]>((resolve, reject) => requests.push({ input, resolve, reject })),
    },
  };
}

/** Flink's NoOpAsyncFunction: never answers. */
const noOp: AsyncFunction<number, number> = { asyncInvoke: () => new Promise<never>(() => {}) };

/** Flink's emptyResultFixedDelayRetryStrategy: FixedDelayRetryStrategyBuilder(2, 10L).ifResult(EMPTY_RESULT_PREDICATE). */
const emptyResultFixedDelay: AsyncRetryStrategy<number> = AsyncRetry.fixedDelay<number>({
  maxAttempts: 3,
  delayMs: 10,
  retryOnResult: (results) => results.length === 0,
  retryOnError: () => false,
});

/** Flink's exceptionRetryStrategy: FixedDelayRetryStrategyBuilder(2, 10L).ifException(HAS_EXCEPTION_PREDICATE). */
const exceptionRetry: AsyncRetryStrategy<number> = AsyncRetry.fixedDelay<number>({
  maxAttempts: 3,
  delayMs: 10,
  retryOnError: () => true,
});

const orders = ['ordered', 'unordered'] as const;

// ---- The scenarios ----------------------------------------------------------------------------------

describe('Flink AsyncWaitOperatorTest scenarios', () => {
  for (const [name, order] of [
    ['testEventTimeOrdered', 'ordered'],
    ['testWaterMarkUnordered', 'unordered'],
  ] as const) {
    it(`${name}: a watermark between records stays between their results; capacity 2`, async () => {
      const { fn, inFlight } = doubling();
      const t = new AsyncTask(fn, { order, capacity: 2, timeoutMs: TIMEOUT });
      await t.processElement(1, 1);
      await t.processElement(2, 2);
      await t.processWatermark(2);
      await t.processElement(3, 3);
      await t.endInput();
      await t.h.close();

      const expected = [rec(2, 1), rec(4, 2), wm(2), rec(6, 3)];
      const output = t.output();
      if (order === 'ordered') {
        expect(output).toEqual(expected);
      } else {
        expect(output[2]).toEqual(wm(2));
        expect(output[3]).toEqual(rec(6, 3));
        expect(sortedRecords(output)).toEqual(sortedRecords(expected));
      }
      expect(inFlight.max).toBeLessThanOrEqual(2);
    });
  }

  for (const [name, order] of [
    ['testProcessingTimeOrdered', 'ordered'],
    ['testProcessingUnordered', 'unordered'],
  ] as const) {
    it(`${name}: eight records, capacity 6`, async () => {
      const { fn, inFlight } = doubling();
      const t = new AsyncTask(fn, { order, capacity: 6, timeoutMs: TIMEOUT });
      for (let n = 1; n <= 8; n++) await t.processElement(n, n);
      await t.endInput();
      await t.h.close();

      const expected = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => rec(2 * n, n));
      if (order === 'ordered') expect(t.output()).toEqual(expected);
      else expect(sortedRecords(t.output())).toEqual(expected);
      expect(inFlight.max).toBeLessThanOrEqual(6);
      expect(inFlight.max).toBeGreaterThan(1);
    });
  }

  it('testOperatorChainWithProcessingTime: ordered and unordered async operators chained with a function that needs open', async () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const sink = new CollectSink<number>();
    const first = doubling();
    const second = doubling();
    let initialValue: number | undefined;
    env
      .fromArray([5, 6, 7, 8, 9])
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<number>().withTimestampAssigner((n) => n - 5),
      )
      .flatMapAsync(first.fn, { order: 'ordered', capacity: 6, timeoutMs: TIMEOUT })
      // Flink's RichMapFunction whose open sets the value it adds: results of the first async
      // operator must not reach it before it is open.
      .process<number>({
        open() {
          initialValue = 1;
        },
        processElement(value, _ctx, out) {
          out.collect(initialValue! + value);
        },
      })
      .flatMapAsync(second.fn, { order: 'unordered', capacity: 3, timeoutMs: TIMEOUT })
      .map((n) => n)
      .sinkTo(sink);
    await env.execute('testOperatorChainWithProcessingTime');

    const got = sink.values.map((value, i) => rec(value, sink.timestamps[i]));
    expect(sortedRecords(got)).toEqual([
      rec(22, 0),
      rec(26, 1),
      rec(30, 2),
      rec(34, 3),
      rec(38, 4),
    ]);
    expect(first.inFlight.max).toBeLessThanOrEqual(6);
    expect(second.inFlight.max).toBeLessThanOrEqual(3);
  });

  it('testStateSnapshotAndRestore: records in flight at a checkpoint are requested again after a restore', async () => {
    const latch = new Latch();
    const lazyFn = lazy(latch);
    const t = new AsyncTask(lazyFn, { order: 'ordered', capacity: 4, timeoutMs: TIMEOUT });
    for (let n = 1; n <= 4; n++) await t.processElement(n, n);
    expect(lazyFn.started).toEqual([1, 2, 3, 4]);
    const checkpoint = t.h.snapshot(1);
    expect(heldRecords(checkpoint)).toEqual([1, 2, 3, 4]);
    // The first run goes on after its checkpoint, and its results are not the restored run's.
    latch.open();
    await t.endInput();
    await t.h.close();
    expect(t.output()).toEqual([rec(1, 1), rec(2, 2), rec(3, 3), rec(4, 4)]);

    const { fn } = doubling();
    const restored = new AsyncTask(
      fn,
      { order: 'ordered', capacity: 6, timeoutMs: TIMEOUT },
      { restoreFrom: checkpoint },
    );
    await restored.processElement(5, 5);
    await restored.processElement(6, 6);
    await restored.processElement(7, 7);
    // A checkpoint while records are in flight.
    expect(heldRecords(restored.h.snapshot(2)).length).toBeGreaterThan(0);
    await restored.processElement(8, 8);
    await restored.endInput();
    await restored.h.close();

    expect(restored.output()).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => rec(2 * n, n)));
  });

  for (const [name, withHandler] of [
    ['testAsyncTimeoutFailure', false],
    ['testAsyncTimeoutIgnore', true],
  ] as const) {
    it(`${name}: the first of two requests times out ${withHandler ? 'and the timeout handler answers it' : 'and fails the job'}`, async () => {
      const latch = new Latch();
      const fn = lazy(latch);
      const timeout = 10;
      const withTimeout: AsyncFunction<number, number> = withHandler
        ? { asyncInvoke: (n) => fn.asyncInvoke(n), timeout: (n) => [n * 3] }
        : fn;
      const t = new AsyncTask(withTimeout, { order: 'ordered', capacity: 2, timeoutMs: timeout });
      t.setProcessingTime(0);
      await t.processElement(1, 0);
      t.setProcessingTime(5);
      await t.processElement(2, 5);
      // The timeout of the first record.
      t.setProcessingTime(timeout + 1);

      if (!withHandler) {
        const failure = await t.runUntil(() => false).catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(WeirError);
        expect(failure).toMatchObject({ code: 'ASYNC_TIMEOUT' });
        expect((failure as WeirError).message).toMatch(/timed out after 10 ms .* on record 1$/);
        // Flink's harness lets record 2 through after the failure; Weir's operator has failed.
        latch.open();
        await t.h.close();
        expect(t.output()).toEqual([]);
        return;
      }
      await t.runUntil(() => t.output().length === 1);
      // Now the second request may complete.
      latch.open();
      await t.endInput();
      await t.h.close();
      expect(t.output()).toEqual([rec(3, 0), rec(2, 5)]);
      expect(t.metric('weir_async_timeouts_total')).toBe(1);
    });
  }

  it('testTimeoutCleanup: a completed request leaves no timeout timer behind', async () => {
    const { fn } = doubling();
    const t = new AsyncTask(fn, { order: 'unordered', capacity: 1, timeoutMs: TIMEOUT });
    await t.processElement(42, 1);
    expect(t.op.timers.active).toBe(1);
    await t.endInput();
    await t.h.close();

    expect(t.output()).toEqual([rec(84, 1)]);
    expect(t.op.timers.active).toBe(0);
  });

  it('testTimeoutAfterComplete: a request answered before its timeout fires is not timed out', async () => {
    const { fn, requests } = byHand<number>();
    let timedOut = false;
    const t = new AsyncTask(
      {
        asyncInvoke: fn.asyncInvoke,
        timeout: () => {
          timedOut = true;
          return [];
        },
      },
      { order: 'unordered', capacity: 1, timeoutMs: TIMEOUT },
    );
    await t.processElement(1);
    // The answer arrives; before the task has handled it, the timeout's time comes.
    requests[0]!.resolve([1]);
    await t.op.nextCompletion();
    t.h.setProcessingTime(TIMEOUT);
    // Everything due is handled: the answer, and the timeout (which finds the request answered).
    await t.runUntil(() => t.idle());

    expect(t.output()).toEqual([rec(1)]);
    expect(timedOut).toBe(false);
    expect(t.metric('weir_async_timeouts_total')).toBe(0);
    await t.endInput();
    await t.h.close();
  });

  for (const order of orders) {
    for (const retry of [undefined, exceptionRetry]) {
      const name = `test${order === 'ordered' ? 'Ordered' : 'Unordered'}WaitUserExceptionHandling${retry ? 'WithRetry' : ''}`;
      it(`${name}: a failed request fails the job, without waiting for the requests before it`, async () => {
        const attempts: number[] = [];
        // Record 0 ahead of it never answers: the failure of record 1 need not wait for it
        // (FLINK-6435), in either order.
        const fn: AsyncFunction<number, number> = {
          asyncInvoke(n) {
            if (n === 0) return new Promise<never>(() => {});
            attempts.push(n);
            return Promise.reject(new Error('Test exception'));
          },
        };
        const t = new AsyncTask(fn, { order, capacity: 2, timeoutMs: TIMEOUT, retry });
        await t.processElement(0, 0);
        await t.processElement(1, 1);
        if (retry !== undefined) {
          // Two retries, 10 ms apart, then the error stands.
          await t.runUntil(() => t.metric('weir_async_retries_total') === 1);
          t.setProcessingTime(10);
          await t.runUntil(() => t.metric('weir_async_retries_total') === 2);
          t.setProcessingTime(20);
        }
        const failure = await t.runUntil(() => false).catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(WeirError);
        expect((failure as WeirError).message).toMatch(
          retry === undefined
            ? /failed on record 1: Test exception$/
            : /failed on record 1 \(after 3 attempts\): Test exception$/,
        );
        expect(attempts).toEqual(retry === undefined ? [1] : [1, 1, 1]);
        expect(t.output()).toEqual([]);
        await t.h.close();
      });
    }

    it(`test${order === 'ordered' ? 'Ordered' : 'Unordered'}WaitUserExceptionHandling, as a job: the job fails with the function's error`, async () => {
      const env = new StreamEnvironment({ parallelism: 1 });
      env
        .fromArray([1])
        .flatMapAsync(
          { asyncInvoke: () => Promise.reject(new Error('Test exception')) },
          { order, capacity: 2, timeoutMs: TIMEOUT },
        )
        .sinkTo(new CollectSink<number>());
      await expect(env.execute('user-exception')).rejects.toThrow(/Test exception/);
    });

    for (const retry of [undefined, emptyResultFixedDelay]) {
      const name = `test${order === 'ordered' ? 'Ordered' : 'Unordered'}WaitTimeoutHandling${retry ? 'WithRetry' : ''}`;
      it(`${name}: a request that never answers times out and fails the job; the operator still closes`, async () => {
        const t = new AsyncTask(noOp, { order, capacity: 2, timeoutMs: 10, retry });
        await t.processElement(1, 1);
        t.setProcessingTime(10);
        const failure = await t.runUntil(() => false).catch((e: unknown) => e);
        expect(failure).toMatchObject({ code: 'ASYNC_TIMEOUT' });
        await t.h.close();
        expect(t.output()).toEqual([]);
      });
    }
  }

  it('testRestartWithFullQueue: a checkpoint taken with the capacity used up (and a record waiting) restores and completes', async () => {
    const capacity = 10;
    const trigger = new Latch();
    let started = 0;
    const controllable: AsyncFunction<number, number> = {
      async asyncInvoke(n) {
        started++;
        await trigger.opened;
        return [n];
      },
    };
    const t = new AsyncTask(controllable, { order: 'ordered', capacity, timeoutMs: TIMEOUT });
    for (let n = 0; n < capacity; n++) await t.processElement(n, 0);
    // One more record (Flink's older version of this test): Weir's task still hands it over,
    // and it waits un-requested; then the operator takes no more input.
    await t.processElement(capacity, 0);
    expect(started).toBe(capacity);
    expect(t.op.acceptsInput()).toBe(false);
    const snapshot = t.h.snapshot();
    expect(heldRecords(snapshot)).toHaveLength(capacity + 1);
    trigger.open();
    await t.endInput();
    await t.h.close();

    const recovered = new AsyncTask(
      { asyncInvoke: async (n: number) => [n] },
      { order: 'ordered', capacity, timeoutMs: TIMEOUT },
      { restoreFrom: snapshot },
    );
    await recovered.endInput();
    await recovered.h.close();
    expect(recovered.output().map((e) => ('value' in e ? e.value : e))).toEqual(
      Array.from({ length: capacity + 1 }, (_, n) => n),
    );
  });

  for (const retry of [undefined, emptyResultFixedDelay]) {
    it(`testIgnoreAsyncOperatorRecordsOnDrain${retry ? 'WithRetry' : ''}: answers not yet emitted at a stop-with-savepoint stay in the savepoint, not in the output`, async () => {
      const { fn, requests } = byHand<number>();
      const t = new AsyncTask(fn, {
        order: 'ordered',
        capacity: 5,
        timeoutMs: TIMEOUT,
        retry,
      });
      await t.processElement(1);
      await t.processElement(2);
      // Answered in reverse order (with results, where Flink's were empty, so that leaving
      // them out shows), then the task halts at the savepoint before it takes another step.
      for (const r of [...requests].reverse()) r.resolve([r.input * 10]);
      await t.op.nextCompletion();
      const savepoint = t.h.snapshot(1, 'savepoint');
      await t.h.close();
      expect(t.output()).toEqual([]);
      expect(heldRecords(savepoint)).toEqual([1, 2]);

      // They are processed on recovery.
      const resumed = new AsyncTask(
        { asyncInvoke: async (n: number) => [n * 10] },
        { order: 'ordered', capacity: 5, timeoutMs: TIMEOUT, retry },
        { restoreFrom: savepoint },
      );
      await resumed.endInput();
      await resumed.h.close();
      expect(resumed.output()).toEqual([rec(10), rec(20)]);
    });
  }

  for (const [name, order] of [
    ['testProcessingTimeOrderedWithRetry', 'ordered'],
    ['testProcessingTimeUnorderedWithRetry', 'unordered'],
  ] as const) {
    it(`${name}: empty results are retried 10 ms later, twice, and then stand`, async () => {
      const calls = new Map<number, number>();
      // Flink's OddInputEmptyResultAsyncFunction.
      const oddInputEmptyResult: AsyncFunction<number, number> = {
        async asyncInvoke(n) {
          calls.set(n, (calls.get(n) ?? 0) + 1);
          await turns(1);
          return n % 2 === 1 ? [] : [n * 2];
        },
      };
      const t = new AsyncTask(oddInputEmptyResult, {
        order,
        capacity: 6,
        timeoutMs: TIMEOUT,
        retry: emptyResultFixedDelay,
      });
      for (let n = 1; n <= 6; n++) await t.processElement(n, n);
      const expected = [rec(4, 2), rec(8, 4), rec(12, 6)];

      // Every first attempt answered and handled: the odd records wait for their retries.
      await t.runUntil(() => t.idle());
      expect(t.metric('weir_async_retries_total')).toBe(3);
      // Unordered, the even records' results have left; ordered, record 1 holds them back.
      if (order === 'unordered') expect(sortedRecords(t.output())).toEqual(expected);
      else expect(t.output()).toEqual([]);
      t.setProcessingTime(10);
      await t.runUntil(() => t.idle());
      expect(t.metric('weir_async_retries_total')).toBe(6);
      t.setProcessingTime(20);
      await t.endInput();
      await t.h.close();

      if (order === 'ordered') expect(t.output()).toEqual(expected);
      else expect(sortedRecords(t.output())).toEqual(expected);
      expect(Object.fromEntries(calls)).toEqual({ 1: 3, 2: 1, 3: 3, 4: 1, 5: 3, 6: 1 });
    });
  }

  for (const [name, order] of [
    ['testProcessingTimeWithTimeoutFunctionUnorderedWithRetry', 'unordered'],
    ['testProcessingTimeWithTimeoutFunctionOrderedWithRetry', 'ordered'],
  ] as const) {
    it(`${name}: a timeout during retries ends them with the timeout handler's result`, async () => {
      // Flink's AlwaysTimeoutWithDefaultValueAsyncFunction: every attempt fails after 501 ms;
      // the timeout handler answers -1.
      const { fn, requests } = byHand<number>();
      const tries = new Map<number, number>();
      const alwaysTimeout: AsyncFunction<number, number> = {
        asyncInvoke(n) {
          tries.set(n, (tries.get(n) ?? 0) + 1);
          return fn.asyncInvoke(n);
        },
        timeout: () => [-1],
      };
      // Flink's FixedDelayRetryStrategyBuilder(5, 100L).ifException(HAS_EXCEPTION_PREDICATE).
      const retry = AsyncRetry.fixedDelay<number>({
        maxAttempts: 6,
        delayMs: 100,
        retryOnError: () => true,
      });
      const t = new AsyncTask(alwaysTimeout, { order, capacity: 10, timeoutMs: TIMEOUT, retry });
      await t.processElement(1, 1);
      await t.processElement(2, 2);

      const failAll = (from: number) => {
        for (const r of requests.slice(from)) r.reject(new Error('Dummy error'));
      };
      t.setProcessingTime(501);
      failAll(0);
      await t.runUntil(() => t.metric('weir_async_retries_total') === 2);
      t.setProcessingTime(601);
      await t.runUntil(() => tries.get(1) === 2 && tries.get(2) === 2);
      t.setProcessingTime(TIMEOUT);
      await t.runUntil(() => t.output().length === 2);
      // The second attempts fail after the timeout: too late to matter.
      t.setProcessingTime(1102);
      failAll(2);
      await t.endInput();
      await t.h.close();

      const expected = [rec(-1, 1), rec(-1, 2)];
      if (order === 'ordered') expect(t.output()).toEqual(expected);
      else expect(sortedRecords(t.output())).toEqual(expected);
      expect(Object.fromEntries(tries)).toEqual({ 1: 2, 2: 2 });
      expect(t.metric('weir_async_timeouts_total')).toBe(2);
    });
  }
});
