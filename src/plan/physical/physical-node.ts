/**
 * The plan as data: which operator runs each step, how many subtasks run it,
 * which steps share a task and how records move between them. Produced by
 * the planner's rules from a logical graph; turned into the runtime's
 * {@link ExecutionPlan} by `toExecutionPlan` (./translate.ts).
 */
import type { Key } from '../../core/key-groups.js';
import type { ExecutionEdge } from '../../runtime/execution/execution-plan.js';
import type {
  LogicalNode,
  LookupJoinNode,
  SourceNode,
  UpdatingAggregateNode,
  WindowNode,
} from '../logical/nodes.js';

/** Logical nodes that become exactly one operator, with no choice to make. */
export type DirectNode = Exclude<LogicalNode, SourceNode | WindowNode | LookupJoinNode>;

/** The operator chosen for a step of the plan. */
export type PhysicalOperator =
  | { readonly kind: 'source'; readonly node: SourceNode }
  /** The one operator of its logical node's kind. */
  | { readonly kind: 'direct'; readonly node: DirectNode }
  /** A lookup join against a table that answers synchronously (`get`). */
  | { readonly kind: 'sync-lookup-join'; readonly node: LookupJoinNode }
  /** A lookup join through async I/O. */
  | { readonly kind: 'async-lookup-join'; readonly node: LookupJoinNode }
  /** Tumbling or sliding event-time windows sharing per-slice partial aggregates. */
  | {
      readonly kind: 'slice-window';
      readonly node: WindowNode;
      /** Fed by a local combiner before its exchange (two-phase aggregation). */
      readonly twoPhase: boolean;
      /** Its input is the combiner's partials: decided by the two-phase rule. */
      readonly localFolding: boolean;
    }
  /** The local half of a two-phase window, before the keyed exchange. */
  | {
      readonly kind: 'local-window-combiner';
      readonly node: WindowNode;
      /** Folds records per key and slice; otherwise passes them unchanged. */
      readonly folding: boolean;
    }
  /**
   * The local half of a two-phase GROUP BY (Flink's LocalGroupAggregate): folds each
   * bundle's records per key before the keyed exchange; `selectKey` is the exchange's key.
   */
  | {
      readonly kind: 'local-group-aggregate';
      readonly node: UpdatingAggregateNode;
      readonly selectKey: (value: never) => Key;
      /** Folds bundles; otherwise passes the records through: decided by the two-phase rule. */
      readonly folding: boolean;
    }
  /** The global half (Flink's GlobalGroupAggregate): merges the partials into each group's state. */
  | {
      readonly kind: 'global-group-aggregate';
      readonly node: UpdatingAggregateNode;
      /** Its input is the local half's partials; otherwise the records themselves. */
      readonly folding: boolean;
    }
  /** Windows per (key, window) with triggers: sessions, global, count, processing time. */
  | { readonly kind: 'general-window'; readonly node: WindowNode };

/** An input of a plan step: an output of step `from`, partitioned as it runs. */
export type PhysicalEdge = Omit<ExecutionEdge, 'to' | 'chained' | 'fused'>;

/** A step of the plan before its parallelism is known. */
export interface PhysicalNode {
  /** Position in the plan (producers come first). */
  readonly id: number;
  /** The logical node this step implements (a two-phase window has two steps). */
  readonly logicalId: number;
  readonly name: string;
  readonly uid: string | undefined;
  /** Without a uid, this step's id is step `node`'s operator id plus `suffix`. */
  readonly idFrom: { readonly node: number; readonly suffix: string } | undefined;
  /** Parallelism the user set, or undefined for the default rule. */
  readonly explicitParallelism: number | undefined;
  readonly inputs: readonly PhysicalEdge[];
  /** Consumes keyed input. */
  readonly keyed: boolean;
  readonly operator: PhysicalOperator;
}

/** A step of the finished plan. */
export interface PlannedNode extends PhysicalNode {
  /** Stable id (the uid, or one derived from position and name): state and metrics are keyed by it. */
  readonly operatorId: string;
  readonly parallelism: number;
  /** The step heading this step's task (itself when it starts a task). */
  readonly chainHead: number;
}

/** An edge of the finished plan: as the runtime runs it. */
export type PlannedEdge = ExecutionEdge;

/** The finished plan: every physical choice made, nothing left to decide at run time. */
export interface PlannedJob {
  readonly nodes: readonly PlannedNode[];
  readonly edges: readonly PlannedEdge[];
  readonly maxParallelism: number;
}
