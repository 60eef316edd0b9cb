import { basename, dirname, resolve } from 'node:path';
import type { CheckpointStore } from './checkpoint-store.js';
import { ContentCache, cacheDirectoryFor } from './content-cache.js';
import { LocalStore } from './local-store.js';
import { LocallyCachedStore } from './locally-cached-store.js';
import { isS3Location, S3Store } from './s3-store.js';

/**
 * The store of a checkpoint directory: `s3://bucket/prefix` is a prefix in
 * S3 (or an S3-compatible server), with local copies of the state files it
 * reads (see {@link LocallyCachedStore}); anything else a local path.
 * Nothing is contacted (and the S3 client is not loaded) before the first
 * operation.
 */
export function openStore(location: string): CheckpointStore {
  if (!isS3Location(location)) return new LocalStore(location);
  return new LocallyCachedStore(
    new S3Store(location),
    new ContentCache(cacheDirectoryFor(location)),
  );
}

/** The directory a checkpoint is in and its own name: `s3://b/p/chk-1` is `s3://b/p` and `chk-1`. */
export function splitLocation(location: string): { parent: string; name: string } {
  if (isS3Location(location)) {
    const trimmed = location.replace(/\/+$/, '');
    const at = trimmed.lastIndexOf('/');
    return { parent: trimmed.slice(0, at), name: trimmed.slice(at + 1) };
  }
  return { parent: dirname(location), name: basename(location) };
}

/**
 * `location` as the job will use it: a local path resolved against `cwd`,
 * an `s3://` location unchanged.
 */
export function resolveLocation(cwd: string, location: string): string {
  return isS3Location(location) ? location : resolve(cwd, location);
}
