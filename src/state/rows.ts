import { WeirError } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import { decodeKey, encodeKey, type Json } from '../core/snapshot.js';
import type { Namespace } from './keyed-state-backend.js';

/**
 * One keyed state entry in a snapshot, the same for every backend:
 * `[state, key, namespace, userKey, value]` or, with a TTL,
 * `[state, key, namespace, userKey, value, expiresAt]`. `userKey` is the
 * serialized map key for map state and `null` otherwise; `value` is the
 * serializer's JSON (for list state, an array of element JSON); `expiresAt`
 * is an absolute processing time in milliseconds. List elements expire one
 * by one: a list row whose elements expire at different times has a seventh
 * element, the expiry of each element (`expiresAt` is then the latest); a
 * row without it has all elements expire at `expiresAt`. The first four
 * elements identify the entry (see `ROW_IDENTITY_LENGTH`).
 */
export type StateRow = Json[];

/** How many leading elements of a {@link StateRow} identify it, for incremental snapshots. */
export const ROW_IDENTITY_LENGTH = 4;

/** A {@link StateRow} taken apart. */
export interface ParsedRow {
  readonly state: string;
  readonly key: Key;
  readonly namespace: Namespace;
  readonly userKey: Json;
  readonly value: Json;
  readonly expiresAt: number | undefined;
  /** List state with a TTL: the expiry of each element, when they differ. */
  readonly elementExpiresAt: readonly number[] | undefined;
}

/** Builds a snapshot row. */
export function makeRow(
  state: string,
  key: Key,
  namespace: Namespace,
  userKey: Json,
  value: Json,
  expiresAt: number | undefined,
  elementExpiresAt?: readonly number[],
): StateRow {
  const keyJson = encodeKey(key);
  if (expiresAt === undefined) return [state, keyJson, namespace, userKey, value];
  return elementExpiresAt === undefined
    ? [state, keyJson, namespace, userKey, value, expiresAt]
    : [state, keyJson, namespace, userKey, value, expiresAt, [...elementExpiresAt]];
}

/** Element expiries as rows store them: omitted when every element expires at `expiresAt`. */
export function distinctExpiries(
  expiries: readonly number[],
  expiresAt: number,
): readonly number[] | undefined {
  for (const e of expiries) if (e !== expiresAt) return expiries;
  return undefined;
}

/** Reads a snapshot row; fails with a WeirError on anything else. */
export function parseRow(entry: Json, operatorId: string): ParsedRow {
  if (
    !Array.isArray(entry) ||
    entry.length < 5 ||
    typeof entry[0] !== 'string' ||
    typeof entry[2] !== 'string' ||
    (entry.length > 5 && typeof entry[5] !== 'number') ||
    (entry.length > 6 && !validElementExpiries(entry[4]!, entry[6]!))
  ) {
    throw new WeirError(
      'INVALID_JOB',
      `keyed state of operator '${operatorId}' in the checkpoint is not in the state backend format: ${JSON.stringify(entry)?.slice(0, 100)}`,
      { operatorId },
    );
  }
  return {
    state: entry[0],
    key: decodeKey(entry[1]!),
    namespace: entry[2],
    userKey: entry[3]!,
    value: entry[4]!,
    expiresAt: entry.length > 5 ? (entry[5] as number) : undefined,
    elementExpiresAt: entry.length > 6 ? (entry[6] as number[]) : undefined,
  };
}

function validElementExpiries(value: Json, expiries: Json): boolean {
  return (
    Array.isArray(value) &&
    Array.isArray(expiries) &&
    expiries.length === value.length &&
    expiries.every((e) => typeof e === 'number')
  );
}
