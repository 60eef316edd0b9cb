import { mkdir, mkdtemp } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Bundles a job fixture and the Weir sources it imports into one ES module,
 * for tests that start it as a process many times: `node --import tsx` spends
 * one to two CPU-seconds per start compiling and loading hundreds of modules,
 * `node` on the bundle a fraction of that. Packages stay external, so the
 * bundle lives in the repository's `.weir/` (ignored by git), where Node finds
 * node_modules; remove its directory (`dirname`) when done.
 *
 * `workers` are the sources of modules the job starts as worker threads by
 * `siblingModule` (the Kafka sink's `producer-worker.ts`, the PostgreSQL
 * sink's `transaction-worker.ts`): each is bundled beside the job under its
 * own name, which is where `siblingModule` looks from the bundle.
 */
export async function bundledFixture(
  fixture: string,
  workers: readonly string[] = [],
): Promise<string> {
  await mkdir(join(ROOT, '.weir'), { recursive: true });
  const outdir = await mkdtemp(join(ROOT, '.weir', 'fixture-'));
  const entryPoints: Record<string, string> = { job: fixture };
  for (const worker of workers) entryPoints[basename(worker, extname(worker))] = worker;
  await build({
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return join(outdir, 'job.mjs');
}
