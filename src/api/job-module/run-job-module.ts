import { basename, extname, resolve } from 'node:path';
import { type CollectingSink, isCollectingSink } from '../../core/sink.js';
import { operatorIdsOf } from '../../plan/planner.js';
import { StreamEnvironmentImpl } from '../environment.js';
import type { EnvironmentOptions, ExecuteOptions, JobClient, JobResult } from '../options.js';
import { loadJobModule } from './load-job-module.js';

export interface RunJobModuleOptions extends EnvironmentOptions, ExecuteOptions {
  /** Passed to the job as `context.args`. */
  readonly args?: readonly string[];
  /** Default: the module's file name without extension. */
  readonly jobName?: string;
}

/** A finished run of a job module. */
export interface JobModuleRun {
  readonly result: JobResult;
  /**
   * The records of one of the job's `CollectSink`s, from every subtask and
   * every worker: the sink whose operator id is `sinkId` (set it with
   * `.uid()` on what `sinkTo` returns), or the job's only collecting sink.
   */
  collected<T = unknown>(sinkId?: string): T[];
}

/** A started run of a job module. */
export interface StartedJobModule {
  readonly client: JobClient;
  /** The records of a collecting sink so far (all of them once the job has ended); see {@link JobModuleRun}. */
  collected<T = unknown>(sinkId?: string): T[];
}

/**
 * Loads a job module (`export default defineJob((env) => ...)`), builds it on
 * an environment with `options` and runs it to its end, as `weir run` does.
 * With `workers` set, the subtasks run on worker threads, each of which loads
 * the module itself; records of `CollectSink`s come back to this thread when
 * the job ends.
 */
export async function runJobModule(
  path: string,
  options: RunJobModuleOptions = {},
): Promise<JobModuleRun> {
  const started = await startJobModule(path, options);
  const result = await started.client.result;
  return { result, collected: (sinkId) => started.collected(sinkId) };
}

/** {@link runJobModule} without waiting for the end: to watch, savepoint or cancel the job. */
export async function startJobModule(
  path: string,
  options: RunJobModuleOptions = {},
): Promise<StartedJobModule> {
  const {
    args = [],
    jobName,
    restoreFrom,
    allowNonRestoredState,
    allowDuplicateOutput,
    ...envOptions
  } = options;
  const absolute = resolve(path);
  const env = new StreamEnvironmentImpl(envOptions);
  env.setJobModule(absolute, args);
  const definition = await loadJobModule(absolute, process.cwd());
  await definition(env, { args });
  const client = env.executeAsync(jobName ?? basename(absolute, extname(absolute)), {
    ...(restoreFrom === undefined ? {} : { restoreFrom }),
    ...(allowNonRestoredState === undefined ? {} : { allowNonRestoredState }),
    ...(allowDuplicateOutput === undefined ? {} : { allowDuplicateOutput }),
  });
  const sinks = new Map<string, CollectingSink<unknown>>();
  const operatorIds = operatorIdsOf(env.graph);
  for (const node of env.graph.nodes) {
    if (node.kind === 'sink' && isCollectingSink(node.sink))
      sinks.set(operatorIds.get(node.id)!, node.sink);
  }
  return {
    client,
    collected<T>(sinkId?: string): T[] {
      if (sinkId === undefined) {
        if (sinks.size !== 1)
          throw new Error(
            `the job has ${sinks.size} collecting sinks; name one of: ${[...sinks.keys()].join(', ')}`,
          );
        return [...sinks.values()][0]!.values as T[];
      }
      const sink = sinks.get(sinkId);
      if (sink === undefined)
        throw new Error(
          `no collecting sink '${sinkId}'; the job has: ${[...sinks.keys()].join(', ')}`,
        );
      return sink.values as T[];
    },
  };
}
