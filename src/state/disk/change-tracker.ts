/** What the next snapshot of an incremental backend must contain. */
export type SnapshotPlan =
  | { readonly kind: 'full' }
  | {
      readonly kind: 'delta';
      /** The confirmed checkpoint the delta applies to. */
      readonly base: number;
      /** Rows changed since `base` (written or deleted). */
      readonly changed: ReadonlySet<string>;
    };

interface Taken {
  readonly id: number;
  /** Rows changed between the previous snapshot and this one; undefined if too many were tracked. */
  readonly changes: Set<string> | undefined;
  /** Deltas between this snapshot and the last full one. */
  readonly chain: number;
}

/**
 * Tracks which rows changed since the last *confirmed* checkpoint, so a
 * snapshot writes only those. A delta is based only on a checkpoint the
 * backend was told is complete (a failed checkpoint is never referenced):
 * changes since then are the union of the change sets of the snapshots taken
 * after it and of the current one. A snapshot is full when there is no
 * confirmed base, when the chain of deltas would reach `fullEvery`, or when
 * more than `maxTracked` changes had to be remembered.
 */
export class ChangeTracker {
  private current = new Set<string>();
  private overflowed = false;
  private readonly taken: Taken[] = [];
  private base: { readonly id: number; readonly chain: number } | undefined;

  constructor(
    private readonly fullEvery: number,
    private readonly maxTracked: number,
  ) {}

  /** The newest checkpoint confirmed complete, if any. */
  get confirmed(): number | undefined {
    return this.base?.id;
  }

  /**
   * The lowest checkpoint that may be the base of a delta from now on: the
   * confirmed base, else the oldest snapshot not yet confirmed (it may still
   * be), else `next` (the snapshot about to be taken). Never decreases.
   */
  floor(next: number): number {
    return this.base?.id ?? this.taken[0]?.id ?? next;
  }

  /** Records a changed row. */
  track(rowKey: string): void {
    // Before the first snapshot (of a run, or after a restore) nothing can be a delta base.
    if (this.overflowed || (this.base === undefined && this.taken.length === 0)) return;
    this.current.add(rowKey);
    if (this.current.size > this.maxTracked) {
      this.overflowed = true;
      this.current = new Set();
    }
  }

  /** Forgets the base: the next snapshot is full (after a restore, for example). */
  forceFull(): void {
    this.base = undefined;
    this.taken.length = 0;
  }

  plan(): SnapshotPlan {
    const base = this.base;
    if (base === undefined || base.chain + 1 >= this.fullEvery || this.overflowed) {
      return { kind: 'full' };
    }
    const changed = new Set<string>();
    for (const t of this.taken) {
      if (t.changes === undefined) return { kind: 'full' };
      for (const k of t.changes) changed.add(k);
    }
    for (const k of this.current) changed.add(k);
    if (changed.size > this.maxTracked) return { kind: 'full' };
    return { kind: 'delta', base: base.id, changed };
  }

  /** Snapshot `id` was taken following `plan`; changes from now on belong to the next one. */
  snapshotTaken(id: number, plan: SnapshotPlan): void {
    const chain = plan.kind === 'full' ? 0 : this.base!.chain + 1;
    this.taken.push({ id, changes: this.overflowed ? undefined : this.current, chain });
    this.current = new Set();
    this.overflowed = false;
  }

  /** Checkpoint `id` is durable: it becomes the base if this backend took it. */
  confirm(id: number): void {
    const i = this.taken.findIndex((t) => t.id === id);
    if (i < 0) return;
    this.base = { id, chain: this.taken[i]!.chain };
    this.taken.splice(0, i + 1);
  }
}
