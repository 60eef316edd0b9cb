import { WeirError } from './errors.js';
import type { Key } from './key-groups.js';

/** A JSON value: what every piece of snapshotted state is turned into. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * What one operator subtask contributes to a checkpoint. Everything is
 * JSON data, produced at the barrier, so the operator may go on changing its
 * live state while the checkpoint is written.
 */
export interface OperatorSnapshot {
  /** Keyed state by key group: on restore each subtask gets the groups it owns. */
  readonly keyed?: Readonly<Record<string, Json[]>>;
  /**
   * Keyed state as changes since an earlier checkpoint (incremental
   * checkpoints, format version 2). Storage resolves it into `keyed` when the
   * checkpoint is read, so restoring sees whole key groups. A key group is
   * never in both `keyed` and `keyedDelta`.
   */
  readonly keyedDelta?: KeyedDelta;
  /**
   * How the keyed states in `keyed` / `keyedDelta` were declared, by state
   * name: kind and serializer id and version. Written by state backends.
   */
  readonly states?: Readonly<Record<string, StateMeta>>;
  /**
   * The lowest checkpoint id this subtask's state backend may still use as
   * the base of a later incremental snapshot: the last checkpoint it was
   * told is complete or, if none, the oldest snapshot it took that may still
   * be confirmed (snapshots run ahead of storage), or this checkpoint.
   * Checkpoint storage keeps that checkpoint and every newer one.
   */
  readonly deltaBaseFloor?: number;
  /** Operator list state: entries are spread round-robin over the subtasks on restore. */
  readonly list?: readonly Json[];
  /** Union list state: every subtask gets all entries of all subtasks on restore. */
  readonly union?: readonly Json[];
}

/** The kinds of keyed state. */
export type StateKind = 'value' | 'list' | 'map' | 'reducing' | 'aggregating';

/** A serializer as snapshots record it. */
export interface SerializerRef {
  readonly id: string;
  readonly version: number;
}

/** How a keyed state was declared, as snapshots record it. */
export interface StateMeta {
  readonly kind: StateKind;
  /** Serializer of values (list: elements; aggregating: the accumulator). */
  readonly serializer: SerializerRef;
  /** Serializer of map keys (map state only). */
  readonly keySerializer?: SerializerRef;
}

/**
 * Changes to keyed state since checkpoint `base`, per key group. Entries are
 * JSON arrays whose first `identityLength` elements identify them.
 *
 * The state of key group `g` resolves to the base checkpoint's state of `g`
 * (for the same operator, from whichever of its subtasks held `g`), minus the
 * entries whose identities are in `remove`, with the entries of `put`
 * replacing those of equal identity. This applies to every key group of the
 * subtask's key-group range; groups absent from `groups` are unchanged.
 */
export interface KeyedDelta {
  /** The checkpoint these changes apply to; storage keeps it while referenced. */
  readonly base: number;
  readonly identityLength: number;
  readonly groups: Readonly<Record<string, KeyGroupChanges>>;
}

/** Changes to one key group: see {@link KeyedDelta}. */
export interface KeyGroupChanges {
  readonly put: readonly Json[];
  /** Identities (the first `identityLength` elements) of removed entries. */
  readonly remove: readonly Json[];
}

/**
 * Applies lists of changes, oldest first, to the entries of one key group,
 * returning a new array (the base is not modified). Entry identity is the
 * JSON text of the first `identityLength` elements; later puts of the same
 * identity win.
 */
export function applyKeyGroupChanges(
  base: readonly Json[] | undefined,
  changes: readonly KeyGroupChanges[],
  identityLength: number,
): Json[] {
  const identity = (entry: Json): string => {
    if (!Array.isArray(entry)) {
      throw new WeirError('INTERNAL', 'an incremental snapshot entry is not an array', {
        domain: 'internal',
      });
    }
    return JSON.stringify(entry.slice(0, identityLength));
  };
  const byId = new Map<string, Json>();
  for (const e of base ?? []) byId.set(identity(e), e);
  for (const c of changes) {
    for (const r of c.remove) byId.delete(JSON.stringify(r));
    for (const e of c.put) byId.set(identity(e), e);
  }
  return [...byId.values()];
}

/** The state an operator subtask is started with after a restore. */
export interface RestoredState {
  /** Keyed entries of the key groups this subtask owns, from every old subtask. */
  readonly keyed: ReadonlyMap<number, readonly Json[]>;
  /** Declarations of the keyed states in `keyed`, by name (from every old subtask). */
  readonly states?: ReadonlyMap<string, StateMeta>;
  readonly list: readonly Json[];
  readonly union: readonly Json[];
}

export const EMPTY_RESTORED_STATE: RestoredState = { keyed: new Map(), list: [], union: [] };

/** Keys in snapshots: bigints are tagged, since JSON has none. */
export function encodeKey(key: Key): Json {
  return typeof key === 'bigint' ? { b: key.toString() } : key;
}

export function decodeKey(json: Json): Key {
  if (typeof json === 'string' || typeof json === 'number' || typeof json === 'boolean')
    return json;
  if (
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    typeof json.b === 'string'
  ) {
    return BigInt(json.b);
  }
  throw new WeirError('INTERNAL', `malformed key in snapshot: ${JSON.stringify(json)}`, {
    domain: 'internal',
  });
}

/** Numbers in snapshots: JSON has no infinities. */
export function encodeTime(t: number): Json {
  return Number.isFinite(t) ? t : t > 0 ? 'inf' : '-inf';
}

export function decodeTime(json: Json): number {
  if (json === 'inf') return Number.POSITIVE_INFINITY;
  if (json === '-inf') return Number.NEGATIVE_INFINITY;
  if (typeof json !== 'number')
    throw new WeirError('INTERNAL', `malformed time in snapshot`, { domain: 'internal' });
  return json;
}

/** Groups keyed entries by key group while an operator writes its snapshot. */
export class KeyedSnapshotBuilder {
  private readonly groups: Record<string, Json[]> = {};

  constructor(private readonly keyGroupOf: (key: Key) => number) {}

  add(key: Key, entry: Json): void {
    const g = String(this.keyGroupOf(key));
    const list = this.groups[g];
    if (list === undefined) this.groups[g] = [entry];
    else list.push(entry);
  }

  build(): Record<string, Json[]> {
    return this.groups;
  }
}

/** All restored keyed entries, in key-group order. */
export function* restoredEntries(state: RestoredState): IterableIterator<Json> {
  const groups = [...state.keyed.keys()].sort((a, b) => a - b);
  for (const g of groups) yield* state.keyed.get(g)!;
}
