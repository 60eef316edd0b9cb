/**
 * A worker thread that serves requests asynchronously, and synchronously
 * when the caller must not return before the answer (a transaction must be
 * prepared before a checkpoint barrier passes, and `preCommit` is
 * synchronous). Requests and responses carry ids; the synchronous path
 * blocks on the {@link SyncChannel} the worker answers on.
 */
import type { Worker } from 'node:worker_threads';
import { WeirError } from '../../../core/errors.js';
import { startWorker } from '../../../util/threads/start-worker.js';
import { SyncChannel } from '../../../util/threads/sync-channel.js';

/** Every request and response carries the request's id. */
export interface Identified {
  readonly id: number;
}

/** A request before it is given its id (distributes over unions). */
export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * Requests to a worker module started with the {@link SyncChannelEnd} of a
 * channel as its `workerData`; the worker answers every request on it.
 */
export class SyncWorker<Req extends Identified, Res extends Identified> {
  private readonly worker: Worker;
  private readonly channel = new SyncChannel();
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(r: Res): void; reject(e: unknown): void }>();
  private exited: Error | undefined;

  constructor(moduleUrl: URL, name: string) {
    const remote = this.channel.remote;
    this.worker = startWorker(moduleUrl, {
      workerData: remote,
      transferList: [remote.port],
      name,
    });
    this.worker.unref();
    this.channel.port.unref();
    this.channel.port.on('message', (res: Res) => this.settle(res));
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
    if (this.exited === undefined) this.channel.port.postMessage({ ...request, id });
    return { id, response };
  }

  /** Sends a request and resolves with its response. */
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
      const left = Math.max(deadline - Date.now(), 0);
      const received = this.channel.receiveSync(Math.min(left, 1000));
      if (received !== undefined) {
        const res = received.message as Res;
        this.settle(res);
        if (res.id === id) return res;
        continue;
      }
      if (!this.waiting.has(id)) {
        throw new WeirError('INTERNAL', `response ${id} was taken by another reader`, {
          domain: 'internal',
        });
      }
      if (deadline - Date.now() <= 0) {
        throw new WeirError(
          'SINK_FAILED',
          `no answer from the database within ${timeoutMs} ms while sealing a transaction (is a row lock held elsewhere?)`,
          { domain: 'external', retriable: true },
        );
      }
    }
  }

  /** Sends a request and blocks until its response arrives (see {@link awaitSync}). */
  requestSync(request: WithoutId<Req>, timeoutMs: number): Res {
    const { id, response } = this.send(request);
    response.catch(() => {});
    return this.awaitSync(id, timeoutMs);
  }

  /** Stops the worker; requests still waiting fail. */
  async terminate(): Promise<void> {
    this.channel.close();
    await this.worker.terminate();
  }
}
