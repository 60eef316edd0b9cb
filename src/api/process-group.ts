import { WeirError } from '../core/errors.js';
import type {
  ExchangedRecord,
  ExchangeSpec,
  GroupExchange,
  ProcessGroupSpec,
  Source,
} from '../core/source.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';
import type { LogicalEdge, LogicalNode, Partitioning } from '../plan/logical/nodes.js';
import type { KeyedStage, TaskLayout } from './task-snapshots.js';

/** Tasks of a keyed stage whose operator sets no parallelism: partitions of its repartition topic. */
export const DEFAULT_STAGE_TASKS = 4;

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
 * Whether a partitioned job keeps keyed state: it is cut into stages at its
 * keyed exchanges, and its tasks' state must move with them (the process
 * restarts its job with the state of its new task set on every change).
 */
export function keepsKeyedState(graph: LogicalGraph): boolean {
  return graph.nodes.some((n) => n.inputs.some((e) => e.partitioning.kind === 'keyed'));
}

/**
 * Prepares the graph of a job run as a process group (`weir run --group`).
 * A single-owner job runs whole on its owner and needs no change. In a
 * partitioned one, every source becomes its group copy ({@link Source.inProcessGroup}), so
 * each process reads the tasks (partitions) the group assigns to it, and the
 * job is cut at each keyed exchange into stages. A keyed exchange becomes a
 * repartition topic named after the application id and the consuming
 * operator's uid, one partition per task of the consuming stage (the
 * operator's parallelism, else {@link DEFAULT_STAGE_TASKS}), partitioned by
 * key-group ranges: the producing side writes every record to its key's
 * partition, and the consuming side reads the partitions the group assigns
 * to this process, so its keyed state holds exactly their key groups.
 * Returns which stage (repartition topic) each stateful operator after an
 * exchange runs in, which the per-task snapshots split keyed state by.
 *
 * Broadcast exchanges, and state that is not keyed, would still see only
 * this process's share of the input; they are refused.
 */
export function applyProcessGroup(
  graph: LogicalGraph,
  spec: ProcessGroupSpec,
  maxParallelism: number,
): TaskLayout | undefined {
  if (placementInGroup(graph, spec) === 'single-owner') return undefined;
  const group = spec;
  const out: LogicalNode[] = [];
  const moved = new Map<number, number>();
  /** The keyed stage each node of `out` runs in, after the exchange that feeds it. */
  const stages = new Map<number, KeyedStage>();
  const keyedOperators = new Map<string, KeyedStage>();
  const append = (node: LogicalNode): number => {
    const id = out.length;
    out.push({ ...node, id } as LogicalNode);
    return id;
  };
  for (const node of graph.nodes) {
    refuseInGroup(node, group);
    let inputs = node.inputs.map((e) => ({ ...e, from: moved.get(e.from)! }));
    let stage = inputs.map((e) => stages.get(e.from)).find((s) => s !== undefined);
    if (node.inputs.some((e) => e.partitioning.kind === 'keyed')) {
      const cut = cutAtExchange(node, inputs, group, maxParallelism, out, append);
      inputs = cut.inputs;
      stage = { topic: cut.spec.topic, partitions: cut.spec.partitions };
    }
    const run = group.transactionScope;
    const copy =
      node.kind === 'source'
        ? { ...node, source: node.source.inProcessGroup!(group) as Source<unknown> }
        : node.kind === 'sink' && run !== undefined && node.sink.inProcessGroup !== undefined
          ? { ...node, sink: node.sink.inProcessGroup(run) }
          : node;
    const id = append({ ...copy, inputs } as LogicalNode);
    moved.set(node.id, id);
    if (stage === undefined) continue;
    stages.set(id, stage);
    if (node.stateful && node.uid !== undefined) keyedOperators.set(node.uid, stage);
  }
  graph.nodes.splice(0, graph.nodes.length, ...out);
  return { keyedOperators };
}

/**
 * Replaces the keyed inputs of `node` (already renumbered into `out`) by a
 * repartition topic: a writer per input edge, one reader, and per input of
 * the operator a step that keeps that input's records. Returns the node's
 * new input edges and the exchange.
 */
function cutAtExchange(
  node: LogicalNode,
  inputs: readonly LogicalEdge[],
  group: ProcessGroupSpec,
  maxParallelism: number,
  out: readonly LogicalNode[],
  append: (node: LogicalNode) => number,
): { inputs: LogicalEdge[]; spec: ExchangeSpec } {
  const refuse = refuser(node, group);
  const exchange: GroupExchange =
    group.exchange ?? refuse('keyed exchanges between processes need Kafka (--bootstrap)');
  const uid =
    node.uid ??
    refuse('give it a .uid(): the repartition topic of its keyed input is named after it');
  if (inputs.some((e) => e.partitioning.kind !== 'keyed'))
    refuse('some of its inputs are keyed and some are not');
  const indices = [...new Set(inputs.map((e) => e.input ?? 0))].sort();
  const producerTopics = indices.map((i) => [
    ...new Set(
      inputs.filter((e) => (e.input ?? 0) === i).flatMap((e) => upstreamTopics(out, e.from)),
    ),
  ]);
  const spec: ExchangeSpec = {
    topic: exchange.topic(uid),
    partitions: node.parallelism ?? DEFAULT_STAGE_TASKS,
    maxParallelism,
    producerTopics,
  };
  inputs.forEach((e, n) => {
    const partitioning = e.partitioning as Extract<Partitioning, { kind: 'keyed' }>;
    append(
      generated(
        {
          kind: 'sink',
          sink: exchange.writer(spec, indices.indexOf(e.input ?? 0), partitioning.selectKey),
        },
        `${uid}-exchange-out-${n}`,
        [{ from: e.from, tag: e.tag, partitioning: { kind: 'rebalance' } }],
      ),
    );
  });
  const reader = append(
    generated(
      { kind: 'source', source: exchange.reader(spec, group.observer) as Source<unknown> },
      `${uid}-exchange-in`,
      [],
    ),
  );
  const cut = indices.map((input, position) => {
    const first = inputs.find((e) => (e.input ?? 0) === input)!;
    const keep = append(
      generated(
        {
          kind: 'flat-map',
          fn: ((r: ExchangedRecord, collector: { collect(value: unknown): void }) => {
            if (r.input === position) collector.collect(r.value);
          }) as never,
        },
        `${uid}-exchange-in-${input}`,
        [{ from: reader, tag: undefined, partitioning: { kind: 'forward' } }],
      ),
    );
    return { ...first, from: keep, tag: undefined };
  });
  return { inputs: cut, spec };
}

/** A node the process group adds: one subtask per process, named after its uid. */
function generated(
  data: Pick<LogicalNode, 'kind'> & Record<string, unknown>,
  uid: string,
  inputs: LogicalEdge[],
): LogicalNode {
  return {
    ...data,
    id: -1,
    name: uid,
    uid,
    parallelism: 1,
    inputs,
    stateful: false,
    keyed: false,
    changelog: undefined,
  } as unknown as LogicalNode;
}

/** The Kafka topics of the group tasks that feed node `id` (its sources' topics, through any steps). */
function upstreamTopics(nodes: readonly LogicalNode[], id: number): string[] {
  const node = nodes[id]!;
  if (node.kind === 'source') return [...(node.source.groupTopics ?? [])];
  return node.inputs.flatMap((e) => upstreamTopics(nodes, e.from));
}

function refuser(node: LogicalNode, group: ProcessGroupSpec): (why: string) => never {
  const what = `operator '${node.uid ?? node.name}'`;
  return (why) => {
    throw new WeirError(
      'INVALID_JOB',
      `${what} cannot run in process group '${group.applicationId}': ${why}`,
      { domain: 'user', operatorId: node.uid ?? node.name },
    );
  };
}

function refuseInGroup(node: LogicalNode, group: ProcessGroupSpec): void {
  const refuse = refuser(node, group);
  if (node.kind === 'source' && node.source.inProcessGroup === undefined)
    refuse(
      `source '${node.source.name}' cannot share its input over processes (in a process group, sources are Kafka sources)`,
    );
  if (node.inputs.some((e) => e.partitioning.kind === 'broadcast'))
    refuse('its input is a broadcast exchange, and broadcasts between processes are not built yet');
  const picked = node.inputs.find(
    (e) =>
      e.partitioning.kind === 'global' ||
      e.partitioning.kind === 'custom' ||
      e.partitioning.kind === 'rescale',
  );
  if (picked !== undefined)
    refuse(
      `its input is a ${picked.partitioning.kind} exchange, which picks subtasks of one process only`,
    );
  if (node.stateful && !node.inputs.some((e) => e.partitioning.kind === 'keyed'))
    refuse(
      'it keeps state that is not keyed, and only keyed state follows the tasks of a process group',
    );
}
