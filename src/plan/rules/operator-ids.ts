/** Stable operator ids: state, metrics and savepoints are keyed by them. */
import { WeirError } from '../../core/errors.js';
import type { PhysicalNode } from '../physical/physical-node.js';

/**
 * Each step's operator id: its uid; or, for a helper step, its owner's id
 * plus a suffix; or one derived from its name and position.
 */
export function deriveOperatorIds(nodes: readonly PhysicalNode[]): string[] {
  const ids: string[] = [];
  const idOf = (node: PhysicalNode): string => {
    if (node.uid !== undefined) return node.uid;
    if (node.idFrom !== undefined) return idOf(nodes[node.idFrom.node]!) + node.idFrom.suffix;
    const slug = node.name
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase();
    return `${slug || (node.operator.kind === 'source' ? 'source' : 'operator')}-${node.id}`;
  };
  for (const node of nodes) ids.push(idOf(node));
  return ids;
}

/** Fails if two steps share an operator id (their state could not be told apart). */
export function checkUniqueIds(nodes: readonly PhysicalNode[], ids: readonly string[]): void {
  const seen = new Map<string, PhysicalNode>();
  nodes.forEach((node, i) => {
    const id = ids[i]!;
    const other = seen.get(id);
    if (other !== undefined) {
      throw new WeirError(
        'INVALID_JOB',
        `operator id '${id}' is used by both '${other.name}' and '${node.name}'; every operator id must be unique in a job`,
      );
    }
    seen.set(id, node);
  });
}
