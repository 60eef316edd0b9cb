/**
 * The job graph as the web UI and the REST API show it: operators with their
 * parallelism and task (chain), and the edges between them with their
 * partitioning. Plain JSON data, derived once from the physical plan.
 */
import type { PhysicalPlan } from '../../plan/physical-plan.js';

/** How records move along an edge. `keyed` is a hash partitioning by key. */
export type EdgePartitioning = 'forward' | 'rebalance' | 'broadcast' | 'keyed';

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
  /** For keyed edges: the name given to the key selector (`keyBy(fn, name)`). */
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

export function describeJobGraph(plan: PhysicalPlan): JobGraph {
  const { graph } = plan;
  const idOf = (nodeId: number): string => graph.operatorId(graph.node(nodeId));
  const operators: JobGraphOperator[] = graph.nodes.map((node) => ({
    id: graph.operatorId(node),
    name: node.name,
    kind: node.kind === 'source' ? 'source' : node.isSink ? 'sink' : 'operator',
    parallelism: plan.parallelism.get(node.id)!,
    task: idOf(plan.chainHead.get(node.id)!),
  }));
  const edges: JobGraphEdge[] = plan.edges.map((edge) => {
    const p = edge.partitioning;
    return {
      from: idOf(edge.from),
      to: idOf(edge.to),
      partitioning: p.kind,
      ...(p.kind === 'keyed' ? { key: p.name } : {}),
      ...(edge.tag === undefined ? {} : { sideOutput: edge.tag }),
      chained: edge.chained,
    };
  });
  const tasks: JobGraphTask[] = [];
  for (const node of graph.nodes) {
    if (plan.chainHead.get(node.id) !== node.id) continue;
    tasks.push({
      id: idOf(node.id),
      operators: graph.nodes
        .filter((n) => plan.chainHead.get(n.id) === node.id)
        .map((n) => idOf(n.id)),
      parallelism: plan.parallelism.get(node.id)!,
    });
  }
  return { operators, edges, tasks, maxParallelism: plan.maxParallelism };
}
