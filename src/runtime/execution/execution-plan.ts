/**
 * What the runtime executes: the contract between the planner (which decides
 * parallelism, physical operators and chaining) and the runtime (which builds
 * tasks and channels from it). Vertices hold operator factories, not
 * operators: each subtask creates its own instance, so no user code is ever
 * shared or serialized between subtasks or threads.
 */
import type { Key } from '../../core/key-groups.js';
import type { Operator } from '../../core/operator.js';
import type { Sink } from '../../core/sink.js';
import type { Source } from '../../core/source.js';

/** How records move from a producer's subtasks to a consumer's subtasks. */
export type Partitioning =
  | { readonly kind: 'forward' }
  | { readonly kind: 'rebalance' }
  | { readonly kind: 'broadcast' }
  /** Each record to a consumer subtask chosen at random. */
  | { readonly kind: 'shuffle' }
  /** Round-robin over the producer's share of the consumer subtasks (`rescale()`). */
  | { readonly kind: 'rescale' }
  /** Every record to the consumer's first subtask (index 0). */
  | { readonly kind: 'global' }
  | { readonly kind: 'keyed'; readonly selectKey: (value: never) => Key; readonly name: string }
  /** Each record to the subtask `partition(key, parallelism)` names (Flink's `partitionCustom`). */
  | {
      readonly kind: 'custom';
      readonly selectKey: (value: never) => unknown;
      readonly partition: (key: never, numPartitions: number) => number;
      readonly name: string;
    };

interface VertexBase {
  /** Index of the vertex in {@link ExecutionPlan.vertices} (producers come first). */
  readonly id: number;
  /** Stable id (the uid, or one derived from position and name): state and metrics are keyed by it. */
  readonly operatorId: string;
  readonly name: string;
  readonly parallelism: number;
  /** The vertex heading this vertex's task (itself when it starts a task). */
  readonly chainHead: number;
}

/** Reads a source: one reader per subtask. */
export interface SourceVertex extends VertexBase {
  readonly kind: 'source';
  readonly source: Source<unknown>;
}

/** Runs an operator: one instance per subtask, created by `createOperator`. */
export interface OperatorVertex extends VertexBase {
  readonly kind: 'operator';
  readonly createOperator: () => Operator<unknown, unknown>;
  /** The sink this vertex writes to, when it is one (it then has no main output). */
  readonly sink: Sink<unknown> | undefined;
}

export type ExecutionVertex = SourceVertex | OperatorVertex;

/** An edge as it runs: forward only where both sides have the same parallelism. */
export interface ExecutionEdge {
  readonly from: number;
  readonly to: number;
  /** Side output tag id, or undefined for the main output. */
  readonly tag: string | undefined;
  readonly partitioning: Partitioning;
  /** Runs inside one task (a direct call), not through channels. */
  readonly chained: boolean;
  /**
   * A chained edge between two stateless steps (map, filter, flatMap) whose
   * producer has no other output: the task runs both in one loop per batch
   * (`FusedStatelessRun`), with no batch between them. Absent means false.
   */
  readonly fused?: boolean;
  /** Input of a two-input operator this edge feeds (0 or 1). */
  readonly input: number;
}

/** A job ready to run: vertices in topological order and the edges between them. */
export interface ExecutionPlan {
  readonly vertices: readonly ExecutionVertex[];
  readonly edges: readonly ExecutionEdge[];
  readonly maxParallelism: number;
}

/** The vertices of the chain headed by `head`, head first. */
export function chainOf(plan: ExecutionPlan, head: number): ExecutionVertex[] {
  return plan.vertices.filter((v) => v.chainHead === head);
}
