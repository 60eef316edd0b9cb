/**
 * Starting a worker thread from a module URL, whether Weir runs as compiled
 * JavaScript or from its TypeScript sources (tests, `node --import tsx`).
 */
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Options of {@link startWorker}: those of `new Worker`, except `eval`, which is decided here. */
export type StartWorkerOptions = Omit<WorkerOptions, 'eval'>;

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

/**
 * The URL of module `baseName` in the same folder as the module at `base`
 * (pass `import.meta.url`), with `base`'s extension: the compiled `.js` file
 * when running compiled, the `.ts` source when running from sources.
 */
export function siblingModule(baseName: string, base: string): URL {
  return new URL(`./${baseName}${extname(new URL(base).pathname)}`, base);
}

/** Whether the module at `url` is TypeScript source, which Node cannot load without a loader. */
export function isTypeScriptModule(url: URL): boolean {
  return TYPESCRIPT.has(extname(url.pathname));
}

let bootstrapPrefix: string | undefined;

/**
 * Script that registers tsx's ESM and CommonJS hooks inside the new thread
 * before importing the module: Node 20 does not apply `--import tsx` from
 * `execArgv` to worker threads. Both hooks, as `node --import tsx` installs,
 * because a `.ts` module outside an ESM package is CommonJS to Node. tsx is
 * resolved from here, not from the process's working directory.
 */
function typeScriptBootstrap(moduleUrl: URL): string {
  if (bootstrapPrefix === undefined) {
    const require = createRequire(import.meta.url);
    const api = (name: string) =>
      JSON.stringify(pathToFileURL(require.resolve(name).replace(/\.cjs$/, '.mjs')).href);
    bootstrapPrefix = `Promise.all([import(${api('tsx/esm/api')}), import(${api('tsx/cjs/api')})])
      .then(([esm, cjs]) => { esm.register(); cjs.register(); return import(`;
  }
  // No catch: a module that fails to load rejects, which the parent sees as the worker's 'error' event.
  return `${bootstrapPrefix}${JSON.stringify(moduleUrl.href)}); });`;
}

/**
 * Starts a worker thread running the module at `moduleUrl`. A compiled
 * module is started directly; a TypeScript module is loaded through tsx,
 * registered in the new thread first. `workerData`, `transferList`, `name`
 * and the other options reach the thread either way. Without options, a
 * thread {@link prestartWorker} started for the module is taken if one is
 * waiting.
 */
export function startWorker(moduleUrl: URL, options: StartWorkerOptions = {}): Worker {
  if (Object.keys(options).length === 0) {
    const waiting = prestarted.get(moduleUrl.href)?.shift();
    if (waiting !== undefined) {
      clearTimeout(idleTimers.get(waiting));
      // Held unreferenced while it waited; its taker decides again.
      waiting.ref();
      return waiting;
    }
  }
  return newWorker(moduleUrl, options);
}

function newWorker(moduleUrl: URL, options: StartWorkerOptions): Worker {
  if (!isTypeScriptModule(moduleUrl)) return new Worker(moduleUrl, options);
  return new Worker(typeScriptBootstrap(moduleUrl), { ...options, eval: true });
}

/** Threads started ahead, by module URL, each waiting for its first message. */
const prestarted = new Map<string, Worker[]>();

/**
 * Starts a thread for the module at `moduleUrl` now, for a later
 * `startWorker(moduleUrl)` to take: a thread spends most of its start
 * loading and compiling modules, which a standby member of a process group
 * does before it owns its task rather than after. The module must wait for
 * a message before it does anything, as a writer's thread waits for its
 * configuration. A thread that fails or exits while it waits is dropped and
 * its error kept from ending the process; one never taken does not keep the
 * process alive.
 */
export function prestartWorker(moduleUrl: URL): void {
  keepWaiting(moduleUrl.href, newWorker(moduleUrl, {}));
}

/** Threads handed back wait this long for a new taker, then end. */
const IDLE_MS = 30_000;
/** At most this many handed-back threads of one module wait; more end at once. */
const MAX_IDLE = 16;
const idleTimers = new WeakMap<Worker, NodeJS.Timeout>();

/**
 * Hands back a thread of the module at `moduleUrl` that its taker is done
 * with, for the next `startWorker(moduleUrl)`: the next run of a job in this
 * process (a restart after a failure, a process group member's run after a
 * take-over) then opens its writers without loading their modules again,
 * which takes most of a second. The module must treat its next first message
 * as a fresh start. The thread loses its listeners, and ends after a while
 * unused, or at once when enough already wait.
 */
export async function releaseWorker(moduleUrl: URL, worker: Worker): Promise<void> {
  for (const event of ['message', 'messageerror', 'error', 'exit', 'online'])
    worker.removeAllListeners(event);
  if (prestartedWorkers(moduleUrl) >= MAX_IDLE) {
    await worker.terminate();
    return;
  }
  const timer = setTimeout(() => void worker.terminate(), IDLE_MS);
  timer.unref();
  idleTimers.set(worker, timer);
  // First in line: loaded already, where a prestarted thread may still be loading.
  keepWaiting(moduleUrl.href, worker, true);
}

/** Holds `worker` unreferenced until a `startWorker` takes it; one that fails or exits meanwhile is dropped. */
function keepWaiting(key: string, worker: Worker, first = false): void {
  worker.unref();
  const drop = (): void => {
    const list = prestarted.get(key);
    const at = list?.indexOf(worker) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  };
  worker.on('error', drop);
  worker.once('exit', drop);
  const list = prestarted.get(key);
  if (list === undefined) prestarted.set(key, [worker]);
  else if (first) list.unshift(worker);
  else list.push(worker);
}

/** How many prestarted threads of the module at `moduleUrl` wait to be taken. */
export function prestartedWorkers(moduleUrl: URL): number {
  return prestarted.get(moduleUrl.href)?.length ?? 0;
}
