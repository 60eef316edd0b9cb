/**
 * Chooses the physical operator of every logical node and lays out the
 * plan's steps: one per node, two for a two-phase window (its local half
 * first). Step positions therefore equal the positions the job's operators
 * have always had, so ids derived from them, and the state of existing
 * savepoints, stay matched.
 */
import { WeirError } from '../../core/errors.js';
import type { Key } from '../../core/key-groups.js';
import type { LocalGroupPartial } from '../../runtime/operators/changelog/local-group-aggregate.js';
import type {
  LogicalEdge,
  LogicalNode,
  UpdatingAggregateNode,
  WindowNode,
} from '../logical/nodes.js';
import type { PhysicalEdge, PhysicalNode, PhysicalOperator } from '../physical/physical-node.js';
import { isTwoPhase, usesSlices } from './window-operator.js';

/** The plan's steps, before parallelism; every operator choice is made here. */
export function expandToPhysical(nodes: readonly LogicalNode[]): PhysicalNode[] {
  const out: PhysicalNode[] = [];
  /** The step that produces each logical node's outputs. */
  const outputOf: number[] = [];
  const remap = (edges: readonly LogicalEdge[]): PhysicalEdge[] =>
    edges.map((e) => ({
      from: outputOf[e.from]!,
      tag: e.tag,
      partitioning: e.partitioning,
      input: e.input ?? 0,
    }));
  for (const node of nodes) {
    if (node.kind === 'window' && isTwoPhase(node)) {
      out.push(...twoPhaseWindow(node, out.length, remap(node.inputs)));
    } else if (node.kind === 'updating-aggregate' && node.spec.twoPhase === true) {
      out.push(...twoPhaseGroupAggregate(node, out.length, remap(node.inputs)));
    } else {
      out.push({
        id: out.length,
        logicalId: node.id,
        name: node.name,
        uid: node.uid,
        idFrom: undefined,
        explicitParallelism: node.parallelism,
        inputs: remap(node.inputs),
        keyed: node.keyed,
        operator: chooseOperator(node),
      });
    }
    outputOf[node.id] = out.length - 1;
  }
  return out;
}

function chooseOperator(node: LogicalNode): PhysicalOperator {
  switch (node.kind) {
    case 'source':
      return { kind: 'source', node };
    case 'lookup-join':
      return typeof node.table.get === 'function'
        ? { kind: 'sync-lookup-join', node }
        : { kind: 'async-lookup-join', node };
    case 'window':
      return usesSlices(node)
        ? { kind: 'slice-window', node, twoPhase: false, localFolding: false }
        : { kind: 'general-window', node };
    default:
      return { kind: 'direct', node };
  }
}

/**
 * The local combiner, chained to the window's inputs (forward), then the
 * slice operator behind the keyed exchange. The combiner's id is the
 * window's with `/local` appended, so its state follows the window's uid.
 */
function twoPhaseWindow(
  node: WindowNode,
  position: number,
  inputs: readonly PhysicalEdge[],
): [PhysicalNode, PhysicalNode] {
  const keyed = inputs[0]?.partitioning;
  if (keyed?.kind !== 'keyed') {
    throw new WeirError('INTERNAL', `window '${node.name}' has no keyed input`, {
      domain: 'internal',
    });
  }
  const local: PhysicalNode = {
    id: position,
    logicalId: node.id,
    name: `${node.label} (local)`,
    uid: undefined,
    idFrom: { node: position + 1, suffix: '/local' },
    explicitParallelism: undefined,
    inputs: inputs.map(({ from, tag }) => ({
      from,
      tag,
      partitioning: { kind: 'forward' },
      input: 0,
    })),
    keyed: false,
    operator: { kind: 'local-window-combiner', node, folding: false },
  };
  const window: PhysicalNode = {
    id: position + 1,
    logicalId: node.id,
    name: node.name,
    uid: node.uid,
    idFrom: undefined,
    explicitParallelism: node.parallelism,
    inputs: [{ from: position, tag: undefined, partitioning: keyed, input: 0 }],
    keyed: true,
    operator: { kind: 'slice-window', node, twoPhase: true, localFolding: false },
  };
  return [local, window];
}

/** The key of a partial, which its local half computed before the exchange. */
function partialKey(partial: LocalGroupPartial<unknown>): Key {
  return partial.key;
}

/**
 * A two-phase GROUP BY: the local half chained to the inputs (forward), then the global half
 * behind the keyed exchange, now keyed by the partials' keys. As for windows, the local half's
 * id is the global one's with `/local` appended.
 */
function twoPhaseGroupAggregate(
  node: UpdatingAggregateNode,
  position: number,
  inputs: readonly PhysicalEdge[],
): [PhysicalNode, PhysicalNode] {
  const keyed = inputs[0]?.partitioning;
  if (keyed?.kind !== 'keyed' || inputs.length !== 1) {
    throw new WeirError('INTERNAL', `'${node.name}' has no single keyed input`, {
      domain: 'internal',
    });
  }
  const local: PhysicalNode = {
    id: position,
    logicalId: node.id,
    name: `${node.name} (local)`,
    uid: undefined,
    idFrom: { node: position + 1, suffix: '/local' },
    explicitParallelism: undefined,
    inputs: inputs.map(({ from, tag }) => ({
      from,
      tag,
      partitioning: { kind: 'forward' },
      input: 0,
    })),
    keyed: false,
    operator: { kind: 'local-group-aggregate', node, selectKey: keyed.selectKey },
  };
  const global: PhysicalNode = {
    id: position + 1,
    logicalId: node.id,
    name: node.name,
    uid: node.uid,
    idFrom: undefined,
    explicitParallelism: node.parallelism,
    inputs: [
      {
        from: position,
        tag: undefined,
        partitioning: { ...keyed, selectKey: partialKey as (value: never) => Key },
        input: 0,
      },
    ],
    keyed: true,
    operator: { kind: 'global-group-aggregate', node },
  };
  return [local, global];
}
