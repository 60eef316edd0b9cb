import { WeirError } from '../core/errors.js';
import type { ProcessGroupSpec, Source } from '../core/source.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';
import type { LogicalNode } from '../plan/logical/nodes.js';

/**
 * Prepares the graph of a job run as a process group (`weir run --group`):
 * every source becomes its group copy ({@link Source.inProcessGroup}), so
 * each process reads the tasks (partitions) the group assigns to it.
 *
 * What runs in a group today is what is correct when each process sees only
 * its partitions: per-record pipelines (map, filter, process, sinks) from
 * Kafka sources. Keyed and broadcast exchanges, and stateful operators,
 * would see only this process's share of a key's records; they are refused
 * until exchanges between processes go through repartition topics.
 */
export function applyProcessGroup(graph: LogicalGraph, group: ProcessGroupSpec): void {
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
  if (node.kind === 'source' && node.source.inProcessGroup === undefined)
    refuse(
      `source '${node.source.name}' cannot share its input over processes (in a process group, sources are Kafka sources)`,
    );
  for (const edge of node.inputs) {
    if (edge.partitioning.kind === 'keyed' || edge.partitioning.kind === 'broadcast')
      refuse(
        `its input is a ${edge.partitioning.kind} exchange, and exchanges between processes (repartition topics) are not built yet`,
      );
  }
  if (node.stateful)
    refuse('it keeps state, and state that moves with its task between processes is not built yet');
}
