/**
 * A SQL script as a job module, so that worker threads can build the script's job the way
 * they build any job: each worker loads this module, which plans the script again (planning
 * is deterministic, so every thread gets the same plan). Its one argument is the script's path.
 */
import { defineJob } from '../api/job-module/job.js';
import type { StreamEnvironment } from '../index.js';
import { buildSqlJob } from './sql-job.js';

export default defineJob(async (env, { args }) => {
  const [script] = args;
  if (script === undefined) throw new Error('the SQL job module needs the script path');
  await buildSqlJob(env as StreamEnvironment, script);
});
