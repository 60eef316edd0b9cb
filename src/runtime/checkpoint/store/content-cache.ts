import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checksumOf } from '../checkpoint-integrity.js';

/** How much a cache directory keeps before it drops the files used longest ago. */
export const CONTENT_CACHE_BYTES = 1024 ** 3;

/**
 * Files on local disk named by the SHA-256 of their content: a copy of
 * state files whose checksums a checkpoint's metadata records, so reading
 * one needs no trust in the cache (a copy that does not hash to its name is
 * dropped and read again from where the checkpoint is). Several processes
 * may share a directory: files appear by rename, and one removed by another
 * process is a miss. When the files exceed `capacityBytes`, those used
 * longest ago go.
 */
export class ContentCache {
  /** What the directory holds, counted when first written to (nothing is touched before). */
  private bytes: number | undefined;

  constructor(
    readonly directory: string,
    private readonly capacityBytes = CONTENT_CACHE_BYTES,
  ) {}

  /** The bytes whose SHA-256 is `checksum`, if a sound copy is here. */
  async get(checksum: string): Promise<Buffer | undefined> {
    const path = join(this.directory, checksum);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      return undefined;
    }
    if (checksumOf(bytes) !== checksum) {
      await rm(path, { force: true });
      return undefined;
    }
    // The time of last use, for eviction.
    const now = new Date();
    await utimes(path, now, now).catch(() => {});
    return bytes;
  }

  /** Keeps `content`, whose SHA-256 the caller has checked is `checksum`. */
  async put(checksum: string, content: string | Uint8Array): Promise<void> {
    if (this.bytes === undefined) {
      mkdirSync(this.directory, { recursive: true });
      this.bytes = 0;
      for (const name of readdirSync(this.directory))
        this.bytes += sizeOf(join(this.directory, name));
    }
    const path = join(this.directory, checksum);
    const size = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
    const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await writeFile(temporary, content);
      await rename(temporary, path);
    } catch {
      // A cache that cannot be written is only slower.
      await rm(temporary, { force: true });
      return;
    }
    this.bytes += size;
    if (this.bytes > this.capacityBytes) this.evict();
  }

  /** Drops the files used longest ago until the directory is within capacity. */
  private evict(): void {
    const files = readdirSync(this.directory).flatMap((name) => {
      try {
        const s = statSync(join(this.directory, name));
        return [{ name, size: s.size, used: s.mtimeMs }];
      } catch {
        return [];
      }
    });
    files.sort((a, b) => a.used - b.used);
    this.bytes = files.reduce((sum, f) => sum + f.size, 0);
    for (const f of files) {
      if (this.bytes <= this.capacityBytes * 0.8) break;
      void rm(join(this.directory, f.name), { force: true });
      this.bytes -= f.size;
    }
  }
}

/**
 * The local directory that keeps copies of a remote checkpoint location's
 * state files: one per location, under the system's temporary directory.
 */
export function cacheDirectoryFor(location: string): string {
  const id = createHash('sha256').update(location).digest('hex').slice(0, 16);
  return join(tmpdir(), 'weir-checkpoint-cache', id);
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
