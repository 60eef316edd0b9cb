import {
  type AsyncFunction,
  type AsyncInvoke,
  type AsyncOptions,
  type AsyncSpec,
  asyncSpec,
} from '../core/async-io.js';
import {
  acceptsChangelog,
  type Change,
  type ChangelogMode,
  type GroupResult,
  type RetractableAggregateFunction,
  widestChangelog,
} from '../core/changelog.js';
import { invalidArgument, WeirError } from '../core/errors.js';
import type {
  Collector,
  KeyedBroadcastProcessFunction,
  KeyedProcessFunction,
  ProcessFunction,
  ReduceFunction,
} from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import {
  type LookupJoinOptions,
  type LookupJoinSpec,
  type LookupTable,
  lookupJoinSpec,
} from '../core/lookup.js';
import type { OutputTag } from '../core/output-tag.js';
import type { Sink } from '../core/sink.js';
import { Triggers } from '../core/triggers.js';
import type { WatermarkStrategy, WatermarkStrategySpec } from '../core/watermarks.js';
import type { WindowResult } from '../core/window-result.js';
import type { WindowAssigner } from '../core/windows.js';
import { Windows } from '../core/windows.js';
import {
  edgesFrom,
  type LogicalGraph,
  type NodeData,
  type NodeFlags,
  type OutputRef,
} from '../plan/logical/logical-graph.js';
import type {
  FlatMapNode,
  KeyedBroadcastProcessNode,
  KeyedProcessNode,
  LogicalNode,
  Partitioning,
} from '../plan/logical/nodes.js';
import { type BroadcastJoinOptions, broadcastJoin } from './broadcast-join.js';
import type {
  ChangelogApi,
  ChangelogStream,
  TableView,
  TemporalJoinOptions,
  TemporalJoinResult,
  UpdatingAggregateOptions,
} from './changelog-stream.js';
import {
  type DeduplicateOptions,
  deduplicate,
  type KeepFirstByArrival,
  type KeepRow,
  windowDeduplicate,
} from './deduplicate.js';
import { IntervalJoin, type KeyedInput, TwoStreams } from './joins.js';
import {
  type Ranked,
  type RankedTopNOptions,
  type TopNOptions,
  topN,
  type WindowRanked,
  type WindowTopNOptions,
  windowTopN,
} from './top-n.js';
import { WindowedStream } from './windowed-stream.js';

type FlatMapFn = FlatMapNode['fn'];

/** Side outputs to collect, by the name their records are returned under. */
export type SideOutputTags = Readonly<Record<string, OutputTag<unknown>>>;

/** The records of each collected side output, typed by its tag. */
export type SideOutputRecords<S extends SideOutputTags> = {
  -readonly [K in keyof S]: S[K] extends OutputTag<infer X> ? X[] : never;
};

/** How {@link DataStream.executeAndCollect} runs the job and which side outputs it collects. */
export interface CollectOptions<S extends SideOutputTags> {
  readonly jobName?: string;
  readonly sideOutputs: S;
}

/** What {@link DataStream.executeAndCollect} returns when it collects side outputs too. */
export interface CollectedWithSideOutputs<T, S extends SideOutputTags> {
  readonly records: T[];
  readonly sideOutputs: SideOutputRecords<S>;
}

/** @internal What a stream is made of: the outputs (node, side tag) it reads. */
export type StreamRef = OutputRef;

/**
 * The environment as seen by streams. Its members are internal; the interface
 * itself is not, because `StreamEnvironment implements` it in the declarations.
 */
export interface StreamBuilder {
  /** @internal */
  readonly graph: LogicalGraph;
  /** @internal Registers a sink that collects into memory and returns the array it fills. */
  collectInto<T>(stream: DataStream<T>): T[];
  /** @internal */
  executeForCollect(name: string): Promise<void>;
  /** @internal Builds changelog operators (kept apart so this module needs no value import of them). */
  readonly changelogs: ChangelogApi;
}

/** @internal Appends a node reading `refs` to the builder's graph and returns the stream of its output. */
export function addNode<OUT>(
  builder: StreamBuilder,
  data: NodeData,
  name: string,
  refs: readonly StreamRef[],
  partitioning: Partitioning,
  flags: NodeFlags = {},
): DataStream<OUT> {
  const node = builder.graph.add(data, name, edgesFrom(refs, partitioning), flags);
  return new DataStream<OUT>(builder, [{ node: node.id, tag: undefined }]);
}

/** @internal The partitioning of a keyed exchange by `selectKey`, shown as `name`. */
export function keyedBy<T>(selectKey: (value: T) => Key, name: string): Partitioning {
  return { kind: 'keyed', selectKey: selectKey as (value: never) => Key, name };
}

/**
 * A stream of records of type T. Transformations return new streams and add
 * operators to the job; nothing runs until the environment executes.
 */
export class DataStream<T> {
  /** @internal */
  constructor(
    /** @internal */
    readonly builder: StreamBuilder,
    /** @internal */
    readonly refs: readonly StreamRef[],
  ) {}

  /** @internal Adds a node reading this stream. */
  protected addNode<OUT>(
    data: NodeData,
    name: string,
    partitioning: Partitioning = { kind: 'forward' },
    flags: NodeFlags = {},
  ): DataStream<OUT> {
    return addNode<OUT>(this.builder, data, name, this.refs, partitioning, flags);
  }

  /** The single node that produced this stream, for naming and configuring it. */
  private producer(what: string): LogicalNode {
    if (this.refs.length !== 1 || this.refs[0]!.tag !== undefined) {
      throw invalidArgument(
        `${what} applies to an operator's output, not to a union or side output`,
      );
    }
    return this.builder.graph.node(this.refs[0]!.node);
  }

  /** @internal Adds a two-input node reading this stream as input 0 and `other` as input 1. */
  addTwoInputNode<OUT>(
    data: NodeData,
    name: string,
    other: { readonly refs: readonly StreamRef[] },
    partitionings: readonly [Partitioning, Partitioning],
    flags: NodeFlags = {},
  ): DataStream<OUT> {
    const inputs = [
      ...edgesFrom(this.refs, partitionings[0], 0),
      ...edgesFrom(other.refs, partitionings[1], 1),
    ];
    const node = this.builder.graph.add(data, name, inputs, flags);
    return new DataStream<OUT>(this.builder, [{ node: node.id, tag: undefined }]);
  }

  /** Sets the stable id of the operator that produced this stream (its state is keyed by it). */
  uid(id: string): this {
    if (id.length === 0) throw invalidArgument('uid must not be empty');
    this.producer('uid()').uid = id;
    return this;
  }

  /** Sets the display name of the operator that produced this stream. */
  name(name: string): this {
    this.producer('name()').name = name;
    return this;
  }

  /** Sets how many subtasks run the operator that produced this stream. */
  setParallelism(parallelism: number): this {
    if (!Number.isInteger(parallelism) || parallelism < 1) {
      throw invalidArgument(`parallelism must be a positive whole number, got ${parallelism}`);
    }
    this.producer('setParallelism()').parallelism = parallelism;
    return this;
  }

  /** Applies `fn` to every record. */
  map<R>(fn: (value: T) => R): DataStream<R> {
    return this.addNode({ kind: 'map', fn }, 'map');
  }

  /** Keeps the records `predicate` accepts; a type guard narrows the stream's type. */
  filter<S extends T>(predicate: (value: T) => value is S): DataStream<S>;
  filter(predicate: (value: T) => boolean): DataStream<T>;
  filter(predicate: (value: T) => boolean): DataStream<T> {
    return this.addNode({ kind: 'filter', predicate }, 'filter');
  }

  /** Emits zero or more records per record through `out`. */
  flatMap<R>(fn: (value: T, out: Collector<R>) => void): DataStream<R> {
    return this.addNode({ kind: 'flat-map', fn: fn as FlatMapFn }, 'flatMap');
  }

  /** Calls a process function per record (side outputs, processing time). */
  process<R>(fn: ProcessFunction<T, R>): DataStream<R> {
    return this.addNode({ kind: 'process', fn: fn as ProcessFunction<never, unknown> }, 'process');
  }

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
    options: AsyncOptions<T, R> = {},
  ): DataStream<R> {
    const spec = asyncSpec(options);
    return this.addNode(
      {
        kind: 'async',
        fn: fn as AsyncFunction<never, unknown>,
        spec: spec as AsyncSpec<never, unknown>,
      },
      'async',
    );
  }

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
  ): DataStream<R> {
    const spec = lookupJoinSpec(table, options);
    return this.addNode(
      {
        kind: 'lookup-join',
        table: table as unknown as LookupTable<Key, unknown>,
        spec: spec as unknown as LookupJoinSpec<unknown, Key, unknown, unknown>,
      },
      `lookup join: ${table.name}`,
    );
  }

  /** Assigns event time to records and generates watermarks, per subtask. */
  assignTimestampsAndWatermarks(strategy: WatermarkStrategy<T>): DataStream<T> {
    const spec = strategy.toSpec() as WatermarkStrategySpec<unknown>;
    return this.addNode({ kind: 'timestamps-watermarks', spec }, 'timestamps/watermarks');
  }

  /** Partitions by key: records with equal keys go to the same subtask and share state. */
  keyBy<K extends Key>(selectKey: (value: T) => K, name = 'keyBy'): KeyedStream<T, K> {
    return new KeyedStream<T, K>(this.builder, this.refs, selectKey, name);
  }

  /** Merges streams of the same type; event time is the minimum over the inputs. */
  union(...others: DataStream<T>[]): DataStream<T> {
    return new DataStream<T>(this.builder, [...this.refs, ...others.flatMap((o) => o.refs)]);
  }

  /**
   * A window join with `other`: `a.join(b).where(keyA).equalTo(keyB)
   * .window(Windows.tumbling(10_000)).apply((l, r) => ...)` emits every pair
   * with equal keys in the same event-time window when the window fires.
   */
  join<U>(other: DataStream<U>): TwoStreams<T, U, 'join'> {
    return new TwoStreams(this, other, 'join');
  }

  /**
   * A window co-group with `other`: like `join`, but the function sees all
   * records of both sides per window and key (either side may be empty).
   */
  coGroup<U>(other: DataStream<U>): TwoStreams<T, U, 'coGroup'> {
    return new TwoStreams(this, other, 'coGroup');
  }

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
  ): DataStream<OUT> {
    return broadcastJoin(this, side, options, false);
  }

  /**
   * Like `broadcastJoin`, with a side stream of changes (`Change<S>`): `+I`
   * and `+U` put rows into the table, `-U` and `-D` remove them.
   */
  broadcastJoinChangelog<S, BK extends Key, OUT>(
    side: DataStream<Change<S>>,
    options: BroadcastJoinOptions<T, S, BK, OUT>,
  ): DataStream<OUT> {
    return broadcastJoin(this, side, options, true);
  }

  /** Spreads records evenly over the next operator's subtasks. */
  rebalance(): DataStream<T> {
    return this.addNode({ kind: 'rebalance' }, 'rebalance', { kind: 'rebalance' });
  }

  /** Sends every record to every subtask of the next operator. */
  broadcast(): DataStream<T> {
    return this.addNode({ kind: 'broadcast' }, 'broadcast', { kind: 'broadcast' });
  }

  /** The records the producing operator emitted to a side output. */
  getSideOutput<S>(tag: OutputTag<S>): DataStream<S> {
    const node = this.producer('getSideOutput()');
    return new DataStream<S>(this.builder, [{ node: node.id, tag: tag.id }]);
  }

  /** This stream as an insert-only changelog: every record becomes a `+I` change. */
  toChangelog(): ChangelogStream<T> {
    return this.builder.changelogs.toChangelog(this);
  }

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
  ): ChangelogStream<R> {
    return this.builder.changelogs.asChangelog(this, mode, upsertKey);
  }

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
  ): DataStream<TemporalJoinResult<T, B, J>> {
    return this.builder.changelogs.temporalJoin(this, table, options);
  }

  /** @internal What this stream carries: `insert-only`, or changes in the widest mode of its parts. */
  changelogMode(): ChangelogMode {
    return widestChangelog(
      this.refs.map((r) =>
        r.tag === undefined ? this.builder.graph.changelogOf(r.node) : 'insert-only',
      ),
    );
  }

  /**
   * Writes the stream to a sink. Returns the sink's stream handle for naming
   * and parallelism. Refuses, when the job is built, a changelog stream the
   * sink cannot apply (updates into an append-only sink).
   */
  sinkTo(sink: Sink<T>): DataStream<never> {
    const mode = this.changelogMode();
    const accepted = sink.accepts ?? 'insert-only';
    if (!acceptsChangelog(accepted, mode)) {
      throw new WeirError(
        'INVALID_JOB',
        `sink '${sink.name}' accepts ${accepted} streams, but this stream is a ${mode} changelog (it carries ${mode === 'retract' ? 'update-before, update-after and delete' : 'updates and deletes'} changes); use a sink that accepts ${mode}, or turn the changes into plain records first`,
      );
    }
    return this.addNode<never>({ kind: 'sink', sink: sink as Sink<unknown> }, `sink: ${sink.name}`);
  }

  /**
   * Runs the job (bounded input only) and returns this stream's records. With
   * parallelism above 1, records of different subtasks may interleave.
   */
  executeAndCollect(jobName?: string): Promise<T[]>;
  /**
   * Runs the job (bounded input only) and returns this stream's records and
   * those of the producing operator's side outputs, one array per named tag:
   * `{ sideOutputs: { late: lateTag } }` resolves to `{ records, sideOutputs: { late } }`.
   */
  executeAndCollect<S extends SideOutputTags>(
    options: CollectOptions<S>,
  ): Promise<CollectedWithSideOutputs<T, S>>;
  async executeAndCollect<S extends SideOutputTags>(
    arg?: string | CollectOptions<S>,
  ): Promise<T[] | CollectedWithSideOutputs<T, S>> {
    if (typeof arg !== 'object') {
      const out = this.builder.collectInto(this);
      await this.builder.executeForCollect(arg ?? 'collect');
      return out;
    }
    const records = this.builder.collectInto(this);
    const sideOutputs: Record<string, unknown[]> = {};
    for (const [name, tag] of Object.entries(arg.sideOutputs)) {
      sideOutputs[name] = this.builder.collectInto(this.getSideOutput(tag));
    }
    await this.builder.executeForCollect(arg.jobName ?? 'collect');
    return { records, sideOutputs: sideOutputs as SideOutputRecords<S> };
  }
}

/** A stream partitioned by key: the input of keyed state, timers and windows. */
export class KeyedStream<T, K extends Key> {
  /** @internal */
  constructor(
    private readonly builder: StreamBuilder,
    private readonly refs: readonly StreamRef[],
    private readonly selectKey: (value: T) => K,
    private readonly keyName: string,
  ) {}

  /** @internal The keyed exchange this stream's records go through. */
  partitioning(): Partitioning {
    return keyedBy(this.selectKey, this.keyName);
  }

  /** @internal Adds a keyed node reading this stream (stateful unless the flags say otherwise). */
  addKeyedNode<OUT>(data: NodeData, name: string, flags: NodeFlags = {}): DataStream<OUT> {
    return addNode<OUT>(this.builder, data, name, this.refs, this.partitioning(), {
      stateful: true,
      ...flags,
      keyed: true,
    });
  }

  /** Applies `fn` after partitioning by key (stateless; records of a key stay in order). */
  map<R>(fn: (value: T) => R): DataStream<R> {
    return this.addKeyedNode({ kind: 'map', fn }, 'map', { stateful: false });
  }

  /** Keeps the records `predicate` accepts, after partitioning by key; a type guard narrows the type. */
  filter<S extends T>(predicate: (value: T) => value is S): DataStream<S>;
  filter(predicate: (value: T) => boolean): DataStream<T>;
  filter(predicate: (value: T) => boolean): DataStream<T> {
    return this.addKeyedNode({ kind: 'filter', predicate }, 'filter', { stateful: false });
  }

  /** Emits zero or more records per record through `out`, after partitioning by key. */
  flatMap<R>(fn: (value: T, out: Collector<R>) => void): DataStream<R> {
    return this.addKeyedNode({ kind: 'flat-map', fn: fn as FlatMapFn }, 'flatMap', {
      stateful: false,
    });
  }

  /**
   * The broadcast state pattern: every record of `broadcast` reaches every
   * subtask and updates its broadcast state (e.g. rules); this stream's keyed
   * records read that state. Keyed state, timers and the broadcast state are
   * checkpointed.
   */
  connectBroadcast<BC, OUT, BK extends Key, BV>(
    broadcast: DataStream<BC>,
    fn: KeyedBroadcastProcessFunction<K, T, BC, OUT, BK, BV>,
  ): DataStream<OUT> {
    if (
      typeof fn?.processElement !== 'function' ||
      typeof fn.processBroadcastElement !== 'function'
    ) {
      throw invalidArgument(
        'connectBroadcast() needs an object with processElement and processBroadcastElement methods',
      );
    }
    return new DataStream<T>(this.builder, this.refs).addTwoInputNode<OUT>(
      {
        kind: 'keyed-broadcast-process',
        fn: fn as unknown as KeyedBroadcastProcessNode['fn'],
      },
      'keyed broadcast process',
      broadcast,
      [this.partitioning(), { kind: 'broadcast' }],
      { keyed: true, stateful: true },
    );
  }

  /**
   * A non-windowed GROUP BY: folds every record into its key's accumulator
   * and emits the key's result as a change each time it changes: `+I` for a
   * new key, then `-U old, +U new` (`retract`, the default) or `+U new`
   * (`upsert` on the key). With `ttl`, a key's state is dropped after that
   * long without records (processing time) and the key starts over with `+I`.
   */
  updatingAggregate<ACC, R>(
    fn: RetractableAggregateFunction<T, ACC, R>,
    options: UpdatingAggregateOptions<ACC> = {},
  ): ChangelogStream<GroupResult<K, R>> {
    return this.builder.changelogs.updatingAggregate<T, T, K, ACC, R>(
      this.builder,
      this.refs,
      this.selectKey,
      this.keyName,
      fn,
      options,
      false,
    );
  }

  /**
   * Deduplication per key (Flink's `ROW_NUMBER() ... = 1`): keeps the first or
   * the last row of each key. Keep-first by arrival (the default for
   * `keep: 'first'`) emits plain records: each key's first row, once. Every
   * other variant may replace the kept row and emits changes: `+I` for a
   * key's first row, then `-U old` / `+U new` (or only `+U new` in `upsert`
   * mode) when a row replaces it. Keep-last by event time: the row with the
   * largest timestamp wins, ties go to the later arrival. One state entry per
   * key, forgotten after `ttl` if set. See docs/joins.md.
   */
  deduplicate(options: KeepFirstByArrival): DataStream<T>;
  deduplicate(options: DeduplicateOptions): DataStream<Change<T>>;
  deduplicate(options: DeduplicateOptions): DataStream<T> | DataStream<Change<T>> {
    return deduplicate(this, options) as DataStream<Change<T>>;
  }

  /**
   * Deduplication per key and event-time window (tumbling or sliding): when a
   * window fires, emits the first (smallest timestamp) or last (largest) row
   * of each key in it, once. Records behind every window they belong to are
   * counted as late and go to `lateDataTag` if set.
   */
  windowDeduplicate(
    assigner: WindowAssigner<never>,
    options: { readonly keep: KeepRow; readonly lateDataTag?: OutputTag<T> },
  ): DataStream<WindowResult<K, T>> {
    return windowDeduplicate(this, assigner, options);
  }

  /**
   * An interval join with another keyed stream of the same key type:
   * `a.keyBy(k).intervalJoin(b.keyBy(k)).between(lower, upper).join((l, r) => ...)`
   * joins `l` and `r` with equal keys when `l.t + lower <= r.t <= l.t + upper`.
   */
  intervalJoin<U>(other: KeyedStream<U, K>): IntervalJoin<T, U, K> {
    return new IntervalJoin<T, U, K>(this.asJoinInput(), other.asJoinInput());
  }

  /** @internal This stream as one input of a keyed two-input operator. */
  asJoinInput(): KeyedInput<T> {
    return {
      stream: new DataStream<T>(this.builder, this.refs),
      partitioning: this.partitioning(),
    };
  }

  /**
   * Top-N per key (Flink's `ROW_NUMBER() OVER (PARTITION BY key ORDER BY ...)
   * <= n` over an insert-only stream): keeps the `n` first rows of each key by
   * `compare` and emits changes as the ranking moves. Without rank numbers:
   * `+I` for a row entering the top n, `-D` for the row it pushes out. With
   * `rankNumber: true`: `Ranked` rows, `-U`/`+U` for every rank that changed
   * (`+I` for a newly filled rank). State: at most `n` rows per key.
   */
  topN(options: RankedTopNOptions<T>): DataStream<Change<Ranked<T>>>;
  topN(options: TopNOptions<T>): DataStream<Change<T>>;
  topN(
    options: TopNOptions<T> | RankedTopNOptions<T>,
  ): DataStream<Change<T>> | DataStream<Change<Ranked<T>>> {
    return topN(this, options) as DataStream<Change<T>>;
  }

  /**
   * Top-N per key and event-time window (tumbling or sliding): when a window
   * fires, emits its `n` first rows by `compare`, with rank numbers, once.
   */
  windowTopN(
    assigner: WindowAssigner<never>,
    options: WindowTopNOptions<T>,
  ): DataStream<WindowRanked<K, T>> {
    return windowTopN(this, assigner, options);
  }

  /** A running reduction per key: emits the updated value for every record. */
  reduce(fn: ReduceFunction<T>): DataStream<T> {
    return this.addKeyedNode(
      { kind: 'rolling-reduce', fn: fn as ReduceFunction<unknown> },
      'reduce',
    );
  }

  /** A keyed process function with keyed state and timers. */
  process<R>(fn: KeyedProcessFunction<K, T, R>): DataStream<R> {
    if (typeof fn?.processElement !== 'function') {
      throw invalidArgument(
        'process() needs an object with a processElement(value, ctx, out) method',
      );
    }
    return this.addKeyedNode(
      { kind: 'keyed-process', fn: fn as unknown as KeyedProcessNode['fn'] },
      'keyed process',
    );
  }

  /** Groups each key's records into windows. */
  window(assigner: WindowAssigner<T>): WindowedStream<T, K> {
    if (assigner === undefined || typeof assigner !== 'object' || !('kind' in assigner)) {
      throw invalidArgument(
        'window() needs a window assigner, e.g. Windows.tumbling(Time.seconds(10))',
      );
    }
    return new WindowedStream<T, K>(this, assigner);
  }

  /**
   * Count windows: every `size` records of a key form a window; with `slide`,
   * a window of the last `size` records is emitted every `slide` records.
   */
  countWindow(size: number, slide?: number): WindowedStream<T, K> {
    if (!Number.isInteger(size) || size <= 0) {
      throw invalidArgument(`count window size must be a positive whole number, got ${size}`);
    }
    if (slide === undefined) {
      return new WindowedStream<T, K>(this, Windows.global()).withTrigger(
        Triggers.purging(Triggers.count<T>(size)),
        `count ${size}, purging`,
      );
    }
    if (!Number.isInteger(slide) || slide <= 0) {
      throw invalidArgument(`count window slide must be a positive whole number, got ${slide}`);
    }
    return new WindowedStream<T, K>(this, Windows.global(), size).withTrigger(
      Triggers.count<T>(slide),
      `count ${slide}, keep last ${size}`,
    );
  }
}
