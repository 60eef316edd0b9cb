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
 * and the other options reach the thread either way.
 */
export function startWorker(moduleUrl: URL, options: StartWorkerOptions = {}): Worker {
  if (!isTypeScriptModule(moduleUrl)) return new Worker(moduleUrl, options);
  return new Worker(typeScriptBootstrap(moduleUrl), { ...options, eval: true });
}
