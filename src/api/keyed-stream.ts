import type { Change, GroupResult, RetractableAggregateFunction } from '../core/changelog.js';
import { invalidArgument } from '../core/errors.js';
import type {
  Collector,
  KeyedBroadcastProcessFunction,
  KeyedProcessFunction,
  ReduceFunction,
} from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { WindowResult } from '../core/window-result.js';
import { type RecordWindows, type WindowAssigner, Windows } from '../core/windows.js';
import type { NodeData, NodeFlags } from '../plan/logical/logical-graph.js';
import type {
  FlatMapNode,
  KeyedBroadcastProcessNode,
  KeyedProcessNode,
  Partitioning,
} from '../plan/logical/nodes.js';
import { KeyedConnectedStreamsImpl } from './connected-streams.js';
import { DataStreamImpl } from './data-stream.js';
import { deduplicate, windowDeduplicate } from './deduplicate.js';
import { implOf } from './impl-of.js';
import type {
  DeduplicateOptions,
  DeduplicateRowsOptions,
  KeepFirstByArrival,
  Ranked,
  RankedRowsTopNOptions,
  RankedTopNOptions,
  ReduceOptions,
  TopNOptions,
  UpdatingAggregateOptions,
  WindowDeduplicateOptions,
  WindowRanked,
  WindowTopNOptions,
} from './options.js';
import {
  addBroadcastProcessNode,
  addKeyedNode,
  type KeyedParts,
  keyedBy,
  type StreamBuilder,
  type StreamParts,
  type StreamRef,
} from './stream-builder.js';
import type {
  ChangelogStream,
  DataStream,
  IntervalJoin,
  KeyedConnectedStreams,
  KeyedStream,
  WindowedStream,
} from './streams.js';
import { topN, windowTopN } from './top-n.js';

type FlatMapFn = FlatMapNode['fn'];

/** The implementation of {@link KeyedStream}: a stream and the key it is partitioned by. */
export class KeyedStreamImpl<T, K extends Key> implements KeyedStream<T, K>, KeyedParts {
  readonly builder: StreamBuilder;
  readonly refs: readonly StreamRef[];
  /** The keyed exchange this stream's records go through. */
  readonly partitioning: Partitioning;

  constructor(
    input: StreamParts,
    private readonly selectKey: (value: T) => K,
    private readonly keyName: string,
  ) {
    this.builder = input.builder;
    this.refs = input.refs;
    this.partitioning = keyedBy(selectKey, keyName);
  }

  /** Adds a keyed node reading this stream (stateful unless the flags say otherwise). */
  private addKeyedNode<OUT>(data: NodeData, name: string, flags: NodeFlags = {}): DataStream<OUT> {
    return addKeyedNode<OUT>(this, data, name, flags);
  }

  map<R>(fn: (value: T) => R): DataStream<R> {
    return this.addKeyedNode({ kind: 'map', fn }, 'map', { stateful: false });
  }

  filter<S extends T>(predicate: (value: T) => value is S): DataStream<S>;
  filter(predicate: (value: T) => boolean): DataStream<T>;
  filter(predicate: (value: T) => boolean): DataStream<T> {
    return this.addKeyedNode({ kind: 'filter', predicate }, 'filter', { stateful: false });
  }

  flatMap<R>(fn: (value: T, out: Collector<R>) => void): DataStream<R> {
    return this.addKeyedNode({ kind: 'flat-map', fn: fn as FlatMapFn }, 'flatMap', {
      stateful: false,
    });
  }

  connect<U>(other: KeyedStream<U, K>): KeyedConnectedStreams<T, U, K> {
    // Each input keeps its own key selector; equal keys meet in the same subtask.
    return new KeyedConnectedStreamsImpl<T, U, K>(this, implOf(other, KeyedStreamImpl, 'connect'));
  }

  connectBroadcast<BC, OUT, BK extends Key, BV>(
    broadcast: DataStream<BC>,
    fn: KeyedBroadcastProcessFunction<K, T, BC, OUT, BK, BV>,
  ): DataStream<OUT> {
    return addBroadcastProcessNode<OUT>(
      this,
      implOf(broadcast, DataStreamImpl, 'connectBroadcast'),
      { kind: 'keyed-broadcast-process', fn: fn as unknown as KeyedBroadcastProcessNode['fn'] },
      this.partitioning,
    );
  }

  updatingAggregate<ACC, R>(
    fn: RetractableAggregateFunction<T, ACC, R>,
    options: UpdatingAggregateOptions<ACC, T> = {},
  ): ChangelogStream<GroupResult<K, R>> {
    return this.builder.streams.updatingAggregate<T, T, K, ACC, R>(
      this,
      this.selectKey,
      this.keyName,
      fn,
      options,
      false,
    );
  }

  deduplicate(options: KeepFirstByArrival): DataStream<T>;
  deduplicate<R>(options: DeduplicateRowsOptions<T, R>): DataStream<Change<R>>;
  deduplicate(options: DeduplicateOptions<T>): DataStream<Change<T>>;
  deduplicate(
    options: DeduplicateOptions<T> | DeduplicateRowsOptions<T, unknown>,
  ): DataStream<T> | DataStream<Change<T>> | DataStream<Change<unknown>> {
    return deduplicate<T>(this, options) as DataStream<Change<unknown>>;
  }

  windowDeduplicate(
    assigner: WindowAssigner<never> | RecordWindows<T>,
    options: WindowDeduplicateOptions<T>,
  ): DataStream<WindowResult<K, T>> {
    return windowDeduplicate(this, assigner, options);
  }

  intervalJoin<U>(other: KeyedStream<U, K>): IntervalJoin<T, U, K> {
    const right = implOf(other, KeyedStreamImpl, 'intervalJoin');
    return this.builder.streams.intervalJoin<T, U, K>(this, right);
  }

  topN<R>(options: RankedRowsTopNOptions<T, R>): DataStream<Change<R>>;
  topN(options: RankedTopNOptions<T>): DataStream<Change<Ranked<T>>>;
  topN(options: TopNOptions<T>): DataStream<Change<T>>;
  topN(
    options: TopNOptions<T> | RankedTopNOptions<T> | RankedRowsTopNOptions<T, unknown>,
  ): DataStream<Change<T>> | DataStream<Change<Ranked<T>>> {
    return topN<T>(this, options) as DataStream<Change<T>>;
  }

  windowTopN(
    assigner: WindowAssigner<never> | RecordWindows<T>,
    options: WindowTopNOptions<T>,
  ): DataStream<WindowRanked<K, T>> {
    return windowTopN(this, assigner, options);
  }

  reduce(fn: ReduceFunction<T>, options: ReduceOptions = {}): DataStream<T> {
    if (options.queryable !== undefined && typeof options.queryable !== 'boolean')
      throw invalidArgument(
        `reduce(): queryable must be true or false, got ${String(options.queryable)}`,
      );
    return this.addKeyedNode(
      {
        kind: 'rolling-reduce',
        fn: fn as ReduceFunction<unknown>,
        ...(options.queryable === true ? { queryable: true } : {}),
      },
      'reduce',
    );
  }

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

  window(assigner: WindowAssigner<T>): WindowedStream<T, K> {
    if (assigner === undefined || typeof assigner !== 'object' || !('kind' in assigner)) {
      throw invalidArgument(
        'window() needs a window assigner, e.g. Windows.tumbling(Time.seconds(10))',
      );
    }
    return this.builder.streams.windowedStream<T, K>(this, assigner);
  }

  countWindow(size: number, slide?: number): WindowedStream<T, K> {
    return this.builder.streams.windowedStream<T, K>(this, Windows.global(), { size, slide });
  }
}
