/**
 * Runs a job module both ways: at parallelism 1 on the calling thread, and at
 * parallelism 2 on two worker threads, and returns what each collecting sink
 * received, sorted (subtasks interleave differently on different threads).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type JobResult, type RunJobModuleOptions, runJobModule } from '../../src/index.js';

export const fixture = (name: string) => resolve(import.meta.dirname, 'fixtures', name);

/** A temporary directory made before the file's tests and removed after them; call inside the tests for its path. */
export function scratchDirectory(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error('the scratch directory exists only while tests run');
    return dir;
  };
}

/** The committed output of `job` (a checkpointed file job) on one thread, written under `dir`. */
export async function referenceOutput(job: string, dir: string): Promise<string[]> {
  const out = join(dir, 'reference');
  await runJobModule(job, { args: [out], parallelism: 1 });
  return committed(out);
}

/** The lines of every committed part file (hidden files are uncommitted), sorted. */
export async function committed(out: string): Promise<string[]> {
  const lines: string[] = [];
  for (const f of (await readdir(out)).filter((f) => !f.startsWith('.')))
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  return lines.sort();
}

async function run(
  path: string,
  sinks: readonly string[] | undefined,
  options: RunJobModuleOptions,
): Promise<{ collected: Record<string, string[]>; result: JobResult }> {
  const run = await runJobModule(path, options);
  const collected: Record<string, string[]> = {};
  for (const sink of sinks ?? [undefined]) {
    collected[sink ?? 'out'] = run
      .collected(sink)
      .map((v) => JSON.stringify(v))
      .sort();
  }
  return { collected, result: run.result };
}

export async function collectedBy(
  path: string,
  sinks: readonly string[] | undefined,
  options: RunJobModuleOptions,
): Promise<Record<string, string[]>> {
  return (await run(path, sinks, options)).collected;
}

/**
 * The results on one thread (parallelism 1) and on two workers (parallelism 2),
 * and each run's `JobResult` (for metrics).
 */
export async function bothWays(
  path: string,
  sinks?: readonly string[],
  options: RunJobModuleOptions = {},
): Promise<{
  single: Record<string, string[]>;
  workers: Record<string, string[]>;
  results: { single: JobResult; workers: JobResult };
}> {
  const single = await run(path, sinks, { ...options, parallelism: 1 });
  const workers = await run(path, sinks, { ...options, parallelism: 2, workers: 2 });
  return {
    single: single.collected,
    workers: workers.collected,
    results: { single: single.result, workers: workers.result },
  };
}
