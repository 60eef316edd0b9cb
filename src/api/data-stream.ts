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
  widestChangelog,
} from '../core/changelog.js';
import { invalidArgument, WeirError } from '../core/errors.js';
import type { BroadcastProcessFunction, Collector, ProcessFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import {
  type LookupJoinOptions,
  type LookupJoinSpec,
  type LookupTable,
  lookupJoinSpec,
} from '../core/lookup.js';
import type { OutputTag } from '../core/output-tag.js';
import type { Sink } from '../core/sink.js';
import type { WatermarkStrategy, WatermarkStrategySpec } from '../core/watermarks.js';
import { ALL_WINDOWS_KEY, type AllWindowsKey } from '../core/window-result.js';
import { type WindowAssigner, Windows } from '../core/windows.js';
import type { NodeData, NodeFlags } from '../plan/logical/logical-graph.js';
import type {
  BroadcastProcessNode,
  FlatMapNode,
  LogicalNode,
  Partitioning,
} from '../plan/logical/nodes.js';
import { broadcastJoin } from './broadcast-join.js';
import { implOf } from './impl-of.js';
import type {
  BroadcastJoinOptions,
  CollectedWithSideOutputs,
  CollectOptions,
  SideOutputRecords,
  SideOutputTags,
  TemporalJoinOptions,
  TemporalJoinResult,
} from './options.js';
import {
  addBroadcastProcessNode,
  addNode,
  type KeyedParts,
  keyedBy,
  type StreamBuilder,
  type StreamParts,
  type StreamRef,
} from './stream-builder.js';
import type {
  ChangelogStream,
  ConnectedStreams,
  DataStream,
  KeyedStream,
  TableView,
  TwoStreams,
  WindowedStream,
} from './streams.js';

type FlatMapFn = FlatMapNode['fn'];

/**
 * The side-output tags read from each node, by id. Side outputs are routed by tag id, so two
 * different tags with one id on one operator would silently share (and mix) their records;
 * Flink refuses such a name clash in `getSideOutput`, and so does Weir.
 */
const requestedSideOutputs = new WeakMap<LogicalNode, Map<string, OutputTag<unknown>>>();

/** The implementation of {@link DataStream}: a list of node outputs in the environment's graph. */
export class DataStreamImpl<T> implements DataStream<T>, StreamParts {
  constructor(
    readonly builder: StreamBuilder,
    readonly refs: readonly StreamRef[],
  ) {}

  /** Adds a node reading this stream. */
  protected addNode<OUT>(
    data: NodeData,
    name: string,
    partitioning: Partitioning = { kind: 'forward' },
    flags: NodeFlags = {},
  ): DataStream<OUT> {
    return addNode<OUT>(this, data, name, partitioning, flags);
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

  uid(id: string): this {
    if (id.length === 0) throw invalidArgument('uid must not be empty');
    this.producer('uid()').uid = id;
    return this;
  }

  name(name: string): this {
    this.producer('name()').name = name;
    return this;
  }

  setParallelism(parallelism: number): this {
    if (!Number.isInteger(parallelism) || parallelism < 1) {
      throw invalidArgument(`parallelism must be a positive whole number, got ${parallelism}`);
    }
    this.producer('setParallelism()').parallelism = parallelism;
    return this;
  }

  map<R>(fn: (value: T) => R): DataStream<R> {
    return this.addNode({ kind: 'map', fn }, 'map');
  }

  filter<S extends T>(predicate: (value: T) => value is S): DataStream<S>;
  filter(predicate: (value: T) => boolean): DataStream<T>;
  filter(predicate: (value: T) => boolean): DataStream<T> {
    return this.addNode({ kind: 'filter', predicate }, 'filter');
  }

  flatMap<R>(fn: (value: T, out: Collector<R>) => void): DataStream<R> {
    return this.addNode({ kind: 'flat-map', fn: fn as FlatMapFn }, 'flatMap');
  }

  process<R>(fn: ProcessFunction<T, R>): DataStream<R> {
    return this.addNode({ kind: 'process', fn: fn as ProcessFunction<never, unknown> }, 'process');
  }

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

  assignTimestampsAndWatermarks(strategy: WatermarkStrategy<T>): DataStream<T> {
    const spec = strategy.toSpec() as WatermarkStrategySpec<unknown>;
    return this.addNode({ kind: 'timestamps-watermarks', spec }, 'timestamps/watermarks');
  }

  keyBy<K extends Key>(selectKey: (value: T) => K, name = 'keyBy'): KeyedStream<T, K> {
    return this.builder.streams.keyedStream(this, selectKey, name);
  }

  windowAll(assigner: WindowAssigner<T>): WindowedStream<T, AllWindowsKey> {
    if (assigner === undefined || assigner === null) {
      throw invalidArgument(
        'windowAll() needs a window assigner, e.g. Windows.tumbling(Time.seconds(10))',
      );
    }
    return this.builder.streams.windowedStream<T, AllWindowsKey>(
      this.allInOneGroup(),
      assigner,
      undefined,
      true,
    );
  }

  countWindowAll(size: number, slide?: number): WindowedStream<T, AllWindowsKey> {
    return this.builder.streams.windowedStream<T, AllWindowsKey>(
      this.allInOneGroup(),
      Windows.global(),
      { size, slide },
      true,
    );
  }

  /** This stream keyed by one key for all records: one subtask gets them all. */
  private allInOneGroup(): KeyedParts {
    return {
      builder: this.builder,
      refs: this.refs,
      partitioning: keyedBy((_: T) => ALL_WINDOWS_KEY, 'windowAll'),
    };
  }

  union(...others: DataStream<T>[]): DataStream<T> {
    const refs = others.flatMap((o) => implOf(o, DataStreamImpl, 'union').refs);
    return new DataStreamImpl<T>(this.builder, [...this.refs, ...refs]);
  }

  join<U>(other: DataStream<U>): TwoStreams<T, U, 'join'> {
    return this.builder.streams.twoStreams(this, implOf(other, DataStreamImpl, 'join'), 'join');
  }

  coGroup<U>(other: DataStream<U>): TwoStreams<T, U, 'coGroup'> {
    const right = implOf(other, DataStreamImpl, 'coGroup');
    return this.builder.streams.twoStreams(this, right, 'coGroup');
  }

  connect<U>(other: DataStream<U>): ConnectedStreams<T, U> {
    return this.builder.streams.connect(this, implOf(other, DataStreamImpl, 'connect'));
  }

  connectBroadcast<BC, OUT, BK extends Key, BV>(
    broadcast: DataStream<BC>,
    fn: BroadcastProcessFunction<T, BC, OUT, BK, BV>,
  ): DataStream<OUT> {
    return addBroadcastProcessNode<OUT>(
      this,
      implOf(broadcast, DataStreamImpl, 'connectBroadcast'),
      { kind: 'broadcast-process', fn: fn as unknown as BroadcastProcessNode['fn'] },
      { kind: 'forward' },
    );
  }

  broadcastJoin<S, BK extends Key, OUT>(
    side: DataStream<S>,
    options: BroadcastJoinOptions<T, S, BK, OUT>,
  ): DataStream<OUT> {
    return broadcastJoin(this, implOf(side, DataStreamImpl, 'broadcastJoin'), options, false);
  }

  broadcastJoinChangelog<S, BK extends Key, OUT>(
    side: DataStream<Change<S>>,
    options: BroadcastJoinOptions<T, S, BK, OUT>,
  ): DataStream<OUT> {
    const sideParts = implOf(side, DataStreamImpl, 'broadcastJoinChangelog');
    return broadcastJoin(this, sideParts, options, true);
  }

  rebalance(): DataStream<T> {
    return this.addNode({ kind: 'rebalance' }, 'rebalance', { kind: 'rebalance' });
  }

  broadcast(): DataStream<T> {
    return this.addNode({ kind: 'broadcast' }, 'broadcast', { kind: 'broadcast' });
  }

  // The steps below pass records through unchanged, like rebalance: the partitioning is on their input edge.
  shuffle(): DataStream<T> {
    return this.addNode({ kind: 'rebalance' }, 'shuffle', { kind: 'shuffle' });
  }

  rescale(): DataStream<T> {
    return this.addNode({ kind: 'rebalance' }, 'rescale', { kind: 'rescale' });
  }

  global(): DataStream<T> {
    return this.addNode({ kind: 'rebalance' }, 'global', { kind: 'global' });
  }

  partitionCustom<K>(
    partition: (key: K, numPartitions: number) => number,
    selectKey: (value: T) => K,
    name = 'partitionCustom',
  ): DataStream<T> {
    if (typeof partition !== 'function' || typeof selectKey !== 'function') {
      throw invalidArgument(
        'partitionCustom(partition, selectKey) needs a partitioner function (key, numPartitions) => subtask and a key selector function',
      );
    }
    return this.addNode({ kind: 'rebalance' }, name, {
      kind: 'custom',
      selectKey: selectKey as (value: never) => unknown,
      partition: partition as (key: never, numPartitions: number) => number,
      name,
    });
  }

  getSideOutput<S>(tag: OutputTag<S>): DataStream<S> {
    const node = this.producer('getSideOutput()');
    const requested = requestedSideOutputs.get(node) ?? new Map<string, OutputTag<unknown>>();
    requestedSideOutputs.set(node, requested);
    const earlier = requested.get(tag.id);
    if (earlier !== undefined && earlier !== tag) {
      throw invalidArgument(
        `side output '${tag.id}' of '${node.name}' is already read with another OutputTag of that id; tag ids must be unique`,
      );
    }
    requested.set(tag.id, tag);
    return new DataStreamImpl<S>(this.builder, [{ node: node.id, tag: tag.id }]);
  }

  toChangelog(): ChangelogStream<T> {
    return this.builder.streams.toChangelog(this);
  }

  asChangelog<R>(
    this: DataStream<Change<R>>,
    mode: ChangelogMode,
    upsertKey?: (row: R) => Key,
  ): ChangelogStream<R> {
    const self = implOf(this, DataStreamImpl, 'asChangelog');
    return self.builder.streams.asChangelog(self, mode, upsertKey);
  }

  temporalJoin<B, K extends Key, J extends 'inner' | 'left' = 'inner'>(
    table: TableView<B, K>,
    options: TemporalJoinOptions<T, K, J>,
  ): DataStream<TemporalJoinResult<T, B, J>> {
    return this.builder.streams.temporalJoin(this, table, options);
  }

  /** What this stream carries: `insert-only`, or changes in the widest mode of its parts. */
  changelogMode(): ChangelogMode {
    return widestChangelog(
      this.refs.map((r) =>
        r.tag === undefined ? this.builder.graph.changelogOf(r.node) : 'insert-only',
      ),
    );
  }

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

  executeAndCollect(jobName?: string): Promise<T[]>;
  executeAndCollect<S extends SideOutputTags>(
    options: CollectOptions<S>,
  ): Promise<CollectedWithSideOutputs<T, S>>;
  async executeAndCollect<S extends SideOutputTags>(
    arg?: string | CollectOptions<S>,
  ): Promise<T[] | CollectedWithSideOutputs<T, S>> {
    if (typeof arg !== 'object') {
      const out = this.builder.collectInto<T>(this);
      await this.builder.executeForCollect(arg ?? 'collect');
      return out;
    }
    const records = this.builder.collectInto<T>(this);
    const sideOutputs: Record<string, unknown[]> = {};
    for (const [name, tag] of Object.entries(arg.sideOutputs)) {
      sideOutputs[name] = this.builder.collectInto(this.getSideOutput(tag));
    }
    await this.builder.executeForCollect(arg.jobName ?? 'collect');
    return { records, sideOutputs: sideOutputs as SideOutputRecords<S> };
  }
}
