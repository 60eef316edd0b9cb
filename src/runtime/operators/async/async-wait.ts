import type { AsyncFunction, AsyncInvoke, AsyncSpec } from '../../../core/async-io.js';
import { describeRecord, userFunctionFailed, WeirError } from '../../../core/errors.js';
import { Operator } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import {
  decodeTime,
  encodeTime,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../../core/snapshot.js';
import type { StateSerializer } from '../../../core/state.js';
import type { Counter } from '../../../metrics/registry.js';
import { Serializers } from '../../../state/serializers.js';
import type { AsyncWork } from '../../task/async-work.js';
import {
  type AsyncEntry,
  type AsyncMarker,
  OrderedQueue,
  type QueueItem,
  type ResultQueue,
  UnorderedQueue,
} from './async-queue.js';

/** Metrics of async operators, per subtask. */
export const ASYNC_METRICS = {
  inFlight: 'weir_async_in_flight',
  retries: 'weir_async_retries_total',
  timeouts: 'weir_async_timeouts_total',
} as const;

/** A record and its request. */
interface Request<IN, OUT> extends AsyncEntry<IN, OUT> {
  state: 'waiting' | 'running' | 'backoff' | 'done';
  attempts: number;
  /** Identifies the current attempt: completions of superseded attempts are ignored. */
  attempt: number;
  /** An attempt has been started and has neither settled nor timed out. */
  outstanding: boolean;
  cancelTimeout: (() => void) | undefined;
  cancelRetry: (() => void) | undefined;
}

type Completion<IN, OUT> =
  | { readonly request: Request<IN, OUT>; readonly ok: true; readonly value: unknown }
  | { readonly request: Request<IN, OUT>; readonly ok: false; readonly error: unknown };

/** One subtask's in-flight queue as a checkpoint stores it. */
interface QueueSnapshot {
  readonly subtask: number;
  readonly serializer: { readonly id: string; readonly version: number };
  /** In input order: `{ v, t }` a record (value, timestamp), `{ w }` a watermark. */
  readonly items: Json[];
}

/**
 * Runs an {@link AsyncFunction} over every record with up to `capacity`
 * requests outstanding. Requests start in `processBatch`; their completions
 * only record themselves, and results leave in a later step of the task
 * ({@link advanceAsync}, called by the task), in input order or as they
 * complete (never across a watermark). While full, the operator stops the
 * task from taking input. Records whose results have not left are its
 * checkpoint state and are requested again on restore, so each record's
 * results are emitted exactly once.
 */
export class AsyncWaitOperator<IN, OUT> extends Operator<IN, OUT> implements AsyncWork {
  private readonly fn: AsyncFunction<IN, OUT>;
  private readonly queue: ResultQueue<IN, OUT>;
  private readonly serializer: StateSerializer<IN>;
  /** Records not yet requested, oldest first, from `waitingHead`. */
  private waiting: Request<IN, OUT>[] = [];
  private waitingHead = 0;
  /** Requested records whose results have not left (running, backing off, or done but held). */
  private active = 0;
  /** Attempts outstanding. */
  private running = 0;
  private completions: Completion<IN, OUT>[] = [];
  private timedOut: Request<IN, OUT>[] = [];
  private retryDue: Request<IN, OUT>[] = [];
  private wake: { promise: Promise<void>; resolve: () => void } | undefined;
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private restored: readonly Json[] = [];
  private closed = false;
  /** Timeouts that fired and are waiting for a turn of the event loop (see `onTimer`). */
  private timeoutsArriving = 0;
  private invokedSinceFlush = false;
  private retries!: Counter;
  private timeouts!: Counter;

  constructor(
    fn: AsyncFunction<IN, OUT> | AsyncInvoke<IN, OUT>,
    private readonly spec: AsyncSpec<IN, OUT>,
  ) {
    super();
    // One instance per subtask: fields the function sets in `open` stay per subtask.
    this.fn =
      typeof fn === 'function'
        ? { asyncInvoke: fn }
        : (Object.create(fn) as AsyncFunction<IN, OUT>);
    this.queue = spec.order === 'ordered' ? new OrderedQueue() : new UnorderedQueue();
    this.serializer = spec.serializer ?? Serializers.json<IN>();
  }

  override initializeState(state: RestoredState): void {
    this.restored = state.list;
  }

  override open(): void {
    const { metrics } = this.context;
    metrics.gauge(
      ASYNC_METRICS.inFlight,
      'Records of an async operator whose results have not left it',
      () => this.active,
    );
    this.retries = metrics.counter(ASYNC_METRICS.retries, 'Requests of an async operator retried');
    this.timeouts = metrics.counter(
      ASYNC_METRICS.timeouts,
      'Records of an async operator whose requests timed out',
    );
    try {
      const clock = this.context.processingTime.clock;
      this.fn.open?.({
        operatorId: this.context.operatorId,
        subtaskIndex: this.context.subtaskIndex,
        parallelism: this.context.parallelism,
        metrics,
        currentProcessingTime: () => clock.now(),
      });
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'open of the async function', '', cause);
    }
    this.restore();
  }

  processBatch(batch: RecordBatch<IN>): void {
    const { values, timestamps } = batch;
    for (let i = 0; i < values.length; i++) this.add(values[i] as IN, timestamps[i]!);
    this.issueWaiting();
    this.flushRequests();
  }

  override processWatermark(time: number): void {
    this.queue.addMarker({ kind: 'watermark', time });
    this.emitReady();
  }

  override processIdle(): void {
    this.queue.addMarker({ kind: 'idle' });
    this.emitReady();
  }

  override endInput(): void {
    this.queue.addMarker({ kind: 'end' });
  }

  /** End-of-input leaves once every record before it has: see the `end` marker in `emitReady`. */
  override endOutput(): void {
    this.emitReady();
  }

  advanceAsync(): boolean {
    let progressed = false;
    if (this.completions.length > 0) {
      progressed = true;
      const completions = this.completions;
      this.completions = [];
      for (const c of completions) this.onCompletion(c);
    }
    if (this.timedOut.length > 0) {
      progressed = true;
      const timedOut = this.timedOut;
      this.timedOut = [];
      for (const r of timedOut) this.onTimeout(r);
    }
    if (this.retryDue.length > 0) {
      progressed = true;
      const due = this.retryDue;
      this.retryDue = [];
      for (const r of due) if (r.state === 'backoff') this.invoke(r);
    }
    // Emit first: the slots it frees are refilled in the same step.
    if (this.emitReady()) progressed = true;
    if (this.issueWaiting()) progressed = true;
    this.flushRequests();
    return progressed;
  }

  acceptsInput(): boolean {
    return this.waitingHead === this.waiting.length;
  }

  isSettled(): boolean {
    return this.queue.empty;
  }

  nextCompletion(): Promise<void> | undefined {
    if (this.completions.length > 0 || this.timedOut.length > 0) return Promise.resolve();
    if (this.running === 0 && this.timeoutsArriving === 0) return undefined;
    if (this.wake === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.wake = { promise, resolve };
    }
    return this.wake.promise;
  }

  override snapshotState(): OperatorSnapshot {
    const items: Json[] = [];
    for (const item of this.queue.items()) {
      if (item.kind === 'record') {
        items.push({ v: this.serializer.toJson(item.value), t: encodeTime(item.timestamp) });
      } else if (item.kind === 'watermark') {
        items.push({ w: encodeTime(item.time) });
      }
    }
    const snapshot: QueueSnapshot = {
      subtask: this.context.subtaskIndex,
      serializer: { id: this.serializer.id, version: this.serializer.version },
      items,
    };
    // Always one entry per subtask: list state is dealt round-robin, so at an
    // unchanged parallelism every subtask gets its own queue back.
    return { list: [snapshot as unknown as Json] };
  }

  override async close(): Promise<void> {
    this.closed = true;
    for (const item of this.queue.items()) {
      if (item.kind !== 'record') continue;
      const r = item as Request<IN, OUT>;
      r.cancelTimeout?.();
      r.cancelRetry?.();
    }
    await this.fn.close?.();
  }

  /** Requests again what a checkpoint held: records, and watermarks if the queue is this subtask's alone. */
  private restore(): void {
    const queues = this.restored as unknown as readonly QueueSnapshot[];
    this.restored = [];
    for (const q of queues) {
      if (q.serializer.id !== this.serializer.id) {
        throw new WeirError(
          'INVALID_JOB',
          `async operator '${this.context.operatorId}': the checkpoint holds records written by serializer '${q.serializer.id}', but the job uses '${this.serializer.id}'`,
          { operatorId: this.context.operatorId },
        );
      }
      for (const item of q.items as { v?: Json; t?: Json; w?: Json }[]) {
        if (item.w !== undefined) {
          // Merged queues of several old subtasks: their watermarks mean nothing here.
          if (queues.length === 1)
            this.queue.addMarker({ kind: 'watermark', time: decodeTime(item.w) });
        } else {
          this.add(
            this.serializer.fromJson(item.v ?? null, q.serializer.version),
            decodeTime(item.t ?? null),
          );
        }
      }
    }
    this.issueWaiting();
    this.flushRequests();
  }

  /** Lets the function send the requests of the round that just ended together. */
  private flushRequests(): void {
    if (!this.invokedSinceFlush) return;
    this.invokedSinceFlush = false;
    try {
      this.fn.flush?.();
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'flush of the async function', '', cause);
    }
  }

  private add(value: IN, timestamp: number): void {
    const request: Request<IN, OUT> = {
      kind: 'record',
      value,
      timestamp,
      results: undefined,
      state: 'waiting',
      attempts: 0,
      attempt: 0,
      outstanding: false,
      cancelTimeout: undefined,
      cancelRetry: undefined,
    };
    this.queue.addRecord(request);
    this.waiting.push(request);
  }

  /** Starts waiting records while there is capacity. */
  private issueWaiting(): boolean {
    const capacity = this.spec.capacity;
    let issued = false;
    while (this.waitingHead < this.waiting.length && this.active < capacity) {
      const request = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined as unknown as Request<IN, OUT>;
      this.active++;
      issued = true;
      const timeouts = this.context.processingTime;
      request.cancelTimeout = timeouts.schedule(timeouts.clock.now() + this.spec.timeoutMs, () =>
        this.onTimer(request),
      );
      this.invoke(request);
    }
    if (this.waitingHead === this.waiting.length) {
      this.waiting = [];
      this.waitingHead = 0;
    }
    return issued;
  }

  private invoke(request: Request<IN, OUT>): void {
    this.invokedSinceFlush = true;
    request.state = 'running';
    request.attempts++;
    const attempt = ++request.attempt;
    let pending: PromiseLike<Iterable<OUT>>;
    try {
      pending = this.fn.asyncInvoke(request.value);
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'async function', request.value, cause);
    }
    this.running++;
    request.outstanding = true;
    Promise.resolve(pending).then(
      (value) => this.record(request, attempt, { request, ok: true, value }),
      (error: unknown) => this.record(request, attempt, { request, ok: false, error }),
    );
  }

  /** Runs when a request settles (outside the task's steps): only notes it and wakes the task. */
  private record(
    request: Request<IN, OUT>,
    attempt: number,
    completion: Completion<IN, OUT>,
  ): void {
    if (this.closed || request.attempt !== attempt || !request.outstanding) return;
    this.running--;
    request.outstanding = false;
    this.completions.push(completion);
    this.wakeUp();
  }

  /**
   * A request's time is up. It counts as timed out only after a turn of the
   * event loop: an answer that arrived while the process was busy (or not
   * scheduled) is delivered first, and then wins.
   */
  private onTimer(request: Request<IN, OUT>): void {
    this.timeoutsArriving++;
    setTimeout(() => {
      this.timeoutsArriving--;
      if (this.closed) return;
      this.timedOut.push(request);
      this.wakeUp();
    }, 0);
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.resolve();
  }

  private onCompletion(c: Completion<IN, OUT>): void {
    const { request } = c;
    if (request.state !== 'running') return;
    const retry = this.spec.retry;
    const canRetry = retry !== undefined && request.attempts < retry.maxAttempts;
    if (c.ok) {
      const results = this.resultsOf(request, c.value);
      if (canRetry && retry.retryOnResult !== undefined) {
        if (this.callUser('retry predicate', request, () => retry.retryOnResult!(results))) {
          this.scheduleRetry(request);
          return;
        }
      }
      this.finish(request, results);
      return;
    }
    if (canRetry) {
      const test = retry.retryOnError;
      if (test === undefined || this.callUser('retry predicate', request, () => test(c.error))) {
        this.scheduleRetry(request);
        return;
      }
    }
    throw this.failed(request, c.error);
  }

  private onTimeout(request: Request<IN, OUT>): void {
    if (request.state === 'done') return;
    if (request.outstanding) {
      this.running--;
      request.outstanding = false;
    }
    request.attempt++; // a late completion is ignored
    request.cancelRetry?.();
    this.timeouts.inc();
    const onTimeout = this.fn.timeout;
    if (onTimeout === undefined) {
      const shown = describeRecord(request.value);
      throw new WeirError(
        'ASYNC_TIMEOUT',
        `async request in operator '${this.context.operatorId}' timed out after ${this.spec.timeoutMs} ms (${request.attempts} attempt${request.attempts === 1 ? '' : 's'}) on record ${shown}`,
        { operatorId: this.context.operatorId, record: shown, domain: 'external', retriable: true },
      );
    }
    const results = this.callUser('timeout handler', request, () => [
      ...onTimeout.call(this.fn, request.value),
    ]);
    this.finish(request, results);
  }

  private scheduleRetry(request: Request<IN, OUT>): void {
    request.state = 'backoff';
    this.retries.inc();
    const delay = this.spec.retry!.delayBefore(request.attempts);
    const timers = this.context.processingTime;
    request.cancelRetry = timers.schedule(timers.clock.now() + delay, () => {
      request.cancelRetry = undefined;
      this.retryDue.push(request);
    });
  }

  private finish(request: Request<IN, OUT>, results: readonly OUT[]): void {
    request.state = 'done';
    request.results = results;
    request.cancelTimeout?.();
    request.cancelTimeout = undefined;
    this.queue.completed(request);
  }

  private resultsOf(request: Request<IN, OUT>, value: unknown): readonly OUT[] {
    if (value === null || typeof (value as Iterable<OUT>)[Symbol.iterator] !== 'function') {
      throw userFunctionFailed(
        this.context.operatorId,
        'async function',
        request.value,
        new TypeError(
          `it resolved with ${describeRecord(value)}; it must resolve with an iterable of results (e.g. an array)`,
        ),
      );
    }
    return Array.isArray(value) ? (value as OUT[]) : [...(value as Iterable<OUT>)];
  }

  private callUser<R>(what: string, request: Request<IN, OUT>, call: () => R): R {
    try {
      return call();
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, what, request.value, cause);
    }
  }

  private failed(request: Request<IN, OUT>, cause: unknown): WeirError {
    const shown = describeRecord(request.value);
    const reason = cause instanceof Error ? cause.message : String(cause);
    const attempts = request.attempts === 1 ? '' : ` (after ${request.attempts} attempts)`;
    return new WeirError(
      cause instanceof WeirError ? cause.code : 'USER_FUNCTION_FAILED',
      `async function in operator '${this.context.operatorId}' failed on record ${shown}${attempts}: ${reason}`,
      {
        operatorId: this.context.operatorId,
        record: shown,
        cause,
        domain: cause instanceof WeirError ? cause.domain : 'user',
      },
    );
  }

  /** Emits what may leave now, as batches split at markers. Returns whether anything left. */
  private emitReady(): boolean {
    if (this.queue.empty) return false;
    let values: OUT[] = [];
    let timestamps: number[] = [];
    let emitted = false;
    const flush = () => {
      if (values.length === 0) return;
      const batch = { values, timestamps, keys: undefined };
      values = [];
      timestamps = [];
      this.output.emit(batch);
    };
    this.queue.drain((item: QueueItem<IN, OUT>) => {
      emitted = true;
      if (item.kind === 'record') {
        this.active--;
        for (const r of item.results!) {
          values.push(r);
          timestamps.push(item.timestamp);
        }
        return;
      }
      flush();
      this.emitMarker(item);
    });
    flush();
    return emitted;
  }

  private emitMarker(marker: AsyncMarker): void {
    switch (marker.kind) {
      case 'watermark':
        // Watermarks never go backwards, also after a restore.
        if (marker.time > this.lastWatermark) {
          this.lastWatermark = marker.time;
          this.output.emitWatermark(marker.time);
        }
        return;
      case 'idle':
        this.output.emitIdle();
        return;
      case 'end':
        this.output.end();
        return;
    }
  }
}
