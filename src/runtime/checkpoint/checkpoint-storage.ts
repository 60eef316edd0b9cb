import { isUtf8 } from 'node:buffer';
import { WeirError } from '../../core/errors.js';
import type { OperatorSnapshot } from '../../core/snapshot.js';
import { deltaBaseFloor, deltaBases, resolveDeltas } from '../../state/resolve-deltas.js';
import type { CheckpointData, OperatorCheckpoint } from './checkpoint-data.js';
import { CHECKPOINT_FORMAT_VERSION, FULL_CHECKPOINT_FORMAT_VERSION } from './checkpoint-data.js';
import { checkpointDamaged, checksumOf, metadataChecksumOf } from './checkpoint-integrity.js';
import { checkMetadataShape, checkSnapshotShape } from './checkpoint-shape.js';
import { type CommitRecord, readCommitRecord, writeCommitRecord } from './commit-record.js';
import { acquireLease, type DirectoryLease, type LeaseOptions } from './directory-lease.js';
import { OWNER_FILE } from './lease-owner.js';
import { type CheckpointStore, METADATA_FILE } from './store/checkpoint-store.js';
import { LocalStore } from './store/local-store.js';
import { openStore, splitLocation } from './store/open-store.js';

/**
 * Where completed checkpoints are kept. Separate from state backends: the
 * working state of a job lives in memory (or an embedded store), its
 * checkpoints live here.
 */
export interface CheckpointStorage {
  /** Stores a checkpoint atomically: afterwards it is either wholly there or not at all. */
  write(checkpoint: CheckpointData): Promise<string>;
  /** The newest complete checkpoint, if any. */
  latest(): Promise<string | undefined>;
  /**
   * Removes all but the newest `retain` checkpoints, except checkpoints that
   * incremental state of kept ones, or of snapshots still to be written,
   * may reference.
   */
  prune(retain: number): Promise<void>;
  /**
   * Records durably that sinks are about to commit output up to checkpoint
   * (or savepoint) `checkpointId`, written to `path`. Storages without it
   * cannot refuse restores that would duplicate committed output.
   */
  recordCommit?(checkpointId: number, path: string): Promise<void>;
  /**
   * Records that a restore of checkpoint `checkpointId` (at `path`) is about to commit its
   * pending output (the sinks' recovery), before it does: the commit record only, nothing
   * else a completed checkpoint's commit writes.
   */
  recordRestoredCommit?(checkpointId: number, path: string): Promise<void>;
  /** The last commit recorded by {@link recordCommit}, if any. */
  lastCommit?(): Promise<CommitRecord | undefined>;
  /**
   * Takes the lease that makes this job the only writer of the storage, or
   * fails with `CHECKPOINT_DIRECTORY_IN_USE` (see directory-lease.ts).
   * Storages without it cannot refuse a second job.
   */
  acquireLease?(options: LeaseOptions): Promise<DirectoryLease>;
  /**
   * The next checkpoint starts only once the previous one is stored and its
   * commit recorded, as with a minimum pause: for a storage whose commit
   * record is slow (a process group member writes a snapshot per task there)
   * and must come before the sinks commit. Checkpoints triggered meanwhile
   * would only queue behind it, each pre-committing transactions that hold
   * back read_committed readers until their turn.
   */
  readonly storesOneAtATime?: boolean;
}

/** A checkpoint directory that was passed over because it cannot be read. */
export interface SkippedCheckpoint {
  readonly checkpointId: number;
  readonly path: string;
  /** What is wrong with it. */
  readonly reason: string;
}

/** The newest intact checkpoint of a directory, and the newer ones that are damaged. */
export interface LatestCheckpoint {
  /** Undefined when no checkpoint is intact (or there is none). */
  readonly intact: { readonly path: string; readonly checkpoint: CheckpointData } | undefined;
  /** Newer checkpoint directories that are damaged or incomplete, newest first. */
  readonly skipped: readonly SkippedCheckpoint[];
}

/** What `_metadata.json` holds beyond the checkpoint header (format version 2 fields are optional). */
interface Metadata extends Omit<CheckpointData, 'operators'> {
  readonly operators: (Omit<OperatorCheckpoint, 'subtasks'> & { files: string[] })[];
  /** Checkpoints (ids, same directory) whose files this one needs, transitively. */
  readonly references?: readonly number[];
  /** Future checkpoints may reference this checkpoint id and newer ones (see `deltaBaseFloor`). */
  readonly keepFrom?: number;
  /** SHA-256 (hex) of every state file, by file name. Absent in checkpoints written before checksums. */
  readonly checksums?: Readonly<Record<string, string>>;
  /** SHA-256 (hex) of this metadata without this field, as serialized by `JSON.stringify`. */
  readonly metadataChecksum?: string;
}

const METADATA = METADATA_FILE;
const CHECKPOINT_DIR = /^chk-\d+$/;

/**
 * Checkpoints as directories `chk-<id>` in a checkpoint directory, local or
 * in an object store (see `store/`). Each one's `_metadata.json` is written
 * last, once every state file is durable, so a half-written checkpoint is
 * never taken for a good one.
 *
 * Layout (documented in docs/checkpoints.md):
 *   chk-0000000042/_metadata.json      format, version, operators and their files
 *   chk-0000000042/<uid>-<subtask>.json state of one operator subtask
 */
export class DirectoryCheckpointStorage implements CheckpointStorage {
  private readonly metadataCache = new Map<number, Metadata>();
  /** The lease this storage's job took, checked before each commit record. */
  private lease: DirectoryLease | undefined;

  /** @internal */
  readonly store: CheckpointStore;

  /** @internal */
  constructor(store: CheckpointStore) {
    this.store = store;
  }

  /** The checkpoint directory: a path or `s3://bucket/prefix`. */
  get directory(): string {
    return this.store.location;
  }

  /** Where local copies of the state files read are kept, for a remote directory (`s3://`). */
  get localCopies(): string | undefined {
    return this.store.localCopies;
  }

  /** For a remote directory: state files this storage read from local copies, and fetched. */
  get copyReads(): { readonly local: number; readonly fetched: number } | undefined {
    return this.store.reads;
  }

  async acquireLease(options: LeaseOptions): Promise<DirectoryLease> {
    const lease = await acquireLease(
      this.store.leaseFile(OWNER_FILE),
      this.store.location,
      options,
    );
    this.lease = lease;
    return lease;
  }

  /**
   * Refuses to record a commit once another job took the directory over (a
   * new owner of a process group's task): its restore has decided which
   * checkpoint's output is committed, and this job's sinks must not commit
   * more. Checked when the commit is recorded, not only at the lease's next
   * renewal, which may be seconds away.
   */
  private async refuseIfTakenOver(checkpointId: number): Promise<void> {
    if (this.lease === undefined || (await this.lease.stillHeld())) return;
    throw new WeirError(
      'CHECKPOINT_DIRECTORY_IN_USE',
      `checkpoint ${checkpointId} is not committed: another job took the checkpoint directory '${this.directory}' over`,
      { domain: 'external' },
    );
  }

  static nameOf(checkpointId: number, kind: 'checkpoint' | 'savepoint'): string {
    return `${kind === 'checkpoint' ? 'chk' : 'savepoint'}-${String(checkpointId).padStart(10, '0')}`;
  }

  async write(checkpoint: CheckpointData): Promise<string> {
    const name = DirectoryCheckpointStorage.nameOf(checkpoint.checkpointId, checkpoint.kind);
    const bases = deltaBases(checkpoint);
    if (bases.size > 0 && checkpoint.kind === 'savepoint') {
      throw new WeirError(
        'INTERNAL',
        `savepoint ${checkpoint.checkpointId} contains incremental keyed state; state backends must take full snapshots for savepoints`,
        { domain: 'internal' },
      );
    }
    // Everything the deltas need, transitively: kept by prune while this checkpoint is.
    const references = new Set<number>();
    for (const base of bases) {
      references.add(base);
      const meta = await this.metadataOf(base);
      if (meta === undefined) {
        throw new WeirError(
          'INTERNAL',
          `checkpoint ${checkpoint.checkpointId} is incremental on checkpoint ${base}, which is not in '${this.directory}'`,
          { domain: 'internal', retriable: true },
        );
      }
      for (const r of meta.references ?? []) references.add(r);
    }
    const keepFrom = deltaBaseFloor(checkpoint);
    const files: [string, string][] = [];
    const checksums: Record<string, string> = {};
    const operators = checkpoint.operators.map((op) => {
      const names = op.subtasks.map((snapshot, s) => {
        const file = `${safeName(op.uid)}-${s}.json`;
        const text = JSON.stringify(snapshot);
        checksums[file] = checksumOf(text);
        files.push([file, text]);
        return file;
      });
      return {
        uid: op.uid,
        name: op.name,
        parallelism: op.parallelism,
        files: names,
        ...(op.sourcePositions === undefined ? {} : { sourcePositions: op.sourcePositions }),
      };
    });
    const { operators: _omit, ...header } = checkpoint;
    const body: Metadata = {
      ...header,
      // Checkpoints without deltas stay readable by code that knows only version 1
      // (which ignores the checksums).
      version: bases.size > 0 ? CHECKPOINT_FORMAT_VERSION : FULL_CHECKPOINT_FORMAT_VERSION,
      operators,
      ...(references.size > 0 ? { references: [...references].sort((a, b) => a - b) } : {}),
      ...(keepFrom === undefined ? {} : { keepFrom }),
      checksums,
    };
    const metadata: Metadata = { ...body, metadataChecksum: metadataChecksumOf(body) };
    // Metadata last, once every state file is stored: its presence means the checkpoint is whole.
    await this.store.writeDirectory(name, files, [METADATA, JSON.stringify(metadata, null, 1)]);
    if (checkpoint.kind === 'checkpoint') this.metadataCache.set(checkpoint.checkpointId, metadata);
    return this.store.locate(name);
  }

  /** The metadata of checkpoint `id` in this directory, if it is complete. */
  private async metadataOf(id: number): Promise<Metadata | undefined> {
    const cached = this.metadataCache.get(id);
    if (cached !== undefined) return cached;
    const name = DirectoryCheckpointStorage.nameOf(id, 'checkpoint');
    // A store that cannot be read fails (retention must not take an
    // unreachable checkpoint for a missing one); unparsable metadata is absent.
    const bytes = await this.store.read(`${name}/${METADATA}`);
    if (bytes === undefined) return undefined;
    try {
      const meta: unknown = JSON.parse(bytes.toString('utf8'));
      if (typeof meta !== 'object' || meta === null) return undefined;
      checkMetadataShape(this.store.locate(name), METADATA, meta as Record<string, unknown>);
      this.metadataCache.set(id, meta as Metadata);
      return meta as Metadata;
    } catch {
      return undefined;
    }
  }

  /**
   * The id of the newest complete checkpoint, undefined when there is none:
   * from the listing and, in an object store, the metadata's presence,
   * without reading the checkpoint (see {@link findLatest} for that).
   */
  async newestId(): Promise<number | undefined> {
    return (await this.completeIds()).at(-1);
  }

  async latest(): Promise<string | undefined> {
    return (await this.findLatest()).intact?.path;
  }

  /** Ids of the checkpoint directories, ascending (complete or not). */
  private async checkpointIds(): Promise<number[]> {
    return (await this.store.list())
      .filter((e) => CHECKPOINT_DIR.test(e))
      .map((e) => Number(e.slice(4)))
      .sort((a, b) => a - b);
  }

  /**
   * The newest checkpoint that reads back intact (every checksum matches),
   * with the newer directories passed over and why. Whether falling back
   * past damaged checkpoints is safe is for the caller to decide against
   * {@link lastCommit}.
   */
  async findLatest(): Promise<LatestCheckpoint> {
    const ids = await this.checkpointIds();
    const skipped: SkippedCheckpoint[] = [];
    for (let i = ids.length - 1; i >= 0; i--) {
      const name = DirectoryCheckpointStorage.nameOf(ids[i]!, 'checkpoint');
      const path = this.store.locate(name);
      // In an object store, a checkpoint without metadata was never completed.
      if (
        !this.store.atomicDirectories &&
        (await this.store.read(`${name}/${METADATA}`)) === undefined
      ) {
        continue;
      }
      try {
        const checkpoint = await readFrom(this.store, name);
        return { intact: { path, checkpoint }, skipped };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        skipped.push({ checkpointId: ids[i]!, path, reason });
      }
    }
    return { intact: undefined, skipped };
  }

  /**
   * For a store that keeps local copies of what it reads (`s3://`): reads the
   * newest complete checkpoint's state files, and those of the checkpoints
   * its incremental state builds on, without parsing them, so that a restore
   * then reads them from local disk. What a standby does while it waits.
   * Resolves with the checkpoint's id (undefined when there is none, or the
   * store keeps no copies). A newest checkpoint of id `after`, the one
   * warmed last time, is not read again.
   */
  async warmLatest(after?: number): Promise<number | undefined> {
    if (this.store.localCopies === undefined) return undefined;
    const ids = await this.checkpointIds();
    for (let i = ids.length - 1; i >= 0; i--) {
      if (ids[i] === after) return after;
      const meta = await this.freshMetadata(ids[i]!);
      if (meta === undefined) continue;
      const needed = [ids[i]!, ...(meta.references ?? [])];
      const metas = await Promise.all(
        needed.map((id, j) => (j === 0 ? meta : this.freshMetadata(id))),
      );
      await Promise.all(
        needed.flatMap((id, j) => {
          const name = DirectoryCheckpointStorage.nameOf(id, 'checkpoint');
          return (metas[j]?.operators ?? []).flatMap((op) =>
            op.files.map((file) => this.store.read(`${name}/${file}`)),
          );
        }),
      );
      return ids[i];
    }
    return undefined;
  }

  /** Checkpoint `id`'s metadata read from the store (a caching store learns its checksums). */
  private async freshMetadata(id: number): Promise<Metadata | undefined> {
    const bytes = await this.store.read(
      `${DirectoryCheckpointStorage.nameOf(id, 'checkpoint')}/${METADATA}`,
    );
    if (bytes === undefined) return undefined;
    try {
      const meta: unknown = JSON.parse(bytes.toString('utf8'));
      return typeof meta === 'object' &&
        meta !== null &&
        Array.isArray((meta as Metadata).operators)
        ? (meta as Metadata)
        : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Ids of the checkpoints that count for retention. In an object store,
   * checkpoints without metadata were never completed (a writer died): they
   * do not count, and those older than a complete one are removed.
   */
  private async completeIds(): Promise<number[]> {
    const ids = await this.checkpointIds();
    if (this.store.atomicDirectories) return ids;
    const complete: number[] = [];
    const incomplete: number[] = [];
    for (const id of ids) {
      const name = DirectoryCheckpointStorage.nameOf(id, 'checkpoint');
      const whole =
        this.metadataCache.has(id) || (await this.store.read(`${name}/${METADATA}`)) !== undefined;
      (whole ? complete : incomplete).push(id);
    }
    const newest = complete.at(-1) ?? -1;
    for (const id of incomplete) {
      if (id < newest)
        await this.store.removeDirectory(DirectoryCheckpointStorage.nameOf(id, 'checkpoint'));
    }
    return complete;
  }

  async recordCommit(checkpointId: number, path: string): Promise<void> {
    await this.refuseIfTakenOver(checkpointId);
    await writeCommitRecord(this.store, checkpointId, path);
  }

  async recordRestoredCommit(checkpointId: number, path: string): Promise<void> {
    await this.refuseIfTakenOver(checkpointId);
    await writeCommitRecord(this.store, checkpointId, path);
  }

  lastCommit(): Promise<CommitRecord | undefined> {
    return readCommitRecord(this.store);
  }

  async prune(retain: number): Promise<void> {
    const ids = await this.completeIds();
    const keep = new Set(ids.slice(Math.max(0, ids.length - retain)));
    // Snapshots not yet written may be deltas on the newest's floor or later.
    const newest = ids.at(-1);
    const floor = newest === undefined ? undefined : (await this.metadataOf(newest))?.keepFrom;
    if (floor !== undefined) for (const id of ids) if (id >= floor) keep.add(id);
    for (const id of [...keep]) {
      for (const r of (await this.metadataOf(id))?.references ?? []) keep.add(r);
    }
    for (const id of ids) {
      if (keep.has(id)) continue;
      this.metadataCache.delete(id);
      await this.store.removeDirectory(DirectoryCheckpointStorage.nameOf(id, 'checkpoint'));
    }
    await this.store.removeLeftovers();
  }
}

/** Checkpoints in a local directory (see {@link DirectoryCheckpointStorage}). */
export class LocalCheckpointStorage extends DirectoryCheckpointStorage {
  constructor(directory: string) {
    super(new LocalStore(directory));
  }
}

/**
 * The storage of checkpoint directory `location`: a local path, or
 * `s3://bucket/prefix` for S3 and S3-compatible servers (docs/checkpoints.md,
 * Object storage).
 */
export function checkpointStorageAt(location: string): DirectoryCheckpointStorage {
  return new DirectoryCheckpointStorage(openStore(location));
}

function safeName(uid: string): string {
  return uid.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * Reads a checkpoint or savepoint directory written by
 * {@link DirectoryCheckpointStorage} (a path or an `s3://` location).
 * Incremental keyed state is resolved against the checkpoints it references
 * (sibling directories `chk-<id>`), so the result holds whole key groups only.
 */
export async function readCheckpoint(path: string): Promise<CheckpointData> {
  const { parent, name } = splitLocation(path);
  return readFrom(openStore(parent), name);
}

/** Reads checkpoint `name` of `store`, resolving incremental state against its siblings. */
async function readFrom(store: CheckpointStore, name: string): Promise<CheckpointData> {
  const data = await readCheckpointFiles(store, name);
  const path = store.locate(name);
  return resolveDeltas(data, async (id) => {
    const baseName = DirectoryCheckpointStorage.nameOf(id, 'checkpoint');
    try {
      return await readCheckpointFiles(store, baseName);
    } catch (cause) {
      if (cause instanceof WeirError && cause.code === 'CHECKPOINT_DAMAGED') {
        throw new WeirError(
          'CHECKPOINT_DAMAGED',
          `checkpoint '${path}' is incremental on checkpoint ${id}, which is damaged: ${cause.message}`,
          { domain: 'external', cause },
        );
      }
      throw new WeirError(
        'INVALID_JOB',
        `checkpoint '${path}' is incremental and needs checkpoint ${id} ('${store.locate(baseName)}'), which cannot be read; incremental checkpoints must stay in the directory they were written to`,
        { cause },
      );
    }
  });
}

/** Reads one checkpoint directory as it is stored (deltas unresolved), verifying every checksum. */
async function readCheckpointFiles(store: CheckpointStore, name: string): Promise<CheckpointData> {
  const path = store.locate(name);
  let bytes: Buffer | undefined;
  try {
    bytes = await store.read(`${name}/${METADATA}`);
  } catch (cause) {
    throw new WeirError(
      'INVALID_JOB',
      `'${path}' is not a complete Weir checkpoint or savepoint (no readable ${METADATA}: ${cause instanceof Error ? cause.message : String(cause)})`,
      { cause },
    );
  }
  if (bytes === undefined) {
    throw new WeirError(
      'INVALID_JOB',
      `'${path}' is not a complete Weir checkpoint or savepoint (no readable ${METADATA})`,
    );
  }
  if (!isUtf8(bytes)) throw checkpointDamaged(path, METADATA, 'is not valid UTF-8');
  let metadata: unknown;
  try {
    metadata = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw checkpointDamaged(path, METADATA, 'is not valid JSON (cut short or overwritten)', cause);
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw checkpointDamaged(path, METADATA, 'does not hold an object');
  }
  const m = metadata as Metadata;
  if (m.format !== 'weir-checkpoint') {
    throw new WeirError(
      'INVALID_JOB',
      `'${path}' is not a Weir checkpoint (format '${String(m.format)}')`,
    );
  }
  const { metadataChecksum, ...body } = m;
  if (metadataChecksum !== undefined && metadataChecksum !== metadataChecksumOf(body)) {
    throw checkpointDamaged(
      path,
      METADATA,
      'does not match its checksum: it was changed after it was written',
    );
  }
  if (typeof m.version === 'number' && m.version > CHECKPOINT_FORMAT_VERSION) {
    throw new WeirError(
      'INVALID_JOB',
      `checkpoint '${path}' has format version ${m.version}; this Weir reads up to ${CHECKPOINT_FORMAT_VERSION}`,
    );
  }
  checkMetadataShape(path, METADATA, m as unknown as Record<string, unknown>);
  // Read concurrently (in an object store each read is a round trip); the
  // first damaged file in the metadata's order is the one reported.
  const reads = await Promise.all(
    m.operators.map((op) =>
      Promise.allSettled(
        op.files.map((file) => readStateFile(store, name, file, checksumFor(m.checksums, file), m)),
      ),
    ),
  );
  const operators: OperatorCheckpoint[] = m.operators.map((op, i) => {
    const subtasks = reads[i]!.map((read) => {
      if (read.status === 'rejected') throw read.reason;
      return read.value;
    });
    const { files: _files, ...rest } = op;
    return { ...rest, subtasks };
  });
  const {
    references: _references,
    keepFrom: _keepFrom,
    checksums: _checksums,
    metadataChecksum: _metadataChecksum,
    ...header
  } = m;
  return { ...header, operators };
}

/** One state file, checked against its recorded checksum (if the checkpoint has checksums) before parsing. */
async function readStateFile(
  store: CheckpointStore,
  name: string,
  file: string,
  checksum: string | undefined,
  checkpoint: { checkpointId: number; maxParallelism: number },
): Promise<OperatorSnapshot> {
  const path = store.locate(name);
  let bytes: Buffer | undefined;
  try {
    bytes = await store.read(`${name}/${file}`);
  } catch (cause) {
    throw checkpointDamaged(path, file, 'cannot be read', cause);
  }
  if (bytes === undefined) throw checkpointDamaged(path, file, 'is missing');
  if (checksum !== undefined) {
    const actual = checksumOf(bytes);
    if (actual !== checksum) {
      throw checkpointDamaged(
        path,
        file,
        `does not match its checksum (${bytes.length} bytes, sha256 ${actual.slice(0, 12)}…, recorded ${checksum.slice(0, 12)}…): it was changed or cut short after it was written`,
      );
    }
  }
  if (!isUtf8(bytes)) throw checkpointDamaged(path, file, 'is not valid UTF-8');
  let snapshot: unknown;
  try {
    snapshot = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw checkpointDamaged(path, file, 'is not valid JSON (cut short or overwritten)', cause);
  }
  checkSnapshotShape(path, file, snapshot, checkpoint);
  return snapshot as OperatorSnapshot;
}

/** The recorded checksum of a file (an own property: a file named `constructor` has none by default). */
function checksumFor(
  checksums: Readonly<Record<string, string>> | undefined,
  file: string,
): string | undefined {
  return checksums !== undefined && Object.hasOwn(checksums, file) ? checksums[file] : undefined;
}
