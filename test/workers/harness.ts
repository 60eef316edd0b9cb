/**
 * Runs a job module both ways: at parallelism 1 on the calling thread, and at
 * parallelism 2 on two worker threads, and returns what each collecting sink
 * received, sorted (subtasks interleave differently on different threads).
 */
import { resolve } from 'node:path';
import { type RunJobModuleOptions, runJobModule } from '../../src/index.js';

export const fixture = (name: string) => resolve(import.meta.dirname, 'fixtures', name);

export async function collectedBy(
  path: string,
  sinks: readonly string[] | undefined,
  options: RunJobModuleOptions,
): Promise<Record<string, string[]>> {
  const run = await runJobModule(path, options);
  const out: Record<string, string[]> = {};
  for (const sink of sinks ?? [undefined]) {
    out[sink ?? 'out'] = run
      .collected(sink)
      .map((v) => JSON.stringify(v))
      .sort();
  }
  return out;
}

/** The results on one thread (parallelism 1) and on two workers (parallelism 2). */
export async function bothWays(
  path: string,
  sinks?: readonly string[],
  options: RunJobModuleOptions = {},
): Promise<{ single: Record<string, string[]>; workers: Record<string, string[]> }> {
  const single = await collectedBy(path, sinks, { ...options, parallelism: 1 });
  const workers = await collectedBy(path, sinks, { ...options, parallelism: 2, workers: 2 });
  return { single, workers };
}
