import type { StreamEnvironmentApi } from '../streams.js';

/** What a job module is given besides the environment. */
export interface JobContext {
  /** Arguments after the job module on the command line (`weir run job.ts -- a b`). */
  readonly args: readonly string[];
}

/**
 * A job module's default export: builds the job on the given environment.
 * The caller executes it. Job modules must be importable more than once
 * (each worker may load the module) and must not start work at import time.
 */
export type JobDefinition = (
  env: StreamEnvironmentApi,
  context: JobContext,
) => void | Promise<void>;

/** Declares a job module (`export default defineJob((env) => { ... })`); typing aid only. */
export function defineJob(definition: JobDefinition): JobDefinition {
  return definition;
}
