import { randomUUID } from 'node:crypto';
import { chmod, link, mkdir, open, rename, unlink } from 'node:fs/promises';

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
