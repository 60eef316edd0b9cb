/**
 * Flink's `lookup.*` table options, shared by the connectors that can be looked up over the
 * network: `lookup.cache` = `PARTIAL` keeps recently looked-up rows per subtask (Flink's
 * `lookup.partial-cache.*`, and the older `lookup.cache.max-rows` / `lookup.cache.ttl`), and
 * `lookup.max-retries` retries a failed lookup.
 */
import { optional } from 'valibot';
import type { LookupCacheOptions } from '../../core/lookup.js';
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import { choice, duration, flag, wholeNumber } from './sql-options.js';

export const lookupOptionEntries = {
  'lookup.cache': optional(choice(['NONE', 'PARTIAL'])),
  'lookup.partial-cache.max-rows': optional(wholeNumber()),
  'lookup.partial-cache.expire-after-write': optional(duration()),
  'lookup.partial-cache.cache-missing-key': optional(flag()),
  'lookup.cache.max-rows': optional(wholeNumber()),
  'lookup.cache.ttl': optional(duration()),
  'lookup.cache.caching-missing-key': optional(flag()),
  'lookup.max-retries': optional(wholeNumber()),
} as const;

export interface LookupOptionValues {
  readonly 'lookup.cache'?: 'NONE' | 'PARTIAL' | undefined;
  readonly 'lookup.partial-cache.max-rows'?: string | undefined;
  readonly 'lookup.partial-cache.expire-after-write'?: number | undefined;
  readonly 'lookup.partial-cache.cache-missing-key'?: 'true' | 'false' | undefined;
  readonly 'lookup.cache.max-rows'?: string | undefined;
  readonly 'lookup.cache.ttl'?: number | undefined;
  readonly 'lookup.cache.caching-missing-key'?: 'true' | 'false' | undefined;
  readonly 'lookup.max-retries'?: string | undefined;
}

/** Flink's default `lookup.max-retries`. */
const DEFAULT_MAX_RETRIES = 3;

/**
 * The cache the options ask for, or undefined. Weir's cache is bounded in size, so `PARTIAL`
 * needs `max-rows`; without an expiry its rows are kept until they are pushed out (as in Flink).
 */
export function lookupCache(
  o: LookupOptionValues,
  table: CatalogTable,
): LookupCacheOptions | undefined {
  const legacy = o['lookup.cache.max-rows'] !== undefined || o['lookup.cache.ttl'] !== undefined;
  if (o['lookup.cache'] !== 'PARTIAL' && !legacy) return undefined;
  const maxRows = o['lookup.partial-cache.max-rows'] ?? o['lookup.cache.max-rows'];
  const ttlMs =
    o['lookup.partial-cache.expire-after-write'] ??
    o['lookup.cache.ttl'] ??
    Number.POSITIVE_INFINITY;
  if (maxRows === undefined)
    return sqlError(
      `table '${table.name}': a lookup cache needs 'lookup.partial-cache.max-rows' (Weir's cache is bounded in size)`,
      table.options.get('lookup.cache')?.at ?? table.at,
    );
  const missing =
    o['lookup.partial-cache.cache-missing-key'] ?? o['lookup.cache.caching-missing-key'] ?? 'true';
  return { maxSize: Number(maxRows), ttlMs, cacheMissing: missing === 'true' };
}

export function lookupMaxRetries(o: LookupOptionValues): number {
  const n = o['lookup.max-retries'];
  return n === undefined ? DEFAULT_MAX_RETRIES : Number(n);
}
