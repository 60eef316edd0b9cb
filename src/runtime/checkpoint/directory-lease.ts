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
 */
import { randomUUID } from 'node:crypto';
import { link, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { WeirError } from '../../core/errors.js';
import { mkdirPrivate, replaceFileAtomically, writeFileDurably } from './durable-files.js';

export const OWNER_FILE = '_owner.json';

/** Default lease: a job that stops renewing loses the directory after this long. */
export const DEFAULT_LEASE_MS = 30_000;

/** What `_owner.json` holds. */
export interface DirectoryOwner {
  /** Unique per lease: tells a renewed lease from one taken over by another job. */
  readonly ownerId: string;
  readonly jobName: string;
  readonly pid: number;
  readonly host: string;
  /** Epoch milliseconds. */
  readonly acquiredAt: number;
  readonly renewedAt: number;
  readonly leaseMs: number;
}

/** A held lease. */
export interface DirectoryLease {
  /** Gives the directory up (removes `_owner.json` if it is still ours). Idempotent. */
  release(): Promise<void>;
}

export interface LeaseOptions {
  readonly jobName: string;
  readonly leaseMs?: number;
  /** Called once if another job took the directory over (this one stopped renewing in time). */
  readonly onLost?: (error: WeirError) => void;
  /** Wall clock (epoch ms); tests may inject one. */
  readonly now?: () => number;
}

/**
 * Takes the lease on `directory` (created if missing), or fails with
 * `CHECKPOINT_DIRECTORY_IN_USE` naming the job that holds it.
 */
export async function acquireDirectoryLease(
  directory: string,
  options: LeaseOptions,
): Promise<DirectoryLease> {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) {
    throw new WeirError('INVALID_ARGUMENT', `checkpoint leaseMs must be positive, got ${leaseMs}`);
  }
  await mkdirPrivate(directory);
  const path = join(directory, OWNER_FILE);
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
  // Each round either creates the file, refuses, or removes a stale owner and tries again.
  for (let round = 0; ; round++) {
    if (await createExclusively(path, owner)) break;
    const current = await readOwner(path);
    if (current === undefined) continue; // removed meanwhile, or unreadable and set aside
    const stale = staleness(current, now());
    if (stale === undefined || round >= 10) throw inUse(directory, current, now());
    await removeStaleOwner(path, current);
  }
  return new HeldLease(directory, path, owner, now, options.onLost);
}

class HeldLease implements DirectoryLease {
  private readonly timer: NodeJS.Timeout;
  private released = false;
  private renewing: Promise<void> = Promise.resolve();

  constructor(
    private readonly directory: string,
    private readonly path: string,
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
    const current = await readOwner(this.path);
    if (current?.ownerId !== this.owner.ownerId) {
      this.lost(current);
      return;
    }
    this.owner = { ...this.owner, renewedAt: this.now() };
    await replaceFileAtomically(this.path, JSON.stringify(this.owner)).catch(() => undefined);
  }

  private lost(current: DirectoryOwner | undefined): void {
    clearInterval(this.timer);
    this.released = true;
    const by =
      current === undefined ? 'its lease file is gone' : `it is now held by ${describe(current)}`;
    this.onLost?.(
      new WeirError(
        'CHECKPOINT_DIRECTORY_IN_USE',
        `job '${this.owner.jobName}' lost the checkpoint directory '${this.directory}': ${by}. It stopped renewing its lease within ${this.owner.leaseMs} ms (a paused or overloaded process); two jobs must not write one directory, so this one stops`,
        { domain: 'external' },
      ),
    );
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    await this.renewing;
    const current = await readOwner(this.path);
    if (current?.ownerId === this.owner.ownerId) await unlink(this.path).catch(() => undefined);
  }
}

/** Why `owner` no longer holds the directory, or undefined if it still does. */
function staleness(owner: DirectoryOwner, now: number): string | undefined {
  if (now > owner.renewedAt + owner.leaseMs) return 'expired';
  if (owner.host === hostname() && owner.pid !== process.pid && !isAlive(owner.pid)) return 'dead';
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates `path` holding `owner` unless it exists. The content is written to
 * a temporary file first and linked into place, so nobody ever reads a
 * half-written owner.
 */
async function createExclusively(path: string, owner: DirectoryOwner): Promise<boolean> {
  const tmp = `${path}.new-${owner.ownerId}`;
  await writeFileDurably(tmp, JSON.stringify(owner));
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Removes `_owner.json` if it still holds `stale`. It is renamed aside first,
 * which only one of several contenders can do; if what was renamed is not
 * the stale owner (another contender replaced it meanwhile), it is put back.
 */
async function removeStaleOwner(path: string, stale: DirectoryOwner): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readOwner(aside);
  if (moved !== undefined && moved.ownerId !== stale.ownerId) {
    // A live lease: restore it unless yet another one was created meanwhile.
    await link(aside, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/**
 * The owner recorded in `path`; undefined if there is none. A file that does
 * not parse (damaged on disk: owners are linked into place whole) counts as
 * an owner whose lease has expired, so it does not lock the directory forever.
 */
async function readOwner(path: string): Promise<DirectoryOwner | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<DirectoryOwner>;
    if (
      typeof parsed.ownerId === 'string' &&
      typeof parsed.renewedAt === 'number' &&
      typeof parsed.leaseMs === 'number'
    ) {
      return {
        ownerId: parsed.ownerId,
        jobName: String(parsed.jobName ?? 'unknown'),
        pid: Number(parsed.pid ?? 0),
        host: String(parsed.host ?? 'unknown'),
        acquiredAt: Number(parsed.acquiredAt ?? parsed.renewedAt),
        renewedAt: parsed.renewedAt,
        leaseMs: parsed.leaseMs,
      };
    }
  } catch {
    // Falls through: unreadable.
  }
  return {
    ownerId: `unreadable:${text.length}`,
    jobName: 'unknown',
    pid: 0,
    host: '',
    acquiredAt: 0,
    renewedAt: 0,
    leaseMs: 0,
  };
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
