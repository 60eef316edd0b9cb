/** Runs a Nexmark query on Weir over the generated events. */

import { type NexmarkConfig, NexmarkSource } from '../../src/connectors/nexmark/index.js';
import {
  type Change,
  Changes,
  CollectSink,
  type JobResult,
  type Sink,
  StreamEnvironment,
} from '../../src/index.js';
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
  /** Fuse chained stateless operators (the environment's `fusion`). Default true. */
  readonly fusion?: boolean;
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
    fusion: options.fusion ?? true,
  });
  const events = env.fromSource(new NexmarkSource({ config: options.config }), nexmarkWatermarks());
  query.build(events).sinkTo(sink);
  return env.execute(`nexmark ${query.name}`);
}

/**
 * Runs `query` and returns its results as SQL rows (JSON-encoded arrays, as Flink's harness
 * writes them); for an updating query, the rows its changelog leaves.
 */
export async function collectOnWeir(
  query: AnyNexmarkQuery,
  options: NexmarkJobOptions,
): Promise<string[]> {
  const sink = new CollectSink<unknown>();
  await runOnWeir(query, options, sink);
  const json = (r: unknown) => JSON.stringify(query.toRow(r) satisfies SqlValue[]);
  if (!query.updating) return sink.values.map(json);
  return materialize(sink.values as Change<unknown>[], json);
}

/**
 * Applies a changelog to a multiset of rows (as the Flink harness does): `+I`/`+U` add a row,
 * `-U`/`-D` take one away; taking away a row that is not there is an error.
 */
export function materialize<T>(changes: readonly Change<T>[], json: (row: T) => string): string[] {
  const counts = new Map<string, number>();
  for (const c of changes) {
    const row = json(c.value);
    const n = (counts.get(row) ?? 0) + (Changes.isAccumulate(c) ? 1 : -1);
    if (n < 0) throw new Error(`changelog retracts a row it never added (${c.kind} ${row})`);
    if (n === 0) counts.delete(row);
    else counts.set(row, n);
  }
  const rows: string[] = [];
  for (const [row, n] of counts) for (let i = 0; i < n; i++) rows.push(row);
  return rows;
}
