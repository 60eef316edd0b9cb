/**
 * The job as the user described it, as data: one tagged object per
 * operation. Nodes carry user function objects and their specs, never an
 * operator or a factory of one, so a graph can be printed, tested and
 * rewritten, and produced by any front end. The planner chooses the physical
 * operators (src/plan/planner.ts).
 */
import type { AsyncFunction, AsyncInvoke, AsyncSpec } from '../../core/async-io.js';
import type { ChangelogMode } from '../../core/changelog.js';
import type { Evictor } from '../../core/evictors.js';
import type {
  AggregateFunction,
  BroadcastProcessFunction,
  KeyedBroadcastProcessFunction,
  KeyedProcessFunction,
  ProcessFunction,
  ReduceFunction,
} from '../../core/functions.js';
import type { JoinSides } from '../../core/joins.js';
import type { Key } from '../../core/key-groups.js';
import type { LookupJoinSpec, LookupTable } from '../../core/lookup.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { Sink } from '../../core/sink.js';
import type { Source } from '../../core/source.js';
import type { StateSerializer, StateTtlConfig } from '../../core/state.js';
import type { Trigger } from '../../core/triggers.js';
import type { WatermarkStrategySpec } from '../../core/watermarks.js';
import type { ProcessWindowFunction } from '../../core/window-result.js';
import type { RecordWindowsOfSides, WindowAssigner } from '../../core/windows.js';
import type { Partitioning } from '../../runtime/execution/execution-plan.js';
import type {
  CoFunctionSpec,
  KeyedCoFunctionSpec,
} from '../../runtime/operators/basic/co-process.js';
import type { CepOperatorSpec } from '../../runtime/operators/cep/cep-operator.js';
import type { TemporalJoinSerializers } from '../../runtime/operators/changelog/temporal-join.js';
import type {
  BroadcastJoinSpec,
  CoGroupWindowFunction,
  DeduplicateSpec,
  FixedWindows,
  IntervalJoinSpec,
  KeepRow,
  KeyedWindows,
  RankComparator,
  RegularJoinSpec,
  TimeIntervalJoinSpec,
  TopNSpec,
  UpdatingAggregateSpec,
  ViewOutput,
} from './specs.js';

export type { Partitioning };

/** One input of a node: an output of `from` (main, or the side output `tag`) and how it is partitioned. */
export interface LogicalEdge {
  readonly from: number;
  /** Side output tag id, or undefined for the main output. */
  readonly tag: string | undefined;
  readonly partitioning: Partitioning;
  /** Which input of a two-input operator this edge feeds (0, or 1 for the second). Default 0. */
  readonly input?: number;
}

/** What every node has: identity, naming, parallelism, inputs and what the plan must know of it. */
export interface NodeBase {
  /** Position in the graph (producers come first). */
  readonly id: number;
  name: string;
  /** User-set stable id; state is keyed by it (see docs/semantics.md). */
  uid: string | undefined;
  /** Explicit parallelism, or undefined for the default rule. */
  parallelism: number | undefined;
  readonly inputs: readonly LogicalEdge[];
  /** Holds state or timers: must have a stable id. */
  readonly stateful: boolean;
  /** Consumes keyed input (its inputs are keyed exchanges). */
  readonly keyed: boolean;
  /**
   * What the main output carries: changes (records of type `Change<T>`) in
   * this mode, or plain records when undefined (`insert-only`).
   */
  readonly changelog: ChangelogMode | undefined;
}

/** Reads a source. */
export interface SourceNode extends NodeBase {
  readonly kind: 'source';
  readonly source: Source<unknown>;
}

/** `map`, also keyed and over changelog rows. */
export interface MapNode extends NodeBase {
  readonly kind: 'map';
  readonly fn: (value: never) => unknown;
}

/** `filter`. */
export interface FilterNode extends NodeBase {
  readonly kind: 'filter';
  readonly predicate: (value: never) => boolean;
}

/** `flatMap`. */
export interface FlatMapNode extends NodeBase {
  readonly kind: 'flat-map';
  readonly fn: (value: never, out: { collect(value: never): void }) => void;
}

/** `process` on an unkeyed stream. */
export interface ProcessNode extends NodeBase {
  readonly kind: 'process';
  readonly fn: ProcessFunction<never, unknown>;
}

/** `flatMapAsync`: async I/O per record. */
export interface AsyncNode extends NodeBase {
  readonly kind: 'async';
  readonly fn: AsyncFunction<never, unknown> | AsyncInvoke<never, unknown>;
  readonly spec: AsyncSpec<never, unknown>;
}

/** `lookupJoin`: synchronous or async, as the planner decides from the table. */
export interface LookupJoinNode extends NodeBase {
  readonly kind: 'lookup-join';
  readonly table: LookupTable<Key, unknown>;
  readonly spec: LookupJoinSpec<unknown, Key, unknown, unknown>;
}

/** `assignTimestampsAndWatermarks`. */
export interface TimestampsWatermarksNode extends NodeBase {
  readonly kind: 'timestamps-watermarks';
  readonly spec: WatermarkStrategySpec<unknown>;
}

/** `rebalance` and `broadcast`: records pass unchanged; the partitioning is on the edge. */
export interface RedistributeNode extends NodeBase {
  readonly kind: 'rebalance' | 'broadcast';
}

/** `KeyedStream.process`. */
export interface KeyedProcessNode extends NodeBase {
  readonly kind: 'keyed-process';
  readonly fn: KeyedProcessFunction<Key, never, unknown>;
}

/** `CEP.pattern(...)`: a pattern's NFA run per key, and what to do with its matches. */
export interface CepNode extends NodeBase {
  readonly kind: 'cep';
  readonly spec: CepOperatorSpec<unknown, unknown>;
}

/** `KeyedStream.reduce`: a running reduction per key. */
export interface RollingReduceNode extends NodeBase {
  readonly kind: 'rolling-reduce';
  readonly fn: ReduceFunction<unknown>;
  /** Its reductions can be read by key (interactive queries). */
  readonly queryable?: boolean;
}

/** How a window folds its records. */
export type WindowAggregationSpec =
  | { readonly kind: 'reduce'; readonly fn: ReduceFunction<unknown> }
  | { readonly kind: 'aggregate'; readonly fn: AggregateFunction<unknown, unknown, unknown> }
  /** Every record kept, for a `ProcessWindowFunction`. */
  | { readonly kind: 'list' };

/** What a fired window emits. */
export type WindowFiringSpec =
  /** `WindowResult` records. */
  | { readonly kind: 'result' }
  /** Calls of the user's function: with the aggregate (`incremental`) or every record. */
  | {
      readonly kind: 'process';
      readonly fn: ProcessWindowFunction<unknown, unknown, Key>;
      readonly incremental: boolean;
    };

/** A keyed window: `keyBy(...).window(...)` (or `countWindow`) finished by a window function. */
export interface WindowNode extends NodeBase {
  readonly kind: 'window';
  readonly assigner: WindowAssigner<unknown>;
  /** A replacement of the assigner's default trigger, or undefined for the default. */
  readonly trigger: Trigger<unknown> | undefined;
  /** How `trigger` reads in a plan (`count 3, purging`); undefined with the default trigger. */
  readonly triggerLabel: string | undefined;
  readonly aggregation: WindowAggregationSpec;
  readonly firing: WindowFiringSpec;
  readonly allowedLateness: number;
  readonly lateDataTag: OutputTag<unknown> | undefined;
  /** Grace of the wall-clock close (`closeByProcessingTime`), or undefined. */
  readonly processingTimeCloseMs: number | undefined;
  /** The REST API may read a key's windows (`WindowedStream.queryable()`). */
  readonly queryable: boolean;
  /** Sliding count windows keep only this many most recent records. */
  readonly keepLast: number | undefined;
  /** Evicts records when the window fires (`WindowedStream.evictor`); the window keeps them all. */
  readonly evictor: Evictor<unknown> | undefined;
  /** The name the window was created with (its helper operators are named after it). */
  readonly label: string;
}

/** What a window join or co-group calls per fired window and key. */
export type WindowJoinApply =
  | { readonly kind: 'join'; readonly fn: (left: never, right: never) => unknown }
  | { readonly kind: 'co-group'; readonly fn: CoGroupWindowFunction<Key, never, never, unknown> };

/** `join(...).window(...)` / `coGroup(...).window(...)`: input 0 is the left stream. */
export interface WindowJoinNode extends NodeBase {
  readonly kind: 'window-join';
  /** Fixed windows, event-time sessions with a fixed gap, or windows each side's records name. */
  readonly windows: FixedWindows | { readonly gap: number } | RecordWindowsOfSides<never, never>;
  readonly apply: WindowJoinApply;
  readonly leftLateTag: OutputTag<unknown> | undefined;
  readonly rightLateTag: OutputTag<unknown> | undefined;
  /** The sides whose records are late by their own input's watermark rather than the join's. */
  readonly ownLateness?: JoinSides;
}

/** `intervalJoin(...).between(...)`. */
export interface IntervalJoinNode extends NodeBase {
  readonly kind: 'interval-join';
  readonly spec: IntervalJoinSpec<Key, unknown, unknown, unknown>;
}

/** SQL's event-time interval join (Flink SQL's semantics, any join type): input 0 is the left side. */
export interface TimeIntervalJoinNode extends NodeBase {
  readonly kind: 'time-interval-join';
  readonly spec: TimeIntervalJoinSpec<unknown, unknown, unknown>;
}

/** `connect(other)` then `map`, `flatMap` or `process`: input 0 is the first stream, input 1 `other`. */
export interface CoProcessNode extends NodeBase {
  readonly kind: 'co-process';
  readonly apply: CoFunctionSpec;
}

/** `connect(other).keyBy(key1, key2)` then `map`, `flatMap` or `process`: both inputs keyed. */
export interface KeyedCoProcessNode extends NodeBase {
  readonly kind: 'keyed-co-process';
  readonly apply: KeyedCoFunctionSpec;
}

/** `connectBroadcast`: input 0 keyed, input 1 broadcast. */
export interface KeyedBroadcastProcessNode extends NodeBase {
  readonly kind: 'keyed-broadcast-process';
  readonly fn: KeyedBroadcastProcessFunction<Key, never, never, unknown, Key, unknown>;
}

/** `connectBroadcast` on a stream that is not keyed: input 0 forward, input 1 broadcast. */
export interface BroadcastProcessNode extends NodeBase {
  readonly kind: 'broadcast-process';
  readonly fn: BroadcastProcessFunction<never, never, unknown, Key, unknown>;
}

/** Passes a broadcast join's side through and tells the join when it has ended. */
export interface BroadcastSideEndNode extends NodeBase {
  readonly kind: 'broadcast-side-end';
}

/** `broadcastJoin` / `broadcastJoinChangelog`: input 0 the main stream, input 1 the marked side. */
export interface BroadcastJoinNode extends NodeBase {
  readonly kind: 'broadcast-join';
  readonly spec: BroadcastJoinSpec<unknown, unknown, Key, unknown>;
}

/** `deduplicate`. */
export interface DeduplicateNode extends NodeBase {
  readonly kind: 'deduplicate';
  readonly spec: DeduplicateSpec;
}

/** `windowDeduplicate`. */
export interface WindowDeduplicateNode extends NodeBase {
  readonly kind: 'window-deduplicate';
  readonly windows: KeyedWindows;
  readonly keep: KeepRow;
  /** The event time that orders a window's records; default their timestamps. */
  readonly timeOf: ((record: never) => number) | undefined;
  readonly lateDataTag: OutputTag<unknown> | undefined;
}

/** `topN`. */
export interface TopNNode extends NodeBase {
  readonly kind: 'top-n';
  readonly spec: TopNSpec<unknown>;
}

/** `windowTopN`. */
export interface WindowTopNNode extends NodeBase {
  readonly kind: 'window-top-n';
  readonly windows: KeyedWindows;
  readonly n: number;
  readonly compare: RankComparator<unknown>;
  readonly lateDataTag: OutputTag<unknown> | undefined;
}

/** `toChangelog`: every record becomes a `+I` change. */
export interface ToChangelogNode extends NodeBase {
  readonly kind: 'to-changelog';
}

/** `asChangelog`: checks every record is a change of `mode`. */
export interface AsChangelogNode extends NodeBase {
  readonly kind: 'as-changelog';
  readonly mode: ChangelogMode;
}

/** `updatingAggregate`: a non-windowed GROUP BY emitting changes. */
export interface UpdatingAggregateNode extends NodeBase {
  readonly kind: 'updating-aggregate';
  readonly spec: UpdatingAggregateSpec<unknown, unknown, unknown>;
}

/** A table view (`materialize(pk).to...Stream()`): the latest row per primary key. */
export interface TableViewNode extends NodeBase {
  readonly kind: 'table-view';
  readonly output: ViewOutput;
  readonly ttl: StateTtlConfig | undefined;
  /** How the kept rows are checkpointed; default JSON. */
  readonly serializer?: StateSerializer<unknown>;
}

/** `regularJoin`: an unbounded join of two changelogs. */
export interface RegularJoinNode extends NodeBase {
  readonly kind: 'regular-join';
  readonly spec: RegularJoinSpec<unknown, unknown>;
}

/** `temporalJoin`: input 0 probes, input 1 is the versioned table's changelog. */
export interface TemporalJoinNode extends NodeBase {
  readonly kind: 'temporal-join';
  readonly joinType: 'inner' | 'left';
  /** How waiting probe rows and table versions are checkpointed; default JSON. */
  readonly serializers?: TemporalJoinSerializers<unknown, unknown>;
}

/** `aggregateChanges` / `reduceChanges`: window results as a changelog keyed by (key, window). */
export interface WindowChangelogNode extends NodeBase {
  readonly kind: 'window-changelog';
  readonly mode: 'retract' | 'upsert';
  readonly allowedLateness: number;
}

/** `sinkTo`: writes outside the job; it has no main output. */
export interface SinkNode extends NodeBase {
  readonly kind: 'sink';
  readonly sink: Sink<unknown>;
}

/** Any node of a logical graph. */
export type LogicalNode =
  | SourceNode
  | MapNode
  | FilterNode
  | FlatMapNode
  | ProcessNode
  | AsyncNode
  | LookupJoinNode
  | TimestampsWatermarksNode
  | RedistributeNode
  | KeyedProcessNode
  | CepNode
  | RollingReduceNode
  | WindowNode
  | WindowJoinNode
  | IntervalJoinNode
  | TimeIntervalJoinNode
  | CoProcessNode
  | KeyedCoProcessNode
  | KeyedBroadcastProcessNode
  | BroadcastProcessNode
  | BroadcastSideEndNode
  | BroadcastJoinNode
  | DeduplicateNode
  | WindowDeduplicateNode
  | TopNNode
  | WindowTopNNode
  | ToChangelogNode
  | AsChangelogNode
  | UpdatingAggregateNode
  | TableViewNode
  | RegularJoinNode
  | TemporalJoinNode
  | WindowChangelogNode
  | SinkNode;

/** The kind tag of a logical node. */
export type LogicalKind = LogicalNode['kind'];

/** Every node that is not a source: it reads at least one input. */
export type OperatorNode = Exclude<LogicalNode, SourceNode>;
