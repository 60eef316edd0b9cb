import type { ChangelogMode } from '../core/changelog.js';
import { WeirError } from '../core/errors.js';
import type { Operator } from '../core/operator.js';
import type { Sink } from '../core/sink.js';
import type { Source } from '../core/source.js';
import type { Partitioning } from '../runtime/execution/execution-plan.js';

export type { Partitioning };

export interface Edge {
  readonly from: number;
  /** Side output tag id, or undefined for the main output. */
  readonly tag: string | undefined;
  readonly partitioning: Partitioning;
  /** Which input of a two-input operator this edge feeds (0, or 1 for the second). Default 0. */
  readonly input?: number;
}

interface NodeBase {
  readonly id: number;
  name: string;
  /** User-set stable id; state is keyed by it (see docs/semantics.md). */
  uid: string | undefined;
  /** Without a uid, the id is another node's id plus a suffix (a helper operator that belongs to it). */
  idFrom?: { readonly node: number; readonly suffix: string };
  /** Explicit parallelism, or undefined for the default rule. */
  parallelism: number | undefined;
  readonly inputs: readonly Edge[];
}

export interface SourceNode extends NodeBase {
  readonly kind: 'source';
  readonly source: Source<unknown>;
}

export interface OperatorNode extends NodeBase {
  readonly kind: 'operator';
  /** Creates the operator of one subtask. */
  readonly createOperator: () => Operator<unknown, unknown>;
  /** Holds state or timers: must have a stable id. */
  readonly stateful: boolean;
  /** Consumes keyed input (its inputs are keyed exchanges). */
  readonly keyed: boolean;
  /** Writes outside the job: has no main output. */
  readonly isSink: boolean;
  /** The sink, for a sink node. */
  readonly sink: Sink<unknown> | undefined;
  /**
   * What the main output carries: changes (records of type `Change<T>`) in
   * this mode, or plain records when undefined (`insert-only`).
   */
  readonly changelog: ChangelogMode | undefined;
}

export type GraphNode = SourceNode | OperatorNode;

/** One input of an operator: the outputs it reads (node, side tag) and how they are partitioned. */
export interface OperatorInput {
  readonly refs: readonly { readonly node: number; readonly tag: string | undefined }[];
  readonly partitioning: Partitioning;
}

/** How an operator node behaves, as the plan needs to know. */
export interface OperatorFlags {
  readonly stateful?: boolean;
  readonly keyed?: boolean;
  readonly isSink?: boolean;
  readonly sink?: Sink<unknown>;
  readonly changelog?: ChangelogMode | undefined;
}

/** The job as the user described it: operators and the streams between them. */
export class LogicalGraph {
  readonly nodes: GraphNode[] = [];
  /**
   * Called once the plan has decided every node's parallelism, before tasks
   * are built: for operators whose shape depends on it (two-phase windows).
   */
  readonly planListeners: ((parallelismOf: (nodeId: number) => number) => void)[] = [];

  addSource(name: string, source: Source<unknown>): SourceNode {
    const node: SourceNode = {
      kind: 'source',
      id: this.nodes.length,
      name,
      uid: undefined,
      parallelism: undefined,
      inputs: [],
      source,
    };
    this.nodes.push(node);
    return node;
  }

  addOperator(
    name: string,
    inputs: readonly Edge[],
    createOperator: () => Operator<unknown, unknown>,
    flags: OperatorFlags = {},
  ): OperatorNode {
    const node: OperatorNode = {
      kind: 'operator',
      id: this.nodes.length,
      name,
      uid: undefined,
      parallelism: undefined,
      inputs,
      createOperator,
      stateful: flags.stateful ?? false,
      keyed: flags.keyed ?? false,
      isSink: flags.isSink ?? flags.sink !== undefined,
      sink: flags.sink,
      changelog: flags.changelog,
    };
    this.nodes.push(node);
    return node;
  }

  /**
   * An operator with two inputs: edges of `first` feed input 0, those of
   * `second` input 1 (each input may be a union of several outputs).
   */
  addTwoInputOperator(
    name: string,
    first: OperatorInput,
    second: OperatorInput,
    createOperator: () => Operator<unknown, unknown>,
    flags: OperatorFlags = {},
  ): OperatorNode {
    const edges = (input: OperatorInput, index: number): Edge[] =>
      input.refs.map((r) => ({
        from: r.node,
        tag: r.tag,
        partitioning: input.partitioning,
        input: index,
      }));
    return this.addOperator(name, [...edges(first, 0), ...edges(second, 1)], createOperator, flags);
  }

  node(id: number): GraphNode {
    const n = this.nodes[id];
    if (n === undefined) throw new WeirError('INTERNAL', `no node ${id}`, { domain: 'internal' });
    return n;
  }

  /** The stable id of a node: its uid, or one derived from its position and name. */
  operatorId(node: GraphNode): string {
    if (node.uid !== undefined) return node.uid;
    if (node.idFrom !== undefined)
      return this.operatorId(this.node(node.idFrom.node)) + node.idFrom.suffix;
    const slug = node.name
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase();
    return `${slug || node.kind}-${node.id}`;
  }

  /** Fails if two operators claim the same uid: state could not be told apart. */
  validate(): void {
    const seen = new Map<string, GraphNode>();
    for (const node of this.nodes) {
      const id = this.operatorId(node);
      const other = seen.get(id);
      if (other !== undefined) {
        throw new WeirError(
          'INVALID_JOB',
          `operator id '${id}' is used by both '${other.name}' and '${node.name}'; every operator id must be unique in a job`,
        );
      }
      seen.set(id, node);
    }
    for (const node of this.nodes) {
      if (node.kind === 'operator' && node.inputs.length === 0) {
        throw new WeirError('INVALID_JOB', `operator '${node.name}' has no input`);
      }
    }
  }

  /** What a node's main output carries: `insert-only` unless it emits changes. */
  changelogOf(nodeId: number): ChangelogMode {
    const n = this.node(nodeId);
    return n.kind === 'operator' ? (n.changelog ?? 'insert-only') : 'insert-only';
  }

  /** Edges that leave `node`, with their consumers. */
  consumersOf(nodeId: number): { consumer: OperatorNode; edge: Edge; index: number }[] {
    const out: { consumer: OperatorNode; edge: Edge; index: number }[] = [];
    for (const n of this.nodes) {
      if (n.kind !== 'operator') continue;
      n.inputs.forEach((edge, index) => {
        if (edge.from === nodeId) out.push({ consumer: n, edge, index });
      });
    }
    return out;
  }
}
