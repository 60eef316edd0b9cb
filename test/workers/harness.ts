/**
 * Runs a job module both ways: at parallelism 1 on the calling thread, and at
 * parallelism 2 on two worker threads, and returns what each collecting sink
 * received, sorted (subtasks interleave differently on different threads).
 */
import { resolve } from 'node:path';
import { type JobResult, type RunJobModuleOptions, runJobModule } from '../../src/index.js';

export const fixture = (name: string) => resolve(import.meta.dirname, 'fixtures', name);

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
