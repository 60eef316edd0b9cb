import { checksumOf } from '../checkpoint-integrity.js';
import { type CheckpointStore, type LeaseFile, METADATA_FILE } from './checkpoint-store.js';
import type { ContentCache } from './content-cache.js';

/** How many checkpoint directories' checksums are remembered. */
const REMEMBERED_DIRECTORIES = 64;

/**
 * A remote checkpoint store (S3) whose state files are also read from local
 * copies: a checkpoint's metadata records each state file's SHA-256, and a
 * file whose checksum is known is looked up in a {@link ContentCache} by it
 * before it is fetched, and kept there once fetched. The metadata itself is
 * always read from the store, so what is current is decided there; a local
 * copy only ever stands in for bytes the metadata names. This is how a
 * standby member keeps its task's latest checkpoint at hand, and how a
 * restart on the same machine restores at local disk speed.
 */
export class LocallyCachedStore implements CheckpointStore {
  /**
   * Per checkpoint directory, each state file's SHA-256 as its metadata records, for the
   * directories read last (a standby reads a new one every checkpoint, for as long as it waits).
   */
  private readonly checksums = new Map<string, Map<string, string>>();
  /** State files served from local copies, and fetched from the store, since this store opened. */
  readonly reads = { local: 0, fetched: 0 };

  constructor(
    private readonly inner: CheckpointStore,
    private readonly cache: ContentCache,
  ) {}

  get location(): string {
    return this.inner.location;
  }

  get atomicDirectories(): boolean {
    return this.inner.atomicDirectories;
  }

  /** Where the local copies are. */
  get localCopies(): string {
    return this.cache.directory;
  }

  locate(name: string): string {
    return this.inner.locate(name);
  }

  async read(name: string): Promise<Buffer | undefined> {
    const slash = name.lastIndexOf('/');
    const checksum = this.checksums.get(name.slice(0, slash))?.get(name.slice(slash + 1));
    if (checksum !== undefined) {
      const local = await this.cache.get(checksum);
      if (local !== undefined) {
        this.reads.local++;
        return local;
      }
    }
    const bytes = await this.inner.read(name);
    if (bytes === undefined) return undefined;
    if (slash > 0 && name.slice(slash + 1) === METADATA_FILE)
      this.learn(name.slice(0, slash), bytes);
    else if (checksum !== undefined) {
      this.reads.fetched++;
      // Kept only if it is what the metadata names; a damaged file is the reader's to report.
      if (checksumOf(bytes) === checksum) await this.cache.put(checksum, bytes);
    }
    return bytes;
  }

  /** Notes the checksums of directory `directory`'s state files from its metadata. */
  private learn(directory: string, metadata: Buffer): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(metadata.toString('utf8'));
    } catch {
      return; // Damaged metadata: the reader reports it.
    }
    this.forget(directory);
    const recorded = (parsed as { checksums?: unknown } | null)?.checksums;
    if (typeof recorded !== 'object' || recorded === null) return;
    const files = new Map<string, string>();
    for (const [file, sum] of Object.entries(recorded))
      if (typeof sum === 'string') files.set(file, sum);
    this.checksums.set(directory, files);
    // The oldest first (insertion order): a restore reads a checkpoint and its few bases.
    for (const oldest of this.checksums.keys()) {
      if (this.checksums.size <= REMEMBERED_DIRECTORIES) break;
      this.checksums.delete(oldest);
    }
  }

  private forget(directory: string): void {
    this.checksums.delete(directory);
  }

  list(): Promise<string[]> {
    return this.inner.list();
  }

  async writeDirectory(
    name: string,
    files: ReadonlyArray<readonly [string, string]>,
    last: readonly [string, string],
  ): Promise<void> {
    this.forget(name);
    await this.inner.writeDirectory(name, files, last);
  }

  replace(name: string, text: string): Promise<void> {
    return this.inner.replace(name, text);
  }

  createExclusive(name: string, text: string): Promise<boolean> {
    return this.inner.createExclusive(name, text);
  }

  async removeDirectory(name: string): Promise<void> {
    this.forget(name);
    await this.inner.removeDirectory(name);
  }

  removeLeftovers(): Promise<void> {
    return this.inner.removeLeftovers();
  }

  leaseFile(name: string): LeaseFile {
    return this.inner.leaseFile(name);
  }
}
