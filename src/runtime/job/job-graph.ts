/**
 * The job graph as the web UI and the REST API show it: operators with their
 * parallelism and task (chain), and the edges between them with their
 * partitioning. Plain JSON data, derived once from the physical plan.
 */
import { chainOf, type ExecutionPlan } from '../execution/execution-plan.js';

/**
 * How records move along an edge. `keyed` is a hash partitioning by key,
 * `custom` a user's partitioner over a key (`partitionCustom`).
 */
export type EdgePartitioning =
  | 'forward'
  | 'rebalance'
  | 'broadcast'
  | 'shuffle'
  | 'rescale'
  | 'global'
  | 'keyed'
  | 'custom';

export interface JobGraphOperator {
  /** The operator id (its uid, or one derived from position and name): the `operator` label of its metrics. */
  readonly id: string;
  readonly name: string;
  readonly kind: 'source' | 'operator' | 'sink';
  readonly parallelism: number;
  /** Id of the first operator of the task (chain) this operator runs in. */
  readonly task: string;
}

export interface JobGraphEdge {
  readonly from: string;
  readonly to: string;
  readonly partitioning: EdgePartitioning;
  /** For keyed and custom edges: the name given to the key selector (`keyBy(fn, name)`). */
  readonly key?: string;
  /** Set when the edge carries a side output: the tag's id. */
  readonly sideOutput?: string;
  /** Runs inside one task as a direct call (no channel). */
  readonly chained: boolean;
}

export interface JobGraphTask {
  /** Id of the task's first operator. */
  readonly id: string;
  /** Operator ids of the chain, head first. */
  readonly operators: readonly string[];
  readonly parallelism: number;
}

export interface JobGraph {
  readonly operators: readonly JobGraphOperator[];
  readonly edges: readonly JobGraphEdge[];
  readonly tasks: readonly JobGraphTask[];
  readonly maxParallelism: number;
}

export function describeJobGraph(plan: ExecutionPlan): JobGraph {
  const idOf = (id: number): string => plan.vertices[id]!.operatorId;
  const operators: JobGraphOperator[] = plan.vertices.map((v) => ({
    id: v.operatorId,
    name: v.name,
    kind: v.kind === 'source' ? 'source' : v.sink !== undefined ? 'sink' : 'operator',
    parallelism: v.parallelism,
    task: idOf(v.chainHead),
  }));
  const edges: JobGraphEdge[] = plan.edges.map((edge) => {
    const p = edge.partitioning;
    return {
      from: idOf(edge.from),
      to: idOf(edge.to),
      partitioning: p.kind,
      ...(p.kind === 'keyed' || p.kind === 'custom' ? { key: p.name } : {}),
      ...(edge.tag === undefined ? {} : { sideOutput: edge.tag }),
      chained: edge.chained,
    };
  });
  const tasks: JobGraphTask[] = [];
  for (const v of plan.vertices) {
    if (v.chainHead !== v.id) continue;
    tasks.push({
      id: v.operatorId,
      operators: chainOf(plan, v.id).map((m) => m.operatorId),
      parallelism: v.parallelism,
    });
  }
  return { operators, edges, tasks, maxParallelism: plan.maxParallelism };
}
