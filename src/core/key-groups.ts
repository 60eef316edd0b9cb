import { WeirError } from './errors.js';

/**
 * Keys are primitives so that they can be hashed the same way in every worker
 * and used directly as `Map` keys. Composite keys are expressed as strings.
 */
export type Key = string | number | bigint | boolean;

/** Default upper bound on parallelism; fixes the number of key groups (state shards). */
export const DEFAULT_MAX_PARALLELISM = 128;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(s: string): number {
  // FNV-1a over UTF-16 code units, then a murmur finalizer to spread the bits.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/**
 * A stable 32-bit hash of a key. Equal keys hash equally across processes and
 * runs: the key group of a key must never change, or restored state is lost.
 */
export function hashKey(key: Key): number {
  switch (typeof key) {
    case 'string':
      return hashString(key);
    case 'number':
      // Small integers hash by value; other numbers by their canonical text.
      return Number.isInteger(key) && key >= -0x80000000 && key <= 0x7fffffff
        ? fmix32(key | 0)
        : hashString(`n:${key}`);
    case 'bigint':
      return hashString(`b:${key}`);
    case 'boolean':
      return key ? fmix32(1) : fmix32(2);
    default:
      throw new WeirError(
        'INVALID_ARGUMENT',
        `key selector returned a ${typeof key}; keys must be string, number, bigint or boolean`,
      );
  }
}

/** The key group (state shard) a key belongs to. */
export function keyGroupOf(key: Key, maxParallelism: number): number {
  return hashKey(key) % maxParallelism;
}

/** Key groups are assigned to subtasks in contiguous ranges, so rescaling moves whole ranges. */
export function subtaskForKeyGroup(
  keyGroup: number,
  maxParallelism: number,
  parallelism: number,
): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}

/** The inclusive range of key groups owned by a subtask. */
export function keyGroupRange(
  subtask: number,
  maxParallelism: number,
  parallelism: number,
): { readonly first: number; readonly last: number } {
  const first = Math.ceil((subtask * maxParallelism) / parallelism);
  const last = Math.ceil(((subtask + 1) * maxParallelism) / parallelism) - 1;
  return { first, last };
}

export function isKey(value: unknown): value is Key {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'bigint' || t === 'boolean';
}
