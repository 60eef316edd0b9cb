/**
 * The changelog-mode inference (`changelog-inference.ts`) applied to the operators an INSERT
 * (or an EXPLAIN) planned: their roles read from the logical graph (and the few noted while
 * planning: sinks, the drops of update-befores, the views by a sink's key), then every
 * updating operator that no consumer needs update-befores from is rebuilt to emit upserts
 * (`-U` left out), and EXPLAIN shows each operator's mode and upsert key.
 */
import { DataStreamImpl } from '../../api/data-stream.js';
import { StreamEnvironmentImpl } from '../../api/environment.js';
import { implOf } from '../../api/impl-of.js';
import type { DataStream, StreamEnvironmentApi } from '../../api/streams.js';
import type { LogicalGraph } from '../../plan/logical/logical-graph.js';
import type { LogicalNode } from '../../plan/logical/nodes.js';
import {
  type ChangelogInference,
  type ChangelogRole,
  changelogModeText,
  type InferenceNode,
  inferChangelogModes,
  type ModifyKindSet,
  type UpdateKind,
} from './changelog-inference.js';

interface GraphNotes {
  readonly roles: Map<number, ChangelogRole>;
  readonly upsertKeys: Map<number, string>;
  readonly kinds: Map<number, ModifyKindSet>;
  readonly updateKinds: Map<number, UpdateKind>;
}

const notesByGraph = new WeakMap<LogicalGraph, GraphNotes>();

function notesOf(graph: LogicalGraph): GraphNotes {
  let notes = notesByGraph.get(graph);
  if (notes === undefined) {
    notes = { roles: new Map(), upsertKeys: new Map(), kinds: new Map(), updateKinds: new Map() };
    notesByGraph.set(graph, notes);
  }
  return notes;
}

function partsOf<T>(stream: DataStream<T>): DataStreamImpl<T> {
  return implOf(stream, DataStreamImpl, 'changelog inference') as DataStreamImpl<T>;
}

/** The logical graph of an environment. */
export function graphOf(env: StreamEnvironmentApi): LogicalGraph {
  return implOf(env, StreamEnvironmentImpl, 'changelog inference').graph;
}

/** Records the role of the operator(s) producing `stream` (those the graph cannot tell). */
export function noteChangelogRole<T>(stream: DataStream<T>, role: ChangelogRole): void {
  const parts = partsOf(stream);
  const notes = notesOf(parts.builder.graph);
  for (const ref of parts.refs) notes.roles.set(ref.node, role);
}

/** Records the upsert key (column names) of the rows `stream`'s operator emits, for EXPLAIN. */
export function noteUpsertKey<T>(stream: DataStream<T>, key: string): void {
  const parts = partsOf(stream);
  const notes = notesOf(parts.builder.graph);
  for (const ref of parts.refs) if (ref.tag === undefined) notes.upsertKeys.set(ref.node, key);
}

/** An upsert key by column names, in Flink's EXPLAIN notation (`upsertKey=[a, b]`). */
export function upsertKeyText(
  key: readonly number[] | undefined,
  columns: readonly { readonly name: string }[],
): string {
  return key === undefined ? 'none' : `[${key.map((k) => columns[k]?.name).join(', ')}]`;
}

const FIXED: ChangelogRole = { kind: 'fixed' };

/** The role of an operator the SQL planner built, from its kind where nothing was noted. */
function roleOf(node: LogicalNode, graph: LogicalGraph, noted: ChangelogRole | undefined) {
  if (noted !== undefined) return noted;
  const built = node.changelog ?? 'insert-only';
  switch (node.kind) {
    case 'updating-aggregate':
      return node.spec.mode === 'retract' ? { kind: 'group-aggregate' as const } : FIXED;
    case 'top-n':
      return node.spec.mode === 'retract' ? { kind: 'rank' as const } : FIXED;
    case 'deduplicate':
      return node.spec.mode === 'retract' || node.spec.insertOnly
        ? { kind: 'deduplicate' as const, insertOnly: node.spec.insertOnly }
        : FIXED;
    case 'regular-join':
      return { kind: 'join' as const, inner: node.spec.type === 'inner' };
    case 'table-view': {
      const input = node.inputs[0];
      const over = input === undefined ? undefined : graph.node(input.from).changelog;
      return over === 'upsert' && node.output === 'retract'
        ? { kind: 'normalize' as const }
        : FIXED;
    }
    // The planner's maps over a retract changelog map each change's row and keep its kind
    // (`mapRows`); its flat-maps over one are WHERE (`filterRows`).
    // A declaration that changes are retract ones (after `topN`, `deduplicate`) checks only
    // their kinds: it passes on what it reads.
    case 'map':
    case 'as-changelog':
      return built === 'retract' ? { kind: 'calc' as const, filter: false } : FIXED;
    case 'flat-map':
      return built === 'retract' ? { kind: 'calc' as const, filter: true } : FIXED;
    default:
      return FIXED;
  }
}

/** The inference's view of the graph: operators from `from` on with their roles, older ones fixed. */
function inferenceNodes(graph: LogicalGraph, from: number): InferenceNode[] {
  const consumers = new Map<number, number>();
  for (const node of graph.nodes)
    for (const edge of node.inputs) consumers.set(edge.from, (consumers.get(edge.from) ?? 0) + 1);
  const { roles } = notesOf(graph);
  const nodes: InferenceNode[] = [];
  for (const node of graph.nodes) {
    const mine = node.id >= from;
    const inputs: number[][] = [];
    if (mine) {
      for (const edge of node.inputs) {
        const i = edge.input ?? 0;
        while (inputs.length <= i) inputs.push([]);
        inputs[i]?.push(edge.from);
      }
    }
    nodes.push({
      id: node.id,
      role: mine ? roleOf(node, graph, roles.get(node.id)) : FIXED,
      built: node.changelog ?? 'insert-only',
      inputs,
      consumers: consumers.get(node.id) ?? 0,
    });
  }
  return nodes;
}

/** An operator rebuilt to leave update-befores out, or undefined when it has none to drop. */
function withoutUpdateBefore(node: LogicalNode): LogicalNode | undefined {
  if (node.changelog !== 'retract') return undefined;
  switch (node.kind) {
    case 'updating-aggregate':
    case 'top-n':
    case 'deduplicate':
      return {
        ...node,
        changelog: 'upsert',
        spec: { ...node.spec, mode: 'upsert' },
      } as LogicalNode;
    case 'table-view':
      return { ...node, changelog: 'upsert', output: 'upsert' };
    // Its check now also fails the job on a -U, which nothing above it may emit any more.
    case 'as-changelog':
      return { ...node, changelog: 'upsert', mode: 'upsert' };
    // These pass on what they read: their mode follows their input's.
    case 'map':
    case 'regular-join':
      return { ...node, changelog: 'upsert' };
    default:
      return undefined;
  }
}

/**
 * Runs the inference over the operators from node `from` on (one statement's) and rebuilds
 * the updating ones whose update-befores no consumer needs.
 */
export function inferStatementChangelogs(graph: LogicalGraph, from: number): ChangelogInference {
  const inference = inferChangelogModes(inferenceNodes(graph, from));
  const notes = notesOf(graph);
  for (const [id, kinds] of inference.kinds) if (id >= from) notes.kinds.set(id, kinds);
  for (const [id, kind] of inference.updateKinds) {
    if (id < from) continue;
    notes.updateKinds.set(id, kind);
    if (kind !== 'only-after') continue;
    const rebuilt = withoutUpdateBefore(graph.node(id));
    if (rebuilt !== undefined) graph.replace(id, rebuilt);
  }
  return inference;
}

/** An operator's changelog mode in Flink's notation, as inferred or else as built. */
function modeText(node: LogicalNode, notes: GraphNotes): string {
  if (node.kind === 'sink') return '[NONE]';
  const built = node.changelog ?? 'insert-only';
  const kinds = notes.kinds.get(node.id) ?? (built === 'insert-only' ? ['I'] : ['I', 'U', 'D']);
  const update =
    notes.updateKinds.get(node.id) ??
    (built === 'retract' ? 'before-and-after' : built === 'upsert' ? 'only-after' : 'none');
  return changelogModeText(kinds, update);
}

/**
 * The plan text with `changelogMode=[...]` (and `upsertKey=[...]` where known) on every
 * operator of the physical plan, as Flink's `EXPLAIN CHANGELOG_MODE` shows them.
 */
export function withChangelogModes(plan: string, graph: LogicalGraph): string {
  const notes = notesOf(graph);
  let physical = false;
  return plan
    .split('\n')
    .map((line) => {
      if (line.startsWith('Physical plan')) physical = true;
      const from = physical ? /\(from #(\d+)\)/.exec(line)?.[1] : undefined;
      if (from === undefined) return line;
      const node = graph.node(Number(from));
      const key = notes.upsertKeys.get(node.id);
      return `${line} changelogMode=${modeText(node, notes)}${key === undefined ? '' : ` upsertKey=${key}`}`;
    })
    .join('\n');
}
