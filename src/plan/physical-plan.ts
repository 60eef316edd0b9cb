import { WeirError } from '../core/errors.js';
import type {
  ExecutionEdge,
  ExecutionPlan,
  ExecutionVertex,
} from '../runtime/execution/execution-plan.js';
import type { GraphNode, LogicalGraph } from './logical-graph.js';

export interface PlanOptions {
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly chaining: boolean;
}

/** The plan the runtime executes; see {@link ExecutionPlan}. */
export type PhysicalPlan = ExecutionPlan;

/**
 * Decides each operator's parallelism and which operators share a task.
 *
 * Parallelism: explicit settings win. Sources use the environment's
 * parallelism when they can be split, else 1. Keyed operators and operators
 * with several inputs use the environment's parallelism. Other operators
 * inherit their input's parallelism, so a non-parallel source feeds its
 * transformations without a shuffle and keeps their order.
 *
 * Chaining: an operator with a single forward input of equal parallelism runs
 * in its producer's task, as a direct call.
 */
export function buildPhysicalPlan(graph: LogicalGraph, options: PlanOptions): PhysicalPlan {
  graph.validate();
  const parallelism = new Map<number, number>();
  for (const node of graph.nodes)
    parallelism.set(node.id, decideParallelism(node, parallelism, options));
  for (const listener of graph.planListeners) listener((id) => parallelism.get(id)!);

  const edges: ExecutionEdge[] = [];
  const chainHead = new Map<number, number>();
  for (const node of graph.nodes) {
    let head = node.id;
    const p = parallelism.get(node.id)!;
    node.inputs.forEach((edge) => {
      const upstream = parallelism.get(edge.from)!;
      let partitioning = edge.partitioning;
      if (partitioning.kind === 'forward' && upstream !== p) partitioning = { kind: 'rebalance' };
      const chained =
        options.chaining && node.inputs.length === 1 && partitioning.kind === 'forward';
      if (chained) head = chainHead.get(edge.from)!;
      edges.push({
        from: edge.from,
        to: node.id,
        tag: edge.tag,
        partitioning,
        chained,
        input: edge.input ?? 0,
      });
    });
    chainHead.set(node.id, head);
  }
  const vertices = graph.nodes.map((node): ExecutionVertex => {
    const base = {
      id: node.id,
      operatorId: graph.operatorId(node),
      name: node.name,
      parallelism: parallelism.get(node.id)!,
      chainHead: chainHead.get(node.id)!,
    };
    return node.kind === 'source'
      ? { ...base, kind: 'source', source: node.source }
      : { ...base, kind: 'operator', createOperator: node.createOperator, sink: node.sink };
  });
  return { vertices, edges, maxParallelism: options.maxParallelism };
}

function decideParallelism(
  node: GraphNode,
  decided: ReadonlyMap<number, number>,
  options: PlanOptions,
): number {
  const explicit = node.parallelism;
  if (explicit !== undefined) {
    if (!Number.isInteger(explicit) || explicit < 1) {
      throw new WeirError(
        'INVALID_JOB',
        `parallelism of '${node.name}' must be a positive whole number, got ${explicit}`,
      );
    }
    if (explicit > options.maxParallelism) {
      throw new WeirError(
        'INVALID_JOB',
        `parallelism of '${node.name}' (${explicit}) exceeds maxParallelism (${options.maxParallelism})`,
      );
    }
    if (node.kind === 'source' && explicit > 1 && !node.source.parallelizable) {
      throw new WeirError(
        'INVALID_JOB',
        `source '${node.name}' cannot be split; its parallelism must be 1, got ${explicit}`,
      );
    }
    return explicit;
  }
  if (node.kind === 'source') return node.source.parallelizable ? options.parallelism : 1;
  if (node.keyed || node.inputs.length !== 1) return options.parallelism;
  const input = node.inputs[0]!;
  if (input.partitioning.kind !== 'forward') return options.parallelism;
  return decided.get(input.from)!;
}
