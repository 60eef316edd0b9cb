/**
 * Commands that talk to a job running in another process through its REST
 * API: `weir jobs` lists them, `weir savepoint` takes a savepoint of one,
 * `weir stop` stops one with a savepoint and `weir cancel` cancels one.
 * Results go to stdout (a savepoint's path alone, so scripts can capture
 * it); errors are CliErrors, reported by main.ts with status 1.
 */
import { resolve } from 'node:path';
import { resolveLocation } from '../runtime/checkpoint/store/open-store.js';
import type { JobSummary } from '../ui/index.js';
import { defaultTokenFile, readTokenFile } from '../ui/rest-token.js';
import type { CancelOptions, JobsOptions, SavepointOptions } from './args.js';
import { CliError, EXIT_OK } from './failure.js';
import { formatClock, formatDuration } from './format.js';
import { type ApiResponse, errorMessage, listJobs, requestApi } from './rest-client.js';
import type { CliIO } from './run-command.js';
import { renderTable } from './table.js';

/** `weir jobs`: a table of the jobs at `--url`, running and ended. */
export async function runJobsCommand(options: JobsOptions, io: CliIO): Promise<number> {
  const jobs = await listJobs(options.url);
  if (jobs.length === 0) {
    io.stdout.write(`no jobs at ${options.url}\n`);
    return EXIT_OK;
  }
  const rows = jobs.map((job) => [
    job.id,
    job.name,
    job.status,
    formatClock(job.startTime),
    formatDuration(job.durationMs),
  ]);
  const table = renderTable(
    [
      { header: 'ID' },
      { header: 'NAME' },
      { header: 'STATUS' },
      { header: 'STARTED' },
      { header: 'DURATION', align: 'right' },
    ],
    rows,
  );
  io.stdout.write(`${table.join('\n')}\n`);
  return EXIT_OK;
}

/**
 * `weir savepoint <job-id> --to DIR`: asks the job's process to take a
 * savepoint (`POST /jobs/:id/savepoints`), waits until it is durable and
 * prints its path. `weir stop` does the same through `POST /jobs/:id/stop`,
 * after which the job ends. DIR is resolved here, against this command's
 * working directory, so the job's process gets an absolute path.
 */
export async function runSavepointCommand(
  options: SavepointOptions,
  io: CliIO,
  mode: 'savepoint' | 'stop' = 'savepoint',
): Promise<number> {
  const directory = resolveLocation(io.cwd, options.directory);
  const action = mode === 'stop' ? 'stop' : 'savepoints';
  // No time limit: the answer comes when the savepoint is durable, however large the state.
  const response = await requestJobAction(options, io, action, { directory });
  const path: unknown =
    typeof response.body === 'object' && response.body !== null
      ? Reflect.get(response.body, 'path')
      : undefined;
  if (response.status === 200 && typeof path === 'string') {
    io.stdout.write(`${path}\n`);
    return EXIT_OK;
  }
  const what = mode === 'stop' ? 'stop job' : 'take a savepoint of job';
  throw new CliError(`cannot ${what} '${options.jobId}': ${errorMessage(response)}`);
}

/** `weir cancel <job-id>`: cancels the job (`POST /jobs/:id/cancel`) and waits until it has stopped. */
export async function runCancelCommand(options: CancelOptions, io: CliIO): Promise<number> {
  const response = await requestJobAction(options, io, 'cancel', {});
  if (response.status === 200) {
    io.stdout.write(`cancelled ${options.jobId}\n`);
    return EXIT_OK;
  }
  throw new CliError(`cannot cancel job '${options.jobId}': ${errorMessage(response)}`);
}

/**
 * POSTs `body` to `/jobs/:id/<action>` with the job's REST token, turning a
 * missing job and a refused token into errors that say what to do.
 */
async function requestJobAction(
  options: CancelOptions,
  io: CliIO,
  action: string,
  body: unknown,
): Promise<ApiResponse> {
  const tokenFile =
    options.tokenFile === undefined
      ? defaultTokenFile(portOf(options.url))
      : resolve(io.cwd, options.tokenFile);
  // Unreadable: asked without it, so that an unreachable job is reported as such first.
  const token = await readTokenFile(tokenFile).catch(() => undefined);
  const response = await requestApi(
    options.url,
    `/jobs/${encodeURIComponent(options.jobId)}/${action}`,
    { method: 'POST', body, ...(token === undefined ? {} : { token }) },
  );
  if (response.status === 404) throw await noSuchJob(options);
  if (response.status === 401) {
    throw new CliError(
      `job '${options.jobId}' refused the REST token ${token === undefined ? `: cannot read ${tokenFile}` : `in ${tokenFile}`}; pass the file the job wrote (its --token-file) with --token-file`,
    );
  }
  return response;
}

/** The port of a base URL, as the job names its default token file. */
function portOf(url: string): number {
  const parsed = new URL(url);
  return parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
}

/** A 404 explained: which jobs there are instead, and whether the id given is one's name. */
async function noSuchJob(options: CancelOptions): Promise<CliError> {
  const jobs = await listJobs(options.url).catch((): JobSummary[] => []);
  const byName = jobs.filter((j) => j.name === options.jobId);
  const known = jobs.map((j) => `${j.id} (${j.name}, ${j.status})`).join(', ');
  const hint =
    byName.length === 1
      ? `; '${options.jobId}' is the name of job ${byName[0]!.id}: pass its id`
      : jobs.length === 0
        ? '; it has no jobs'
        : `; its jobs: ${known}`;
  return new CliError(`there is no job '${options.jobId}' at ${options.url}${hint}`);
}
