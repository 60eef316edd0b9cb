import { WeirError } from '../core/errors.js';
import type { ProcessGroupSpec, Source } from '../core/source.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';
import type { LogicalNode } from '../plan/logical/nodes.js';

/**
 * How a job runs in a process group:
 * - `partitioned`: its sources are shared by partition (Kafka), each member
 *   reads the partitions the group assigns to it;
 * - `single-owner`: none of its sources can be shared (PostgreSQL CDC,
 *   files), so the whole job is one task that exactly one member runs at a
 *   time, and a new owner restores it from its latest checkpoint.
 */
export type GroupPlacement = 'partitioned' | 'single-owner';

/**
 * The placement of `graph` in `group`. A job mixing both kinds of source is
 * refused, naming the source that cannot be shared: its partitions would
 * spread over members while the other source stayed on one.
 */
export function placementInGroup(graph: LogicalGraph, group: ProcessGroupSpec): GroupPlacement {
  const sources = graph.nodes.filter((n) => n.kind === 'source');
  const shared = sources.filter((n) => n.source.inProcessGroup !== undefined);
  if (shared.length === 0) return 'single-owner';
  const single = sources.find((n) => n.source.inProcessGroup === undefined);
  if (single !== undefined)
    throw new WeirError(
      'INVALID_JOB',
      `source '${single.source.name}' cannot run in process group '${group.applicationId}' next to Kafka source '${shared[0]!.source.name}': a job in a group reads either only Kafka sources (shared by partition) or none (run by one member at a time)`,
      { domain: 'user', operatorId: single.uid ?? single.name },
    );
  return 'partitioned';
}

/**
 * Prepares the graph of a job run as a process group (`weir run --group`).
 * A single-owner job runs whole on its owner and needs no change. In a
 * partitioned one, every source becomes its group copy
 * ({@link Source.inProcessGroup}), so each process reads the tasks
 * (partitions) the group assigns to it.
 *
 * What runs partitioned today is what is correct when each process sees
 * only its partitions: per-record pipelines (map, filter, process, sinks).
 * Keyed and broadcast exchanges, and stateful operators, would see only this
 * process's share of a key's records; they are refused until exchanges
 * between processes go through repartition topics.
 */
export function applyProcessGroup(graph: LogicalGraph, group: ProcessGroupSpec): void {
  if (placementInGroup(graph, group) === 'single-owner') return;
  for (const node of graph.nodes) refuseInGroup(node, group);
  for (let i = 0; i < graph.nodes.length; i++) {
    const node = graph.nodes[i]!;
    if (node.kind !== 'source') continue;
    const source = node.source.inProcessGroup!(group);
    graph.nodes[i] = { ...node, source: source as Source<unknown> };
  }
}

function refuseInGroup(node: LogicalNode, group: ProcessGroupSpec): void {
  const what = `operator '${node.uid ?? node.name}'`;
  const refuse = (why: string): never => {
    throw new WeirError(
      'INVALID_JOB',
      `${what} cannot run in process group '${group.applicationId}': ${why}`,
      { domain: 'user', operatorId: node.uid ?? node.name },
    );
  };
  for (const edge of node.inputs) {
    if (edge.partitioning.kind === 'keyed' || edge.partitioning.kind === 'broadcast')
      refuse(
        `its input is a ${edge.partitioning.kind} exchange, and exchanges between processes (repartition topics) are not built yet`,
      );
  }
  if (node.stateful)
    refuse('it keeps state, and state that moves with its task between processes is not built yet');
}
