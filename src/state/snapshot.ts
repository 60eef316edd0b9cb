import { WeirError } from '../errors.js';
import type { Key } from '../runtime/key-groups.js';

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
  /** Operator list state: entries are spread round-robin over the subtasks on restore. */
  readonly list?: readonly Json[];
  /** Union list state: every subtask gets all entries of all subtasks on restore. */
  readonly union?: readonly Json[];
}

/** The state an operator subtask is started with after a restore. */
export interface RestoredState {
  /** Keyed entries of the key groups this subtask owns, from every old subtask. */
  readonly keyed: ReadonlyMap<number, readonly Json[]>;
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
