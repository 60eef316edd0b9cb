/**
 * Whether the halves of a two-phase window fold, decided once the
 * parallelism is known: only where records would cross to another subtask,
 * and if the environment allows local aggregation. Otherwise records pass
 * the local half unchanged and are keyed as usual (the step stays, so ids
 * and savepoints do not depend on the parallelism).
 */
import type { Key } from '../../core/key-groups.js';
import type { PhysicalNode } from '../physical/physical-node.js';

/** The key a folding local half gives each element it sends: partials and unfolded records alike. */
function localElementKey(element: { readonly key: Key }): Key {
  return element.key;
}

/** The steps with every two-phase window's folding decided; other steps are returned as they are. */
export function decideLocalFolding(
  nodes: readonly PhysicalNode[],
  parallelism: readonly number[],
  localAggregation: boolean,
): PhysicalNode[] {
  const out = [...nodes];
  for (const local of nodes) {
    if (local.operator.kind !== 'local-window-combiner' || local.idFrom === undefined) continue;
    const window = nodes[local.idFrom.node]!;
    const folding = localAggregation && (parallelism[local.id]! > 1 || parallelism[window.id]! > 1);
    out[local.id] = { ...local, operator: { ...local.operator, folding } };
    if (window.operator.kind !== 'slice-window') continue;
    out[window.id] = {
      ...window,
      operator: { ...window.operator, localFolding: folding },
      inputs: folding ? window.inputs.map(keyedByElementKey) : window.inputs,
    };
  }
  return out;
}

function keyedByElementKey<E extends PhysicalNode['inputs'][number]>(edge: E): E {
  const p = edge.partitioning;
  if (p.kind !== 'keyed') return edge;
  return {
    ...edge,
    partitioning: { ...p, selectKey: localElementKey as (value: never) => Key },
  };
}
