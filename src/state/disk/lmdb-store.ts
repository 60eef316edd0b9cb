import { createRequire } from 'node:module';
import type { RootDatabase, RootDatabaseOptionsWithPath } from 'lmdb';
import { WeirError } from '../../core/errors.js';
import type { SyncKvStore } from '../../core/kv-store.js';

type OpenFn = (options: RootDatabaseOptionsWithPath) => RootDatabase<string, string>;

let openLmdb: OpenFn | undefined;

/** Loads lmdb on first use, so importing Weir does not load a native module. */
function loadLmdb(): OpenFn {
  if (openLmdb === undefined) {
    try {
      const lmdb = createRequire(import.meta.url)('lmdb') as { open: OpenFn };
      openLmdb = lmdb.open;
    } catch (cause) {
      throw new WeirError(
        'INVALID_JOB',
        `the disk state backend needs the 'lmdb' package, which could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause, domain: 'external' },
      );
    }
  }
  return openLmdb;
}

/**
 * A {@link SyncKvStore} on LMDB (memory-mapped B+tree; reads are synchronous
 * and need no copy into a cache, writes are synchronous transactions). The
 * database is scratch space: checkpoints make state durable, so it is opened
 * without fsync.
 */
export class LmdbStore implements SyncKvStore {
  /** LMDB's compiled-in key limit (511 in classic builds; lmdb-js allows 1978). */
  readonly maxKeyBytes = 1978;
  private readonly db: RootDatabase<string, string>;

  constructor(path: string, mapSizeBytes?: number) {
    this.db = loadLmdb()({
      path,
      encoding: 'string',
      noSync: true,
      noMetaSync: true,
      ...(mapSizeBytes === undefined ? {} : { mapSize: mapSizeBytes }),
    });
  }

  get(key: string): string | undefined {
    return this.db.get(key);
  }

  write(changes: ReadonlyMap<string, string | null>): void {
    if (changes.size === 0) return;
    const db = this.db;
    db.transactionSync(() => {
      for (const [k, v] of changes) {
        if (v === null) db.removeSync(k);
        else db.putSync(k, v);
      }
    });
  }

  *range(start: string, end: string, limit?: number): IterableIterator<[string, string]> {
    const options = limit === undefined ? { start, end } : { start, end, limit };
    for (const { key, value } of this.db.getRange(options)) yield [key, value];
  }

  count(): number {
    return (this.db.getStats() as { entryCount: number }).entryCount;
  }

  /** Pages of the database's B+tree (branch, leaf, overflow) times the page size; free pages are not counted. */
  byteSize(): number {
    const s = this.db.getStats() as {
      pageSize: number;
      treeBranchPageCount: number;
      treeLeafPageCount: number;
      overflowPages: number;
    };
    return (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize;
  }

  close(): void {
    void this.db.close();
  }
}
