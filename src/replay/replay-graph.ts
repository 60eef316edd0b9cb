import { CollectSink } from '../connectors/collection/index.js';
import { WeirError } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import { OutputTag } from '../core/output-tag.js';
import { isReplayableSource, type ReplayRange } from '../core/replay.js';
import type { Sink } from '../core/sink.js';
import type { Source } from '../core/source.js';
import type { WindowAssigner } from '../core/windows.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';
import type {
  LogicalEdge,
  LogicalNode,
  SinkNode,
  SourceNode,
  WindowNode,
} from '../plan/logical/nodes.js';

/** What the job's sinks receive in a replay: the original sink, and the values it would have been given. */
export interface CapturedSink {
  /** Logical node id of the sink. */
  readonly nodeId: number;
  /** The node's name (`sink: <name>`) and uid, as the user may name it on the command line. */
  readonly name: string;
  readonly uid: string | undefined;
  readonly original: Sink<unknown>;
  /** Undefined when the replay writes to the production sinks. */
  readonly capture: CollectSink<unknown> | undefined;
}

/** Where a window operator's late records go in a replay, with what places a record in windows. */
export interface CapturedLateData {
  readonly nodeId: number;
  readonly name: string;
  readonly uid: string | undefined;
  readonly selectKey: ((value: never) => Key) | undefined;
  readonly assigner: WindowAssigner<unknown>;
  readonly capture: CollectSink<unknown>;
  /** The event time of a window input record, from the record alone, if the job stamps it so. */
  readonly eventTimeOf: ((value: unknown) => number | undefined) | undefined;
  /** A sink of the job fed by the window's late-data side output, if any: the streaming run's late records. */
  readonly jobSinks: readonly number[];
}

export interface ReplayGraphOptions {
  /** The slice each source is read over; by source name or uid, else `default`. */
  readonly rangeOf: (source: { name: string; uid: string | undefined }) => ReplayRange;
  /** Keep the job's own sinks (default false: every sink is captured instead). */
  readonly productionSinks?: boolean;
}

export interface ReplayGraph {
  readonly sinks: readonly CapturedSink[];
  readonly lateData: readonly CapturedLateData[];
  readonly sources: readonly { readonly name: string; readonly range: ReplayRange }[];
}

/**
 * Turns a streaming job's graph into its replay, in place:
 *
 * - every source reads a bounded slice of its input (`ReplayableSource.replay`);
 * - every sink is replaced by a capture, unless production sinks are asked for;
 * - everything between a source and the first key exchange runs as one
 *   subtask, because that is where event time is decided: with one producer
 *   every keyed subtask sees records and watermarks in the order the source
 *   emitted them, so late-data decisions and results do not depend on the
 *   parallelism or on timing;
 * - every window's late records are captured (a side output is added when
 *   the job has none), so a report can tell which results late data changed.
 *
 * Node ids and names stay as they are, so operator ids do too.
 */
export function rewriteForReplay(graph: LogicalGraph, options: ReplayGraphOptions): ReplayGraph {
  const sources: { name: string; range: ReplayRange }[] = [];
  const sinks: CapturedSink[] = [];
  const late: CapturedLateData[] = [];
  const preKey = new Set<number>();
  /** The job's own sources: they know how they stamp event time; their replays need not. */
  const originals = new Map<number, Source<unknown>>();
  const count = graph.nodes.length;
  for (let id = 0; id < count; id++) {
    const node = graph.nodes[id]!;
    if (node.kind === 'source') {
      originals.set(id, node.source);
      graph.nodes[id] = replaySource(node, options, sources);
      preKey.add(id);
    } else if (
      node.inputs.length > 0 &&
      node.inputs.every((e) => e.partitioning.kind !== 'keyed' && preKey.has(e.from))
    ) {
      preKey.add(id);
    }
    if (preKey.has(id)) graph.nodes[id]!.parallelism = 1;
  }
  for (let id = 0; id < count; id++) {
    const node = graph.nodes[id]!;
    if (node.kind === 'sink') {
      const capture = options.productionSinks === true ? undefined : new CollectSink<unknown>();
      if (capture !== undefined) graph.nodes[id] = { ...node, sink: capture } satisfies SinkNode;
      sinks.push({ nodeId: id, name: node.name, uid: node.uid, original: node.sink, capture });
    } else if (node.kind === 'window' && node.assigner.timeDomain === 'event-time') {
      late.push(captureLateData(graph, node, originals));
    }
  }
  return { sinks, lateData: late, sources };
}

function replaySource(
  node: SourceNode,
  options: ReplayGraphOptions,
  sources: { name: string; range: ReplayRange }[],
): SourceNode {
  const { source } = node;
  if (!isReplayableSource(source)) {
    throw new WeirError(
      'INVALID_JOB',
      `source '${node.name}' (${source.name}) cannot be replayed: it has no way to read a bounded slice of its input`,
    );
  }
  const range = options.rangeOf({ name: node.name, uid: node.uid });
  sources.push({ name: node.uid ?? node.name, range });
  return { ...node, source: source.replay(range) };
}

/** Adds a capture of `node`'s late records, giving it a late-data side output if it has none. */
function captureLateData(
  graph: LogicalGraph,
  node: WindowNode,
  originals: ReadonlyMap<number, Source<unknown>>,
): CapturedLateData {
  let tag = node.lateDataTag;
  if (tag === undefined) {
    tag = new OutputTag<unknown>(`weir-replay-late-${node.id}`);
    graph.nodes[node.id] = { ...node, lateDataTag: tag } satisfies WindowNode;
  }
  const tagId = tag.id;
  const jobSinks = graph.nodes
    .filter(
      (n): n is SinkNode =>
        n.kind === 'sink' && n.inputs.some((e) => e.from === node.id && e.tag === tagId),
    )
    .map((n) => n.id);
  const capture = new CollectSink<unknown>();
  const sinkNode = graph.add(
    { kind: 'sink', sink: capture },
    `sink: late records of ${node.name}`,
    [{ from: node.id, tag: tagId, partitioning: { kind: 'forward' } }],
  );
  sinkNode.uid = `weir-replay-late-${node.uid ?? node.id}`;
  // A forward edge needs the window's parallelism on both ends.
  sinkNode.parallelism = node.parallelism;
  const keyed = node.inputs.find((e) => e.partitioning.kind === 'keyed')?.partitioning;
  return {
    nodeId: node.id,
    name: node.name,
    uid: node.uid,
    selectKey: keyed?.kind === 'keyed' ? keyed.selectKey : undefined,
    assigner: node.assigner,
    capture,
    eventTimeOf: eventTimeOf(graph, node, originals),
    jobSinks,
  };
}

/**
 * How the records a window reads got their event time, as a function of a
 * record: the timestamp assigner of the step that stamped them, found by
 * walking up through steps that pass records unchanged.
 */
function eventTimeOf(
  graph: LogicalGraph,
  window: WindowNode,
  originals: ReadonlyMap<number, Source<unknown>>,
): ((value: unknown) => number | undefined) | undefined {
  let at: LogicalNode = window;
  for (;;) {
    const inputs: readonly LogicalEdge[] = at.inputs;
    const edge = inputs[0];
    // A main output's tag is undefined or null, depending on how the edge was made.
    if (edge === undefined || inputs.length > 1 || edge.tag != null) return undefined;
    const up: LogicalNode = graph.nodes[edge.from]!;
    if (up.kind === 'timestamps-watermarks') {
      const assign = up.spec.timestampAssigner;
      return assign === undefined
        ? undefined
        : (value) => finiteOrUndefined(() => assign(value, Number.NaN));
    }
    if (up.kind === 'source') {
      const source = originals.get(up.id) ?? up.source;
      return isReplayableSource(source) && source.eventTimeOf !== undefined
        ? (value) => source.eventTimeOf!(value)
        : undefined;
    }
    if (up.kind !== 'filter' && up.kind !== 'rebalance') return undefined;
    at = up;
  }
}

function finiteOrUndefined(time: () => number): number | undefined {
  try {
    const t = time();
    return Number.isFinite(t) ? t : undefined;
  } catch {
    return undefined;
  }
}

/** The node a name on the command line means: its uid, its name, or its name without `sink: `. */
export function matchesNode(
  node: { readonly name: string; readonly uid: string | undefined },
  wanted: string,
): boolean {
  return node.uid === wanted || node.name === wanted || node.name === `sink: ${wanted}`;
}

export type { LogicalNode };
