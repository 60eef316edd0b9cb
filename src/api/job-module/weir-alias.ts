/**
 * The resolve hook that maps bare `weir` imports in job modules to this copy
 * of the library, and whether it was used. Apart from the module loader so
 * the environment, which only asks `weirAliasUsed()` when it starts worker
 * threads, needs nothing of job modules.
 */
import { register as registerHooks } from 'node:module';

let aliased = false;
/** Set (to 1) by the resolve hook the first time it maps `weir`; shared with the loader thread. */
const aliasUse = new Int32Array(new SharedArrayBuffer(4));

/** Whether a job module loaded in this thread imported `weir` (directly or through its imports). */
export function weirAliasUsed(): boolean {
  return Atomics.load(aliasUse, 0) === 1;
}

/** The package's subpath exports (package.json "exports"), relative to this module. */
const SUBPATHS: Readonly<Record<string, string>> = {
  weir: '../../index.js',
  'weir/kafka': '../../connectors/kafka/index.js',
  'weir/postgres': '../../connectors/postgres/index.js',
  'weir/nexmark': '../../connectors/nexmark/index.js',
  'weir/testing': '../../testing/index.js',
  'weir/metrics': '../../metrics/index.js',
  'weir/ui': '../../ui/index.js',
};

/**
 * A resolve hook mapping the bare specifier `weir` and its subpaths
 * (`weir/kafka`, ...) to this CLI's own modules. Without it a job outside
 * this package (or next to a different install) would load a second copy of
 * the library, or none at all, and a job importing both `weir` and
 * `weir/kafka` could get two copies whose classes do not match.
 */
export function aliasWeirToSelf(): void {
  if (aliased) return;
  aliased = true;
  const targets: Record<string, string> = {};
  for (const [specifier, path] of Object.entries(SUBPATHS)) {
    targets[specifier] = import.meta.resolve(path);
  }
  const hooks = `
    let targets;
    let used;
    export async function initialize(data) {
      targets = data.targets;
      used = new Int32Array(data.used);
    }
    export async function resolve(specifier, context, next) {
      const target = Object.hasOwn(targets, specifier) ? targets[specifier] : undefined;
      if (target === undefined) return next(specifier, context);
      Atomics.store(used, 0, 1);
      // Through the rest of the chain, so a TypeScript loader resolves (and later loads) it.
      return next(target, context);
    }`;
  registerHooks(`data:text/javascript,${encodeURIComponent(hooks)}`, {
    data: { targets, used: aliasUse.buffer },
  });
}
