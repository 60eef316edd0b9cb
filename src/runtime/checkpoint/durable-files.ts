import { randomUUID } from 'node:crypto';
import { chmod, link, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { WeirError } from '../../core/errors.js';

/**
 * Checkpoint files hold the job's state, often user data: readable by the
 * job's user only. Modes are set explicitly, whatever the umask.
 */
const PRIVATE_FILE = 0o600;

/** Mode of checkpoint directories: the job's user only. */
export const PRIVATE_DIR = 0o700;

/** Creates `path` (and missing parents) readable by the job's user only. */
export async function mkdirPrivate(path: string): Promise<void> {
  const created = await mkdir(path, { recursive: true, mode: PRIVATE_DIR });
  if (created !== undefined) await chmod(path, PRIVATE_DIR);
}

/** Writes `text` to `path`, readable by the job's user only, and flushes it to disk before returning. */
export async function writeFileDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w', PRIVATE_FILE);
  try {
    await handle.chmod(PRIVATE_FILE);
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes a directory's entries (files created or renamed in it), so a
 * rename survives a power loss and not only a crash of the process.
 */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch {
    // Some platforms and file systems cannot sync a directory; nothing more can be done there.
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `text` atomically: readers see the old content or the
 * new one, never a part of it.
 */
export async function replaceFileAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFileDurably(tmp, text);
  await rename(tmp, path);
}

/**
 * Creates `path` holding `text` unless it exists; false when it does. The
 * content is written to a temporary file first and linked into place (a
 * link fails if the name exists), so of several writers exactly one wins
 * and nobody reads a half-written file.
 */
export async function createFileExclusively(path: string, text: string): Promise<boolean> {
  const tmp = `${path}.new-${randomUUID()}`;
  await writeFileDurably(tmp, text);
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** File-system errors that mean the directory cannot be used as it is, whatever retries do. */
const UNUSABLE = new Set(['ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/**
 * `error`, thrown while making or writing checkpoint directory `directory`, as a WeirError
 * that names the directory and what is wrong with it (a path that is a file, a permission
 * denied, a read-only file system), instead of a bare `ENOTDIR: not a directory, mkdir ...`.
 * Other errors are returned unchanged.
 */
export async function unusableDirectoryError(directory: string, error: unknown): Promise<unknown> {
  const { code, path } = error as NodeJS.ErrnoException;
  if (code === undefined || !UNUSABLE.has(code)) return error;
  let problem: string;
  switch (code) {
    case 'ENOTDIR':
    case 'EEXIST': {
      const file = await firstNonDirectory(directory);
      problem =
        file === undefined
          ? `a part of the path is not a directory`
          : `'${file}' is a file, not a directory`;
      break;
    }
    case 'EACCES':
    case 'EPERM':
      problem = `permission denied: this process may not create '${path ?? directory}'`;
      break;
    case 'EROFS':
      problem = 'it is on a read-only file system';
      break;
    default:
      problem = 'the file system is full (no space or quota left)';
  }
  return new WeirError(
    'CHECKPOINT_STORAGE_FAILED',
    `cannot write checkpoints into '${directory}': ${problem} (${code})`,
    { domain: 'user', cause: error },
  );
}

/** The first of `path` and its parents that exists and is not a directory. */
async function firstNonDirectory(path: string): Promise<string | undefined> {
  const parents: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    parents.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of parents) {
    const kind = await stat(p).then(
      (s) => (s.isDirectory() ? 'directory' : 'file'),
      () => 'missing' as const,
    );
    if (kind === 'file') return p;
    if (kind === 'missing') return undefined;
  }
  return undefined;
}
