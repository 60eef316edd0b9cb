import type { MessagePort, Worker } from 'node:worker_threads';
import { type ErrorDomain, WeirError, type WeirErrorCode } from '../../core/errors.js';
import type { Key } from '../../core/key-groups.js';
import type { StateQueryAnswer } from '../../core/queryable-state.js';
import type { MetricSample } from '../../metrics/registry.js';
import { startWorker } from '../../util/threads/start-worker.js';
import type {
  CollectedRecords,
  FromWorker,
  SerializedError,
  ToWorker,
  WorkerSetup,
} from './protocol.js';

/** A worker's answer to a request (`complete`, `final-snapshot`, `precommit`). */
export type WorkerReply = Extract<FromWorker, { t: 'reply' }>;

/**
 * The main thread's handle on one worker thread: starts it, sends it
 * commands, matches its replies to requests, keeps its latest metrics and
 * what it reported when it closed, and turns its errors and unexpected exit
 * into a failure naming the worker.
 */
export class WorkerThread {
  readonly thread: Worker;
  /** All the worker's tasks have finished (the final checkpoint may begin). */
  finished = false;
  /** The worker has built its tasks and reported its sources' state. */
  started = false;
  /** What the worker reported when it closed; undefined until then. */
  closed: { collected: CollectedRecords[] } | undefined;
  /** The worker's newest metric samples (sent twice a second, and when it closes). */
  metrics: MetricSample[] = [];
  /** How many metric reports have arrived: to wait for one asked for. */
  metricReports = 0;
  private nextReq = 0;
  private readonly replies = new Map<
    number,
    { resolve: (m: WorkerReply) => void; reject: (e: unknown) => void }
  >();
  /** Why the worker can no longer answer: requests fail with it rather than wait forever. */
  private dead: WeirError | undefined;
  private readonly memo = new Map<string, Promise<WorkerReply>>();

  constructor(
    readonly index: number,
    entry: URL,
    setup: WorkerSetup,
    transfer: MessagePort[],
    onMessage: (w: WorkerThread, m: FromWorker) => void,
    onFailure: (error: WeirError) => void,
  ) {
    this.thread = spawnWorker(entry, setup, transfer);
    this.thread.on('message', (m: FromWorker) => {
      if (m.t === 'reply') {
        const r = this.replies.get(m.req);
        this.replies.delete(m.req);
        r?.resolve(m);
      } else if (m.t === 'failed') fail(workerError(index, m.error));
      else if (m.t === 'closed') {
        this.metrics = m.metrics;
        this.metricReports++;
        this.closed = { collected: m.collected };
      } else if (m.t === 'metrics') {
        this.metrics = m.metrics;
        this.metricReports++;
      } else if (m.t === 'finished') this.finished = true;
      else if (m.t === 'started') this.started = true;
      onMessage(this, m);
    });
    const fail = (error: WeirError) => {
      this.dead ??= error;
      for (const r of this.replies.values()) r.reject(error);
      this.replies.clear();
      onFailure(error);
    };
    this.thread.on('error', (e) => fail(workerError(index, serialize(e))));
    this.thread.on('exit', (code) => {
      if (this.closed === undefined)
        fail(
          new WeirError('INTERNAL', `worker ${index} exited with code ${code} while the job ran`, {
            domain: 'internal',
            retriable: true,
          }),
        );
    });
  }

  /** Whether the thread can still answer (it has not died, exited or been terminated). */
  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Sends a command that needs no answer. */
  post(m: ToWorker): void {
    this.thread.postMessage(m);
  }

  /** Sends a request once per (kind, checkpoint): every proxy of this worker shares the answer. */
  request(kind: 'complete' | 'final-snapshot' | 'precommit', id: number): Promise<WorkerReply> {
    const key = `${kind}/${id}`;
    let p = this.memo.get(key);
    if (p === undefined) {
      const req = this.nextReq++;
      const dead = this.dead;
      p =
        dead === undefined
          ? new Promise((resolve, reject) => this.replies.set(req, { resolve, reject }))
          : Promise.reject(dead);
      this.memo.set(key, p);
      this.post({ t: kind, req, id });
    }
    return p;
  }

  /** Reads queryable state in the task at `slot` (every read is its own request). */
  async query(slot: number, uid: string, key: Key): Promise<StateQueryAnswer | undefined> {
    if (this.dead !== undefined) throw this.dead;
    const req = this.nextReq++;
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      this.replies.set(req, { resolve, reject });
      this.post({ t: 'query', req, slot, uid, key });
    });
    if (reply.error !== undefined) throw workerError(this.index, reply.error);
    return reply.state ?? undefined;
  }
}

function spawnWorker(entry: URL, setup: WorkerSetup, transfer: MessagePort[]): Worker {
  return startWorker(entry, { workerData: { weirWorker: true, setup }, transferList: transfer });
}

function serialize(e: unknown): SerializedError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  return { name: e.name, message: e.message, stack: e.stack };
}

/** The error a worker reported, naming the worker (and, as the original did, the operator). */
function workerError(index: number, e: SerializedError): WeirError {
  const error = new WeirError(
    (e.code as WeirErrorCode | undefined) ?? 'INTERNAL',
    `${e.message} (in worker ${index}${e.operatorId === undefined ? '' : `, operator '${e.operatorId}'`})`,
    {
      domain: (e.domain as ErrorDomain | undefined) ?? 'internal',
      ...(e.operatorId === undefined ? {} : { operatorId: e.operatorId }),
      ...(e.record === undefined ? {} : { record: e.record }),
      retriable: e.retriable ?? false,
      ...(e.restartable === false ? { restartable: false } : {}),
      ...(e.cause === undefined ? {} : { cause: revived(e.cause) }),
    },
  );
  if (e.stack !== undefined)
    error.stack = `${error.name}: ${error.message}\n(worker ${index}) ${e.stack}`;
  return error;
}

/** A plain Error standing for one a worker threw (its cause chain included). */
function revived(e: SerializedError): Error {
  const error = new Error(
    e.message,
    e.cause === undefined ? undefined : { cause: revived(e.cause) },
  );
  error.name = e.name;
  if (e.stack !== undefined) error.stack = e.stack;
  return error;
}
