/**
 * One job per checkpoint directory. Two jobs writing checkpoints into one
 * directory would prune each other's checkpoints and restore each other's
 * state, so a job takes a lease on the directory before its first attempt:
 * `_owner.json`, naming the job, its process and host, renewed while the job
 * runs and removed when it ends.
 *
 * A crashed owner does not hold the directory forever: its lease expires
 * `leaseMs` after its last renewal, and on the same host an owner whose
 * process is gone (SIGKILL, a crash) is passed over at once.
 *
 * The file's atomic operations are the store's (`LeaseFile`): a hard link
 * and a rename aside in a local directory, conditional writes in S3.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { WeirError } from '../../core/errors.js';
import { isProcessAlive } from '../../util/process-alive.js';
import { type DirectoryOwner, OWNER_FILE } from './lease-owner.js';
import type { LeaseFile } from './store/checkpoint-store.js';

export { type DirectoryOwner, OWNER_FILE } from './lease-owner.js';

/** Default lease: a job that stops renewing loses the directory after this long. */
export const DEFAULT_LEASE_MS = 30_000;

/** A held lease. */
export interface DirectoryLease {
  /** Gives the directory up (removes `_owner.json` if it is still ours). Idempotent. */
  release(): Promise<void>;
  /**
   * Whether the lease is still this job's, read from the store now (true when
   * the store cannot be read). A lease found taken over counts as lost at
   * once (`onLost`), without waiting for the next renewal.
   */
  stillHeld(): Promise<boolean>;
}

export interface LeaseOptions {
  readonly jobName: string;
  readonly leaseMs?: number;
  /** Called once if another job took the directory over (this one stopped renewing in time). */
  readonly onLost?: (error: WeirError) => void;
  /**
   * Take the directory from a live holder too: set when something else
   * already decided this job is the one to run (the owner of a process
   * group's single-owner task). The old holder stops at its next renewal.
   */
  readonly takeOver?: boolean;
  /** Wall clock (epoch ms); tests may inject one. */
  readonly now?: () => number;
}

/**
 * Takes the lease of checkpoint directory `directory`, kept in `file`, or
 * fails with `CHECKPOINT_DIRECTORY_IN_USE` naming the job that holds it.
 */
export async function acquireLease(
  file: LeaseFile,
  directory: string,
  options: LeaseOptions,
): Promise<DirectoryLease> {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new WeirError('INVALID_ARGUMENT', `checkpoint leaseMs must be positive, got ${leaseMs}`);
  }
  const at = now();
  const owner: DirectoryOwner = {
    ownerId: randomUUID(),
    jobName: options.jobName,
    pid: process.pid,
    host: hostname(),
    acquiredAt: at,
    renewedAt: at,
    leaseMs,
  };
  // Each round either creates the file, refuses, or takes a stale owner's place.
  for (let round = 0; ; round++) {
    if (await file.create(owner)) break;
    const current = await file.read();
    if (current === undefined) continue; // removed meanwhile
    const stale = options.takeOver === true ? 'handed over' : staleness(current.owner, now());
    if (stale === undefined || round >= 10) throw inUse(directory, current.owner, now());
    if (await file.takeOver(current, owner)) break;
  }
  return new HeldLease(directory, file, owner, now, options.onLost);
}

class HeldLease implements DirectoryLease {
  private readonly timer: NodeJS.Timeout;
  private released = false;
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly directory: string,
    private readonly file: LeaseFile,
    private owner: DirectoryOwner,
    private readonly now: () => number,
    private readonly onLost: ((error: WeirError) => void) | undefined,
  ) {
    // A third of the lease: two renewals may be missed (a busy machine) before it expires.
    this.timer = setInterval(
      () => {
        this.renewing = this.renew();
      },
      Math.max(1, Math.floor(owner.leaseMs / 3)),
    );
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (this.released) return;
    const current = await this.file.read().catch(() => 'unknown' as const);
    // A store that cannot be read now is tried again at the next renewal.
    if (current === 'unknown') return;
    if (current?.owner.ownerId !== this.owner.ownerId) {
      this.lost(current?.owner);
      return;
    }
    const renewed = { ...this.owner, renewedAt: this.now() };
    const kept = await this.file.replace(current, renewed).catch(() => true);
    if (kept) this.owner = renewed;
    else this.lost((await this.file.read().catch(() => undefined))?.owner);
  }

  async stillHeld(): Promise<boolean> {
    if (this.released) return false;
    const current = await this.file.read().catch(() => 'unknown' as const);
    if (current === 'unknown' || current?.owner.ownerId === this.owner.ownerId) return true;
    this.lost(current?.owner);
    return false;
  }

  private lost(current: DirectoryOwner | undefined): void {
    clearInterval(this.timer);
    this.released = true;
    // Gone: removed from outside (the directory or its lease file deleted while the job ran).
    // Held by another: this job did not renew in time, or was taken over on purpose.
    const by =
      current === undefined
        ? `its lease file ${OWNER_FILE} is gone: the directory or the file was removed while the job ran`
        : `it is now held by ${describe(current)}. It stopped renewing its lease within ${this.owner.leaseMs} ms (a paused or overloaded process), or the directory was taken over`;
    this.onLost?.(
      new WeirError(
        'CHECKPOINT_DIRECTORY_IN_USE',
        `job '${this.owner.jobName}' lost the checkpoint directory '${this.directory}': ${by}; two jobs must not write one directory, so this one stops`,
        { domain: 'external' },
      ),
    );
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    await this.renewing;
    const current = await this.file.read().catch(() => undefined);
    if (current?.owner.ownerId === this.owner.ownerId) {
      await this.file.remove(current).catch(() => undefined);
    }
  }
}

/** Why `owner` no longer holds the directory, or undefined if it still does. */
function staleness(owner: DirectoryOwner, now: number): string | undefined {
  if (now > owner.renewedAt + owner.leaseMs) return 'expired';
  if (owner.host === hostname() && owner.pid !== process.pid && !isProcessAlive(owner.pid))
    return 'dead';
  return undefined;
}

function describe(owner: DirectoryOwner): string {
  return `job '${owner.jobName}' (process ${owner.pid} on ${owner.host})`;
}

function inUse(directory: string, owner: DirectoryOwner, now: number): WeirError {
  const left = Math.max(0, owner.renewedAt + owner.leaseMs - now);
  return new WeirError(
    'CHECKPOINT_DIRECTORY_IN_USE',
    `the checkpoint directory '${directory}' is in use by ${describe(owner)} since ${new Date(owner.acquiredAt).toISOString()}: two jobs must not share one (each would prune and restore the other's checkpoints). Give this job its own --checkpoint-dir, or stop the other; if it is gone, its lease expires in ${Math.ceil(left / 1000)} s`,
    { domain: 'user' },
  );
}
