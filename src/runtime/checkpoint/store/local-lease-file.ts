import { randomUUID } from 'node:crypto';
import { link, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  createFileExclusively,
  mkdirPrivate,
  replaceFileAtomically,
  unusableDirectoryError,
} from '../durable-files.js';
import { type DirectoryOwner, parseOwner } from '../lease-owner.js';
import type { LeaseFile, LeaseVersion } from './checkpoint-store.js';

/**
 * The lease file of a local checkpoint directory. A file is created with a
 * hard link (which fails if the name exists) and a stale one is renamed
 * aside before it is replaced, which only one of several contenders can do.
 * A version's tag is its owner id.
 */
export class LocalLeaseFile implements LeaseFile {
  constructor(readonly where: string) {}

  async create(owner: DirectoryOwner): Promise<boolean> {
    // The first write into the directory when a job starts: a path that cannot be one, or
    // that this process may not write, fails the start naming the directory.
    try {
      await mkdirPrivate(dirname(this.where));
      await removeLeftovers(this.where);
      return await createExclusively(this.where, owner);
    } catch (error) {
      throw await unusableDirectoryError(dirname(this.where), error);
    }
  }

  async read(): Promise<LeaseVersion | undefined> {
    const owner = await readOwner(this.where);
    return owner === undefined ? undefined : { owner, tag: owner.ownerId };
  }

  async replace(_current: LeaseVersion, owner: DirectoryOwner): Promise<boolean> {
    await replaceFileAtomically(this.where, JSON.stringify(owner));
    return true;
  }

  async takeOver(current: LeaseVersion, owner: DirectoryOwner): Promise<boolean> {
    try {
      await removeStaleOwner(this.where, current.owner);
      return await createExclusively(this.where, owner);
    } catch (error) {
      throw await unusableDirectoryError(dirname(this.where), error);
    }
  }

  async remove(_current: LeaseVersion): Promise<void> {
    await unlink(this.where).catch(() => undefined);
  }
}

/** Creates `path` holding `owner` unless it exists (see createFileExclusively). */
function createExclusively(path: string, owner: DirectoryOwner): Promise<boolean> {
  return createFileExclusively(path, JSON.stringify(owner));
}

/**
 * Removes `_owner.json` if it still holds `stale`. It is renamed aside first,
 * which only one of several contenders can do; if what was renamed is not
 * the stale owner (another contender replaced it meanwhile), it is put back.
 */
async function removeStaleOwner(path: string, stale: DirectoryOwner): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readOwner(aside);
  if (moved !== undefined && moved.ownerId !== stale.ownerId) {
    // A live lease: restore it unless yet another one was created meanwhile.
    await link(aside, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/**
 * A contender holds its `.new-` or `.stale-` file for milliseconds; one older
 * than this was left by a process killed in between (SIGKILL, a crash).
 */
const LEFTOVER_AGE_MS = 60_000;

/**
 * Removes the temporary and renamed-aside owner files that processes killed
 * in the middle of {@link createExclusively} or {@link removeStaleOwner} left
 * beside `path`, so repeated crashes do not pile them up. Young ones may
 * belong to a live contender and are left alone.
 */
async function removeLeftovers(path: string): Promise<void> {
  const directory = dirname(path);
  const name = basename(path);
  const names = await readdir(directory).catch(() => [] as string[]);
  const now = Date.now();
  for (const file of names) {
    if (!file.startsWith(`${name}.new-`) && !file.startsWith(`${name}.stale-`)) continue;
    const full = join(directory, file);
    const age = await stat(full).then(
      (s) => now - s.mtimeMs,
      () => 0,
    );
    if (age > LEFTOVER_AGE_MS) await unlink(full).catch(() => undefined);
  }
}

/** The owner recorded in `path`; undefined if there is none. */
async function readOwner(path: string): Promise<DirectoryOwner | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseOwner(text);
}
