import { chmod, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createFileExclusively,
  mkdirPrivate,
  PRIVATE_DIR,
  replaceFileAtomically,
  syncDirectory,
  writeFileDurably,
} from '../durable-files.js';
import { OWNER_FILE } from '../lease-owner.js';
import type { CheckpointStore, LeaseFile } from './checkpoint-store.js';
import { LocalLeaseFile } from './local-lease-file.js';

/**
 * A checkpoint directory on a local (or mounted) file system. Subdirectories
 * are written under a temporary name and renamed into place, and every file
 * and rename is flushed, so a checkpoint survives a power loss once written.
 */
export class LocalStore implements CheckpointStore {
  readonly atomicDirectories = true;

  constructor(readonly location: string) {}

  locate(name: string): string {
    return join(this.location, name);
  }

  async read(name: string): Promise<Buffer | undefined> {
    try {
      return await readFile(join(this.location, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  async list(): Promise<string[]> {
    try {
      return await readdir(this.location);
    } catch (error) {
      // As read(): a path under a file holds nothing (writing there says what is wrong).
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw error;
    }
  }

  async writeDirectory(
    name: string,
    files: ReadonlyArray<readonly [string, string]>,
    last: readonly [string, string],
  ): Promise<void> {
    await mkdirPrivate(this.location);
    const finalDir = join(this.location, name);
    const tmpDir = join(this.location, `.${name}${tmpMarker()}${Date.now()}`);
    await mkdir(tmpDir, { recursive: true, mode: PRIVATE_DIR });
    await chmod(tmpDir, PRIVATE_DIR);
    // Concurrently: a checkpoint costs a few event-loop turns, not one per file.
    await Promise.all(files.map(([file, text]) => writeFileDurably(join(tmpDir, file), text)));
    await writeFileDurably(join(tmpDir, last[0]), last[1]);
    await syncDirectory(tmpDir);
    await rm(finalDir, { recursive: true, force: true });
    await rename(tmpDir, finalDir);
    await syncDirectory(this.location);
  }

  async replace(name: string, text: string): Promise<void> {
    await mkdirPrivate(this.location);
    await replaceFileAtomically(join(this.location, name), text);
  }

  async createExclusive(name: string, text: string): Promise<boolean> {
    await mkdirPrivate(this.location);
    const created = await createFileExclusively(join(this.location, name), text);
    if (created) await syncDirectory(this.location);
    return created;
  }

  async removeDirectory(name: string): Promise<void> {
    await rm(join(this.location, name), { recursive: true, force: true });
  }

  async removeLeftovers(): Promise<void> {
    // Temporary directories of checkpoints that were being written when a process died.
    for (const e of await this.list()) {
      if (e.startsWith('.chk-') && e.includes('.tmp-') && !e.includes(tmpMarker())) {
        await rm(join(this.location, e), { recursive: true, force: true });
      }
    }
  }

  leaseFile(name = OWNER_FILE): LeaseFile {
    return new LocalLeaseFile(join(this.location, name));
  }
}

/** Part of the temporary names this process writes under. */
function tmpMarker(): string {
  return `.tmp-${process.pid}-`;
}
