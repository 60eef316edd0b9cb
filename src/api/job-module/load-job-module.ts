import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobDefinition } from './job.js';
import { aliasWeirToSelf } from './weir-alias.js';

/** A job module that cannot be loaded: the message says why, and needs no stack trace. */
export class JobModuleError extends Error {
  override readonly name = 'JobModuleError';
}

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/**
 * Loads a job module and returns its default export. Resolves the path
 * against `cwd`, registers the tsx loader for TypeScript modules, and makes
 * `import ... from 'weir'` inside the job resolve to this CLI's own copy of
 * the library, so the environment the CLI creates and the classes the job
 * uses are the same, wherever the job file lives. (The alias covers ES
 * modules; a job Node treats as CommonJS resolves `weir` the normal way.)
 */
export interface LoadJobOptions {
  /**
   * Map bare `weir` imports to this copy of the library (default true).
   * Worker threads pass `weirAliasUsed()` (`weir-alias.ts`) of the main thread's load: the
   * hook runs on a loader thread of its own, which costs every worker a few
   * hundred milliseconds of start-up when the job does not need it.
   */
  readonly aliasWeir?: boolean;
}

export async function loadJobModule(
  specifier: string,
  cwd: string,
  options: LoadJobOptions = {},
): Promise<JobDefinition> {
  const path = resolve(cwd, specifier);
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) {
    throw new JobModuleError(`cannot find job module '${specifier}' (looked for ${path})`);
  }
  if (!info.isFile()) throw new JobModuleError(`job module '${specifier}' is not a file`);

  if (options.aliasWeir ?? true) aliasWeirToSelf();
  if (TYPESCRIPT_EXTENSIONS.has(extname(path))) await enableTypeScript();

  let loaded: unknown;
  try {
    loaded = await import(pathToFileURL(path).href);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new JobModuleError(`failed to load job module '${specifier}': ${reason}`, {
      cause: error,
    });
  }
  const definition = defaultExport(loaded);
  if (typeof definition !== 'function') {
    throw new JobModuleError(
      `job module '${specifier}' must export a job as its default export: ` +
        'export default defineJob((env, ctx) => { ... })',
    );
  }
  return definition as JobDefinition;
}

/**
 * The default export of an imported module. A module Node treats as CommonJS
 * (a .ts file outside a `"type": "module"` package, compiled by tsx) arrives
 * as `{ default: module.exports }` with the real default one level down.
 */
function defaultExport(loaded: unknown): unknown {
  const outer: unknown =
    typeof loaded === 'object' && loaded !== null ? Reflect.get(loaded, 'default') : undefined;
  if (typeof outer === 'object' && outer !== null && Reflect.get(outer, '__esModule') === true) {
    return Reflect.get(outer, 'default');
  }
  return outer;
}

let typeScriptEnabled = false;

async function enableTypeScript(): Promise<void> {
  // When the CLI itself runs from TypeScript (node --import tsx src/cli/main.ts),
  // a TypeScript loader is already active; a second one would transform twice.
  if (typeScriptEnabled || import.meta.url.endsWith('.ts')) return;
  // Both hooks, as `node --import tsx` does: a .ts file outside an ESM package is
  // CommonJS to Node, and only tsx's require hook can load it.
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
  typeScriptEnabled = true;
}
