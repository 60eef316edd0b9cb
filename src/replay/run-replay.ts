import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { StreamEnvironmentImpl } from '../api/environment.js';
import { loadJobModule } from '../api/job-module/load-job-module.js';
import type { EnvironmentOptions, JobResult } from '../api/options.js';
import { WeirError } from '../core/errors.js';
import type { ReplayRange } from '../core/replay.js';
import { operatorIdsOf } from '../plan/planner.js';
import { canonicalJson } from './canonical-json.js';
import { type ReplayGraph, rewriteForReplay } from './replay-graph.js';

export interface ReplayOptions {
  /** Path of the job module, as for `weir run`. */
  readonly module: string;
  /** Passed to the job as `context.args`. */
  readonly args?: readonly string[];
  /** The slice every source reads, unless {@link sourceRanges} names it. Default: everything there is now. */
  readonly range?: ReplayRange;
  /** Slices of particular sources, by the source's uid or name. */
  readonly sourceRanges?: Readonly<Record<string, ReplayRange>>;
  /** Parallelism of the keyed part of the job (what reads sources runs as one subtask). Default 1. */
  readonly parallelism?: number;
  /** Write to the job's own sinks instead of capturing what they would receive. Default false. */
  readonly productionSinks?: boolean;
  /** Records per batch (default 1024): part of what makes a replay repeatable, so fixed. */
  readonly batchSize?: number;
  readonly jobName?: string;
}

/** What one sink of the job received in the replay. */
export interface ReplayedOutput {
  /** Logical node id of the sink (or of the window, for late records). */
  readonly nodeId: number;
  readonly operatorId: string;
  readonly name: string;
  readonly values: readonly unknown[];
  readonly timestamps: readonly number[];
}

export interface ReplayRun {
  readonly jobName: string;
  readonly result: JobResult;
  readonly graph: ReplayGraph;
  /** What each captured sink received (none with production sinks). */
  readonly outputs: readonly ReplayedOutput[];
  /** Late records of each event-time window operator. */
  readonly late: readonly ReplayedOutput[];
}

/**
 * Runs a job module over a bounded slice of its sources, with the end of the
 * slice as the end of input (the watermark then goes to +infinity, so every
 * window fires), and captures what its sinks would have received.
 */
export async function replayJob(options: ReplayOptions): Promise<ReplayRun> {
  const path = resolve(options.module);
  const args = options.args ?? [];
  const environment: EnvironmentOptions = {
    parallelism: options.parallelism ?? 1,
    batchSize: options.batchSize ?? 1024,
  };
  const env = new StreamEnvironmentImpl(environment);
  env.setJobModule(path, args);
  const definition = await loadJobModule(path, process.cwd());
  await definition(env, { args });
  const ranges = options.sourceRanges ?? {};
  for (const name of Object.keys(ranges)) {
    const known = env.graph.nodes.some(
      (n) => n.kind === 'source' && (n.uid === name || n.name === name),
    );
    if (!known) {
      throw new WeirError('INVALID_ARGUMENT', `the job has no source '${name}' to give a range`);
    }
  }
  const graph = rewriteForReplay(env.graph, {
    rangeOf: (s) =>
      (s.uid === undefined ? undefined : ranges[s.uid]) ?? ranges[s.name] ?? options.range ?? {},
    productionSinks: options.productionSinks ?? false,
  });
  const jobName = options.jobName ?? `${basename(path, extname(path))} (replay)`;
  const result = await env.executeAsync(jobName).result;
  if (result.status !== 'finished') {
    throw new WeirError('JOB_CANCELLED', `the replay of '${jobName}' did not finish`);
  }
  const ids = operatorIdsOf(env.graph);
  const outputs: ReplayedOutput[] = [];
  for (const sink of graph.sinks) {
    if (sink.capture === undefined) continue;
    outputs.push({
      nodeId: sink.nodeId,
      operatorId: ids.get(sink.nodeId)!,
      name: sink.uid ?? sink.name,
      values: sink.capture.values,
      timestamps: sink.capture.timestamps,
    });
  }
  const late = graph.lateData.map((l) => ({
    nodeId: l.nodeId,
    operatorId: ids.get(l.nodeId)!,
    name: l.uid ?? l.name,
    values: l.capture.values,
    timestamps: l.capture.timestamps,
  }));
  return { jobName, result, graph, outputs, late };
}

/**
 * Writes a replay's outputs into `directory`: `<operator id>.jsonl` per sink
 * and `late/<operator id>.jsonl` per window, one `{"timestamp","value"}` line
 * per record with sorted keys, in sorted order, so the files of two replays
 * of the same input are equal byte for byte whatever their parallelism; and
 * `replay.json`, a summary. Returns the paths written.
 */
export async function writeReplayOutput(run: ReplayRun, directory: string): Promise<string[]> {
  await mkdir(join(directory, 'late'), { recursive: true });
  const written: string[] = [];
  const write = async (path: string, output: ReplayedOutput) => {
    await writeFile(path, sortedLines(output));
    written.push(path);
  };
  for (const output of run.outputs) {
    await write(join(directory, `${fileName(output.operatorId)}.jsonl`), output);
  }
  for (const output of run.late) {
    await write(join(directory, 'late', `${fileName(output.operatorId)}.jsonl`), output);
  }
  const summary = {
    job: run.jobName,
    sources: run.graph.sources,
    sinks: run.outputs.map((o) => ({
      operatorId: o.operatorId,
      name: o.name,
      records: o.values.length,
    })),
    lateRecords: run.late.map((o) => ({
      operatorId: o.operatorId,
      name: o.name,
      records: o.values.length,
    })),
  };
  const summaryPath = join(directory, 'replay.json');
  await writeFile(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  written.push(summaryPath);
  return written;
}

function sortedLines(output: ReplayedOutput): string {
  const lines = output.values.map((value, i) =>
    canonicalJson({ timestamp: output.timestamps[i], value }),
  );
  const order = lines.map((_, i) => i);
  // By event time, then by text: a fixed order that keeps a file readable.
  order.sort((a, b) => {
    const ta = orderable(output.timestamps[a]!);
    const tb = orderable(output.timestamps[b]!);
    if (ta !== tb) return ta < tb ? -1 : 1;
    const la = lines[a]!;
    const lb = lines[b]!;
    return la < lb ? -1 : la > lb ? 1 : 0;
  });
  return order.map((i) => `${lines[i]}\n`).join('');
}

/** Records without an event time (NaN) sort first. */
function orderable(t: number): number {
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** An operator id as a file name: ids may hold `/`, `:` and spaces. */
function fileName(operatorId: string): string {
  return operatorId.replace(/[^A-Za-z0-9._-]+/g, '_');
}
