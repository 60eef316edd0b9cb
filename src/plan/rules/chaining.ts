import type { PhysicalNode, PlannedEdge } from '../physical/physical-node.js';

/**
 * Which steps share a task, and how every edge runs. A forward edge between
 * different parallelisms becomes a rebalance; a step with a single forward
 * input of equal parallelism runs in its producer's task, as a direct call
 * (when chaining is on).
 */
export function chain(
  nodes: readonly PhysicalNode[],
  parallelism: readonly number[],
  chaining: boolean,
): { readonly edges: PlannedEdge[]; readonly chainHeads: number[] } {
  const edges: PlannedEdge[] = [];
  const chainHeads: number[] = [];
  for (const node of nodes) {
    let head = node.id;
    const p = parallelism[node.id]!;
    for (const edge of node.inputs) {
      let partitioning = edge.partitioning;
      if (partitioning.kind === 'forward' && parallelism[edge.from] !== p) {
        partitioning = { kind: 'rebalance' };
      }
      const chained = chaining && node.inputs.length === 1 && partitioning.kind === 'forward';
      if (chained) head = chainHeads[edge.from]!;
      edges.push({
        from: edge.from,
        to: node.id,
        tag: edge.tag,
        partitioning,
        chained,
        input: edge.input,
      });
    }
    chainHeads.push(head);
  }
  return { edges, chainHeads };
}
