/**
 * Whether the halves of a two-phase window or GROUP BY fold, decided once
 * the parallelism is known: only where records would cross to another
 * subtask, and if the environment allows local aggregation. Otherwise
 * records pass the local half unchanged and are keyed as usual (the step
 * stays, so ids and savepoints do not depend on the parallelism). Where
 * nothing crosses, the local half only repeats the global one's work: a
 * GROUP BY whose bundles rarely repeat a key (Nexmark q17 at parallelism 1)
 * took 1.4-1.7 times the CPU folding.
 */
import type { Key } from '../../core/key-groups.js';
import type { PhysicalNode } from '../physical/physical-node.js';

/** The key a folding local half gives each element it sends: partials (and a window's unfolded records). */
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
    const kind = local.operator.kind;
    if (kind !== 'local-window-combiner' && kind !== 'local-group-aggregate') continue;
    if (local.idFrom === undefined) continue;
    const global = nodes[local.idFrom.node]!;
    const folding = localAggregation && (parallelism[local.id]! > 1 || parallelism[global.id]! > 1);
    out[local.id] = { ...local, operator: { ...local.operator, folding } };
    const operator =
      global.operator.kind === 'slice-window'
        ? { ...global.operator, localFolding: folding }
        : global.operator.kind === 'global-group-aggregate'
          ? { ...global.operator, folding }
          : undefined;
    if (operator === undefined) continue;
    out[global.id] = {
      ...global,
      operator,
      inputs: folding ? global.inputs.map(keyedByElementKey) : global.inputs,
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
