import type { DirectoryOwner } from '../lease-owner.js';

/** A checkpoint directory's metadata file, written last (see checkpoint-storage.ts). */
export const METADATA_FILE = '_metadata.json';

/**
 * The files of one checkpoint directory (`--checkpoint-dir`, a savepoint's
 * `--to`), wherever they are kept: a local directory or a prefix in an
 * object store. Names are relative to the directory, `/`-separated
 * (`chk-0000000042/_metadata.json`). The checkpoint layout, checksums,
 * retention and restore rules sit above this, in `checkpoint-storage.ts`,
 * and are the same for every store.
 */
export interface CheckpointStore {
  /** The directory as users name it: an absolute path or `s3://bucket/prefix`. */
  readonly location: string;
  /**
   * Whether a subdirectory appears only once complete. Local directories are
   * renamed into place, so one without its metadata was damaged afterwards;
   * an object store has no rename, so such a prefix was never completed (a
   * writer died) and is passed over silently.
   */
  readonly atomicDirectories: boolean;
  /** The local directory that keeps copies of the state files read, for a remote store that does. */
  readonly localCopies?: string;
  /** For a store that keeps local copies: state files served from them, and fetched, so far. */
  readonly reads?: { readonly local: number; readonly fetched: number };
  /** Where entry `name` is, in the same form as {@link location}. */
  locate(name: string): string;
  /** The bytes of file `name`; undefined when it does not exist. */
  read(name: string): Promise<Buffer | undefined>;
  /** Names of the entries (files and subdirectories) directly in the directory. */
  list(): Promise<string[]>;
  /**
   * Writes subdirectory `name` holding `files`, then `last` once all of them
   * are durable: whoever sees `last` sees the whole directory. An existing
   * `name` is replaced.
   */
  writeDirectory(
    name: string,
    files: ReadonlyArray<readonly [string, string]>,
    last: readonly [string, string],
  ): Promise<void>;
  /** Replaces file `name` atomically: readers see the old content or the new one. */
  replace(name: string, text: string): Promise<void>;
  /**
   * Creates file `name` holding `text` unless it exists, atomically: of
   * several writers exactly one gets true, and nobody reads a half-written
   * file.
   */
  createExclusive(name: string, text: string): Promise<boolean>;
  /** Removes subdirectory `name` and everything in it; nothing happens when it is gone. */
  removeDirectory(name: string): Promise<void>;
  /** Removes what writers that died left behind (temporary directories); never a live writer's. */
  removeLeftovers(): Promise<void>;
  /** The file that holds the directory's lease (`_owner.json`). */
  leaseFile(name: string): LeaseFile;
}

/** One version of the lease file as read: its owner and a tag that changes with every write. */
export interface LeaseVersion {
  readonly owner: DirectoryOwner;
  readonly tag: string;
}

/**
 * The lease file of a checkpoint directory, with the atomic operations the
 * lease needs (directory-lease.ts): create if absent, replace only the
 * version read, remove only one's own.
 */
export interface LeaseFile {
  /** Where the file is, for messages. */
  readonly where: string;
  /** Creates the file holding `owner` unless one exists; false when one does. */
  create(owner: DirectoryOwner): Promise<boolean>;
  /** The current owner; undefined when there is no file. */
  read(): Promise<LeaseVersion | undefined>;
  /** Writes `owner` over `current`; false when the file is no longer `current` (another took it). */
  replace(current: LeaseVersion, owner: DirectoryOwner): Promise<boolean>;
  /** Puts `owner` in place of the stale `current`; false when someone else got there first. */
  takeOver(current: LeaseVersion, owner: DirectoryOwner): Promise<boolean>;
  /** Removes the file if it is still `current`. */
  remove(current: LeaseVersion): Promise<void>;
}
