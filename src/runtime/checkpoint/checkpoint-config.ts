import { invalidArgument } from '../../core/errors.js';
import type { CheckpointStorage } from './checkpoint-storage.js';
import { DEFAULT_LEASE_MS } from './directory-lease.js';
import { openStore } from './store/open-store.js';

/** How a job takes checkpoints. */
export interface CheckpointOptions {
  /**
   * Directory where checkpoints are written (created if missing), or
   * `s3://bucket/prefix` for S3 and S3-compatible object stores
   * (docs/checkpoints.md, Object storage).
   */
  readonly directory: string;
  /** Time between the start of two checkpoints. Default 1000 ms. */
  readonly intervalMs?: number;
  /** Least time between the end of one checkpoint and the start of the next. Default 0. */
  readonly minPauseMs?: number;
  /** A checkpoint not complete after this long is abandoned. Default 60 s. */
  readonly timeoutMs?: number;
  /** Consecutive failed checkpoints tolerated before the job fails. Default 0. */
  readonly tolerableFailures?: number;
  /** Completed checkpoints kept on disk. Default 3. */
  readonly retained?: number;
  /** Where checkpoints go; a local directory storage on `directory` by default. */
  readonly storage?: CheckpointStorage;
  /**
   * The job holds a lease on its checkpoint storage while it runs, so that a
   * second job on the same directory is refused; a crashed owner's lease
   * expires this long after its last renewal (at once on the same host when
   * its process is gone). Default 30 s.
   */
  readonly leaseMs?: number;
  /**
   * Take the lease from a live holder at once (see `LeaseOptions.takeOver`):
   * for a job whose single run is guaranteed by other means. Default false.
   */
  readonly takeOverLease?: boolean;
}

export interface CheckpointConfig {
  readonly directory: string;
  readonly intervalMs: number;
  readonly minPauseMs: number;
  readonly timeoutMs: number;
  readonly tolerableFailures: number;
  readonly retained: number;
  readonly storage: CheckpointStorage | undefined;
  readonly leaseMs: number;
  readonly takeOverLease: boolean;
}

function nonNegative(name: string, n: number): number {
  if (!Number.isFinite(n) || n < 0)
    throw invalidArgument(`checkpoint ${name} must be a number >= 0, got ${n}`);
  return n;
}

function positive(name: string, n: number): number {
  if (nonNegative(name, n) === 0) throw invalidArgument(`checkpoint ${name} must be positive`);
  return n;
}

export function checkpointConfig(options: CheckpointOptions): CheckpointConfig {
  if (typeof options.directory !== 'string' || options.directory.length === 0) {
    throw invalidArgument('checkpointing needs a directory');
  }
  // A malformed s3:// location fails here, when the job is defined, not at its first checkpoint.
  if (options.storage === undefined) openStore(options.directory);
  const retained = options.retained ?? 3;
  if (!Number.isInteger(retained) || retained < 1) {
    throw invalidArgument(`checkpoint retained must be a whole number >= 1, got ${retained}`);
  }
  const intervalMs = nonNegative('intervalMs', options.intervalMs ?? 1000);
  if (intervalMs === 0) throw invalidArgument('checkpoint intervalMs must be positive');
  return {
    directory: options.directory,
    intervalMs,
    minPauseMs: nonNegative('minPauseMs', options.minPauseMs ?? 0),
    timeoutMs: nonNegative('timeoutMs', options.timeoutMs ?? 60_000),
    tolerableFailures: nonNegative('tolerableFailures', options.tolerableFailures ?? 0),
    retained,
    storage: options.storage,
    leaseMs: positive('leaseMs', options.leaseMs ?? DEFAULT_LEASE_MS),
    takeOverLease: options.takeOverLease === true,
  };
}
