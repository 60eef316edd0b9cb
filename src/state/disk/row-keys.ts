import type { Json } from '../../core/snapshot.js';

/**
 * How the disk backend lays rows out in its store. A row key is
 *
 *   <stateId> SEP <keyGroup: 4 hex digits> SEP <JSON key> SEP <JSON namespace> [SEP <JSON map key>]
 *
 * with SEP = U+0001, which JSON text never contains (it escapes control
 * characters). Rows of one state are contiguous, and within a state rows of
 * one (key group, key, namespace) are contiguous, so map state and
 * per-state scans are prefix ranges. A row value is the JSON text of
 * `[valueJson]`, `[valueJson, expiresAt]` or, for a list whose elements
 * expire at different times, `[valueJson, expiresAt, elementExpiries]`
 * (`expiresAt` is then the latest element expiry).
 */
export const SEP = '\u0001';

/** The first string after every string that starts with `prefix` (which ends with SEP). */
export function prefixEnd(prefix: string): string {
  return `${prefix.slice(0, -1)}\u0002`;
}

/** The key-group and key part of a row key. */
export function keyPart(keyGroup: number, keyJson: string): string {
  return `${keyGroup.toString(16).padStart(4, '0')}${SEP}${keyJson}`;
}

/** A row key taken apart. */
export interface RowKeyParts {
  readonly stateId: string;
  readonly keyGroup: number;
  readonly keyJson: string;
  readonly namespaceJson: string;
  /** Map state only. */
  readonly userKeyJson: string | undefined;
}

export function splitRowKey(rowKey: string): RowKeyParts {
  const parts = rowKey.split(SEP);
  return {
    stateId: parts[0]!,
    keyGroup: Number.parseInt(parts[1]!, 16),
    keyJson: parts[2]!,
    namespaceJson: parts[3]!,
    userKeyJson: parts[4],
  };
}

/** Encodes a stored cell. */
export function encodeCell(
  value: Json,
  expiresAt: number | undefined,
  elementExpiries?: readonly number[],
): string {
  if (expiresAt === undefined) return JSON.stringify([value]);
  return JSON.stringify(
    elementExpiries === undefined ? [value, expiresAt] : [value, expiresAt, elementExpiries],
  );
}

/** A stored cell: `[value]`, `[value, expiresAt]` or `[list, expiresAt, elementExpiries]`. */
export type Cell = [Json, number?, number[]?];

export function decodeCell(text: string): Cell {
  return JSON.parse(text) as Cell;
}
