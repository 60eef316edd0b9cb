import type { Sink } from './sink.js';
import type { Json } from './snapshot.js';
import type { Source } from './source.js';

/**
 * The slice of a source's input that `weir replay` recomputes. Every field is
 * optional; an empty range is everything the source holds now.
 */
export interface ReplayRange {
  /**
   * Inclusive start, epoch ms. Kafka: each partition's first offset whose
   * log timestamp is at or after it. Undefined: the earliest retained input.
   */
  readonly from?: number;
  /**
   * Exclusive end, epoch ms. Kafka: each partition's first offset whose log
   * timestamp is at or after it. Undefined: the end of the input as it is
   * when the replay starts (Kafka: the last stable offset).
   */
  readonly to?: number;
  /**
   * Exact positions per split, overriding `from`/`to` for the splits named:
   * Kafka keys are `topic:partition`, values `[first, end)` offsets.
   */
  readonly positions?: Readonly<Record<string, readonly [number, number]>>;
  /** File sources: the files (paths or globs) to read instead of the configured ones. */
  readonly files?: readonly string[];
}

/**
 * A source `weir replay` can read a bounded slice of. The replayed source
 * decodes, stamps event time and treats bad records exactly as the original
 * does. What it emits (records, batch boundaries, watermarks) must depend on
 * the data in the range alone, never on timing, so a replay is repeatable:
 * with several splits it merges them in a fixed order rather than as data
 * arrives, and it never marks itself idle by the clock.
 */
export interface ReplayableSource<T> extends Source<T> {
  /** A bounded source over `range` of this source's input, meant to run as one subtask. */
  replay(range: ReplayRange): Source<T>;
}

export function isReplayableSource<T>(source: Source<T>): source is ReplayableSource<T> {
  return typeof (source as Partial<ReplayableSource<T>>).replay === 'function';
}

/**
 * One row of a sink's output as `weir reconcile` compares it: what the
 * streaming job wrote (read back from the system) or what the replay would
 * write (the same bytes or column values, decoded the same way).
 */
export interface WrittenRow {
  /**
   * The sink's key, as text: the Kafka record key (UTF-8, or `hex:` and the
   * bytes), the primary key's values as a JSON array for a table, undefined
   * when the sink has no key.
   */
  readonly key: string | undefined;
  /** The row's content as JSON: a decoded value, or the row's columns by name. */
  readonly value: Json;
  /**
   * The event time the sink stored with the row, if it stores one. The Kafka
   * sink does not (Kafka stamps its records with the produce time), so its
   * rows leave this out on both sides.
   */
  readonly timestamp?: number;
  /** Where the row was read, for reports: `topic/partition@offset`, `table`, `file:line`. */
  readonly origin: string;
}

/** A replayed value on its way to a {@link ReconcileTarget}. */
export interface ReplayedValue<T> {
  readonly value: T;
  readonly timestamp: number;
}

/**
 * What a sink wrote, opened for comparison. `written()` reads what the
 * streaming job committed (Kafka with read_committed, a table, a sink's
 * finished files); `expected()` turns replayed values into rows as `written()`
 * would have read them back, through the sink's own serialization.
 */
export interface ReconcileTarget<T> {
  /** For reports: "Kafka topic 'totals' at localhost:9092", "table public.totals". */
  readonly description: string;
  /**
   * How rows with the same key relate: `append` (every row counts, compared
   * as a multiset per key) or `upsert` (the sink keeps the last row per key,
   * so only that one is compared).
   */
  readonly mode: 'append' | 'upsert';
  written(): AsyncIterable<WrittenRow>;
  expected(values: AsyncIterable<ReplayedValue<T>>): AsyncIterable<WrittenRow>;
  close(): Promise<void>;
}

/** A sink whose output `weir reconcile` can read back. */
export interface ReconcilableSink<T> extends Sink<T> {
  reconcileTarget(): ReconcileTarget<T> | Promise<ReconcileTarget<T>>;
}

export function isReconcilableSink<T>(sink: Sink<T>): sink is ReconcilableSink<T> {
  return typeof (sink as Partial<ReconcilableSink<T>>).reconcileTarget === 'function';
}
