/**
 * Chooses the physical operator of every logical node and lays out the
 * plan's steps: one per node, two for a two-phase window (its local half
 * first). Step positions therefore equal the positions the job's operators
 * have always had, so ids derived from them, and the state of existing
 * savepoints, stay matched.
 */
import { WeirError } from '../../core/errors.js';
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

/** How a two-phase node's halves are built: the local half's name and operator, and the global half's. */
interface Halves {
  readonly localName: string;
  readonly local: (
    keyed: Extract<PhysicalEdge['partitioning'], { kind: 'keyed' }>,
  ) => PhysicalOperator;
  readonly global: PhysicalOperator;
}

/**
 * A node in two halves: the local one chained to the node's inputs (forward), the global one
 * behind the keyed exchange. The local half's id is the global one's with `/local` appended,
 * so its state follows the node's uid.
 */
function twoHalves(
  node: WindowNode | UpdatingAggregateNode,
  position: number,
  inputs: readonly PhysicalEdge[],
  halves: Halves,
): [PhysicalNode, PhysicalNode] {
  const keyed = inputs[0]?.partitioning;
  if (keyed?.kind !== 'keyed') {
    throw new WeirError('INTERNAL', `'${node.name}' has no keyed input`, {
      domain: 'internal',
    });
  }
  const local: PhysicalNode = {
    id: position,
    logicalId: node.id,
    name: halves.localName,
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
    operator: halves.local(keyed),
  };
  const global: PhysicalNode = {
    id: position + 1,
    logicalId: node.id,
    name: node.name,
    uid: node.uid,
    idFrom: undefined,
    explicitParallelism: node.parallelism,
    inputs: [{ from: position, tag: undefined, partitioning: keyed, input: 0 }],
    keyed: true,
    operator: halves.global,
  };
  return [local, global];
}

/** A two-phase window: the local combiner, then the slice operator. */
function twoPhaseWindow(
  node: WindowNode,
  position: number,
  inputs: readonly PhysicalEdge[],
): [PhysicalNode, PhysicalNode] {
  return twoHalves(node, position, inputs, {
    localName: `${node.label} (local)`,
    local: () => ({ kind: 'local-window-combiner', node, folding: false }),
    global: { kind: 'slice-window', node, twoPhase: true, localFolding: false },
  });
}

/**
 * A two-phase GROUP BY: the local aggregate, then the global one. Whether the local half folds
 * (and the exchange then keys partials by the key they carry) is decided with the parallelism.
 */
function twoPhaseGroupAggregate(
  node: UpdatingAggregateNode,
  position: number,
  inputs: readonly PhysicalEdge[],
): [PhysicalNode, PhysicalNode] {
  if (inputs.length !== 1)
    throw new WeirError('INTERNAL', `'${node.name}' has more than one input`, {
      domain: 'internal',
    });
  return twoHalves(node, position, inputs, {
    localName: `${node.name} (local)`,
    local: (keyed) => ({
      kind: 'local-group-aggregate',
      node,
      selectKey: keyed.selectKey,
      folding: false,
    }),
    global: { kind: 'global-group-aggregate', node, folding: false },
  });
}
