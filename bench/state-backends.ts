/**
 * State backend benchmarks.
 *
 *   npx tsx bench/state-backends.ts --stores --stores-dir DIR [--keys N] [--ops N] [--buffer N]
 *   npx tsx bench/state-backends.ts --checkpoint [--keys N]
 *
 * `--stores`: candidate embedded stores for the disk state backend, measured with the
 * access pattern of keyed state: keys shaped like the backend's row keys
 * (state id, key group, JSON key, namespace), small JSON values, uniformly
 * random keys, read-modify-write through a write-behind buffer flushed in
 * batches (the way the disk backend writes), plus a full scan (a full
 * snapshot).
 *
 * `--checkpoint`: the heap and disk backends with N keys of value state:
 * fill, random read-modify-write, full snapshot and its write to checkpoint
 * storage, a second snapshot after changing 1% of keys (incremental on the
 * disk backend), and reading plus restoring it.
 *
 * The candidates are not dependencies of Weir: install them anywhere and pass
 * that directory, e.g.
 *   npm i --prefix /tmp/weir-stores lmdb@3.5.6 classic-level@3.0.0 better-sqlite3@12 @nxtedition/rocksdb
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { systemClock } from '../src/core/clock.js';
import { DEFAULT_MAX_PARALLELISM, type Key, keyGroupOf } from '../src/core/key-groups.js';
import type { OperatorSnapshot } from '../src/core/snapshot.js';
import type { CheckpointData } from '../src/runtime/checkpoint/checkpoint-data.js';
import { CHECKPOINT_FORMAT_VERSION } from '../src/runtime/checkpoint/checkpoint-data.js';
import {
  LocalCheckpointStorage,
  readCheckpoint,
} from '../src/runtime/checkpoint/checkpoint-storage.js';
import { restoredStateFor } from '../src/runtime/checkpoint/restore.js';
import { createKeyedStateBackend, type StateBackendOptions } from '../src/state/create-backend.js';
import { DeterministicRandom } from '../src/util/random.js';

/** The operations the benchmark needs; `flush` may be asynchronous (then it is awaited). */
export interface CandidateStore {
  readonly name: string;
  /** True if writes can be made synchronously (the hot path is synchronous). */
  readonly syncWrites: boolean;
  get(key: string): string | undefined;
  write(batch: ReadonlyMap<string, string>): void | Promise<void>;
  /** Single synchronous put, if the store has one (for the unbuffered comparison). */
  putSync?(key: string, value: string): void;
  scan(): number;
  close(): void | Promise<void>;
}

type Loader = (req: NodeRequire, dir: string) => Promise<CandidateStore>;

interface LmdbDb {
  get(key: string): string | undefined;
  put(key: string, value: string): unknown;
  putSync(key: string, value: string): boolean;
  transactionSync<T>(fn: () => T): T;
  getRange(o: object): Iterable<{ key: unknown; value: unknown }>;
  close(): Promise<void>;
}
interface SqliteStatement {
  get(...params: unknown[]): { v: string } | undefined;
  run(...params: unknown[]): unknown;
  iterate(...params: unknown[]): Iterable<{ k: string; v: string }>;
}
interface SqliteDb {
  pragma(s: string): unknown;
  exec(s: string): unknown;
  prepare(s: string): SqliteStatement;
  transaction(fn: () => void): () => void;
  close(): void;
}
interface LevelIterator {
  nextv(n: number): Promise<[string, string][]>;
  close(): Promise<void>;
}
interface LevelDb {
  open(): Promise<void>;
  getSync?(key: string): string | undefined;
  _getManySync?(keys: string[]): (Buffer | string | undefined)[];
  batch(ops: { type: 'put'; key: string; value: string }[]): Promise<void>;
  iterator(o: object): LevelIterator;
  close(): Promise<void>;
}

const loaders: Record<string, Loader> = {
  lmdb: async (req, dir) => {
    const { open } = req('lmdb') as { open(o: object): LmdbDb };
    const db = open({ path: dir, encoding: 'string', noSync: true, noMetaSync: true });
    return {
      name: 'lmdb',
      syncWrites: true,
      get: (k) => db.get(k),
      write: (batch) =>
        db.transactionSync(() => {
          for (const [k, v] of batch) db.put(k, v);
        }),
      putSync: (k, v) => {
        db.putSync(k, v);
      },
      scan: () => {
        let n = 0;
        for (const { value } of db.getRange({})) if (typeof value === 'string') n++;
        return n;
      },
      close: () => db.close(),
    };
  },
  'better-sqlite3': async (req, dir) => {
    const Database = req('better-sqlite3') as new (path: string) => SqliteDb;
    const db = new Database(join(dir, 'state.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID');
    const get = db.prepare('SELECT v FROM kv WHERE k = ?');
    const put = db.prepare('INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)');
    const all = db.prepare('SELECT k, v FROM kv ORDER BY k');
    let pending: ReadonlyMap<string, string> = new Map();
    const tx = db.transaction(() => {
      for (const [k, v] of pending) put.run(k, v);
    });
    return {
      name: 'better-sqlite3',
      syncWrites: true,
      get: (k) => get.get(k)?.v,
      write: (batch) => {
        pending = batch;
        tx();
      },
      putSync: (k, v) => {
        put.run(k, v);
      },
      scan: () => {
        let n = 0;
        for (const row of all.iterate()) if (row.v.length > 0) n++;
        return n;
      },
      close: () => db.close(),
    };
  },
  'classic-level': async (req, dir) => {
    const { ClassicLevel } = req('classic-level') as {
      ClassicLevel: new (p: string, o: object) => LevelDb;
    };
    const db = new ClassicLevel(dir, { valueEncoding: 'utf8' });
    await db.open();
    return levelStore('classic-level', db, (k) => db.getSync!(k));
  },
  '@nxtedition/rocksdb': async (req, dir) => {
    const { RocksLevel } = req('@nxtedition/rocksdb') as {
      RocksLevel: new (p: string, o: object) => LevelDb;
    };
    const db = new RocksLevel(dir, { valueEncoding: 'utf8' });
    await db.open();
    return levelStore('@nxtedition/rocksdb', db, (k) => {
      const v = db._getManySync!([k])[0];
      return v === undefined || v === null ? undefined : v.toString();
    });
  },
};

function levelStore(
  name: string,
  db: LevelDb,
  get: (k: string) => string | undefined,
): CandidateStore {
  return {
    name,
    syncWrites: false,
    get,
    write: (batch) => db.batch([...batch].map(([key, value]) => ({ type: 'put', key, value }))),
    scan: () => Number.NaN, // asynchronous only; measured by scanAsync
    close: () => db.close(),
    scanAsync: async () => {
      const it = db.iterator({});
      let n = 0;
      for (;;) {
        const chunk = await it.nextv(1000);
        if (chunk.length === 0) break;
        n += chunk.length;
      }
      await it.close();
      return n;
    },
  } as CandidateStore & { scanAsync(): Promise<number> };
}

/** Candidate names, in the order they are reported. */
export const CANDIDATES = Object.keys(loaders);

function rowKey(i: number): string {
  // Shaped like the disk backend's keys: state id, key group (4 hex), JSON key, JSON namespace.
  const keyGroup = (i * 2654435761) % 128;
  return `1\u0001${keyGroup.toString(16).padStart(4, '0')}\u0001"user-${i}"\u0001""`;
}

function rowValue(count: number): string {
  return `[{"count":${count},"sum":${count * 17},"last":"2024-01-01T00:00:00Z"}]`;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) n += statSync(join(dir, f)).blocks * 512;
  return n;
}

/** What one store measured. */
export interface StoreResult {
  store: string;
  keys: number;
  syncWrites: boolean;
  loadPerSec: number;
  getPerSec: number;
  rmwBufferedPerSec: number;
  rmwUnbufferedPerSec: number | null;
  scanPerSec: number;
  diskMb: number;
}

/** Runs the store benchmark for one candidate (in the calling process). */
export async function benchStore(
  name: string,
  storesDir: string,
  keys: number,
  ops: number,
  buffer: number,
): Promise<StoreResult> {
  const loader = loaders[name];
  if (loader === undefined) throw new Error(`unknown store ${name}`);
  const req = createRequire(join(storesDir, 'package.json'));
  const dir = mkdtempSync(join(tmpdir(), 'weir-store-bench-'));
  const store = await loader(req, dir);
  try {
    const rnd = new DeterministicRandom(42);
    // Load: every key once, in batches.
    let t = performance.now();
    for (let start = 0; start < keys; start += buffer) {
      const batch = new Map<string, string>();
      for (let i = start; i < Math.min(keys, start + buffer); i++)
        batch.set(rowKey(i), rowValue(i));
      await store.write(batch);
    }
    const loadPerSec = keys / ((performance.now() - t) / 1000);

    // Random synchronous gets.
    t = performance.now();
    let found = 0;
    for (let n = 0; n < ops; n++) if (store.get(rowKey(rnd.int(keys))) !== undefined) found++;
    const getPerSec = ops / ((performance.now() - t) / 1000);
    if (found !== ops) throw new Error(`${name}: ${ops - found} keys missing`);

    // Read-modify-write through a write-behind buffer, flushed every `buffer` dirty keys.
    t = performance.now();
    let dirty = new Map<string, string>();
    for (let n = 0; n < ops; n++) {
      const k = rowKey(rnd.int(keys));
      const v = dirty.get(k) ?? store.get(k)!;
      const parsed = JSON.parse(v) as [{ count: number }];
      dirty.set(k, rowValue(parsed[0].count + 1));
      if (dirty.size >= buffer) {
        await store.write(dirty);
        dirty = new Map();
      }
    }
    await store.write(dirty);
    const rmwBufferedPerSec = ops / ((performance.now() - t) / 1000);

    // Read-modify-write with one synchronous put per operation (no buffer).
    let rmwUnbufferedPerSec: number | null = null;
    if (store.putSync !== undefined) {
      const n1 = Math.min(ops, 100_000);
      t = performance.now();
      for (let n = 0; n < n1; n++) {
        const k = rowKey(rnd.int(keys));
        const parsed = JSON.parse(store.get(k)!) as [{ count: number }];
        store.putSync(k, rowValue(parsed[0].count + 1));
      }
      rmwUnbufferedPerSec = n1 / ((performance.now() - t) / 1000);
    }

    t = performance.now();
    const scanAsync = (store as CandidateStore & { scanAsync?: () => Promise<number> }).scanAsync;
    const scanned = scanAsync === undefined ? store.scan() : await scanAsync();
    const scanPerSec = scanned / ((performance.now() - t) / 1000);
    if (scanned !== keys) throw new Error(`${name}: scanned ${scanned} of ${keys}`);
    const diskMb = dirBytes(dir) / 1e6;
    return {
      store: name,
      keys,
      syncWrites: store.syncWrites,
      loadPerSec,
      getPerSec,
      rmwBufferedPerSec,
      rmwUnbufferedPerSec,
      scanPerSec,
      diskMb,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Command line

/** Per numeric field, the median over runs (other fields from the first run). */
function medianOf<T extends object>(runs: readonly T[]): T {
  const out = { ...runs[0]! } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) {
    if (typeof v !== 'number') continue;
    const sorted = runs
      .map((r) => (r as Record<string, unknown>)[k] as number)
      .sort((a, b) => a - b);
    out[k] = sorted[Math.floor(sorted.length / 2)];
  }
  return out as T;
}

function fmt(n: number): string {
  return n >= 1e6
    ? `${(n / 1e6).toFixed(2)}M`
    : n >= 1e3
      ? `${Math.round(n / 1e3)}K`
      : n.toFixed(0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stores: { type: 'boolean', default: false },
      checkpoint: { type: 'boolean', default: false },
      only: { type: 'string' },
      backend: { type: 'string' },
      'stores-dir': { type: 'string', default: process.cwd() },
      keys: { type: 'string', default: '1000000' },
      ops: { type: 'string', default: '1000000' },
      buffer: { type: 'string', default: '10000' },
      json: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '1' },
    },
  });
  const keys = Number(values.keys);
  if (values.backend === 'heap' || values.backend === 'disk') {
    process.stdout.write(`${JSON.stringify(await benchBackend(values.backend, keys))}\n`);
    return;
  }
  if (values.only !== undefined) {
    const r = await benchStore(
      values.only,
      values['stores-dir'],
      keys,
      Number(values.ops),
      Number(values.buffer),
    );
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  const rounds = Number(values.rounds);
  if (values.stores) {
    // Rounds alternate the stores (rotating the order), so a noisy neighbour
    // hits every store alike; each figure is the median over rounds.
    const all = new Map<string, StoreResult[]>();
    for (let r = 0; r < rounds; r++) {
      const order = CANDIDATES.map((_, i) => CANDIDATES[(i + r) % CANDIDATES.length]!);
      for (const name of order) {
        // Each store in its own process, so memory and native state do not mix.
        try {
          const out = runChild([
            '--only',
            name,
            '--stores-dir',
            values['stores-dir'],
            '--keys',
            values.keys,
            '--ops',
            values.ops,
            '--buffer',
            values.buffer,
          ]);
          const list = all.get(name) ?? [];
          list.push(JSON.parse(out) as StoreResult);
          all.set(name, list);
        } catch (e) {
          process.stderr.write(
            `${name}: skipped (${e instanceof Error ? e.message.split('\n')[0] : e})\n`,
          );
        }
      }
    }
    const rows = CANDIDATES.filter((n) => all.has(n)).map((n) => medianOf(all.get(n)!));
    if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 1)}\n`);
    process.stdout.write(
      '| store | sync writes | load puts/s | random get/s | read-modify-write/s (buffered) | read-modify-write/s (put per op) | scan entries/s | disk MB |\n|---|---|---|---|---|---|---|---|\n',
    );
    for (const r of rows) {
      process.stdout.write(
        `| ${r.store} | ${r.syncWrites ? 'yes' : 'no'} | ${fmt(r.loadPerSec)} | ${fmt(r.getPerSec)} | ${fmt(r.rmwBufferedPerSec)} | ${r.rmwUnbufferedPerSec === null ? 'n/a' : fmt(r.rmwUnbufferedPerSec)} | ${fmt(r.scanPerSec)} | ${r.diskMb.toFixed(0)} |\n`,
      );
    }
    return;
  }
  if (values.checkpoint) {
    await benchCheckpoints(keys, values.json, rounds);
    return;
  }
  process.stdout.write(
    'usage: state-backends.ts --stores [--stores-dir DIR] | --checkpoint [--keys N]\n',
  );
}

// ---------------------------------------------------------------------------
// Checkpoint mode: the backends themselves.

/** What one backend measured in `--checkpoint` mode. */
export interface CheckpointResult {
  backend: string;
  keys: number;
  fillPerSec: number;
  rmwPerSec: number;
  fullSnapshotMs: number;
  fullWriteMs: number;
  fullBytes: number;
  changedKeys: number;
  secondSnapshotMs: number;
  secondWriteMs: number;
  secondBytes: number;
  secondIsDelta: boolean;
  readMs: number;
  restoreMs: number;
  restoredEntries: number;
}

function checkpointData(id: number, snapshot: OperatorSnapshot): CheckpointData {
  return {
    format: 'weir-checkpoint',
    version: CHECKPOINT_FORMAT_VERSION,
    kind: 'checkpoint',
    checkpointId: id,
    jobName: 'bench',
    createdAt: new Date().toISOString(),
    maxParallelism: DEFAULT_MAX_PARALLELISM,
    final: false,
    operators: [{ uid: 'counts', name: 'counts', parallelism: 1, subtasks: [snapshot] }],
  };
}

/** Fills `keys` keys of value state, snapshots, changes 1%, snapshots again, restores. */
export async function benchBackend(kind: 'heap' | 'disk', keys: number): Promise<CheckpointResult> {
  const work = mkdtempSync(join(tmpdir(), 'weir-backend-bench-'));
  const context = {
    operatorId: 'counts',
    subtaskIndex: 0,
    maxParallelism: DEFAULT_MAX_PARALLELISM,
    clock: systemClock,
  };
  const options: StateBackendOptions =
    kind === 'heap' ? { kind } : { kind, workingDirectory: join(work, 'state') };
  const backend = createKeyedStateBackend(options, context);
  const storage = new LocalCheckpointStorage(join(work, 'chk'));
  const snapshotContext = (checkpointId: number) => ({
    checkpointId,
    keyGroupOf: (k: Key) => keyGroupOf(k, DEFAULT_MAX_PARALLELISM),
  });
  interface Counts {
    count: number;
    sum: number;
  }
  try {
    const state = backend.getValueState<Counts>('counts');
    let t = performance.now();
    for (let i = 0; i < keys; i++) {
      backend.currentKey = `user-${i}`;
      state.update({ count: 1, sum: i });
    }
    backend.entryCount(); // the disk backend writes its buffer here
    const fillPerSec = keys / ((performance.now() - t) / 1000);

    const rnd = new DeterministicRandom(7);
    const ops = Math.min(keys, 1_000_000);
    t = performance.now();
    for (let n = 0; n < ops; n++) {
      backend.currentKey = `user-${rnd.int(keys)}`;
      const c = state.value()!;
      state.update({ count: c.count + 1, sum: c.sum + n });
    }
    backend.entryCount();
    const rmwPerSec = ops / ((performance.now() - t) / 1000);

    t = performance.now();
    const first = backend.snapshot(snapshotContext(1));
    const fullSnapshotMs = performance.now() - t;
    t = performance.now();
    const firstPath = await storage.write(checkpointData(1, first));
    const fullWriteMs = performance.now() - t;
    backend.notifyCheckpointComplete(1);

    const changedKeys = Math.floor(keys / 100);
    for (let n = 0; n < changedKeys; n++) {
      backend.currentKey = `user-${(n * 7919) % keys}`;
      state.update({ count: -1, sum: n });
    }
    t = performance.now();
    const second = backend.snapshot(snapshotContext(2));
    const secondSnapshotMs = performance.now() - t;
    t = performance.now();
    const secondPath = await storage.write(checkpointData(2, second));
    const secondWriteMs = performance.now() - t;
    backend.notifyCheckpointComplete(2);

    t = performance.now();
    const read = await readCheckpoint(secondPath);
    const restored = restoredStateFor(read, 'counts', 0, 1)!;
    const readMs = performance.now() - t;
    t = performance.now();
    const fresh = createKeyedStateBackend(
      kind === 'heap' ? options : { kind, workingDirectory: join(work, 'state2') },
      context,
    );
    fresh.restore(restored);
    fresh.getValueState<Counts>('counts');
    const restoredEntries = fresh.entryCount();
    const restoreMs = performance.now() - t;
    fresh.dispose();
    return {
      backend: kind,
      keys,
      fillPerSec,
      rmwPerSec,
      fullSnapshotMs,
      fullWriteMs,
      fullBytes: dirBytes(firstPath),
      changedKeys,
      secondSnapshotMs,
      secondWriteMs,
      secondBytes: dirBytes(secondPath),
      secondIsDelta: second.keyedDelta !== undefined,
      readMs,
      restoreMs,
      restoredEntries,
    };
  } finally {
    backend.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

function runChild(args: string[]): string {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 },
  );
  return out.trim().split('\n').at(-1)!;
}

async function benchCheckpoints(keys: number, json: boolean, rounds: number): Promise<void> {
  const all = { heap: [] as CheckpointResult[], disk: [] as CheckpointResult[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['heap', 'disk'] as const) : (['disk', 'heap'] as const);
    for (const kind of order) {
      all[kind].push(
        JSON.parse(runChild(['--backend', kind, '--keys', String(keys)])) as CheckpointResult,
      );
    }
  }
  const rows = [medianOf(all.heap), medianOf(all.disk)];
  if (json) process.stdout.write(`${JSON.stringify(rows, null, 1)}\n`);
  const mb = (b: number) => (b / 1e6).toFixed(1);
  process.stdout.write(
    '| backend | keys | fill puts/s | read-modify-write/s | full snapshot ms | full write ms | full MB | 1% changed: snapshot ms | write ms | MB | incremental | read + resolve ms | restore ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const r of rows) {
    process.stdout.write(
      `| ${r.backend} | ${fmt(r.keys)} | ${fmt(r.fillPerSec)} | ${fmt(r.rmwPerSec)} | ${r.fullSnapshotMs.toFixed(0)} | ${r.fullWriteMs.toFixed(0)} | ${mb(r.fullBytes)} | ${r.secondSnapshotMs.toFixed(0)} | ${r.secondWriteMs.toFixed(0)} | ${mb(r.secondBytes)} | ${r.secondIsDelta ? 'yes' : 'no'} | ${r.readMs.toFixed(0)} | ${r.restoreMs.toFixed(0)} |\n`,
    );
  }
}

await main();
