import { WeirError } from '../../../core/errors.js';

/**
 * Keeps each task of a process group with the member that first read
 * records of it, for jobs whose keyed state does not move between
 * processes: a task moving after that would lose its state (its new owner
 * starts without it) or repeat its output into a repartition topic. Offsets
 * are committed only for tasks with records read, so a task whose first
 * message here is past the start of its partition was read elsewhere.
 */
export class PinnedTasks {
  /** Tasks of which this member has read records. */
  private readonly read = new Set<string>();
  /** Tasks of which this member has seen a message since it was given them. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly what: string,
    private readonly fail: (error: WeirError) => void,
  ) {}

  recordRead(task: string): void {
    this.read.add(task);
  }

  hasRead(task: string): boolean {
    return this.read.has(task);
  }

  /** After an assignment change: a task with records read here must not leave. */
  reassigned(previous: ReadonlySet<string>, next: ReadonlySet<string>): void {
    for (const task of previous) {
      if (next.has(task)) continue;
      this.seen.delete(task);
      if (this.read.has(task))
        this.fail(
          this.moved(`task ${task} moved to another member after this one had read records of it`),
        );
    }
  }

  /** The first message of a task since this member was given it must be at the start of its partition. */
  firstMessage(task: string, offset: number): void {
    if (this.seen.has(task)) return;
    this.seen.add(task);
    if (offset > 0)
      this.fail(
        this.moved(
          `task ${task} came to this member at offset ${offset}, after another member had read records of it`,
        ),
      );
  }

  private moved(what: string): WeirError {
    return new WeirError(
      'SOURCE_FAILED',
      `${this.what}: ${what}; the job keeps keyed state, which does not move between processes yet, so it cannot go on correctly (start it again under a new --group id)`,
      { domain: 'user', retriable: false },
    );
  }
}
