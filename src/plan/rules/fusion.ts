import type { PhysicalNode, PlannedEdge } from '../physical/physical-node.js';

/** Logical kinds whose operator holds no state, no timers and no side outputs. */
const STATELESS_KINDS: ReadonlySet<string> = new Set(['map', 'filter', 'flat-map']);

function isStatelessStep(node: PhysicalNode): boolean {
  return node.operator.kind === 'direct' && STATELESS_KINDS.has(node.operator.node.kind);
}

/**
 * Marks the chained edges the runtime may fuse: both ends are stateless steps
 * (map, filter, flatMap) and the producer feeds nothing else, so no other
 * consumer needs the batch between them. Runs of such edges execute as one
 * loop per batch. Everything else is returned unchanged.
 */
export function fuseStatelessSteps(
  nodes: readonly PhysicalNode[],
  edges: readonly PlannedEdge[],
  fusion: boolean,
): PlannedEdge[] {
  if (!fusion) return [...edges];
  const outgoing = new Map<number, number>();
  for (const e of edges) outgoing.set(e.from, (outgoing.get(e.from) ?? 0) + 1);
  return edges.map((e) =>
    e.chained &&
    e.tag === undefined &&
    outgoing.get(e.from) === 1 &&
    isStatelessStep(nodes[e.from]!) &&
    isStatelessStep(nodes[e.to]!)
      ? { ...e, fused: true }
      : e,
  );
}
