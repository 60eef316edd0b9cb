/**
 * A worker thread that serves requests asynchronously, and synchronously
 * when the caller must not return before the answer (a transaction must be
 * prepared before a checkpoint barrier passes, and `preCommit` is
 * synchronous). The synchronous path blocks this thread with `Atomics.wait`
 * while the worker, on its own event loop, does the I/O; the answer is taken
 * with `receiveMessageOnPort`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from 'node:worker_threads';
import { WeirError } from '../../../core/errors.js';

/** Every request and response carries the request's id. */
export interface Identified {
  readonly id: number;
}

/** A request before it is given its id (distributes over unions). */
export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** How to start a worker module. */
export interface WorkerEntry {
  /** The module, or (`eval`) a script that loads it. */
  readonly code: URL | string;
  readonly eval: boolean;
  readonly module: string;
}

/**
 * Where a worker module is: compiled JavaScript next to this file, or, when
 * running from the TypeScript sources (tests, `node --import tsx`), the
 * `.ts` file loaded through tsx's loader, registered inside the worker
 * (Node 20 does not apply `--import` given in a worker's execArgv).
 */
export function workerEntry(baseName: string, base: string): WorkerEntry {
  const js = new URL(`./${baseName}.js`, base);
  if (existsSync(fileURLToPath(js))) return { code: js, eval: false, module: js.href };
  const ts = new URL(`./${baseName}.ts`, base).href;
  const tsxApi = createRequire(base)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const script = `import(${JSON.stringify(pathToFileURL(tsxApi).href)})
    .then((api) => { api.register(); return import(${JSON.stringify(ts)}); })
    .catch((error) => { console.error(error); process.exit(1); });`;
  return { code: script, eval: true, module: ts };
}

/** Data a worker started by {@link SyncWorker} receives as `workerData`. */
export interface SyncWorkerData {
  readonly port: MessagePort;
  /** Int32 counter the worker increments (and notifies) after posting each response. */
  readonly signal: SharedArrayBuffer;
}

export class SyncWorker<Req extends Identified, Res extends Identified> {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(r: Res): void; reject(e: unknown): void }>();
  private exited: Error | undefined;

  constructor(entry: WorkerEntry, name: string) {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.signal = new Int32Array(signal);
    this.port = port1;
    const data: SyncWorkerData = { port: port2, signal };
    this.worker = new Worker(entry.code, {
      eval: entry.eval,
      workerData: data,
      transferList: [port2],
      name,
    });
    this.worker.unref();
    this.port.unref();
    this.port.on('message', (res: Res) => this.settle(res));
    const fail = (error: Error) => {
      this.exited ??= error;
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`worker '${name}' exited (code ${code})`)));
  }

  private settle(res: Res): void {
    const w = this.waiting.get(res.id);
    if (w === undefined) return;
    this.waiting.delete(res.id);
    w.resolve(res);
  }

  /** Sends a request; `id` is assigned here. Returns the id and the response. */
  send(request: WithoutId<Req>): { id: number; response: Promise<Res> } {
    const id = this.nextId++;
    const response = new Promise<Res>((resolve, reject) => {
      if (this.exited !== undefined) {
        reject(this.exited);
        return;
      }
      this.waiting.set(id, { resolve, reject });
    });
    if (this.exited === undefined) this.port.postMessage({ ...request, id });
    return { id, response };
  }

  request(request: WithoutId<Req>): Promise<Res> {
    return this.send(request).response;
  }

  /**
   * Blocks until the response to request `id` arrives (its promise resolves
   * too) and returns it. Responses to other requests that arrive meanwhile
   * settle their promises as usual.
   */
  awaitSync(id: number, timeoutMs: number): Res {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited !== undefined) throw this.exited;
      const seen = Atomics.load(this.signal, 0);
      let received = receiveMessageOnPort(this.port);
      while (received !== undefined) {
        const res = received.message as Res;
        this.settle(res);
        if (res.id === id) return res;
        received = receiveMessageOnPort(this.port);
      }
      if (!this.waiting.has(id)) {
        throw new WeirError('INTERNAL', `response ${id} was taken by another reader`, {
          domain: 'internal',
        });
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new WeirError(
          'SINK_FAILED',
          `no answer from the database within ${timeoutMs} ms while sealing a transaction (is a row lock held elsewhere?)`,
          { domain: 'external', retriable: true },
        );
      }
      Atomics.wait(this.signal, 0, seen, Math.min(remaining, 1000));
    }
  }

  requestSync(request: WithoutId<Req>, timeoutMs: number): Res {
    const { id, response } = this.send(request);
    response.catch(() => {});
    return this.awaitSync(id, timeoutMs);
  }

  async terminate(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }
}
