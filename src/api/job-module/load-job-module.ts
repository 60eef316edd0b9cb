import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
 * modules; a job Node treats as CommonJS resolves `weir` the normal way,
 * from its own project, and gets Weir's ES modules through Node's require of
 * ES modules.)
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
    // A .cts module is CommonJS whatever its package says. Through `import()`
    // the TypeScript loader would hand Node its source, and Node's require for
    // such modules cannot load ES modules such as `weir`; `require` can.
    loaded =
      extname(path) === '.cts'
        ? { default: createRequire(import.meta.url)(path) }
        : await import(pathToFileURL(path).href);
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
 * Imports a module of the user's other than a job (the functions a SQL script's CREATE
 * FUNCTION names): TypeScript through the same loader as a job module, `weir` as this copy.
 */
export async function importUserModule(path: string): Promise<Record<string, unknown>> {
  aliasWeirToSelf();
  if (TYPESCRIPT_EXTENSIONS.has(extname(path))) await enableTypeScript();
  const loaded = (
    extname(path) === '.cts'
      ? { default: createRequire(import.meta.url)(path) }
      : await import(pathToFileURL(path).href)
  ) as Record<string, unknown>;
  // A TypeScript module Node ran as CommonJS (outside a `"type": "module"` package) has its
  // exports on `default`, marked `__esModule` by the compiler.
  const outer: unknown = Reflect.get(loaded, 'default');
  if (typeof outer === 'object' && outer !== null && Reflect.get(outer, '__esModule') === true)
    return {
      ...(outer as Record<string, unknown>),
      ...loaded,
      default: Reflect.get(outer, 'default'),
    };
  return loaded;
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
  const extensions = moduleExtensions();
  const nativeJs = extensions['.js'];
  cjs.register();
  const compiledJs = extensions['.js'];
  if (nativeJs !== undefined && compiledJs !== undefined && nativeJs !== compiledJs) {
    // tsx's require hook would compile Weir's own ES modules to CommonJS when a
    // CommonJS job requires `weir`: a second copy of the library, whose classes
    // and symbols are not the engine's. Node loads them itself (require of ES
    // modules, Node >= 20.19), from the same module cache as this CLI.
    const ownFiles = fileURLToPath(new URL('../../', import.meta.url));
    extensions['.js'] = function (this: unknown, module: unknown, filename: string): unknown {
      const own =
        filename.startsWith(ownFiles) && !filename.includes('node_modules', ownFiles.length);
      return (own ? nativeJs : compiledJs).call(this, module, filename);
    };
  }
  typeScriptEnabled = true;
}

type ExtensionHandler = (this: unknown, module: unknown, filename: string) => unknown;

/** `Module._extensions`, the CommonJS loader's table of file handlers that require hooks replace. */
function moduleExtensions(): Record<string, ExtensionHandler | undefined> {
  const moduleClass: unknown = createRequire(import.meta.url)('node:module');
  const table: unknown =
    typeof moduleClass === 'function' ? Reflect.get(moduleClass, '_extensions') : undefined;
  return typeof table === 'object' && table !== null
    ? (table as Record<string, ExtensionHandler | undefined>)
    : {};
}
