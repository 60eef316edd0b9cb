/** Runs a Nexmark query on Weir over the generated events. */

import { type NexmarkConfig, NexmarkSource } from '../../src/connectors/nexmark/index.js';
import { CollectSink, type JobResult, type Sink, StreamEnvironment } from '../../src/index.js';
import { nexmarkWatermarks } from './queries/common.js';
import type { AnyNexmarkQuery, SqlValue } from './queries/index.js';

/** How to run a query. */
export interface NexmarkJobOptions {
  /** Generator parameters; `maxEvents` is the number of events. */
  readonly config: Partial<NexmarkConfig>;
  /** Subtasks per operator (Weir runs them all on one thread). Default 1. */
  readonly parallelism?: number;
  /** Records per batch. Default: the environment's (1024). */
  readonly batchSize?: number;
}

/** Runs `query` over the events into `sink` and resolves when the bounded input is done. */
export async function runOnWeir(
  query: AnyNexmarkQuery,
  options: NexmarkJobOptions,
  sink: Sink<unknown>,
): Promise<JobResult> {
  const env = new StreamEnvironment({
    parallelism: options.parallelism ?? 1,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  const events = env.fromSource(new NexmarkSource({ config: options.config }), nexmarkWatermarks());
  query.build(events).sinkTo(sink);
  return env.execute(`nexmark ${query.name}`);
}

/** Runs `query` and returns its results as SQL rows (JSON-encoded arrays, as Flink's harness writes them). */
export async function collectOnWeir(
  query: AnyNexmarkQuery,
  options: NexmarkJobOptions,
): Promise<string[]> {
  const sink = new CollectSink<unknown>();
  await runOnWeir(query, options, sink);
  return sink.values.map((r) => JSON.stringify(query.toRow(r) satisfies SqlValue[]));
}
