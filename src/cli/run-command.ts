import { basename, extname } from 'node:path';
import { type JobClient, StreamEnvironment } from '../index.js';
import type { RunOptions } from './args.js';
import { describeFailure, EXIT_FAILURE, EXIT_OK, UsageError } from './failure.js';
import { formatCount, formatDuration } from './format.js';
import { loadJobModule } from './load-job.js';
import { RateMeter } from './rate-meter.js';
import { LiveStatusLine } from './status-line.js';
import { superviseJob } from './supervise.js';

/** Where the CLI talks to; injectable so commands can be run against fake streams. */
export interface CliIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly cwd: string;
}

const SOURCE_RECORDS = 'weir_source_records_total';

/**
 * `weir run`: loads a job module, builds it on an environment configured from
 * the flags, runs it until its input ends or the user stops it, and reports.
 * The job's output owns stdout; the CLI's status, summary and errors go to
 * stderr so `weir run job.ts > out.jsonl` captures only records.
 */
export async function runCommand(options: RunOptions, io: CliIO): Promise<number> {
  const env = createEnvironment(options);
  const definition = await loadJobModule(options.module, io.cwd);
  const jobName = options.name ?? basename(options.module, extname(options.module));
  await definition(env, { args: options.jobArgs });

  const client = env.executeAsync(jobName);
  const live = io.stdout.isTTY === true && io.stderr.isTTY === true;
  const status = live ? new LiveStatusLine(io.stderr, [io.stdout, io.stderr]) : undefined;
  const meter = new RateMeter();
  const started = performance.now();
  meter.sample(0, started);
  const renderStatus = (): string => {
    const now = performance.now();
    const read = client.metrics.total(SOURCE_RECORDS);
    const rate = meter.sample(read, now);
    return `● ${jobName} · ${formatDuration(now - started)} · ${formatCount(rate)} records/s · ${formatCount(read)} read · Ctrl-C to stop`;
  };

  const run = await superviseJob(client, {
    ...(status === undefined ? {} : { onTick: () => status.update(renderStatus()), tickMs: 250 }),
    onStopRequested: (reason) => {
      const why = reason.kind === 'signal' ? reason.signal : 'time limit';
      io.stderr.write(`weir: stopping '${jobName}' (${why}); press Ctrl-C again to force\n`);
    },
    onForcedExit: () => {
      status?.close();
      io.stderr.write('weir: forced exit\n');
    },
  });
  status?.close();

  const { outcome } = run;
  if (outcome.kind === 'failed') {
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
  const mark = outcome.kind === 'finished' ? '✓' : '■';
  io.stderr.write(
    `${mark} job '${jobName}' ${outcome.kind} in ${formatDuration(result.durationMs)} · ` +
      `${formatCount(read)} records read (${formatCount(perSecond)}/s)\n`,
  );
  return EXIT_OK;
}

function createEnvironment(options: RunOptions): StreamEnvironment {
  try {
    return new StreamEnvironment({
      ...(options.parallelism === undefined ? {} : { parallelism: options.parallelism }),
      ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    });
  } catch (error) {
    // The environment rejects inconsistent settings (parallelism above max parallelism).
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function recordsRead(client: JobClient): number {
  return client.metrics.total(SOURCE_RECORDS);
}
