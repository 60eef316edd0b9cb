import type { Worker } from 'node:worker_threads';
import { murmur2 } from '@platformatic/kafka';
import { describeRecord, WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReconcilableSink, ReconcileTarget } from '../../../core/replay.js';
import type { SinkContext, TwoPhaseCommitWriter } from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';
import { bytesWrittenCounter } from '../../../metrics/connector-metrics.js';
import type { Counter } from '../../../metrics/registry.js';
import {
  prestartWorker,
  releaseWorker,
  siblingModule,
  startWorker,
} from '../../../util/threads/start-worker.js';
import { SyncChannel } from '../../../util/threads/sync-channel.js';
import { checkTopic, type KafkaSinkOptions } from '../config.js';
import { reconnectsCounter } from '../reconnect.js';
import { clientSecurity, type KafkaTokenProvider } from '../security.js';
import { KafkaReconcileTarget } from './reconcile-target.js';
import {
  recordHeaders,
  recordKey,
  recordValue,
  type SinkConfig,
  sinkConfig,
} from './sink-options.js';
import type { Notice, PackedBatch, Request, SyncReply, WorkerConfig } from './sink-protocol.js';
import { isTransactionCommittable } from './transaction-recovery.js';

/** The module of a writer's producer thread. */
const PRODUCER_THREAD = siblingModule('producer-worker', import.meta.url);

export type { KafkaHeaders, KafkaSinkOptions } from '../config.js';

/**
 * Writes records to Kafka. The producer runs on a worker thread; at each
 * checkpoint barrier the writer waits (synchronously) until every record
 * written before the barrier is acknowledged, so a completed checkpoint
 * never depends on records still in flight.
 *
 * Exactly-once follows Flink's KafkaSink: one transaction per subtask and
 * checkpoint interval, with transactional id `<prefix>-<subtask>-<n>`. At the
 * barrier the transaction is flushed and its producer id and epoch go into
 * the checkpoint; when the checkpoint completes it is committed by that id
 * and epoch (EndTxn), which also works from a new process after a crash. On
 * restore, the checkpoint's transactions are committed, and later ones that
 * a crashed run left open are aborted (and their producers fenced) before
 * anything new is written.
 */
export class KafkaSink<T> implements ReconcilableSink<T> {
  readonly name: string;
  /** Exactly-once: records are in Kafka transactions committed on checkpoints. */
  readonly commitsOnCheckpoint: boolean;
  private config: SinkConfig<T>;

  constructor(options: KafkaSinkOptions<T>) {
    this.config = sinkConfig(options);
    this.name = this.config.name;
    this.commitsOnCheckpoint = this.config.exactlyOnce;
  }

  createWriter(context: SinkContext): TwoPhaseCommitWriter<T> {
    return new KafkaWriter(this.config, context);
  }

  /**
   * In a process group every member run writes under transactional ids of
   * its own, `<prefix>-<run>-<subtask>-<n>`: members would otherwise fence
   * each other, and the new owner of a dead member's task fences exactly
   * that run's later transactions.
   */
  inProcessGroup(run: () => string): KafkaSink<T> {
    if (!this.config.exactlyOnce) return this;
    const copy: KafkaSink<T> = Object.create(KafkaSink.prototype);
    Object.assign(copy, this);
    copy.config = { ...this.config, run };
    return copy;
  }

  /** A standby's writers will each need a producer thread: started now, with Kafka's client loaded. */
  prepareWriters(writers: number): void {
    for (let i = 0; i < writers; i++) prestartWorker(PRODUCER_THREAD);
  }

  /**
   * For `weir reconcile`: reads back what the sink committed to its topic
   * (read_committed, earliest to the last stable offset) and turns replayed
   * values into rows through the same serialization. Needs a fixed topic.
   */
  reconcileTarget(): ReconcileTarget<T> {
    return new KafkaReconcileTarget(this.config);
  }
}

/**
 * A Kafka sink writer on validated options: the exactly-once machinery
 * (transactions per checkpoint, commit by producer id and epoch, recovery and
 * fencing) for writers that are not a user's sink, such as a repartition
 * topic's.
 */
export function kafkaSinkWriter<T>(
  config: SinkConfig<T>,
  context: SinkContext,
): TwoPhaseCommitWriter<T> {
  return new KafkaWriter(config, context);
}

class KafkaWriter<T> implements TwoPhaseCommitWriter<T> {
  private readonly worker: Worker;
  /** Where the producer thread answers the calls this thread blocks on (pre-commit). */
  private readonly sync = new SyncChannel();
  private failure: WeirError | undefined;
  private outstanding = 0;
  private drained: { promise: Promise<void>; resolve: () => void } | undefined;
  private nextId = 1;
  private readonly pendingCalls = new Map<
    number,
    { resolve: () => void; reject: (e: unknown) => void }
  >();
  private readonly records: Counter;
  private readonly bytesWritten: Counter;
  private readonly committed: Counter;
  private readonly aborted: Counter;
  private readonly reconnects: Counter;
  private closed = false;
  /** The producer thread closed cleanly and may serve the next writer of this process. */
  private reusable = false;
  private readonly tokenProvider: KafkaTokenProvider | undefined;
  /** The process group member run whose transactional ids this writer uses, if any. */
  private readonly run: string | undefined;
  /** Until the format is ready to serialize (see prepareFormat). */
  private formatReady: Promise<void> | undefined;

  constructor(
    private readonly config: SinkConfig<T>,
    private readonly context: SinkContext,
  ) {
    // Certificate files are read now, so a missing one fails the writer when it opens.
    clientSecurity(config.connection, `Kafka sink '${context.operatorId}'`);
    this.worker = startWorker(PRODUCER_THREAD);
    const { sasl } = config.connection;
    // A function cannot go to another thread: the producer asks this one for tokens.
    const fromWriter = sasl?.mechanism === 'OAUTHBEARER' && sasl.tokenProvider !== undefined;
    this.tokenProvider = fromWriter ? sasl.tokenProvider : undefined;
    const run = config.run?.();
    this.run = run;
    const workerConfig: WorkerConfig = {
      connection: fromWriter
        ? { ...config.connection, sasl: { ...sasl, tokenProvider: undefined } }
        : config.connection,
      tokenFromWriter: fromWriter,
      exactlyOnce: config.exactlyOnce,
      transactionalIdPrefix: run === undefined ? config.prefix : `${config.prefix}-${run}`,
      transactionTimeoutMs: config.transactionTimeoutMs,
      operatorId: context.operatorId,
      subtaskIndex: context.subtaskIndex,
      parallelism: context.parallelism,
      acks: config.acks,
      compression: config.compression,
      flushTimeoutMs: config.flushTimeoutMs,
      checkpointIntervalMs: config.checkpointIntervalMs,
      checkpointTimeoutMs: config.checkpointTimeoutMs,
    };
    const init: Request = { op: 'init', config: workerConfig, sync: this.sync.remote };
    this.worker.postMessage(init, [this.sync.remote.port]);
    this.worker.on('message', (n: Notice) => this.onNotice(n));
    this.worker.on('error', (e) => this.workerGone(`the producer thread crashed: ${e.message}`));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.workerGone(`the producer thread exited (code ${code})`);
    });
    this.worker.unref();
    const m = context.metrics;
    this.records = m.counter(
      'weir_kafka_sink_records_total',
      'Records handed to the Kafka producer',
    );
    this.bytesWritten = bytesWrittenCounter(m);
    this.committed = m.counter(
      'weir_kafka_sink_transactions_committed_total',
      'Kafka transactions committed',
    );
    this.aborted = m.counter(
      'weir_kafka_sink_transactions_aborted_total',
      'Transactions left open by an earlier run and aborted on start',
    );
    this.reconnects = reconnectsCounter(m);
    this.formatReady = this.prepareFormat();
    m.gauge(
      'weir_kafka_sink_outstanding_records',
      'Records not yet acknowledged by the brokers',
      () => this.outstanding,
    );
  }

  /**
   * A format that registers or looks up its schema (a schema registry) does
   * so now; `blocked()` holds the task, so nothing is written before it has.
   */
  private prepareFormat(): Promise<void> | undefined {
    const ready = this.config.format.prepareToWrite?.(this.config.fixedTopic);
    return ready?.then(
      () => {
        this.formatReady = undefined;
      },
      (cause: unknown) => {
        this.formatReady = undefined;
        const id = this.context.operatorId;
        this.failure ??=
          cause instanceof WeirError
            ? new WeirError(cause.code, `Kafka sink '${id}': ${cause.message}`, {
                cause,
                domain: cause.domain,
                retriable: cause.retriable,
                operatorId: id,
              })
            : this.error(cause instanceof Error ? cause.message : String(cause));
      },
    );
  }

  private onNotice(n: Notice): void {
    switch (n.kind) {
      case 'acked':
        this.outstanding -= n.records;
        if (this.outstanding <= this.config.maxBufferedRecords / 2) this.release();
        return;
      case 'failed':
        this.setFailure(n.error);
        return;
      case 'stat':
        (n.name === 'committed'
          ? this.committed
          : n.name === 'aborted'
            ? this.aborted
            : this.reconnects
        ).inc(n.count);
        return;
      case 'warning':
        this.config.onWarning(n.message);
        return;
      case 'token-wanted':
        void this.sendToken();
        return;
      case 'done': {
        const call = this.pendingCalls.get(n.id);
        this.pendingCalls.delete(n.id);
        if (n.reusable === true) this.reusable = true;
        if (n.error === undefined) call?.resolve();
        else call?.reject(this.error(n.error));
      }
    }
  }

  /** Asks the OAUTHBEARER token provider for a token, for the producer thread. */
  private sendToken(): Promise<void> {
    const provider = this.tokenProvider;
    if (provider === undefined) return Promise.resolve();
    return (async () => provider())().then(
      (token) => this.worker.postMessage({ op: 'token', token: String(token) } satisfies Request),
      (e: unknown) =>
        this.worker.postMessage({
          op: 'token',
          error: `the OAUTHBEARER tokenProvider failed: ${e instanceof Error ? e.message : String(e)}`,
        } satisfies Request),
    );
  }

  private error(message: string): WeirError {
    return new WeirError('SINK_FAILED', `Kafka sink '${this.context.operatorId}': ${message}`, {
      operatorId: this.context.operatorId,
      domain: 'external',
      retriable: true,
    });
  }

  private setFailure(message: string): void {
    this.failure ??= this.error(message);
    this.release();
  }

  private workerGone(message: string): void {
    this.setFailure(message);
    for (const call of this.pendingCalls.values()) call.reject(this.failure);
    this.pendingCalls.clear();
  }

  private release(): void {
    const d = this.drained;
    this.drained = undefined;
    d?.resolve();
  }

  private call(request: (id: number) => Request): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pendingCalls.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage(request(id));
    }).finally(() => {
      if (this.pendingCalls.size === 0) this.worker.unref();
    });
  }

  /** Sends a request and blocks this thread until the worker answers on the synchronous channel. */
  private callSync(request: Request): SyncReply {
    this.worker.postMessage(request);
    const reply = this.sync.receiveSync(this.config.flushTimeoutMs + 5_000);
    if (reply === undefined)
      throw this.error(
        `the producer thread did not answer within ${this.config.flushTimeoutMs} ms`,
      );
    return reply.message as SyncReply;
  }

  write(batch: RecordBatch<T>): void {
    if (this.failure !== undefined) throw this.failure;
    const n = batch.values.length;
    if (n === 0) return;
    const { headers, partitioner, topicOf, fixedTopic } = this.config;
    const topics: string[] = fixedTopic === undefined ? [] : [fixedTopic];
    const topicIds = new Map<string, number>();
    const topicIndex = new Int32Array(n);
    const partitions = new Int32Array(n).fill(-1);
    const keyLengths = new Int32Array(n).fill(-1);
    const valueLengths = new Int32Array(n);
    const parts: Uint8Array[] = [];
    let hdrs: ([string, Uint8Array][] | undefined)[] | undefined;
    let size = 0;
    for (let i = 0; i < n; i++) {
      const v = batch.values[i]!;
      if (fixedTopic === undefined) {
        const t = topicOf(v);
        let ti = topicIds.get(t);
        if (ti === undefined) {
          checkTopic(`KafkaSink '${this.context.operatorId}'`, t);
          ti = topics.length;
          topics.push(t);
          topicIds.set(t, ti);
        }
        topicIndex[i] = ti;
      }
      const kb = recordKey(this.config, v);
      if (kb !== undefined) {
        keyLengths[i] = kb.length;
        parts.push(kb);
        size += kb.length;
      }
      if (partitioner !== undefined) {
        const p = partitioner(v, kb);
        if (!Number.isInteger(p) || p < 0) {
          throw this.error(
            `partitioner returned ${describeRecord(p)} (not a whole number >= 0) for ${describeRecord(v)}`,
          );
        }
        partitions[i] = p;
      } else if (kb !== undefined) {
        partitions[i] = murmur2(Buffer.from(kb.buffer, kb.byteOffset, kb.length)) & 0x7fffffff;
      }
      const vb = recordValue(this.config, v);
      if (vb === undefined) valueLengths[i] = -1;
      else {
        valueLengths[i] = vb.length;
        parts.push(vb);
        size += vb.length;
      }
      if (headers !== undefined) {
        const h = headers(v);
        if (h !== undefined) {
          hdrs ??= new Array(n);
          hdrs[i] = recordHeaders(h);
        }
      }
    }
    const data = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      data.set(p, at);
      at += p.length;
    }
    const packed: PackedBatch = {
      ...this.timestampsOf(batch),
      topics,
      topicIndex,
      partitions,
      keyLengths,
      valueLengths,
      headers: hdrs,
      data: data.buffer,
    };
    const request: Request = { op: 'send', batch: packed };
    this.worker.postMessage(request, [data.buffer]);
    this.outstanding += n;
    this.records.inc(n);
    // Serialized keys and values, as handed to the producer (before compression).
    this.bytesWritten.inc(size);
  }

  /** The records' timestamps: their event times, or the `timestamp` option's (NaN for none). */
  private timestampsOf(batch: RecordBatch<T>): { timestamps?: Float64Array } {
    if (this.config.eventTimestamps === true)
      return { timestamps: Float64Array.from(batch.timestamps) };
    const of = this.config.timestamp;
    if (of === undefined) return {};
    return { timestamps: Float64Array.from(batch.values, (v) => of(v) ?? Number.NaN) };
  }

  blocked(): Promise<void> | undefined {
    if (this.formatReady !== undefined) return this.formatReady;
    if (this.failure !== undefined || this.outstanding < this.config.maxBufferedRecords)
      return undefined;
    if (this.drained === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.drained = { promise, resolve };
    }
    return this.drained.promise;
  }

  preCommit(): Json {
    if (this.failure !== undefined) throw this.failure;
    const reply = this.callSync({ op: 'preCommit' });
    if (!reply.ok) {
      this.setFailure(reply.error);
      throw this.failure;
    }
    this.outstanding = 0;
    if (reply.committable === undefined) return null;
    return this.run === undefined
      ? { ...reply.committable }
      : { ...reply.committable, prefix: this.config.prefix, run: this.run };
  }

  commit(committables: readonly Json[]): Promise<void> {
    const mine = committables.filter(isTransactionCommittable);
    if (mine.length === 0) return Promise.resolve();
    return this.call((id) => ({ op: 'commit', id, committables: mine }));
  }

  async recover(committables: readonly Json[]): Promise<void> {
    // The producer thread gets a first token before it connects: during a
    // checkpoint flush this thread is blocked and cannot run the provider.
    if (this.tokenProvider !== undefined) await this.sendToken();
    return this.call((id) => ({
      op: 'recover',
      id,
      committables: committables.filter(isTransactionCommittable),
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.call((id) => ({ op: 'close', id }));
    } finally {
      this.sync.close();
      // A clean thread is kept for the process's next writer (the next run of the job).
      if (this.reusable && this.failure === undefined && this.pendingCalls.size === 0)
        await releaseWorker(PRODUCER_THREAD, this.worker);
      else await this.worker.terminate();
    }
  }
}
