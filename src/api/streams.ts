/**
 * The public surface of the fluent API: documented interfaces over the
 * stream and builder classes, which the public entry need not export
 * (Kysely's style). Users see only these members, so the classes may carry
 * whatever plumbing they need without it leaking into the declarations.
 *
 * All interfaces live in this one module: they refer to each other
 * (`DataStream.keyBy` returns a `KeyedStream`, whose windows end in a
 * `DataStream`), and keeping them together means no import cycle among them.
 * Only types are imported, and none from the implementation modules (their
 * option types live in `options.ts`), so this module has no runtime
 * dependencies and ties no implementation to another.
 */

import type { FileFormat } from '../connectors/files/formats/format.js';
import type { DirectorySourceOptions } from '../connectors/files/source/directory-source.js';
import type { FileSourceOptions } from '../connectors/files/source/file-source.js';
import type { GeneratorSourceOptions } from '../connectors/generator/source/generator-source.js';
import type { AsyncFunction, AsyncInvoke, AsyncOptions } from '../core/async-io.js';
import type {
  Change,
  ChangelogMode,
  GroupResult,
  RetractableAggregateFunction,
} from '../core/changelog.js';
import type {
  CoFlatMapFunction,
  CoMapFunction,
  CoProcessFunction,
  KeyedCoFlatMapFunction,
  KeyedCoMapFunction,
  KeyedCoProcessFunction,
} from '../core/co-functions.js';
import type {
  AggregateFunction,
  BroadcastProcessFunction,
  Collector,
  KeyedBroadcastProcessFunction,
  KeyedProcessFunction,
  ProcessFunction,
  ReduceFunction,
} from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { LookupJoinOptions, LookupTable } from '../core/lookup.js';
import type { OutputTag } from '../core/output-tag.js';
import type { Sink } from '../core/sink.js';
import type { Source } from '../core/source.js';
import type { Trigger } from '../core/triggers.js';
import type { WatermarkStrategy } from '../core/watermarks.js';
import type {
  ALL_WINDOWS_KEY,
  AllWindowsKey,
  ProcessWindowFunction,
  WindowResult,
} from '../core/window-result.js';
import type { RecordWindows, RecordWindowsOfSides, WindowAssigner } from '../core/windows.js';
import type {
  BroadcastJoinOptions,
  CoGroupWindowFunction,
  CollectedWithSideOutputs,
  CollectOptions,
  DeduplicateOptions,
  DeduplicateRowsOptions,
  EnvironmentOptions,
  ExecuteOptions,
  JobClient,
  JobResult,
  JoinResult,
  JoinType,
  KeepFirstByArrival,
  ProcessJoinFunction,
  Ranked,
  RankedRowsTopNOptions,
  RankedTopNOptions,
  ReduceOptions,
  RegularJoinOptions,
  RestartStrategy,
  SideOutputTags,
  TableViewOptions,
  TemporalJoinOptions,
  TemporalJoinResult,
  TopNOptions,
  UpdatingAggregateOptions,
  WindowDeduplicateOptions,
  WindowRanked,
  WindowTopNOptions,
} from './options.js';

/**
 * A stream of records of type T. Every transformation returns a new stream
 * and adds a step to the job; the stream it was called on is unchanged and
 * may be used again (each use reads all of its records). Nothing runs until
 * the environment executes the job.
 */
export interface DataStream<T> {
  /**
   * Sets the stable id of the step that produced this stream. Its state in
   * checkpoints and savepoints is keyed by this id, so a job restored after
   * edits finds its state again. Must be non-empty and unique in the job
   * (checked when the job is planned). Throws on a union or side output,
   * which have no single producing step.
   */
  uid(id: string): this;

  /**
   * Sets the display name of the step that produced this stream (in the job
   * graph, metrics and errors). Throws on a union or side output.
   */
  name(name: string): this;

  /**
   * Sets how many subtasks run the step that produced this stream
   * (a positive whole number, at most the environment's `maxParallelism`).
   * Throws on a union or side output.
   */
  setParallelism(parallelism: number): this;

  /** Emits `fn(value)` for every record, with the record's timestamp; record order is kept. */
  map<R>(fn: (value: T) => R): DataStream<R>;

  /**
   * Keeps the records `predicate` accepts, in order. With a type guard the
   * result is typed as the narrowed type: `filter((e): e is Click => e.type === 'click')`.
   */
  filter<S extends T>(predicate: (value: T) => value is S): DataStream<S>;
  /** Keeps the records `predicate` accepts, in order. */
  filter(predicate: (value: T) => boolean): DataStream<T>;

  /**
   * Calls `fn` for every record; it emits any number of records (zero or
   * more) through `out`, each with the input record's timestamp.
   */
  flatMap<R>(fn: (value: T, out: Collector<R>) => void): DataStream<R>;

  /**
   * Calls `fn.processElement` for every record, with access to its
   * timestamp, the current watermark and side outputs (`ctx.output(tag, v)`,
   * read back with {@link getSideOutput}). Keyed state and timers need
   * `keyBy(...).process(...)`.
   */
  process<R>(fn: ProcessFunction<T, R>): DataStream<R>;

  /**
   * Async I/O: calls `fn` per record without blocking the stream, with up to
   * `capacity` requests in flight; each record's results carry its
   * timestamp. Results leave in input order (`order: 'ordered'`, default) or
   * as they complete without crossing a watermark (`'unordered'`). Records
   * in flight are checkpointed and requested again on restore. See
   * docs/lookup-joins.md.
   */
  flatMapAsync<R>(
    fn: AsyncFunction<T, R> | AsyncInvoke<T, R>,
    options?: AsyncOptions<T, R>,
  ): DataStream<R>;

  /**
   * Enriches each record with the row of its key in an external table
   * (async I/O underneath: `capacity`, `order`, `timeoutMs`, `retry` as in
   * {@link flatMapAsync}), with an optional per-subtask cache. Inner join by
   * default: records without a row are dropped and counted; `join: 'left'`
   * joins them with `null`. See docs/lookup-joins.md.
   */
  lookupJoin<K extends Key, V, R>(
    table: LookupTable<K, V>,
    options: LookupJoinOptions<T, K, V, R>,
  ): DataStream<R>;

  /**
   * Assigns event time to records and generates watermarks, independently
   * in each subtask; downstream, a step's watermark is the minimum over its
   * inputs.
   */
  assignTimestampsAndWatermarks(strategy: WatermarkStrategy<T>): DataStream<T>;

  /**
   * Partitions by key: records with equal keys (`selectKey` must return a
   * string, number or bigint, the same for equal records every time) go to
   * the same subtask and share keyed state, timers and windows. `name` labels
   * the exchange in the job graph.
   */
  keyBy<K extends Key>(selectKey: (value: T) => K, name?: string): KeyedStream<T, K>;

  /**
   * Groups all records, whatever their key, into windows of `assigner` (Flink's `windowAll`);
   * finish with a window function as after `keyBy(...).window(...)`. The window runs in one
   * subtask, as Flink's all-window operator does, and its functions and results see the key
   * {@link ALL_WINDOWS_KEY}. For large volumes, pre-aggregate per key first.
   */
  windowAll(assigner: WindowAssigner<T>): WindowedStream<T, AllWindowsKey>;

  /**
   * Count windows over all records (Flink's `countWindowAll`): every `size` records form a
   * window; with `slide`, a window of the last `size` records every `slide` records. One
   * subtask, as {@link windowAll}.
   */
  countWindowAll(size: number, slide?: number): WindowedStream<T, AllWindowsKey>;

  /**
   * Merges this stream with `others` of the same type, without reordering
   * within each input. The watermark is the minimum over the inputs.
   */
  union(...others: DataStream<T>[]): DataStream<T>;

  /**
   * A window join with `other`: `a.join(b).where(keyA).equalTo(keyB)
   * .window(Windows.tumbling(10_000)).apply((l, r) => ...)` emits every pair
   * with equal keys in the same event-time window when the window fires.
   */
  join<U>(other: DataStream<U>): TwoStreams<T, U, 'join'>;

  /**
   * A window co-group with `other`: like `join`, but the function sees all
   * records of both sides per window and key (either side may be empty).
   */
  coGroup<U>(other: DataStream<U>): TwoStreams<T, U, 'coGroup'>;

  /**
   * Connects this stream with `other` (of any type) for one function that
   * sees both, with one method per input (Flink's `connect`):
   * `a.connect(b).map({ map1, map2 })`, `flatMap` or `process`; or
   * `a.connect(b).keyBy(keyA, keyB)` first, for keyed state and timers that
   * both inputs' records of a key share (a control stream that switches keys
   * of a data stream on and off, an enrichment that waits for the other side).
   * The two inputs' records interleave as they arrive; the step's watermark is
   * the least of both inputs'.
   */
  connect<U>(other: DataStream<U>): ConnectedStreams<T, U>;

  /**
   * The broadcast state pattern on a stream that is not keyed (Flink's
   * `stream.connect(broadcastStream).process(BroadcastProcessFunction)`):
   * every record of `broadcast` reaches every subtask and updates its
   * broadcast state (rules, a configuration); this stream's records read it
   * (read-only) where they are, without a shuffle. The broadcast state and
   * operator state are checkpointed; timers need `keyBy(...).connectBroadcast`.
   */
  connectBroadcast<BC, OUT, BK extends Key, BV>(
    broadcast: DataStream<BC>,
    fn: BroadcastProcessFunction<T, BC, OUT, BK, BV>,
  ): DataStream<OUT>;

  /**
   * Joins every record with the row of its key in a small table built from
   * `side`, which is broadcast to every subtask (for example a dimension
   * table or a bounded file). Side rows upsert the table by `sideKey`. With a
   * bounded side (or `waitForSide: true`), main records wait until the side
   * has ended, so each sees the complete table; otherwise they join the table
   * as it is when they arrive. Inner by default (`kind: 'left'` joins rows
   * without a match with `undefined`). Output carries the main record's
   * timestamp. See docs/joins.md.
   */
  broadcastJoin<S, BK extends Key, OUT>(
    side: DataStream<S>,
    options: BroadcastJoinOptions<T, S, BK, OUT>,
  ): DataStream<OUT>;

  /**
   * Like `broadcastJoin`, with a side stream of changes (`Change<S>`): `+I`
   * and `+U` put rows into the table, `-U` and `-D` remove them.
   */
  broadcastJoinChangelog<S, BK extends Key, OUT>(
    side: DataStream<Change<S>>,
    options: BroadcastJoinOptions<T, S, BK, OUT>,
  ): DataStream<OUT>;

  /** Spreads records round-robin over the next step's subtasks (to even out skew). */
  rebalance(): DataStream<T>;

  /** Sends every record to every subtask of the next step. */
  broadcast(): DataStream<T>;

  /** Sends each record to a subtask of the next step drawn at random (per record). */
  shuffle(): DataStream<T>;

  /**
   * Spreads records round-robin over a share of the next step's subtasks: each subtask of this
   * step feeds a few neighbouring ones (Flink's `rescale()`), e.g. 2 to 4 subtasks: 0 to 0 and
   * 1, 1 to 2 and 3; 4 to 2: 0 and 1 to 0, 2 and 3 to 1.
   */
  rescale(): DataStream<T>;

  /**
   * Sends every record to the first subtask (index 0) of the next step; its
   * other subtasks get none. The next step keeps its parallelism.
   */
  global(): DataStream<T>;

  /**
   * Sends each record to the subtask of the next step that
   * `partition(selectKey(record), numPartitions)` returns: a whole number from
   * 0 to `numPartitions - 1` (the next step's parallelism); any other value
   * fails the job. Unlike `keyBy`, the result is not keyed and the key may be
   * of any type. `name` labels the exchange in the job graph.
   */
  partitionCustom<K>(
    partition: (key: K, numPartitions: number) => number,
    selectKey: (value: T) => K,
    name?: string,
  ): DataStream<T>;

  /**
   * The records the producing step emitted to the side output `tag` (for
   * example late records of a window). Throws on a union or side output.
   */
  getSideOutput<S>(tag: OutputTag<S>): DataStream<S>;

  /** This stream as an insert-only changelog: every record becomes a `+I` change. */
  toChangelog(): ChangelogStream<T>;

  /**
   * Declares a stream of `Change` records (for example decoded from a CDC
   * topic) as a changelog of `mode`; an `upsert` changelog needs the key its
   * changes replace rows by. Each record is checked: one that is not a change
   * of that mode fails the job, naming it.
   */
  asChangelog<R>(
    this: DataStream<Change<R>>,
    mode: ChangelogMode,
    upsertKey?: (row: R) => Key,
  ): ChangelogStream<R>;

  /**
   * An event-time temporal join (SQL's `JOIN table FOR SYSTEM_TIME AS OF
   * probe.time`): each record joins the row of `table` (a versioned table,
   * `changelog.materialize(pk)`) with key `probeKey(record)` that was valid at
   * the record's event time. Records wait until the watermark (the minimum of
   * both inputs) passes their time; table versions are dropped once no
   * waiting or future record can need them. `type: 'left'` keeps records
   * without a valid row, with null. Insert-only output, at the records' times.
   */
  temporalJoin<B, K extends Key, J extends 'inner' | 'left' = 'inner'>(
    table: TableView<B, K>,
    options: TemporalJoinOptions<T, K, J>,
  ): DataStream<TemporalJoinResult<T, B, J>>;

  /**
   * Writes the stream to `sink`. Returns the sink step's handle, for `uid`,
   * `name` and `setParallelism`. Throws when called (before anything runs)
   * for a changelog the sink cannot apply, such as updates into an
   * append-only sink.
   */
  sinkTo(sink: Sink<T>): DataStream<never>;

  /**
   * Runs the job (bounded input only) and resolves with this stream's
   * records once it has finished; rejects if the job fails or is cancelled.
   * With parallelism above 1, records of different subtasks may interleave.
   */
  executeAndCollect(jobName?: string): Promise<T[]>;
  /**
   * Like `executeAndCollect(jobName)`, and also collects the side outputs
   * named in `sideOutputs` (of the step that produced this stream), each under
   * its own name: `executeAndCollect({ sideOutputs: { late: lateTag } })`
   * resolves with `{ records, sideOutputs: { late } }`.
   */
  executeAndCollect<S extends SideOutputTags>(
    options: CollectOptions<S>,
  ): Promise<CollectedWithSideOutputs<T, S>>;
}

/**
 * A stream partitioned by key: records with equal keys are processed by the
 * same subtask, in order. The input of keyed state, timers, windows, keyed
 * joins and per-key operators (deduplication, top-N, aggregations).
 */
export interface KeyedStream<T, K extends Key> {
  /** Applies `fn` after partitioning by key (stateless; records of a key stay in order). */
  map<R>(fn: (value: T) => R): DataStream<R>;

  /**
   * Keeps the records `predicate` accepts, after partitioning by key; with a
   * type guard the result is typed as the narrowed type.
   */
  filter<S extends T>(predicate: (value: T) => value is S): DataStream<S>;
  /** Keeps the records `predicate` accepts, after partitioning by key. */
  filter(predicate: (value: T) => boolean): DataStream<T>;

  /** Like {@link DataStream.flatMap}, after partitioning by key (stateless). */
  flatMap<R>(fn: (value: T, out: Collector<R>) => void): DataStream<R>;

  /**
   * Connects this keyed stream with another keyed by the same key type (Flink's
   * `keyedA.connect(keyedB)`), the same as `a.connect(b).keyBy(keyA, keyB)`:
   * records of either stream with equal keys share the key's state and timers.
   */
  connect<U>(other: KeyedStream<U, K>): KeyedConnectedStreams<T, U, K>;

  /**
   * The broadcast state pattern: every record of `broadcast` reaches every
   * subtask and updates its broadcast state (e.g. rules); this stream's keyed
   * records read that state. Keyed state, timers and the broadcast state are
   * checkpointed.
   */
  connectBroadcast<BC, OUT, BK extends Key, BV>(
    broadcast: DataStream<BC>,
    fn: KeyedBroadcastProcessFunction<K, T, BC, OUT, BK, BV>,
  ): DataStream<OUT>;

  /**
   * A non-windowed GROUP BY: folds every record into its key's accumulator
   * and emits the key's result as a change each time it changes: `+I` for a
   * new key, then `-U old, +U new` (`retract`, the default) or `+U new`
   * (`upsert` on the key). With `ttl`, a key's state is dropped after that
   * long without records (processing time) and the key starts over with `+I`.
   * Refused for a keyed changelog: use `changelog.groupBy(...)`, which
   * retracts.
   */
  updatingAggregate<ACC, R>(
    fn: RetractableAggregateFunction<T, ACC, R>,
    options?: UpdatingAggregateOptions<ACC, T>,
  ): ChangelogStream<GroupResult<K, R>>;

  /**
   * Deduplication per key that keeps each key's first row by arrival: emits
   * plain records, each key's first row once, and never revises it.
   */
  deduplicate(options: KeepFirstByArrival): DataStream<T>;
  /**
   * Deduplication per key (Flink's `ROW_NUMBER() ... = 1`) that may replace
   * the kept row, so it emits changes: `+I` for a key's first row, then
   * `-U old` / `+U new` (or only `+U new` in `upsert` mode) when a row
   * replaces it. Keep-last by event time: the row with the largest timestamp
   * wins, ties go to the later arrival. One state entry per key, forgotten
   * after `ttl` if set. See docs/joins.md.
   */
  deduplicate(options: DeduplicateOptions<T>): DataStream<Change<T>>;
  /**
   * The same, keeping and emitting `row(record)` (a projection of each kept record) instead of
   * the record: less state per key. Refused for keep-first by arrival, which keeps no row.
   */
  deduplicate<R>(options: DeduplicateRowsOptions<T, R>): DataStream<Change<R>>;

  /**
   * Deduplication per key and event-time window (tumbling or sliding, or the
   * windows the records name, `{ windowOf }`): when a window fires, emits the
   * first (smallest timestamp) or last (largest) row of each key in it, once,
   * and drops its state. Records behind every window they belong to are
   * counted as late and go to `lateDataTag` if set.
   */
  windowDeduplicate(
    assigner: WindowAssigner<never> | RecordWindows<T>,
    options: WindowDeduplicateOptions<T>,
  ): DataStream<WindowResult<K, T>>;

  /**
   * An interval join with another keyed stream of the same key type:
   * `a.keyBy(k).intervalJoin(b.keyBy(k)).between(lower, upper).join((l, r) => ...)`
   * joins `l` and `r` with equal keys when `l.t + lower <= r.t <= l.t + upper`.
   */
  intervalJoin<U>(other: KeyedStream<U, K>): IntervalJoin<T, U, K>;

  /**
   * Top-N per key with rank numbers: keeps the `n` first rows of each key by
   * `compare` and emits `Ranked` rows, `-U`/`+U` for every rank that changed
   * (`+I` for a newly filled rank; only `+U` in `upsert` mode). State: at
   * most `n` rows per key.
   */
  topN<R>(options: RankedRowsTopNOptions<T, R>): DataStream<Change<R>>;
  topN(options: RankedTopNOptions<T>): DataStream<Change<Ranked<T>>>;
  /**
   * Top-N per key (Flink's `ROW_NUMBER() OVER (PARTITION BY key ORDER BY ...)
   * <= n` over an insert-only stream): keeps the `n` first rows of each key by
   * `compare` and emits `+I` for a row entering the top n, `-D` for the row it
   * pushes out. State: at most `n` rows per key.
   */
  topN(options: TopNOptions<T>): DataStream<Change<T>>;

  /**
   * Top-N per key and event-time window (tumbling or sliding, or the windows
   * the records name, `{ windowOf }`): when a window fires, emits its `n`
   * first rows by `compare`, with rank numbers, once, and drops its state.
   */
  windowTopN(
    assigner: WindowAssigner<never> | RecordWindows<T>,
    options: WindowTopNOptions<T>,
  ): DataStream<WindowRanked<K, T>>;

  /**
   * A running reduction per key: emits the key's updated value for every
   * record. With `{ queryable: true }` the current reduction of a key can be
   * read over the REST API while the job runs (interactive queries).
   */
  reduce(fn: ReduceFunction<T>, options?: ReduceOptions): DataStream<T>;

  /**
   * A keyed process function: `processElement` per record, with keyed state
   * and event- or processing-time timers (`onTimer`) scoped to the record's
   * key; state and timers are checkpointed.
   */
  process<R>(fn: KeyedProcessFunction<K, T, R>): DataStream<R>;

  /**
   * Groups each key's records into windows of `assigner`; finish with a
   * window function (`reduce`, `aggregate`, `process`).
   */
  window(assigner: WindowAssigner<T>): WindowedStream<T, K>;

  /**
   * Count windows: every `size` records of a key form a window; with `slide`,
   * a window of the last `size` records is emitted every `slide` records.
   */
  countWindow(size: number, slide?: number): WindowedStream<T, K>;
}

/**
 * A keyed stream grouped into windows. Configure with `trigger`, `evictor`,
 * `allowedLateness`, `closeByProcessingTime` and `sideOutputLateData` (each
 * returns a new windowed stream), then finish with a window function:
 * `reduce`, `aggregate` or `process` (or their changelog forms).
 */
export interface WindowedStream<T, K extends Key> {
  /** Replaces the assigner's default trigger (event time, processing time, or never for global windows). */
  trigger(trigger: Trigger<T>): WindowedStream<T, K>;

  /**
   * Keeps each event-time window for `ms` after it fired. A late record within
   * that time updates the window and its result is emitted again, marked as an update.
   */
  allowedLateness(ms: number): WindowedStream<T, K>;

  /**
   * Closes windows by the wall clock when event time stalls: once the
   * watermark trails the wall clock by more than `graceMs` (no newer events
   * arrive), event time advances to `now - graceMs` and the windows that ended
   * before it fire. Off by default; for live streams whose event time tracks
   * wall-clock time, never for replays of old data.
   */
  closeByProcessingTime(graceMs: number): WindowedStream<T, K>;

  /** Records too late for any window go to this side output (they are counted either way). */
  sideOutputLateData(tag: OutputTag<T>): WindowedStream<T, K>;

  /**
   * Removes records from each window when it fires (Flink's `evictor`): the window keeps
   * every record (no incremental aggregation), `evictBefore` runs before the window function
   * and `evictAfter` after it, and the function (`reduce`, `aggregate` or `process`) sees the
   * records left. What an evictor removes is gone from the window. See `Evictors` for the
   * built-in ones. On a sliding count window, replaces its eviction down to the last `size`.
   */
  evictor(evictor: import('../core/evictors.js').Evictor<T>): WindowedStream<T, K>;

  /**
   * Lets the REST API read a key's windows while the job runs (interactive
   * queries, as Kafka Streams' windowed stores): `GET /jobs/:id/state/<uid>/<key>`
   * answers every window the key holds in state, open or kept for the allowed
   * lateness, with its current result (the reduction, the aggregate's
   * `getResult`, or the records of a `process` window). The window operator
   * needs a `.uid()`, which is the address.
   */
  queryable(): WindowedStream<T, K>;

  /** Combines each window's records pairwise; emits one result per key and window. */
  reduce(fn: ReduceFunction<T>): DataStream<WindowResult<K, T>>;
  /**
   * Combines each window's records pairwise, then passes the single reduced
   * value to `windowFn` (with the key and window) when the window fires.
   */
  reduce<OUT>(fn: ReduceFunction<T>, windowFn: ProcessWindowFunction<T, OUT, K>): DataStream<OUT>;

  /**
   * Folds each window's records into an accumulator as they arrive (the
   * window holds one accumulator per key, not its records); emits one result
   * per key and window. Session windows need `fn.merge`.
   */
  aggregate<ACC, R>(fn: AggregateFunction<T, ACC, R>): DataStream<WindowResult<K, R>>;
  /**
   * Folds each window's records incrementally, then passes the single result
   * to `windowFn` (with the key and window) when the window fires.
   */
  aggregate<ACC, R, OUT>(
    fn: AggregateFunction<T, ACC, R>,
    windowFn: ProcessWindowFunction<R, OUT, K>,
  ): DataStream<OUT>;

  /**
   * Like `aggregate`, but the results come as a changelog keyed by (key,
   * window): a window's first firing is `+I`; a later firing of the same
   * window (after an early firing, or a late update within the allowed
   * lateness) is `-U previous, +U new` (`retract`, default) or `+U new`
   * (`upsert`). A window's last result is kept in keyed state until the
   * watermark passes its end plus the allowed lateness.
   */
  aggregateChanges<ACC, R>(
    fn: AggregateFunction<T, ACC, R>,
    mode?: 'retract' | 'upsert',
  ): ChangelogStream<WindowResult<K, R>>;

  /** Like `reduce`, but the results come as a changelog; see {@link aggregateChanges}. */
  reduceChanges(
    fn: ReduceFunction<T>,
    mode?: 'retract' | 'upsert',
  ): ChangelogStream<WindowResult<K, T>>;

  /**
   * Calls `fn` with all records of a window when it fires (the window keeps
   * every record until then; prefer `aggregate` when a fold suffices).
   */
  process<OUT>(fn: ProcessWindowFunction<T, OUT, K>): DataStream<OUT>;
}

/**
 * A stream of changes (`+I`, `-U`, `+U`, `-D`) to rows of type T: the output
 * of updating operators, or a stream declared as one. Its mode
 * (`insert-only`, `upsert`, `retract`) says which kinds it may carry; row
 * transformations keep the mode, and sinks refuse a mode they cannot apply
 * when the job is built. Every `DataStream` method applies to it, with
 * `Change<T>` records.
 */
export interface ChangelogStream<T> extends DataStream<Change<T>> {
  /** Which changes this stream may carry. */
  readonly mode: ChangelogMode;

  /** The key an `upsert` stream's changes replace rows by; undefined for other modes. */
  readonly upsertKey: ((row: T) => Key) | undefined;

  /**
   * Keeps the changes `predicate` accepts, as a changelog of the same mode. A
   * guard on the rows (`c is Change<Circle>`) narrows the row type; a guard
   * to one kind of change (`c is Change<T> & { kind: '+I' }`) keeps it.
   */
  filter<R extends T>(predicate: (change: Change<T>) => change is Change<R>): ChangelogStream<R>;
  /**
   * Keeps the changes `predicate` accepts, typed as what it guards. This is
   * `DataStream`'s narrowing filter, for a guard to a type that is not a
   * `Change` of some rows; the result is then a plain stream.
   */
  filter<S extends Change<T>>(predicate: (value: Change<T>) => value is S): DataStream<S>;
  /** Keeps the changes `predicate` accepts, as a changelog of the same mode. */
  filter(predicate: (change: Change<T>) => boolean): ChangelogStream<T>;

  /**
   * Keeps the rows `predicate` accepts (a WHERE over the changing rows): in a
   * retract stream every change of a rejected row is dropped; in an upsert
   * stream a rejected `+I`/`+U` becomes a `-D` of that row, so a row that
   * stops matching leaves the result.
   */
  filterRows(predicate: (row: T) => boolean): ChangelogStream<T>;

  /**
   * Maps every change's row, keeping its kind and the stream's mode. An
   * upsert stream needs the key of the new rows (`upsertKey`); it throws
   * without one.
   */
  mapRows<R>(fn: (row: T) => R, upsertKey?: (row: R) => Key): ChangelogStream<R>;

  /** Merges changelogs (and insert-only streams of changes); the mode is the widest of them. */
  union(...others: DataStream<Change<T>>[]): ChangelogStream<T>;

  /**
   * A regular (unbounded) join with `right` on equal keys, like SQL's
   * `JOIN ... ON l.k = r.k [AND where]`: every change of either input is
   * joined with the other input's current rows of its key, kept in keyed
   * state (checkpointed) for the TTL. Emits `+I [l, r]` when a joined row
   * appears and `-D [l, r]` when it goes; outer joins pad a row without a
   * match with null (`+I [l, null]`), retract that (`-D [l, null]`) when the
   * first match arrives, and restore it when the last match goes. The output
   * is a retract changelog (insert-only for an inner join of insert-only
   * inputs); its event time is the later of the two rows' times, and its
   * watermark the minimum of both inputs'. Refused without a TTL or
   * `unboundedState: true`.
   */
  regularJoin<R, K extends Key, J extends JoinType = 'inner'>(
    right: ChangelogStream<R>,
    options: RegularJoinOptions<T, R, K, J>,
  ): ChangelogStream<JoinResult<T, R, J>>;

  /** Groups the changing rows by key, for an updating aggregation. */
  groupBy<K extends Key>(selectKey: (row: T) => K, name?: string): GroupedChangelogStream<T, K>;

  /**
   * The latest row per primary key, kept in keyed state (checkpointed): read
   * it back as a stream with `toUpsertStream`, `toRetractStream` or (for an
   * append-only input) `toInsertStream`, or join it by time with
   * {@link DataStream.temporalJoin}.
   */
  materialize<K extends Key>(
    primaryKey: (row: T) => K,
    options?: TableViewOptions<T>,
  ): TableView<T, K>;
}

/** A changelog grouped by a key: the input of an updating aggregation. */
export interface GroupedChangelogStream<T, K extends Key> {
  /**
   * A non-windowed GROUP BY over a changelog: `+I`/`+U` rows are added to
   * their group, `-U`/`-D` rows taken out again (with `fn.retract`, or by
   * recomputing from the rows the operator keeps when `fn` has none).
   * Emits the group's result as changes; see {@link KeyedStream.updatingAggregate}.
   */
  updatingAggregate<ACC, R>(
    fn: RetractableAggregateFunction<T, ACC, R>,
    options?: UpdatingAggregateOptions<ACC, T>,
  ): ChangelogStream<GroupResult<K, R>>;
}

/**
 * A keyed table view over a changelog: the latest row per primary key.
 * Each `to...Stream` call adds a view step (state keyed by the primary
 * key) that emits how the view changes.
 */
export interface TableView<T, K extends Key> {
  /** The primary key of the view's rows. */
  readonly primaryKey: (row: T) => K;

  /** The view's changes as upserts on the primary key: `+I`, `+U` (new row), `-D`. */
  toUpsertStream(): ChangelogStream<T>;

  /** The view's changes with retractions: `+I`, `-U` old then `+U` new, `-D`. */
  toRetractStream(): ChangelogStream<T>;

  /**
   * The view's rows as plain records: only for an append-only (insert-only)
   * input, refused when the job is built otherwise. A second row for a key
   * fails the job, naming the key.
   */
  toInsertStream(): DataStream<T>;
}

/**
 * `a.join(b)` or `a.coGroup(b)`: name the key of the first stream with `where`,
 * the key of the second with `equalTo`, then the windows.
 */
export interface TwoStreams<L, R, M extends 'join' | 'coGroup'> {
  /** The key of the first stream's records. */
  where<K extends Key>(keyOfLeft: (left: L) => K): TwoStreamsWhere<L, R, K, M>;
}

/** A window join or co-group with the first stream's key: name the second's with `equalTo`. */
export interface TwoStreamsWhere<L, R, K extends Key, M extends 'join' | 'coGroup'> {
  /** The key of the second stream's records; records join when the keys are equal (`===`). */
  equalTo(keyOfRight: (right: R) => K): TwoStreamsEqualTo<L, R, K, M>;
}

/** A window join or co-group with both keys: choose the windows. */
export interface TwoStreamsEqualTo<L, R, K extends Key, M extends 'join' | 'coGroup'> {
  /**
   * The event-time windows both streams are cut into: `Windows.tumbling`,
   * `Windows.sliding` or `Windows.session(gap)` (sessions over the records of
   * both streams together, fixed gap only), or the windows each side's
   * records name (`{ left: { windowOf }, right: { windowOf } }`, as the rows of
   * two SQL window table functions do). Records meet only within a window.
   */
  window(
    assigner: WindowAssigner<never> | RecordWindowsOfSides<L, R>,
  ): M extends 'join' ? WindowJoin<L, R, K> : WindowCoGroup<L, R, K>;
}

/**
 * A window join: every pair (left, right) with equal keys in the same window,
 * emitted when the window fires (the watermark, the minimum of both inputs,
 * passes the window's last timestamp), stamped with that last timestamp.
 */
// biome-ignore lint/correctness/noUnusedVariables: the key type stays part of the join's type, as on WindowCoGroup.
export interface WindowJoin<L, R, K extends Key> {
  /** First-stream records that arrive after all their windows fired go to `tag` (they are always counted). */
  sideOutputLeftLateData(tag: OutputTag<L>): this;

  /** Second-stream records that arrive after all their windows fired go to `tag` (they are always counted). */
  sideOutputRightLateData(tag: OutputTag<R>): this;

  /** Emits `join(left, right)` for every pair. */
  apply<OUT>(join: (left: L, right: R) => OUT): DataStream<OUT>;
}

/**
 * A window co-group: once per fired window and key, the records of both
 * sides (either list may be empty, so outer joins can be written with it).
 */
export interface WindowCoGroup<L, R, K extends Key> {
  /** First-stream records that arrive after all their windows fired go to `tag` (they are always counted). */
  sideOutputLeftLateData(tag: OutputTag<L>): this;

  /** Second-stream records that arrive after all their windows fired go to `tag` (they are always counted). */
  sideOutputRightLateData(tag: OutputTag<R>): this;

  /** Calls `fn(lefts, rights, out, { key, window })` per fired window and key. */
  apply<OUT>(fn: CoGroupWindowFunction<K, L, R, OUT>): DataStream<OUT>;
}

/** `left.keyBy(k).intervalJoin(right.keyBy(k))`: set the bounds with `between`. */
export interface IntervalJoin<L, R, K extends Key> {
  /**
   * A right record joins a left record with the same key when
   * `left.t + lower <= right.t <= left.t + upper` (both bounds inclusive,
   * whole ms, either may be negative; throws unless `lower <= upper`).
   */
  between(lower: number, upper: number): IntervalJoined<L, R, K>;
}

/**
 * An interval join with its bounds: finish with `join` or `process`. Late
 * records (behind the watermark; one at it still joins, as in Flink) of either side are never joined: they
 * are counted in `weir_join_late_records_total` and go to the late-data tag
 * of their side if set.
 */
export interface IntervalJoined<L, R, K extends Key> {
  /** Makes the lower bound exclusive: `left.t + lower < right.t`. */
  lowerBoundExclusive(): IntervalJoined<L, R, K>;

  /** Makes the upper bound exclusive: `right.t < left.t + upper`. */
  upperBoundExclusive(): IntervalJoined<L, R, K>;

  /** Late left records go to `tag`. */
  sideOutputLeftLateData(tag: OutputTag<L>): IntervalJoined<L, R, K>;

  /** Late right records go to `tag`. */
  sideOutputRightLateData(tag: OutputTag<R>): IntervalJoined<L, R, K>;

  /** Emits `join(left, right)` for every pair, stamped with the larger of the two timestamps. */
  join<OUT>(join: (left: L, right: R) => OUT): DataStream<OUT>;

  /**
   * Calls `fn(left, right, context, out)` for every pair (context: key, both
   * timestamps, side outputs). Throws if exclusive bounds leave the interval
   * empty.
   */
  process<OUT>(fn: ProcessJoinFunction<K, L, R, OUT>): DataStream<OUT>;
}

/**
 * Two streams connected by {@link DataStream.connect}: finish with a function
 * that has one method per input, or key both inputs with `keyBy`. The result
 * is one stream; `uid`, `name` and `setParallelism` on it apply to the
 * connected step, and side outputs are read from it with `getSideOutput`.
 */
export interface ConnectedStreams<IN1, IN2> {
  /**
   * Emits `fn.map1(r)` for every record of the first stream and `fn.map2(r)`
   * for every record of the second, each with the record's timestamp.
   */
  map<R>(fn: CoMapFunction<IN1, IN2, R>): DataStream<R>;

  /**
   * Calls `fn.flatMap1` for every record of the first stream and
   * `fn.flatMap2` for every record of the second; each emits any number of
   * records, with the input record's timestamp.
   */
  flatMap<R>(fn: CoFlatMapFunction<IN1, IN2, R>): DataStream<R>;

  /**
   * Calls `fn.processElement1` / `processElement2` for every record of either
   * stream, with its timestamp, the watermark (the least of both inputs') and
   * side outputs (`ctx.output(tag, v)`). Timers need `keyBy` first: as in
   * Flink, registering one here fails the job.
   */
  process<R>(fn: CoProcessFunction<IN1, IN2, R>): DataStream<R>;

  /**
   * Partitions both streams by key, with the same key type: records of
   * either stream with equal keys (`===`) go to the same subtask and share
   * the key's state and timers.
   */
  keyBy<K extends Key>(
    key1: (value: IN1) => K,
    key2: (value: IN2) => K,
  ): KeyedConnectedStreams<IN1, IN2, K>;
}

/**
 * Two connected streams keyed by the same key type (`a.connect(b).keyBy(keyA,
 * keyB)`): functions on them get keyed state in `open`, shared by both
 * inputs' records of each key, and process functions get per-key timers.
 */
export interface KeyedConnectedStreams<IN1, IN2, K extends Key> {
  /**
   * Emits `fn.map1(r)` / `fn.map2(r)` for every record of either stream, with
   * its timestamp; state declared in `fn.open` belongs to the record's key.
   */
  map<R>(fn: KeyedCoMapFunction<IN1, IN2, R>): DataStream<R>;

  /**
   * Calls `fn.flatMap1` / `flatMap2` for every record of either stream, with
   * keyed state declared in `fn.open` (Flink's `RichCoFlatMapFunction` on
   * keyed connected streams: the control-stream pattern).
   */
  flatMap<R>(fn: KeyedCoFlatMapFunction<IN1, IN2, R>): DataStream<R>;

  /**
   * Calls `fn.processElement1` / `processElement2` for every record of either
   * stream, with the key (`ctx.key`), keyed state, event- and processing-time
   * timers (`fn.onTimer`) and side outputs. State and timers are checkpointed.
   */
  process<R>(fn: KeyedCoProcessFunction<K, IN1, IN2, R>): DataStream<R>;
}

/**
 * Where a job is described and from where it runs. Create sources on it,
 * transform the streams, add sinks, then call `execute`.
 *
 * ```ts
 * const env = new StreamEnvironment({ parallelism: 2 });
 * env.fromArray(clicks)
 *   .assignTimestampsAndWatermarks(WatermarkStrategy.forBoundedOutOfOrderness<Click>(5_000)
 *     .withTimestampAssigner((c) => c.time))
 *   .keyBy((c) => c.user)
 *   .window(Windows.tumbling(Time.minutes(1)))
 *   .aggregate(count())
 *   .sinkTo(new PrintSink());
 * await env.execute('clicks per minute');
 * ```
 */
export interface StreamEnvironmentApi {
  /** Default number of subtasks per step (`EnvironmentOptions.parallelism`, default 1). */
  readonly parallelism: number;

  /** Number of key groups, the upper bound for rescaling keyed state (default 128). */
  readonly maxParallelism: number;

  /**
   * Worker threads the job will run on, or undefined when it runs on the
   * calling thread (always so for a job not loaded from a job module).
   */
  readonly workerCount: number | undefined;

  /**
   * How the job restarts after a failure (see {@link RestartStrategy}). It
   * overrides `EnvironmentOptions.restartStrategy` and, in a job module, the
   * `--restart-*` flags and default of `weir run`: the job knows best whether
   * it can be restarted. Throws INVALID_ARGUMENT on a bad setting.
   */
  setRestartStrategy(strategy: RestartStrategy): void;

  /**
   * A stream from any source; with `strategy`, timestamps and watermarks are
   * assigned right after it. `name` (default: the source's) labels the step.
   */
  fromSource<T>(source: Source<T>, strategy?: WatermarkStrategy<T>, name?: string): DataStream<T>;

  /** A bounded stream of the given values, in order (parallelism 1). */
  fromArray<T>(values: Iterable<T>, name?: string): DataStream<T>;

  /** A deterministic generated stream; see {@link GeneratorSourceOptions}. */
  fromGenerator<T>(options: GeneratorSourceOptions<T>): DataStream<T>;

  /**
   * A bounded stream of the records in one or more files, read in order
   * (parallelism 1), decoded by `format` (`FileFormat.jsonLines()`,
   * `FileFormat.csv(...)`, ...).
   */
  fromFile<T>(
    path: string | readonly string[],
    format: FileFormat<T>,
    options?: FileSourceOptions,
  ): DataStream<T>;

  /** An unbounded stream of the records of every file that appears in a directory, each read once. */
  watchDirectory<T>(
    path: string,
    format: FileFormat<T>,
    options?: DirectorySourceOptions,
  ): DataStream<T>;

  /**
   * Runs the job and resolves when its bounded input is exhausted (never, for
   * unbounded input, unless cancelled); rejects if it fails. With
   * `options.restoreFrom`, it starts from that checkpoint or savepoint.
   * One job at a time per environment.
   */
  execute(jobName?: string, options?: ExecuteOptions): Promise<JobResult>;

  /**
   * Starts the job and returns at once with a handle to watch, savepoint or
   * cancel it. Throws if this environment already runs a job.
   */
  executeAsync(jobName?: string, options?: ExecuteOptions): JobClient;

  /**
   * The job's logical graph (as built) and the physical plan it would run
   * with (operators chosen, parallelism, tasks, exchanges), as text. Throws
   * on a job that cannot be planned (e.g. a duplicate uid).
   */
  explain(): string;
}

/** How `new StreamEnvironment(options)` is typed once the class itself is hidden. */
export interface StreamEnvironmentConstructor {
  /** An environment with the given settings; throws on an invalid one (e.g. parallelism 0). */
  new (options?: EnvironmentOptions): StreamEnvironmentApi;
  /** Makes `env instanceof StreamEnvironment` work for users. */
  readonly prototype: StreamEnvironmentApi;
}
