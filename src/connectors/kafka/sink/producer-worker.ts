/**
 * The Kafka producer of one sink writer, on its own thread. The
 * writer hands it serialized batches; at a checkpoint barrier the writer
 * blocks (Atomics.wait) until this thread reports that everything written so
 * far is acknowledged by the brokers, which is what makes the barrier a
 * synchronous flush. In exactly-once mode each checkpoint interval is one
 * Kafka transaction with its own transactional id `<prefix>-<subtask>-<seq>`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort } from 'node:worker_threads';
import { type Admin, type MessageToProduce, Producer } from '@platformatic/kafka';
import { syncReplier } from '../../../util/threads/sync-channel.js';
import {
  apiErrors,
  brokerConfig,
  clientBase,
  endTransaction,
  hasApiError,
  initTransactionalId,
  newAdmin,
  transactionCoordinator,
} from '../client.js';
import { type KafkaConnection, reasonOf } from '../config.js';
import { KafkaReconnector } from '../reconnect.js';
import type {
  Notice,
  PackedBatch,
  Request,
  SyncReply,
  TransactionCommittable,
  WorkerConfig,
} from './sink-protocol.js';
import { planRecovery } from './transaction-recovery.js';

type Msg = MessageToProduce<Buffer, Buffer, Buffer, Buffer>;

interface Txn {
  readonly seq: number;
  readonly transactionalId: string;
  producer: Producer | undefined;
  /** Resolves when the producer is initialized (InitProducerId done). */
  ready: Promise<void>;
  /** Set once `ready` resolved. */
  begun: boolean;
  /** Something was sent in it: the broker may hold it open on some partitions. */
  touched: boolean;
  records: number;
}

const port = parentPort!;
let config!: WorkerConfig;
let replySync!: (reply: SyncReply) => void;
let admin!: Admin;
let failure: string | undefined;
/** Records waiting to be sent, in order. */
let queue: Msg[] = [];
let sending: Promise<void> | undefined;
let plainProducer: Producer | undefined;
let current: Txn | undefined;
let nextSeq = 1;
/** Serializes transaction starts, commits and recovery. */
let control: Promise<void> = Promise.resolve();
let recovered: Promise<void> | undefined;
/** Rides out an unreachable cluster; created on 'init'. */
let reconnector!: KafkaReconnector;
/** The connection, with an OAUTHBEARER token provider that asks the writer where it has one. */
let connection!: KafkaConnection;
/** A flush or pre-commit is running: the writer's thread is blocked and cannot answer. */
let syncCalls = 0;
let lastToken: string | undefined;
let tokenWaiters: { resolve: (token: string) => void; reject: (e: Error) => void }[] = [];
/** Recoveries and commits still running: a thread with any is not handed to another writer. */
let unsettled = 0;

/**
 * Forgets the previous writer's session: a thread outlives its writer and
 * may serve the next one of the process (see `releaseWorker`), which starts
 * with 'init' as a new thread does.
 */
function newSession(): void {
  failure = undefined;
  queue = [];
  sending = undefined;
  plainProducer = undefined;
  current = undefined;
  nextSeq = 1;
  control = Promise.resolve();
  recovered = undefined;
  syncCalls = 0;
  lastToken = undefined;
  tokenWaiters = [];
  unsettled = 0;
}

function tracked<T>(p: Promise<T>): Promise<T> {
  unsettled++;
  void p.finally(() => unsettled--).catch(() => {});
  return p;
}

function what(): string {
  return `Kafka sink '${config.operatorId}' (subtask ${config.subtaskIndex})`;
}

/**
 * A token from the writer's `tokenProvider`. While the writer's thread waits
 * for a flush it cannot run the provider, so the last token is used then
 * (a connection made during a flush is the rare case).
 */
function tokenFromWriter(): Promise<string> {
  if (syncCalls > 0 && lastToken !== undefined) return Promise.resolve(lastToken);
  return new Promise((resolve, reject) => {
    tokenWaiters.push({ resolve, reject });
    if (tokenWaiters.length === 1) notify({ kind: 'token-wanted' });
  });
}

/** A flush or pre-commit begins: the writer's thread blocks, so waiting tokens come from the last one. */
function syncCallStarted(): void {
  syncCalls++;
  if (lastToken !== undefined && tokenWaiters.length > 0) tokenArrived(lastToken, undefined);
}

function tokenArrived(token: string | undefined, error: string | undefined): void {
  const waiters = tokenWaiters;
  tokenWaiters = [];
  if (token !== undefined) lastToken = token;
  for (const w of waiters) {
    if (token !== undefined) w.resolve(token);
    else w.reject(new Error(error ?? 'no OAUTHBEARER token'));
  }
}

function workerConnection(c: WorkerConfig): KafkaConnection {
  const sasl = c.connection.sasl;
  if (!c.tokenFromWriter || sasl?.mechanism !== 'OAUTHBEARER') return c.connection;
  return { ...c.connection, sasl: { ...sasl, tokenProvider: tokenFromWriter } };
}

/**
 * Errors of a transaction coordinator that is busy for a moment (the previous
 * transaction of an id is still being aborted, the coordinator moved). They
 * come with every recovery, so they are retried quickly and quietly first.
 */
const COORDINATOR_BUSY = [
  'CONCURRENT_TRANSACTIONS',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR',
];
/** Quick retries of a busy coordinator (20 ms doubling to 1 s: about 15 s) before it counts as an outage. */
const QUICK_RETRIES = 20;

/**
 * Runs a request that is safe to repeat until it succeeds: quick retries
 * while the coordinator is busy, then the reconnect budget while the cluster
 * cannot be reached. Other errors are thrown at once.
 */
async function retrying<T>(action: string, attempt: () => Promise<T>): Promise<T> {
  for (let quick = 0; ; ) {
    try {
      const result = await attempt();
      reconnector.recovered();
      return result;
    } catch (error) {
      if (quick < QUICK_RETRIES && COORDINATOR_BUSY.some((id) => hasApiError(error, id))) {
        await sleep(Math.min(1000, 20 * 2 ** quick++));
        continue;
      }
      await sleep(reconnector.failed(error, action, 'SINK_FAILED'));
    }
  }
}

function notify(n: Notice): void {
  port.postMessage(n);
}

function fail(error: unknown): void {
  if (failure !== undefined) return;
  failure = reasonOf(error);
  const codes = apiErrors(error);
  if (codes.length > 0) failure += ` [${codes.join(', ')}]`;
  notify({ kind: 'failed', error: failure });
}

function unpack(b: PackedBatch): Msg[] {
  const data = Buffer.from(b.data);
  const n = b.topicIndex.length;
  const out = new Array<Msg>(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const m = { topic: b.topics[b.topicIndex[i]!]! } as Msg & {
      key?: Buffer;
      value?: Buffer;
      partition?: number;
      headers?: Map<Buffer, Buffer>;
      timestamp?: bigint;
    };
    const kl = b.keyLengths[i]!;
    if (kl >= 0) {
      m.key = data.subarray(at, at + kl);
      at += kl;
    }
    const vl = b.valueLengths[i]!;
    if (vl >= 0) {
      m.value = data.subarray(at, at + vl);
      at += vl;
    }
    const p = b.partitions[i]!;
    if (p >= 0) m.partition = p;
    const ts = b.timestamps?.[i];
    if (ts !== undefined && !Number.isNaN(ts)) m.timestamp = BigInt(Math.trunc(ts));
    const h = b.headers?.[i];
    if (h !== undefined) m.headers = new Map(h.map(([k, v]) => [Buffer.from(k), Buffer.from(v)]));
    out[i] = m;
  }
  return out;
}

function transactionalId(subtask: number, seq: number): string {
  return `${config.transactionalIdPrefix}-${subtask}-${seq}`;
}

function producerOptions(extra: object) {
  return {
    ...clientBase(connection, what()),
    idempotent: true,
    acks: config.acks,
    retries: 5,
    retryDelay: 250,
    autocreateTopics: true,
    ...(config.compression === 'none' ? {} : { compression: config.compression }),
    ...extra,
  };
}

/** Starts transaction `seq`: InitProducerId (fencing older sessions of the id) and begin. */
function startTxn(seq: number): Txn {
  const tid = transactionalId(config.subtaskIndex, seq);
  const txn: Txn = {
    seq,
    transactionalId: tid,
    producer: undefined,
    ready: Promise.resolve(),
    begun: false,
    touched: false,
    records: 0,
  };
  // Nothing was written under this id yet, so a failed start can be repeated
  // with a fresh producer (its InitProducerId fences the failed one).
  txn.ready = control.then(() =>
    retrying(`begin transaction '${tid}'`, async () => {
      // The producer's timeout is also the transaction timeout it asks for.
      const producer = new Producer(
        producerOptions({
          transactionalId: tid,
          timeout: config.transactionTimeoutMs,
          producerId: -1n,
          producerEpoch: -1,
        }),
      );
      try {
        await producer.beginTransaction();
      } catch (error) {
        void Promise.resolve(producer.close(true)).catch(() => {});
        throw error;
      }
      txn.producer = producer;
      txn.begun = true;
    }),
  );
  control = txn.ready.catch(() => {});
  txn.ready.catch(fail);
  return txn;
}

/** Records in one produce request at most. */
const REQUEST_RECORDS = 8192;
/**
 * Bytes of records in one produce request at most, estimated: a batch for
 * one partition must stay under the broker's `message.max.bytes` (1 MiB by
 * default), and all of a request's records may go to one partition.
 */
const REQUEST_BYTES = 900 * 1024;
/** What a record adds to a batch beyond its key, value and headers (length varints, deltas). */
const RECORD_OVERHEAD_BYTES = 24;

/** Takes the next produce request's records off the queue (at least one). */
function nextRequest(): Msg[] {
  let bytes = 0;
  let n = 0;
  while (n < queue.length && n < REQUEST_RECORDS) {
    const m = queue[n]!;
    let size = RECORD_OVERHEAD_BYTES + (m.key?.length ?? 0) + (m.value?.length ?? 0);
    const headers = m.headers;
    if (headers instanceof Map) for (const [k, v] of headers) size += k.length + v.length + 2;
    if (n > 0 && bytes + size > REQUEST_BYTES) break;
    bytes += size;
    n++;
  }
  if (n < queue.length) return queue.splice(0, n);
  const all = queue;
  queue = [];
  return all;
}

/** Sends everything queued, one request at a time (ordered, idempotent). */
function pump(): Promise<void> {
  if (sending !== undefined) return sending;
  const run = async () => {
    while (queue.length > 0 && failure === undefined) {
      const messages = nextRequest();
      if (config.exactlyOnce) {
        const txn = current!;
        await txn.ready;
        const tx = txn.producer!.transaction!;
        txn.touched = true;
        await tx.send({ messages });
        txn.records += messages.length;
      } else {
        // At-least-once allows a batch to be written again when its
        // acknowledgement was lost with the connection.
        await reconnector.run('write records', 'SINK_FAILED', async () => {
          plainProducer ??= new Producer(
            producerOptions({ timeout: config.connection.requestTimeoutMs }),
          );
          try {
            await plainProducer.send({ messages });
          } catch (error) {
            const broken = plainProducer;
            plainProducer = undefined;
            void Promise.resolve(broken.close(true)).catch(() => {});
            throw error;
          }
        });
      }
      notify({ kind: 'acked', records: messages.length });
    }
  };
  sending = run()
    .catch(fail)
    .finally(() => {
      sending = undefined;
    });
  return sending;
}

async function flush(): Promise<void> {
  await recovered;
  while (queue.length > 0 || sending !== undefined) {
    await pump();
    if (failure !== undefined) break;
  }
  if (failure !== undefined) throw new Error(failure);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

/** Flush, seal the current transaction into a committable, and start the next one. */
async function preCommit(): Promise<TransactionCommittable | undefined> {
  const txn = current;
  if (reconnector.inOutage && (queue.length > 0 || sending !== undefined)) {
    // The task thread waits for this answer: fail the checkpoint now rather
    // than hold the task for the whole outage (the restart resumes from the
    // last completed checkpoint and aborts the transaction).
    throw new Error(
      'the Kafka cluster is unreachable, so records written since the last checkpoint cannot be flushed',
    );
  }
  await flush();
  if (!config.exactlyOnce || txn === undefined) return undefined;
  if (!txn.begun && txn.records === 0) {
    // The transaction is still being started (the cluster is away) and holds
    // nothing: this checkpoint seals nothing, and the transaction carries on
    // into the next interval. Its sequence number stays unsealed, so a
    // recovery from this checkpoint still aborts it.
    return {
      kind: 'kafka-txn',
      transactionalId: transactionalId(config.subtaskIndex, txn.seq - 1),
      producerId: '-1',
      producerEpoch: -1,
      empty: true,
      subtask: config.subtaskIndex,
      parallelism: config.parallelism,
      seq: txn.seq - 1,
    };
  }
  await txn.ready;
  const producer = txn.producer!;
  const committable: TransactionCommittable = {
    kind: 'kafka-txn',
    transactionalId: txn.transactionalId,
    producerId: String(producer.producerId),
    producerEpoch: producer.producerEpoch ?? 0,
    empty: txn.records === 0,
    subtask: config.subtaskIndex,
    parallelism: config.parallelism,
    seq: txn.seq,
  };
  current = startTxn(nextSeq++);
  // The sealed transaction's producer is no longer needed: it is committed
  // (or aborted) by producer id and epoch. Closing it must not end it.
  void Promise.resolve(producer.close(true)).catch(() => {});
  return committable;
}

/** How long closing waits for the broker to abort the open transaction. */
const CLOSE_ABORT_MS = 10_000;

/**
 * Aborts the transaction opened after the last pre-commit, if anything went
 * into it. No checkpoint covers it, so it can never be committed, and while
 * it stays open it holds back the last stable offset of every partition it
 * wrote to: read_committed consumers of those partitions see nothing after
 * its first record, from any producer, until it ends. Left open it would end
 * only when a restore fences its id or the broker's transaction timeout
 * passes (minutes). Pre-committed transactions are not touched: a restore
 * from their checkpoint commits them. A failed abort leaves the old way.
 */
async function abortOpen(txn: Txn | undefined): Promise<void> {
  const tx = txn?.producer?.transaction;
  if (!config.exactlyOnce || txn === undefined || !txn.touched || !tx) return;
  try {
    await withTimeout(tx.abort(), CLOSE_ABORT_MS, `aborting transaction '${txn.transactionalId}'`);
  } catch (error) {
    // Fenced: a restore of its checkpoint already aborted it.
    if (hasApiError(error, 'PRODUCER_FENCED') || hasApiError(error, 'INVALID_PRODUCER_EPOCH'))
      return;
    notify({
      kind: 'warning',
      message: `${what()}: could not abort transaction '${txn.transactionalId}' on close (${reasonOf(error)}); read_committed readers of its partitions wait until a restore fences it or it times out`,
    });
  }
}

/** Commits a pre-committed transaction by its saved producer id and epoch (idempotent). */
async function commitOne(c: TransactionCommittable): Promise<void> {
  if (c.empty) return;
  try {
    // Committing by producer id and epoch can be repeated: wait out a busy
    // coordinator, or an unreachable cluster within the budget.
    await retrying(`commit transaction '${c.transactionalId}'`, async () => {
      const connection = await transactionCoordinator(admin, c.transactionalId);
      await endTransaction(
        connection,
        c.transactionalId,
        BigInt(c.producerId),
        c.producerEpoch,
        true,
      );
    });
    notify({ kind: 'stat', name: 'committed', count: 1 });
  } catch (error) {
    const codes = apiErrors(error).join(', ');
    throw new Error(
      `cannot commit Kafka transaction '${c.transactionalId}' (producer ${c.producerId}, epoch ${c.producerEpoch}): ${reasonOf(error)}${codes ? ` [${codes}]` : ''}. ` +
        (hasApiError(error, 'PRODUCER_FENCED') ||
        hasApiError(error, 'INVALID_PRODUCER_EPOCH') ||
        hasApiError(error, 'INVALID_TXN_STATE')
          ? "The broker no longer has this transaction open: it was most likely aborted because it outlived transactionTimeoutMs (the job was down too long), so its records are lost. Raise transactionTimeoutMs (up to the broker's transaction.max.timeout.ms) or restart failed jobs sooner."
          : 'The transaction stays open on the broker; restoring the job from the same checkpoint retries the commit.'),
    );
  }
}

/** The new epoch of a transactional id after InitProducerId (which aborts what it left open). */
async function fence(tid: string): Promise<number> {
  return retrying(`abort what transaction '${tid}' left open`, async () => {
    const connection = await transactionCoordinator(admin, tid);
    const { producerEpoch } = await initTransactionalId(
      connection,
      tid,
      config.transactionTimeoutMs,
    );
    return producerEpoch;
  });
}

async function checkTimeouts(): Promise<void> {
  const max = Number(
    await retrying('read the broker configuration', () =>
      brokerConfig(admin, 'transaction.max.timeout.ms'),
    ),
  );
  const t = config.transactionTimeoutMs;
  if (Number.isFinite(max) && t > max) {
    throw new Error(
      `transactionTimeoutMs is ${t} ms but the broker's transaction.max.timeout.ms is ${max} ms, so the broker would refuse every transaction. ` +
        `Set the sink's transactionTimeoutMs to at most ${max}, or raise transaction.max.timeout.ms on the brokers.`,
    );
  }
  const interval = config.checkpointIntervalMs;
  if (interval !== undefined) {
    const needed = interval + (config.checkpointTimeoutMs ?? 60_000);
    if (t <= needed) {
      throw new Error(
        `transactionTimeoutMs (${t} ms) must exceed the checkpoint interval plus the checkpoint timeout (${needed} ms): a transaction stays open from its first record until the checkpoint after it completes, and the broker aborts it after transactionTimeoutMs` +
          (Number.isFinite(max) ? ` (the broker allows at most ${max} ms)` : ''),
      );
    }
  }
}

/**
 * On start: commit the restored checkpoint's transactions this subtask owns,
 * then abort whatever later transactions of their families (and of its own)
 * are still open, probing `<family>-<seq>` upwards until an id that was never
 * used, and continue numbering after them ({@link planRecovery}).
 */
async function recover(all: readonly TransactionCommittable[]): Promise<void> {
  if (!config.exactlyOnce) return;
  await checkTimeouts();
  const plan = planRecovery(all, {
    prefix: config.transactionalIdPrefix,
    subtask: config.subtaskIndex,
    parallelism: config.parallelism,
  });
  for (const c of plan.commit) await commitOne(c);
  let aborted = 0;
  const own = `${config.transactionalIdPrefix}-${config.subtaskIndex}`;
  for (const { family, fromSeq } of plan.fence) {
    let seq = fromSeq;
    for (;;) {
      const epoch = await fence(`${family}-${seq}`);
      if (epoch === 0) break;
      aborted++;
      seq++;
    }
    if (family === own) nextSeq = seq;
  }
  if (aborted > 0) notify({ kind: 'stat', name: 'aborted', count: aborted });
}

port.on('message', (m: Request) => {
  switch (m.op) {
    case 'init':
      newSession();
      config = m.config;
      connection = workerConnection(config);
      replySync = syncReplier(m.sync);
      admin = newAdmin(connection, what());
      reconnector = new KafkaReconnector(connection, what(), {
        log: (message) => notify({ kind: 'warning', message }),
        counter: { inc: () => notify({ kind: 'stat', name: 'reconnects', count: 1 }) },
      });
      return;
    case 'send':
      for (const msg of unpack(m.batch)) queue.push(msg);
      if (recovered !== undefined) void recovered.then(() => pump());
      return;
    case 'flush':
      syncCallStarted();
      withTimeout(flush(), config.flushTimeoutMs, 'flushing the Kafka sink')
        .finally(() => syncCalls--)
        .then(
          () => replySync({ ok: true }),
          (e: unknown) => replySync({ ok: false, error: reasonOf(e) }),
        );
      return;
    case 'preCommit':
      syncCallStarted();
      withTimeout(preCommit(), config.flushTimeoutMs, 'flushing the Kafka transaction')
        .finally(() => syncCalls--)
        .then(
          (committable) =>
            replySync(committable === undefined ? { ok: true } : { ok: true, committable }),
          (e: unknown) => replySync({ ok: false, error: reasonOf(e) }),
        );
      return;
    case 'token':
      tokenArrived(m.token, m.error);
      return;
    case 'recover':
      recovered = tracked(recover(m.committables)).then(() => {
        if (config.exactlyOnce) current = startTxn(nextSeq++);
      });
      recovered.then(
        () => {
          notify({ kind: 'done', id: m.id });
          void pump();
        },
        (e: unknown) => notify({ kind: 'done', id: m.id, error: reasonOf(e) }),
      );
      return;
    case 'commit': {
      const id = m.id;
      control = tracked(
        control.then(async () => {
          for (const c of m.committables) await commitOne(c);
        }),
      );
      control.then(
        () => notify({ kind: 'done', id }),
        (e: unknown) => notify({ kind: 'done', id, error: reasonOf(e) }),
      );
      control = control.catch(() => {});
      return;
    }
    case 'close': {
      const id = m.id;
      const closing = async () => {
        // At-least-once: whatever was written goes out. Exactly-once: an open
        // transaction is never committed here (no checkpoint covers it).
        if (!config.exactlyOnce && failure === undefined) await flush();
        await sending?.catch(() => {});
        await current?.ready.catch(() => {});
        await abortOpen(current);
        await Promise.allSettled([
          current?.producer?.close(true),
          plainProducer?.close(),
          admin.close(),
        ]);
      };
      closing().then(
        () =>
          notify({
            kind: 'done',
            id,
            reusable: failure === undefined && unsettled === 0 && sending === undefined,
          }),
        (e: unknown) => notify({ kind: 'done', id, error: reasonOf(e) }),
      );
      return;
    }
  }
});
