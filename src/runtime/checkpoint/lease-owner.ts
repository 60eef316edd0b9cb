/** What a checkpoint directory's lease file (`_owner.json`) holds, and how it is read back. */

/** File name of the lease inside a checkpoint directory. */
export const OWNER_FILE = '_owner.json';

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

/**
 * The owner a lease file's text names. Text that does not parse (a damaged
 * file: owners are always written whole) counts as an owner whose lease has
 * expired, so it does not lock the directory forever.
 */
export function parseOwner(text: string): DirectoryOwner {
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
