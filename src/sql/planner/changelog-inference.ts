/**
 * Changelog-mode inference over a query's operators, as Flink's planner does it
 * (`FlinkChangelogModeInferenceProgram`), as a pure function of the operator graph:
 *
 * 1. bottom-up, the kinds of change each operator may emit (its ModifyKindSet: insert,
 *    update, delete), from its kind and its inputs';
 * 2. top-down from the sinks, whether each operator's updates must carry their
 *    update-before (`before-and-after`) or only the update-after (`only-after`): an operator
 *    emits `-U` only when some consumer needs it. Each operator asks its inputs for what it
 *    needs; a request that cannot be met fails, and the sink falls back to asking for
 *    update-befores, as Flink's visitor returns None and tries the next trait.
 *
 * A regular join, as Flink's, takes only the update-afters of an input whose upsert key
 * contains the join key (it keeps that side's rows by the key, so a `+U` replaces its row);
 * it never emits `-U` itself (an update of a joined row is `-D` then `+I`).
 */
import type { ChangelogMode } from '../../core/changelog.js';

/** A kind of change (Flink's ModifyKind). */
export type ModifyKind = 'I' | 'U' | 'D';

/** The kinds of change an operator may emit, in the order I, U, D. */
export type ModifyKindSet = readonly ModifyKind[];

/** Whether updates carry their update-before (Flink's UpdateKind); `none`: no updates. */
export type UpdateKind = 'none' | 'only-after' | 'before-and-after';

/** What an operator is, as far as the inference is concerned. */
export type ChangelogRole =
  /** Emits what it was built to emit and needs from each input what that input was built to emit. */
  | { readonly kind: 'fixed' }
  /** A projection and, with `filter`, a WHERE (Flink's Calc). */
  | { readonly kind: 'calc'; readonly filter: boolean }
  /** An unwindowed GROUP BY, mini-batch or not. */
  | { readonly kind: 'group-aggregate' }
  /** ROW_NUMBER() Top-N and ORDER BY ... LIMIT over insert-only input. */
  | { readonly kind: 'rank' }
  /**
   * A keyed operator over changing rows that always emits a retract changelog and takes
   * retracted rows back out (INTERSECT and EXCEPT, the Top-N over a changing input, Flink's
   * retract strategy): needs its inputs' update-befores. `updates`: it emits `-U`/`+U` (a
   * Top-N with the row number); otherwise only `+I` and `-D`.
   */
  | { readonly kind: 'retracting'; readonly updates: boolean }
  /** ROW_NUMBER() = 1 deduplication; `insertOnly`: keep-first by arrival, which never updates. */
  | { readonly kind: 'deduplicate'; readonly insertOnly: boolean }
  /**
   * A regular join; `inner` passes its inputs' kinds on, an outer join may emit any.
   * `keyedInputs[i]`: input i has an upsert key containing the join key, so the join can do
   * without its update-befores (Flink's `inputUniqueKeyContainsJoinKey`).
   */
  | {
      readonly kind: 'join';
      readonly inner: boolean;
      readonly keyedInputs?: readonly [boolean, boolean];
    }
  /**
   * A semi or anti join (EXISTS / IN subqueries): emits left rows as `+I` and `-D` only (an
   * update of a left row is `-D` then `+I`), so never `-U`; it keeps each side's rows as a
   * multiset, so it needs its inputs' update-befores. A semi join of insert-only inputs only
   * inserts; an anti join retracts a row when its first match arrives, whatever its inputs.
   */
  | { readonly kind: 'semi-join'; readonly anti: boolean }
  /** A view of an upsert changelog by its key that emits retractions (ChangelogNormalize). */
  | { readonly kind: 'normalize' }
  /** Drops `-U` (Flink's DropUpdateBefore): what its consumer gets never has update-befores. */
  | { readonly kind: 'drop-update-before' }
  /** A view by a sink's PRIMARY KEY (SinkUpsertMaterializer): needs update-befores, emits upserts. */
  | { readonly kind: 'materialize' }
  /** A sink accepting `accepts` (its widest mode). */
  | { readonly kind: 'sink'; readonly accepts: ChangelogMode };

/** One operator of the graph the inference reads. */
export interface InferenceNode {
  readonly id: number;
  readonly role: ChangelogRole;
  /** The mode the operator was built to emit (what it emits if the inference changes nothing). */
  readonly built: ChangelogMode;
  /** The operators each input reads, in input order (several for a UNION ALL). */
  readonly inputs: readonly (readonly number[])[];
  /** How many inputs of other operators read this one. */
  readonly consumers: number;
}

/** What the inference decided for each operator it reached from a sink. */
export interface ChangelogInference {
  /** The kinds each operator may emit (every operator of the graph). */
  readonly kinds: ReadonlyMap<number, ModifyKindSet>;
  /** The update kind each operator reached from a sink provides. */
  readonly updateKinds: ReadonlyMap<number, UpdateKind>;
}

const ALL: ModifyKindSet = ['I', 'U', 'D'];
const INSERT_ONLY: ModifyKindSet = ['I'];

function kindsOfMode(mode: ChangelogMode): ModifyKindSet {
  return mode === 'insert-only' ? INSERT_ONLY : ALL;
}

function updateKindOfMode(mode: ChangelogMode): UpdateKind {
  return mode === 'insert-only' ? 'none' : mode === 'upsert' ? 'only-after' : 'before-and-after';
}

function union(sets: readonly ModifyKindSet[]): ModifyKindSet {
  return ALL.filter((k) => sets.some((s) => s.includes(k)));
}

/** The changelog mode in Flink's EXPLAIN notation (`[I,UB,UA,D]`; `[NONE]` for a sink). */
export function changelogModeText(kinds: ModifyKindSet, update: UpdateKind): string {
  const parts: string[] = [];
  if (kinds.includes('I')) parts.push('I');
  if (kinds.includes('U')) {
    if (update === 'before-and-after') parts.push('UB');
    parts.push('UA');
  }
  if (kinds.includes('D')) parts.push('D');
  return `[${parts.length === 0 ? 'NONE' : parts.join(',')}]`;
}

/** Pass 1: the kinds of change every operator may emit, inputs before consumers. */
function inferKinds(nodes: ReadonlyMap<number, InferenceNode>): Map<number, ModifyKindSet> {
  const kinds = new Map<number, ModifyKindSet>();
  const kindsOf = (id: number): ModifyKindSet => {
    const known = kinds.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    const result = node === undefined ? INSERT_ONLY : computeKinds(node, kindsOf);
    kinds.set(id, result);
    return result;
  };
  for (const id of nodes.keys()) kindsOf(id);
  return kinds;
}

function computeKinds(node: InferenceNode, kindsOf: (id: number) => ModifyKindSet): ModifyKindSet {
  const input = (i: number) => union((node.inputs[i] ?? []).map(kindsOf));
  const all = union(node.inputs.flat().map(kindsOf));
  switch (node.role.kind) {
    case 'fixed':
      return kindsOfMode(node.built);
    case 'calc':
    case 'drop-update-before':
    case 'sink':
      return input(0);
    case 'group-aggregate':
      // A group is deleted only when rows are taken back out of it.
      return input(0).some((k) => k !== 'I') ? ALL : ['I', 'U'];
    case 'retracting':
      return node.role.updates ? ALL : ['I', 'D'];
    case 'rank':
    case 'normalize':
    case 'materialize':
      return ALL;
    case 'deduplicate':
      return node.role.insertOnly ? INSERT_ONLY : ALL;
    case 'join':
      return node.role.inner ? all : ALL;
    case 'semi-join':
      return !node.role.anti && all.every((k) => k === 'I') ? INSERT_ONLY : ['I', 'D'];
  }
}

const beforeAfterOrNone = (kinds: ModifyKindSet): UpdateKind =>
  kinds.includes('U') ? 'before-and-after' : 'none';
const onlyAfterOrNone = (kinds: ModifyKindSet): UpdateKind =>
  kinds.includes('U') ? 'only-after' : 'none';

/** Whether an operator providing `provided` meets a consumer requiring `required`. */
const satisfies = (provided: UpdateKind, required: UpdateKind): boolean =>
  provided === 'none' || provided === required;

type Assignment = ReadonlyMap<number, UpdateKind>;

/** Pass 2: the update kind each operator must provide, from the sinks down. */
class UpdateKindVisitor {
  private readonly memo = new Map<string, Assignment | undefined>();

  constructor(
    private readonly nodes: ReadonlyMap<number, InferenceNode>,
    private readonly kinds: ReadonlyMap<number, ModifyKindSet>,
  ) {}

  private kindsOf(id: number): ModifyKindSet {
    return this.kinds.get(id) ?? INSERT_ONLY;
  }

  /** The update kinds of `id` and the operators below it when `id` must provide `required`. */
  visit(id: number, required: UpdateKind): Assignment | undefined {
    const node = this.nodes.get(id);
    if (node === undefined) return new Map([[id, 'none']]);
    // An operator read by several others gives each what it was built to give: one consumer
    // may need the update-befores the other could do without.
    const asked = node.consumers > 1 ? updateKindOfMode(node.built) : required;
    const key = `${id}:${asked}`;
    if (this.memo.has(key)) return this.memo.get(key);
    const result = this.decide(node, asked);
    this.memo.set(key, result);
    return result;
  }

  private decide(node: InferenceNode, required: UpdateKind): Assignment | undefined {
    const kinds = this.kindsOf(node.id);
    const provide = (kind: UpdateKind) => (kinds.includes('U') ? kind : 'none');
    const inputKinds = (i: number) => union((node.inputs[i] ?? []).map((p) => this.kindsOf(p)));
    const role = node.role;
    switch (role.kind) {
      case 'fixed':
        return this.withInputs(node, updateKindOfMode(node.built), (p) =>
          updateKindOfMode(this.nodes.get(p)?.built ?? 'insert-only'),
        );
      case 'calc':
        // A WHERE cannot turn updates into upserts: a row whose update-after it rejects must be
        // retracted by its update-before (Flink's rule since FLINK-9528).
        if (role.filter && required === 'only-after') return undefined;
        return this.withInputs(node, provide(required), () => required);
      case 'group-aggregate':
      case 'materialize':
        // Takes every row an update replaces back out: needs the update-befores of its input.
        return this.withInputs(
          node,
          role.kind === 'materialize' ? provide('only-after') : provide(required),
          () => beforeAfterOrNone(inputKinds(0)),
        );
      case 'retracting':
        // It has no variant without update-befores: a consumer asking for only update-afters
        // is not met, and falls back to asking for both.
        return this.withInputs(node, provide('before-and-after'), () =>
          beforeAfterOrNone(inputKinds(0)),
        );
      case 'rank':
      case 'deduplicate':
        // Over insert-only input (Flink's AppendFast strategy); emits -U only when asked to.
        return this.withInputs(node, provide(required), () => 'none');
      case 'normalize':
        return this.withInputs(node, provide(required), () => onlyAfterOrNone(inputKinds(0)));
      case 'join': {
        // Asked for update-afters only, it asks the same of each input it keeps by an upsert
        // key containing the join key, and cannot be met when another input updates.
        const afterOnly = (i: number) =>
          required === 'only-after' && role.keyedInputs?.[i] === true;
        const unmet = node.inputs.some(
          (_, i) => required === 'only-after' && !afterOnly(i) && inputKinds(i).includes('U'),
        );
        if (unmet) return undefined;
        return this.withInputs(node, provide(required), (_, i) =>
          afterOnly(i) ? onlyAfterOrNone(inputKinds(i)) : beforeAfterOrNone(inputKinds(i)),
        );
      }
      case 'semi-join':
        return this.withInputs(node, 'none', (_, i) => beforeAfterOrNone(inputKinds(i)));
      case 'drop-update-before':
        // What comes out never holds -U: its consumer was built to read it so (see withInputs).
        return (
          this.withInputs(node, provide('only-after'), () => onlyAfterOrNone(inputKinds(0))) ??
          this.withInputs(node, provide('only-after'), () => beforeAfterOrNone(inputKinds(0)))
        );
      case 'sink': {
        const k = inputKinds(0);
        const tries: UpdateKind[] =
          role.accepts === 'insert-only'
            ? ['none']
            : role.accepts === 'upsert'
              ? [onlyAfterOrNone(k), beforeAfterOrNone(k)]
              : [beforeAfterOrNone(k), onlyAfterOrNone(k)];
        for (const t of tries) {
          const done = this.withInputs(node, 'none', () => t);
          if (done !== undefined) return done;
        }
        return undefined;
      }
    }
  }

  /**
   * The assignment of `node` providing `provided` when each input operator `p` of input `i`
   * must provide `requiredOf(p, i)` (`none` for an input that only inserts, as a UNION ALL of
   * an insert-only and an updating query asks each side for what it has).
   */
  private withInputs(
    node: InferenceNode,
    provided: UpdateKind,
    requiredOf: (producer: number, input: number) => UpdateKind,
  ): Assignment | undefined {
    const out = new Map<number, UpdateKind>([[node.id, provided]]);
    for (const [i, producers] of node.inputs.entries()) {
      for (const p of producers) {
        const required = this.kindsOf(p).includes('U') ? requiredOf(p, i) : 'none';
        const below = this.visit(p, required);
        const got = below?.get(p);
        // A drop of update-befores meets any consumer: the planner put it there for it.
        const met =
          got !== undefined &&
          (satisfies(got, required) || this.nodes.get(p)?.role.kind === 'drop-update-before');
        if (below === undefined || !met) return undefined;
        for (const [id, kind] of below) {
          const before = out.get(id);
          // Two paths to one operator must agree (they do unless it is read twice, see visit).
          if (before !== undefined && before !== kind) return undefined;
          out.set(id, kind);
        }
      }
    }
    return out;
  }
}

/**
 * Infers the kinds and update kinds of a graph's operators from its sinks (the nodes with
 * role `sink`). A sink none of whose requests can be met leaves its operators as they were
 * built (they are absent from `updateKinds`).
 */
export function inferChangelogModes(nodes: readonly InferenceNode[]): ChangelogInference {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const kinds = inferKinds(byId);
  const visitor = new UpdateKindVisitor(byId, kinds);
  const updateKinds = new Map<number, UpdateKind>();
  for (const node of nodes) {
    if (node.role.kind !== 'sink') continue;
    const assigned = visitor.visit(node.id, 'none');
    if (assigned === undefined) continue;
    for (const [id, kind] of assigned) if (!updateKinds.has(id)) updateKinds.set(id, kind);
  }
  return { kinds, updateKinds };
}
