import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, buildSync } from 'esbuild';

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

/**
 * The modules Weir starts as worker threads, bundled beside the CLI where it looks for them:
 * by `siblingModule` (the sinks' workers) and the job's worker-thread entry (`--workers`).
 */
const WORKER_MODULES: Readonly<Record<string, string>> = {
  'producer-worker': 'src/connectors/kafka/sink/producer-worker.ts',
  'transaction-worker': 'src/connectors/postgres/sink/transaction-worker.ts',
  'job-module/worker-entry': 'src/api/job-module/worker-entry.ts',
};

const bundledClis = new Map<string, { dir: string; cli: string; job: string }>();

/**
 * The `weir` CLI and a job fixture bundled together (code they share in chunks of its own, so
 * the job sees the CLI's very modules), for tests that start the CLI as many processes: `node
 * <cli> run <job>` loads in about 1.3 CPU-seconds what `node --import tsx src/cli/main.ts`
 * compiles in about 3, and each worker thread of `--workers` loads the bundle too. The job
 * keeps the fixture's file name (a job is named after it). Bundled once per fixture and test
 * file, synchronously (callers start members synchronously); {@link removeBundledClis}
 * removes them.
 */
export function bundledCli(fixture: string): { cli: string; job: string } {
  const known = bundledClis.get(fixture);
  if (known !== undefined) return known;
  mkdirSync(join(ROOT, '.weir'), { recursive: true });
  const outdir = mkdtempSync(join(ROOT, '.weir', 'cli-'));
  const jobName = basename(fixture, extname(fixture));
  if (jobName === 'main' || jobName in WORKER_MODULES)
    throw new Error(`a fixture named ${jobName} would replace a module of the bundle`);
  const entryPoints: Record<string, string> = {
    main: join(ROOT, 'src/cli/main.ts'),
    [jobName]: join(ROOT, fixture),
  };
  for (const [name, source] of Object.entries(WORKER_MODULES))
    entryPoints[name] = join(ROOT, source);
  // `.js`: the package is an ES module package, and Weir finds its worker modules by that extension.
  buildSync({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  // The web UI's files, where its server (in a chunk at the top of outdir) looks for them.
  cpSync(join(ROOT, 'src/ui/static'), join(outdir, 'static'), { recursive: true });
  const bundle = { dir: outdir, cli: join(outdir, 'main.js'), job: join(outdir, `${jobName}.js`) };
  bundledClis.set(fixture, bundle);
  return bundle;
}

/** Removes the bundles of {@link bundledCli} (after a test file, its members stopped). */
export function removeBundledClis(): void {
  for (const { dir } of bundledClis.values()) rmSync(dir, { recursive: true, force: true });
  bundledClis.clear();
}
