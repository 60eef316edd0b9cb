/** `weir replay` and `weir reconcile`: a job recomputed over a slice of its input, and compared. */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ReplayRange, WrittenRow } from '../core/replay.js';
import { renderPrometheus } from '../metrics/prometheus.js';
import type { Difference } from '../replay/compare.js';
import { type ReconcileReport, reconcileJob, reconcileMetrics } from '../replay/reconcile.js';
import { type ReplayRun, replayJob, writeReplayOutput } from '../replay/run-replay.js';
import { EXIT_OK } from './failure.js';
import type { ReconcileCommandOptions, ReplayCommandOptions } from './replay-args.js';
import type { CliIO } from './run-command.js';

/** `weir reconcile` found differences without a known cause. */
export const EXIT_DIVERGED = 3;

export async function runReplayCommand(options: ReplayCommandOptions, io: CliIO): Promise<number> {
  const run = await replayJob({
    ...replayOptions(options, io),
    productionSinks: options.productionSinks,
  });
  io.stderr.write(`${describeReplay(run)}\n`);
  if (!options.productionSinks) {
    const directory = resolve(io.cwd, options.output ?? 'replay-output');
    const files = await writeReplayOutput(run, directory);
    io.stderr.write(`wrote ${files.length} files to ${directory}\n`);
  }
  return EXIT_OK;
}

export async function runReconcileCommand(
  options: ReconcileCommandOptions,
  io: CliIO,
): Promise<number> {
  const output = options.output;
  const report = await reconcileJob({
    ...replayOptions(options, io),
    ...(options.against === undefined ? {} : { against: options.against }),
    ...(options.keyFields === undefined ? {} : { keyFields: options.keyFields }),
    ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
    ...(options.show === undefined ? {} : { maxShown: options.show }),
    onReplayed: async (run) => {
      io.stderr.write(`${describeReplay(run)}\n`);
      if (output !== undefined) await writeReplayOutput(run, resolve(io.cwd, output));
    },
  });
  io.stdout.write(renderReport(report));
  if (options.report !== undefined) {
    const json = `${JSON.stringify(report, null, 2)}\n`;
    if (options.report === '-') io.stdout.write(json);
    else await writeAtomically(resolve(io.cwd, options.report), json);
  }
  if (options.metricsFile !== undefined) {
    await writeAtomically(
      resolve(io.cwd, options.metricsFile),
      renderPrometheus([reconcileMetrics(report)]),
    );
  }
  return report.divergent ? EXIT_DIVERGED : EXIT_OK;
}

function replayOptions(options: ReplayCommandOptions, io: CliIO) {
  return {
    module: resolve(io.cwd, options.module),
    args: options.jobArgs,
    range: options.range,
    sourceRanges: options.sourceRanges,
    ...(options.parallelism === undefined ? {} : { parallelism: options.parallelism }),
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  };
}

/** A textfile collector must never read half a file: write beside it, then rename. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

function describeReplay(run: ReplayRun): string {
  const seconds = (run.result.durationMs / 1000).toFixed(1);
  const records = run.result.metric('weir_source_records_total');
  const late = run.late.reduce((n, l) => n + l.values.length, 0);
  return `replayed ${run.jobName}: ${records.toLocaleString('en-US')} records read in ${seconds} s, ${late.toLocaleString('en-US')} late`;
}

/** The report as people read it: the verdict first, then counts, then the first differences. */
export function renderReport(report: ReconcileReport): string {
  const c = report.comparison;
  const lines: string[] = [];
  lines.push(
    report.divergent
      ? `DIVERGED: ${c.divergent.toLocaleString('en-US')} rows differ without a known cause`
      : c.explained > 0
        ? `OK: outputs agree, apart from ${c.explained.toLocaleString('en-US')} rows explained by late data`
        : 'OK: outputs agree',
  );
  lines.push(`job:      ${report.job}`);
  lines.push(`sink:     ${report.sink.name} (${report.sink.target}, ${report.sink.mode})`);
  lines.push(`range:    ${describeRange(report.range)}`);
  lines.push(
    `rows:     ${c.expectedRows.toLocaleString('en-US')} replayed, ${c.writtenRows.toLocaleString('en-US')} written, ${c.matched.toLocaleString('en-US')} equal` +
      (c.outOfRange > 0
        ? ` (${c.outOfRange.toLocaleString('en-US')} outside the range left out)`
        : ''),
  );
  lines.push(
    `differ:   ${c.missing} missing, ${c.extra} extra, ${c.differing} differing; ${c.explained} explained by late data`,
  );
  for (const late of report.lateRecords) {
    const streaming =
      late.streaming === undefined
        ? 'streaming run: not visible (the job sinks no late-data side output)'
        : `streaming run: ${late.streaming} (read from ${late.streamingSource})`;
    lines.push(`late:     ${late.operator}: replay ${late.replay}; ${streaming}`);
  }
  if (c.differences.length > 0) {
    lines.push('', `first ${c.differences.length} differences:`);
    for (const d of c.differences) lines.push(...describeDifference(d));
  }
  lines.push(`took ${(report.durationMs / 1000).toFixed(1)} s`);
  return `${lines.join('\n')}\n`;
}

function describeDifference(d: Difference): string[] {
  const head = `- ${d.kind} ${d.identity}${d.fields === undefined ? '' : ` (fields: ${d.fields.join(', ')})`}${d.explainedBy === undefined ? '' : ` — expected: ${d.explainedBy}`}`;
  const out = [head];
  if (d.expected !== undefined) out.push(`    replay:    ${describeRow(d.expected)}`);
  if (d.written !== undefined)
    out.push(`    streaming: ${describeRow(d.written)} at ${d.written.origin}`);
  return out;
}

function describeRow(row: WrittenRow): string {
  const key = row.key === undefined ? '' : `key ${row.key} `;
  return `${key}${JSON.stringify(row.value)}`;
}

function describeRange(range: ReplayRange): string {
  const parts: string[] = [];
  const time = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());
  if (range.from !== undefined || range.to !== undefined)
    parts.push(`${time(range.from)}..${time(range.to)}`);
  if (range.positions !== undefined) {
    parts.push(
      Object.entries(range.positions)
        .map(([split, [first, end]]) => `${split}=${first}-${end}`)
        .join(','),
    );
  }
  if (range.files !== undefined) parts.push(range.files.join(' '));
  return parts.length === 0 ? 'all input there is now' : parts.join('; ');
}
