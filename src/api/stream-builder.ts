/**
 * What the stream implementations share, and how they create each other
 * without importing each other. Every stream holds its environment (a
 * `StreamBuilder`), whose `streams` factory (`stream-factory.ts`) builds the
 * implementation behind each interface; a module that needs another kind of
 * stream asks the factory, so no implementation module imports the module of
 * a stream it creates. This module imports only the public interfaces, the
 * option types and the logical plan: no implementation.
 */

import type {
  ChangelogMode,
  GroupResult,
  RetractableAggregateFunction,
} from '../core/changelog.js';
import { invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { WindowAssigner } from '../core/windows.js';
import {
  edgesFrom,
  type LogicalGraph,
  type NodeData,
  type NodeFlags,
  type OutputRef,
} from '../plan/logical/logical-graph.js';
import type { BroadcastProcessNode, Partitioning } from '../plan/logical/nodes.js';
import type {
  TemporalJoinOptions,
  TemporalJoinResult,
  UpdatingAggregateOptions,
} from './options.js';
import type {
  ChangelogStream,
  ConnectedStreams,
  DataStream,
  IntervalJoin,
  KeyedStream,
  TableView,
  TwoStreams,
  WindowedStream,
} from './streams.js';

/** What a stream is made of: the outputs (node, side tag) it reads. */
export type StreamRef = OutputRef;

/** The environment as the streams see it. */
export interface StreamBuilder {
  /** The job's logical graph, which every transformation appends to. */
  readonly graph: LogicalGraph;
  /** Creates the implementation behind each stream interface. */
  readonly streams: StreamFactory;
  /** Registers a sink that collects `stream` into memory and returns the array it fills. */
  collectInto<T>(stream: DataStream<T>): T[];
  /** Runs the job for `executeAndCollect`; rejects unless it finishes. */
  executeForCollect(name: string): Promise<void>;
}

/** A stream's internals: its environment and the outputs it reads. */
export interface StreamParts {
  readonly builder: StreamBuilder;
  readonly refs: readonly StreamRef[];
}

/** A keyed stream's internals: its records and the keyed exchange they go through. */
export interface KeyedParts extends StreamParts {
  readonly partitioning: Partitioning;
}

/**
 * Builds every kind of stream for the others. Its members take and return
 * internals or public interfaces, never implementation classes, so this
 * contract depends on no implementation module.
 */
export interface StreamFactory {
  /** A stream reading `refs`. */
  dataStream<T>(builder: StreamBuilder, refs: readonly StreamRef[]): DataStream<T>;
  /** `DataStream.keyBy`. */
  keyedStream<T, K extends Key>(
    input: StreamParts,
    selectKey: (value: T) => K,
    keyName: string,
  ): KeyedStream<T, K>;
  /**
   * `KeyedStream.window` and `countWindow` (with `count`); `DataStream.windowAll` and
   * `countWindowAll` with `oneSubtask`, whose window functions run at parallelism 1.
   */
  windowedStream<T, K extends Key>(
    input: KeyedParts,
    assigner: WindowAssigner<T>,
    count?: { readonly size: number; readonly slide: number | undefined },
    oneSubtask?: boolean,
  ): WindowedStream<T, K>;
  /** `DataStream.join` and `coGroup`. */
  twoStreams<L, R, M extends 'join' | 'coGroup'>(
    left: StreamParts,
    right: StreamParts,
    mode: M,
  ): TwoStreams<L, R, M>;
  /** `DataStream.connect`. */
  connect<IN1, IN2>(first: StreamParts, second: StreamParts): ConnectedStreams<IN1, IN2>;
  /** `KeyedStream.intervalJoin`. */
  intervalJoin<L, R, K extends Key>(left: KeyedParts, right: KeyedParts): IntervalJoin<L, R, K>;
  /** `DataStream.toChangelog`. */
  toChangelog<T>(stream: StreamParts): ChangelogStream<T>;
  /** `DataStream.asChangelog`. */
  asChangelog<T>(
    stream: StreamParts,
    mode: ChangelogMode,
    upsertKey: ((row: T) => Key) | undefined,
  ): ChangelogStream<T>;
  /** `KeyedStream.updatingAggregate` and `GroupedChangelogStream.updatingAggregate`. */
  updatingAggregate<IN, ROW, K extends Key, ACC, R>(
    input: StreamParts,
    selectKey: (value: IN) => K,
    keyName: string,
    fn: RetractableAggregateFunction<ROW, ACC, R>,
    options: UpdatingAggregateOptions<ACC, ROW>,
    changelogInput: boolean,
  ): ChangelogStream<GroupResult<K, R>>;
  /** `DataStream.temporalJoin`. */
  temporalJoin<P, B, K extends Key, J extends 'inner' | 'left'>(
    probe: StreamParts,
    table: TableView<B, K>,
    options: TemporalJoinOptions<P, K, J>,
  ): DataStream<TemporalJoinResult<P, B, J>>;
  /** `WindowedStream.aggregateChanges` and `reduceChanges`: window results as a changelog. */
  windowChangelog<R>(
    results: StreamParts,
    allowedLateness: number,
    mode: 'retract' | 'upsert',
  ): ChangelogStream<R>;
}

/** Appends a node reading `refs` to the graph and returns the outputs of the new node. */
export function addNodeRefs(
  builder: StreamBuilder,
  data: NodeData,
  name: string,
  refs: readonly StreamRef[],
  partitioning: Partitioning,
  flags: NodeFlags = {},
): StreamRef[] {
  const node = builder.graph.add(data, name, edgesFrom(refs, partitioning), flags);
  return [{ node: node.id, tag: undefined }];
}

/** Appends a node reading `input` and returns the stream of its output. */
export function addNode<OUT>(
  input: StreamParts,
  data: NodeData,
  name: string,
  partitioning: Partitioning = { kind: 'forward' },
  flags: NodeFlags = {},
): DataStream<OUT> {
  const refs = addNodeRefs(input.builder, data, name, input.refs, partitioning, flags);
  return input.builder.streams.dataStream<OUT>(input.builder, refs);
}

/** Appends a keyed node reading `input` (stateful unless the flags say otherwise). */
export function addKeyedNode<OUT>(
  input: KeyedParts,
  data: NodeData,
  name: string,
  flags: NodeFlags = {},
): DataStream<OUT> {
  return addNode<OUT>(input, data, name, input.partitioning, {
    stateful: true,
    ...flags,
    keyed: true,
  });
}

/** Appends a two-input node reading `left` as input 0 and `right` as input 1; returns its outputs. */
export function addTwoInputNodeRefs(
  left: StreamParts,
  right: StreamParts,
  data: NodeData,
  name: string,
  partitionings: readonly [Partitioning, Partitioning],
  flags: NodeFlags = {},
): StreamRef[] {
  const inputs = [
    ...edgesFrom(left.refs, partitionings[0], 0),
    ...edgesFrom(right.refs, partitionings[1], 1),
  ];
  const node = left.builder.graph.add(data, name, inputs, flags);
  return [{ node: node.id, tag: undefined }];
}

/** Appends a two-input node reading `left` as input 0 and `right` as input 1. */
export function addTwoInputNode<OUT>(
  left: StreamParts,
  right: StreamParts,
  data: NodeData,
  name: string,
  partitionings: readonly [Partitioning, Partitioning],
  flags: NodeFlags = {},
): DataStream<OUT> {
  const refs = addTwoInputNodeRefs(left, right, data, name, partitionings, flags);
  return left.builder.streams.dataStream<OUT>(left.builder, refs);
}

/**
 * Adds a broadcast process step (`connectBroadcast`): `input` through `first` (forward, or
 * keyed), every record of `broadcast` to every subtask.
 */
export function addBroadcastProcessNode<OUT>(
  input: StreamParts,
  broadcast: StreamParts,
  data: Extract<NodeData, { kind: 'broadcast-process' | 'keyed-broadcast-process' }>,
  first: Partitioning,
): DataStream<OUT> {
  const fn = data.fn as Partial<BroadcastProcessNode['fn']> | undefined;
  if (
    typeof fn?.processElement !== 'function' ||
    typeof fn.processBroadcastElement !== 'function'
  ) {
    throw invalidArgument(
      'connectBroadcast() needs an object with processElement and processBroadcastElement methods',
    );
  }
  const keyed = data.kind === 'keyed-broadcast-process';
  return addTwoInputNode<OUT>(
    input,
    broadcast,
    data,
    keyed ? 'keyed broadcast process' : 'broadcast process',
    [first, { kind: 'broadcast' }],
    keyed ? { keyed: true, stateful: true } : {},
  );
}

/** The partitioning of a keyed exchange by `selectKey`, shown as `name`. */
export function keyedBy<T>(selectKey: (value: T) => Key, name: string): Partitioning {
  return { kind: 'keyed', selectKey: selectKey as (value: never) => Key, name };
}
