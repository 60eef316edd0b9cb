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

/**
 * A resolve hook mapping the bare specifier `weir` to this CLI's entry point.
 * Without it a job outside this package (or next to a different install)
 * would load a second copy of the library, or none at all.
 */
export function aliasWeirToSelf(): void {
  if (aliased) return;
  aliased = true;
  const target = import.meta.resolve('../../index.js');
  const hooks = `
    let target;
    let used;
    export async function initialize(data) {
      target = data.target;
      used = new Int32Array(data.used);
    }
    export async function resolve(specifier, context, next) {
      if (specifier !== 'weir') return next(specifier, context);
      Atomics.store(used, 0, 1);
      // Through the rest of the chain, so a TypeScript loader resolves (and later loads) it.
      return next(target, context);
    }`;
  registerHooks(`data:text/javascript,${encodeURIComponent(hooks)}`, {
    data: { target, used: aliasUse.buffer },
  });
}
