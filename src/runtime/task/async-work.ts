/**
 * Operators in the middle of a chain that wait on something outside the task
 * (async I/O requests). The hot path stays synchronous: such an operator
 * takes records in `processBatch` and starts their requests, and completions
 * only record themselves. The task then, at the start of each of its steps,
 * lets the operator emit what has completed ({@link AsyncWork.advanceAsync}),
 * stops feeding it while it is full ({@link AsyncWork.acceptsInput}), sleeps
 * on its next completion when nothing else can progress, and does not finish
 * before it has answered everything it holds.
 */
export interface AsyncWork {
  /**
   * Emits results that have completed (and markers they held back), starts
   * waiting requests, handles timeouts and retries. Returns whether anything
   * happened. Called on the task's thread while the task's outputs have room;
   * throws to fail the job.
   */
  advanceAsync(): boolean;
  /** Whether the operator can take more input now (false while its capacity is used up). */
  acceptsInput(): boolean;
  /** Holds nothing: every record it took has been answered and passed on (end-of-input too, once it came). */
  isSettled(): boolean;
  /** Resolves when something in flight completes; undefined while nothing is (timers wake the executor themselves). */
  nextCompletion(): Promise<void> | undefined;
}

export function isAsyncWork(op: unknown): op is AsyncWork {
  return typeof (op as Partial<AsyncWork>).advanceAsync === 'function';
}

/** The async operators of one task's chain, head first. */
export class ChainAsyncWork {
  private constructor(private readonly members: readonly AsyncWork[]) {}

  /** The chain's async operators, or undefined when it has none (the common case costs nothing). */
  static of(operators: readonly unknown[]): ChainAsyncWork | undefined {
    const members = operators.filter(isAsyncWork);
    return members.length === 0 ? undefined : new ChainAsyncWork(members);
  }

  /**
   * Advances every member, tail first. A member is advanced only while all
   * members after it accept input, so an upstream operator never floods a
   * full downstream one: memory stays bounded by the capacities.
   */
  advance(): boolean {
    let progressed = false;
    let downstreamAccepts = true;
    for (let i = this.members.length - 1; i >= 0; i--) {
      const member = this.members[i]!;
      if (downstreamAccepts && member.advanceAsync()) progressed = true;
      if (!member.acceptsInput()) downstreamAccepts = false;
    }
    return progressed;
  }

  acceptsInput(): boolean {
    for (const m of this.members) if (!m.acceptsInput()) return false;
    return true;
  }

  isSettled(): boolean {
    for (const m of this.members) if (!m.isSettled()) return false;
    return true;
  }

  /**
   * Waits only on the members {@link advance} would advance: one held back by a full member after
   * it cannot act on its completions, and waking for them would spin the executor on resolved
   * promises, starving the very timers and I/O the full member waits on.
   */
  nextCompletion(): Promise<void> | undefined {
    const waits: Promise<void>[] = [];
    for (let i = this.members.length - 1; i >= 0; i--) {
      const member = this.members[i]!;
      const p = member.nextCompletion();
      if (p !== undefined) waits.push(p);
      if (!member.acceptsInput()) break;
    }
    if (waits.length === 0) return undefined;
    return waits.length === 1 ? waits[0] : Promise.race(waits);
  }
}
