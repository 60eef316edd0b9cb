import type { ChangelogMode } from '../../core/changelog.js';
import { WeirError } from '../../core/errors.js';
import type { LogicalEdge, LogicalNode, NodeBase, Partitioning } from './nodes.js';

/** What a new node brings of its own: its kind tag and that kind's data. */
export type NodeData = LogicalNode extends infer N
  ? N extends LogicalNode
    ? Omit<N, keyof NodeBase>
    : never
  : never;

/** How a node behaves, as the plan needs to know. Every flag defaults to false / insert-only. */
export interface NodeFlags {
  readonly stateful?: boolean;
  readonly keyed?: boolean;
  readonly changelog?: ChangelogMode | undefined;
}

/** An output a stream reads: a node's main output, or one of its side outputs. */
export interface OutputRef {
  readonly node: number;
  readonly tag: string | undefined;
}

/** Edges reading `refs`, all partitioned the same way, into input `input` of their consumer. */
export function edgesFrom(
  refs: readonly OutputRef[],
  partitioning: Partitioning,
  input?: number,
): LogicalEdge[] {
  return refs.map((r) =>
    input === undefined
      ? { from: r.node, tag: r.tag, partitioning }
      : { from: r.node, tag: r.tag, partitioning, input },
  );
}

/**
 * The job as the user described it: nodes in the order they were added
 * (producers first), each listing the outputs it reads. Building it only
 * appends nodes and sets their names, uids and parallelism; planning reads it
 * and changes nothing.
 */
export class LogicalGraph {
  readonly nodes: LogicalNode[] = [];

  /** Appends a node reading `inputs` and returns it. */
  add(data: NodeData, name: string, inputs: readonly LogicalEdge[], flags: NodeFlags = {}) {
    const node = {
      ...data,
      id: this.nodes.length,
      name,
      uid: undefined,
      parallelism: undefined,
      inputs,
      stateful: flags.stateful ?? false,
      keyed: flags.keyed ?? false,
      changelog: flags.changelog,
    } as LogicalNode;
    this.nodes.push(node);
    return node;
  }

  /** The node at `id`; fails on an id the graph does not have. */
  node(id: number): LogicalNode {
    const n = this.nodes[id];
    if (n === undefined) throw new WeirError('INTERNAL', `no node ${id}`, { domain: 'internal' });
    return n;
  }

  /**
   * Puts `node` in place of the node of the same id (same name, inputs and settings): for a
   * front end's rule over its whole plan, such as SQL's changelog-mode inference, which
   * rebuilds an updating operator to leave out update-befores no consumer needs.
   */
  replace(id: number, node: LogicalNode): void {
    const old = this.node(id);
    if (node.id !== id || node.inputs !== old.inputs)
      throw new WeirError('INTERNAL', `node ${id} replaced by another node`, {
        domain: 'internal',
      });
    this.nodes[id] = node;
  }

  /** What a node's main output carries: `insert-only` unless it emits changes. */
  changelogOf(nodeId: number): ChangelogMode {
    return this.node(nodeId).changelog ?? 'insert-only';
  }
}
