/**
 * What a Nexmark query is in Weir: a function adding operators to a job that reads the Nexmark
 * event stream, plus how to render its results as the rows Flink's SQL version produces.
 */

import type { NexmarkEvent } from '../../../src/connectors/nexmark/index.js';
import type { Change, DataStream } from '../../../src/index.js';

/** A SQL value as the Flink harness writes it: BIGINT/INT as number, DECIMAL as string, TIMESTAMP as epoch ms. */
export type SqlValue = number | string | null;

/** A Nexmark query on Weir's DataStream API. */
export interface NexmarkQuery<R> {
  /** `q0`, `q5`, ... as in the nexmark/nexmark repository. */
  readonly name: string;
  /** One line: what the query computes. */
  readonly title: string;
  /**
   * False when the result depends on wall-clock time (processing-time windows): such a query
   * runs in benchmarks but its results are not compared.
   */
  readonly deterministic: boolean;
  /**
   * Adds the query reading `events`, whose records carry their event time and whose
   * watermarks trail it by 4 s ({@link nexmarkWatermarks}).
   */
  build(events: DataStream<NexmarkEvent>): DataStream<R>;
  /** One result as the SQL query's row: its columns, in SELECT order. */
  toRow(result: R): SqlValue[];
}

/**
 * A query whose SQL result is an updating table (a regular join feeding an aggregation,
 * deduplication keeping the last row, top-N): `build` emits its changelog, and the result is
 * the table the changes leave when applied in order (as Flink's changelog is).
 */
export interface UpdatingNexmarkQuery<R> extends Omit<NexmarkQuery<R>, 'build'> {
  readonly updating: true;
  build(events: DataStream<NexmarkEvent>): DataStream<Change<R>>;
}

/**
 * A query with its row type erased, so queries of different row types share one list. The
 * records `build` produces are those `toRow` accepts, or when `updating`, changes of them.
 */
export interface AnyNexmarkQuery {
  readonly name: string;
  readonly title: string;
  readonly deterministic: boolean;
  /** Whether `build` emits `Change`s of rows rather than rows. */
  readonly updating: boolean;
  build(events: DataStream<NexmarkEvent>): DataStream<unknown>;
  toRow(result: unknown): SqlValue[];
}

/** Erases a query's row type (see {@link AnyNexmarkQuery}). */
export function eraseRowType<R>(query: NexmarkQuery<R> | UpdatingNexmarkQuery<R>): AnyNexmarkQuery {
  return {
    name: query.name,
    title: query.title,
    deterministic: query.deterministic,
    updating: 'updating' in query,
    // DataStream is invariant in its type; the stream's records are R (or changes of R), which
    // toRow accepts (their values).
    build: (events) => query.build(events) as unknown as DataStream<unknown>,
    toRow: (result) => query.toRow(result as R),
  };
}
