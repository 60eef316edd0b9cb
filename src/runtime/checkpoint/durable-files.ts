import { chmod, mkdir, open, rename } from 'node:fs/promises';

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
