/**
 * Confines savepoints requested through the REST API to directories the
 * job's operator allowed, so a caller cannot write state files anywhere the
 * job's user can write (`../` or a symlink out of an allowed directory).
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isS3Location } from '../runtime/checkpoint/store/s3-store.js';
import { HttpError } from './http-error.js';

/**
 * The real path of `requested` if it lies inside one of `allowed` (after
 * resolving `..` and symlinks), else an HttpError 403. The target need not
 * exist yet: its deepest existing ancestor is resolved and the rest appended.
 */
export async function confineSavepointTarget(
  requested: string,
  allowed: readonly string[],
): Promise<string> {
  if (allowed.length === 0) {
    throw new HttpError(
      403,
      'savepoints through the REST API are off: start the job with --savepoint-dir DIR to allow them into DIR',
    );
  }
  if (isS3Location(requested)) return confineS3Target(requested, allowed);
  if (!isAbsolute(requested) || requested.includes('\0')) {
    throw new HttpError(400, 'the savepoint directory must be an absolute path');
  }
  const target = await realTarget(resolve(requested));
  for (const dir of allowed) {
    const root = await realTarget(resolve(dir));
    if (isWithin(target, root)) return target;
  }
  throw new HttpError(
    403,
    `savepoints may only be written into ${allowed.map((d) => `'${d}'`).join(', ')} (or directories inside; see --savepoint-dir)`,
  );
}

/** An `s3://` target is allowed below an allowed `s3://` location, with no `.` or `..` part. */
function confineS3Target(requested: string, allowed: readonly string[]): string {
  const parts = requested.slice('s3://'.length).replace(/\/+$/, '').split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..') || requested.includes('\0')) {
    throw new HttpError(
      400,
      `the savepoint location '${requested}' has an empty, '.' or '..' part`,
    );
  }
  const target = `s3://${parts.join('/')}`;
  for (const dir of allowed.filter(isS3Location)) {
    const root = dir.replace(/\/+$/, '');
    if (target === root || target.startsWith(`${root}/`)) return target;
  }
  throw new HttpError(
    403,
    `savepoints may only be written into ${allowed.map((d) => `'${d}'`).join(', ')} (or directories inside; see --savepoint-dir)`,
  );
}

function isWithin(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** `path` with symlinks of its deepest existing ancestor resolved. */
async function realTarget(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      const parent = dirname(current);
      if (!isMissing(error) || parent === current) {
        throw new HttpError(403, `cannot resolve the savepoint directory '${path}'`);
      }
      missing.push(basename(current));
      current = parent;
    }
  }
}

function isMissing(error: unknown): boolean {
  const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
