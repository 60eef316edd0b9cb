import { basename, extname, resolve } from 'node:path';
import { type JobClient, StreamEnvironment } from '../index.js';
import type { RunOptions } from './args.js';
import { describeFailure, EXIT_FAILURE, EXIT_OK, UsageError } from './failure.js';
import { formatCount, formatDuration } from './format.js';
import { checkpointFields, JobStatusSampler, statusFields, statusLineText } from './job-status.js';
import { JsonLog } from './json-log.js';
import { loadJobModule } from './load-job.js';
import { startObservers } from './observe.js';
import { LiveStatusLine } from './status-line.js';
import { superviseJob } from './supervise.js';

/** Where the CLI talks to; injectable so commands can be run against fake streams. */
export interface CliIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly cwd: string;
}

const SOURCE_RECORDS = 'weir_source_records_total';
/** How often the live status line is redrawn. */
const STATUS_LINE_MS = 250;

/**
 * `weir run`: loads a job module, builds it on an environment configured from
 * the flags, runs it until its input ends or the user stops it, and reports.
 * The job's output owns stdout; the CLI's status, summary and errors go to
 * stderr so `weir run job.ts > out.jsonl` captures only records. On a
 * terminal a live status line shows progress; with `--log-format json`,
 * stderr gets one JSON object per line instead.
 */
export async function runCommand(options: RunOptions, io: CliIO): Promise<number> {
  const env = createEnvironment(options, io.cwd);
  const definition = await loadJobModule(options.module, io.cwd);
  const jobName = options.name ?? basename(options.module, extname(options.module));
  await definition(env, { args: options.jobArgs });

  const observers = await startObservers(options);
  const client = env.executeAsync(jobName);
  observers.attach(client);
  const json = options.logFormat === 'json' ? new JsonLog(io.stderr, { job: jobName }) : undefined;
  const log = json?.with({ jobId: client.jobId });
  const announce = (event: string, what: string, url: string | undefined): void => {
    if (url === undefined) return;
    if (log !== undefined) log.write('info', event, `${what} at ${url}`, { url });
    else io.stderr.write(`weir: ${what} at ${url}\n`);
  };
  log?.write('info', 'job_started', `job '${jobName}' started`, {
    parallelism: env.parallelism,
    operators: client.monitor.graph.operators.length,
  });
  announce('ui_started', 'web UI', observers.uiUrl);
  announce('metrics_started', 'Prometheus metrics', observers.metricsUrl);

  const live = log === undefined && io.stdout.isTTY === true && io.stderr.isTTY === true;
  const status = live ? new LiveStatusLine(io.stderr, [io.stdout, io.stderr]) : undefined;
  const sampler = new JobStatusSampler(client);
  let onTick: (() => void) | undefined;
  if (status !== undefined) onTick = () => status.update(statusLineText(jobName, sampler.sample()));
  else if (log !== undefined) onTick = jsonTicker(log, sampler, options.statusIntervalMs);

  const run = await superviseJob(client, {
    ...(onTick === undefined ? {} : { onTick, tickMs: STATUS_LINE_MS }),
    onStopRequested: (reason) => {
      const why = reason.kind === 'signal' ? reason.signal : 'time limit';
      if (log !== undefined) {
        log.write('info', 'job_stopping', `stopping '${jobName}' (${why})`, { reason: why });
      } else {
        io.stderr.write(`weir: stopping '${jobName}' (${why}); press Ctrl-C again to force\n`);
      }
    },
    onForcedExit: () => {
      status?.close();
      if (log !== undefined) log.write('error', 'forced_exit', 'forced exit');
      else io.stderr.write('weir: forced exit\n');
    },
  });
  status?.close();
  await observers.close();

  const { outcome } = run;
  if (outcome.kind === 'failed') {
    if (log !== undefined) {
      const [message] = describeFailure(outcome.error, false);
      log.write('error', 'job_failed', `job '${jobName}' failed: ${message}`, {
        durationMs: Math.round(outcome.durationMs),
        recordsRead: recordsRead(client),
        error: errorFields(outcome.error, options.verbose),
      });
      return EXIT_FAILURE;
    }
    const [message, ...details] = describeFailure(outcome.error, options.verbose);
    io.stderr.write(
      `✗ job '${jobName}' failed after ${formatDuration(outcome.durationMs)}: ${message}\n`,
    );
    for (const line of details) io.stderr.write(`${line}\n`);
    io.stderr.write(`  records read: ${formatCount(recordsRead(client))}\n`);
    return EXIT_FAILURE;
  }
  const { result } = outcome;
  const read = result.metric(SOURCE_RECORDS);
  const perSecond = result.durationMs > 0 ? (read * 1000) / result.durationMs : 0;
  if (log !== undefined) {
    const last = client.monitor.lastCheckpoint();
    log.write('info', `job_${outcome.kind}`, `job '${jobName}' ${outcome.kind}`, {
      durationMs: Math.round(result.durationMs),
      recordsRead: read,
      recordsPerSecond: Math.round(perSecond),
      lastCheckpoint: last === undefined ? null : checkpointFields(last),
    });
    return EXIT_OK;
  }
  const mark = outcome.kind === 'finished' ? '✓' : '■';
  io.stderr.write(
    `${mark} job '${jobName}' ${outcome.kind} in ${formatDuration(result.durationMs)} · ` +
      `${formatCount(read)} records read (${formatCount(perSecond)}/s)\n`,
  );
  return EXIT_OK;
}

/**
 * The JSON logger's tick: a `status` record every `intervalMs`, and a
 * `checkpoint_completed` record for each checkpoint that completed since the
 * last tick (the monitor keeps the recent history).
 */
function jsonTicker(log: JsonLog, sampler: JobStatusSampler, intervalMs: number): () => void {
  let lastStatus = performance.now();
  let lastCheckpointId = 0;
  return () => {
    const sample = sampler.sample();
    const cp = sample.lastCheckpoint;
    if (cp !== undefined && cp.id > lastCheckpointId) {
      lastCheckpointId = cp.id;
      log.write('info', 'checkpoint_completed', `${cp.kind} ${cp.id} completed`, {
        checkpoint: checkpointFields(cp),
      });
    }
    const now = performance.now();
    if (now - lastStatus >= intervalMs) {
      lastStatus = now;
      log.write('info', 'status', 'status', statusFields(sample));
    }
  };
}

/** A failure as JSON fields: message, and the WeirError details where present. */
function errorFields(error: unknown, verbose: boolean): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const key of ['code', 'operatorId', 'record']) {
    const value: unknown = Reflect.get(error, key);
    if (typeof value === 'string' && value.length > 0) fields[key] = value;
  }
  if (verbose && error.stack !== undefined) fields.stack = error.stack;
  return fields;
}

function createEnvironment(options: RunOptions, cwd: string): StreamEnvironment {
  try {
    return new StreamEnvironment({
      ...(options.parallelism === undefined ? {} : { parallelism: options.parallelism }),
      ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      ...(options.checkpointDir === undefined
        ? {}
        : {
            checkpointing: {
              directory: resolve(cwd, options.checkpointDir),
              ...(options.checkpointIntervalMs === undefined
                ? {}
                : { intervalMs: options.checkpointIntervalMs }),
            },
          }),
    });
  } catch (error) {
    // The environment rejects inconsistent settings (parallelism above max parallelism).
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function recordsRead(client: JobClient): number {
  return client.metrics.total(SOURCE_RECORDS);
}
