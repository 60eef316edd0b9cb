/**
 * Checkpoint barrier alignment of a task with several input channels, as a
 * state machine without I/O: the task reports what it reads and gets back
 * what to do, so every interleaving of barriers and channel ends can be
 * checked directly.
 */

/** What the task does after reporting a barrier or the end of a channel. */
export type AlignmentDecision =
  /** Nothing yet: a stale barrier, a channel of the current alignment, or an end that leaves it incomplete. */
  | { readonly kind: 'none' }
  /** A new alignment began with this barrier (start timing it); other channels are still awaited. */
  | { readonly kind: 'started' }
  /** Every channel delivered the barrier or ended: snapshot the chain and forward the barrier. */
  | AlignedCheckpoint;

/** The decision to take checkpoint `checkpointId`, with the flags of the barrier that began it. */
export interface AlignedCheckpoint {
  readonly kind: 'aligned';
  readonly checkpointId: number;
  readonly savepoint: boolean;
  readonly stop: boolean;
  /** The alignment began with the same barrier that completed it (a single open channel). */
  readonly started: boolean;
}

const NONE: AlignmentDecision = { kind: 'none' };
const STARTED: AlignmentDecision = { kind: 'started' };

/**
 * Aligns checkpoint barriers over `channelCount` channels: once a channel has
 * delivered the barrier of the checkpoint being aligned it is blocked (must
 * not be read) until every other channel has delivered it too or has ended.
 *
 * A barrier older than the one being aligned is stale and ignored; a newer
 * one overtakes it (the older checkpoint was abandoned) and alignment starts
 * over for the newer. Ended channels count as aligned. Allocates only when a
 * checkpoint is aligned.
 */
export class BarrierAligner {
  private aligning: number | undefined;
  private savepoint = false;
  private stop = false;
  private readonly seen: boolean[];
  private readonly ended: boolean[];

  constructor(channelCount: number) {
    this.seen = new Array<boolean>(channelCount).fill(false);
    this.ended = new Array<boolean>(channelCount).fill(false);
  }

  /** The checkpoint being aligned, if any. */
  get checkpointInProgress(): number | undefined {
    return this.aligning;
  }

  /** Whether `channel` delivered the barrier being aligned: the task must not read it yet. */
  isBlocked(channel: number): boolean {
    return this.seen[channel]!;
  }

  /** Called when `channel` delivers the barrier of checkpoint `checkpointId`. */
  barrier(
    channel: number,
    checkpointId: number,
    savepoint: boolean,
    stop: boolean,
  ): AlignmentDecision {
    const aligning = this.aligning;
    if (aligning !== undefined && checkpointId < aligning) return NONE;
    let started = false;
    if (aligning === undefined || checkpointId > aligning) {
      this.seen.fill(false);
      this.aligning = checkpointId;
      this.savepoint = savepoint;
      this.stop = stop;
      started = true;
    }
    this.seen[channel] = true;
    return this.complete(started) ?? (started ? STARTED : NONE);
  }

  /** Called when `channel` ends (every time its end is read); an ended channel counts as aligned. */
  channelEnded(channel: number): AlignmentDecision {
    this.ended[channel] = true;
    return this.complete(false) ?? NONE;
  }

  private complete(started: boolean): AlignedCheckpoint | undefined {
    const checkpointId = this.aligning;
    if (checkpointId === undefined) return undefined;
    for (let c = 0; c < this.seen.length; c++)
      if (!this.seen[c] && !this.ended[c]) return undefined;
    this.aligning = undefined;
    this.seen.fill(false);
    return { kind: 'aligned', checkpointId, savepoint: this.savepoint, stop: this.stop, started };
  }
}
