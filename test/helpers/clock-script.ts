/**
 * A bounded source that plays a script on a manual processing-time clock: its records one per
 * batch, and, between them, moves of the clock. So a processing-time test knows exactly when
 * each record arrives, without sleeping.
 */
import type {
  PollStatus,
  RecordBatch,
  Source,
  SourceContext,
  SourceReader,
} from '../../src/index.js';
import type { ManualClock } from '../../src/testing/manual-clock.js';

/** A record to emit, or a processing time to move the clock to. */
export type ClockStep<T extends object> = T | number;

export interface ClockScriptOptions {
  /**
   * At the end, how many times the clock moves on by 1 ms (with a poll with nothing after
   * each), to release what still waits for its millisecond to pass. Default 0.
   */
  readonly endTicks?: number;
}

/** Polls with nothing on each side of a move of the clock: the records before it reach their operators first, and the timers due at the new time run before the next record. */
const SETTLE_POLLS = 5;

export class ClockScript<T extends object> implements Source<T> {
  readonly parallelizable = false;
  readonly bounded = true;
  readonly name = 'clock script';

  constructor(
    private readonly clock: ManualClock,
    private readonly steps: readonly ClockStep<T>[],
    private readonly options: ClockScriptOptions = {},
  ) {}

  createReader(_context: SourceContext): SourceReader<T> {
    let step = 0;
    let idle = 0;
    return {
      open() {},
      poll: (): RecordBatch<T> | PollStatus => {
        const s = this.steps[step];
        if (s === undefined) {
          if (idle++ >= (this.options.endTicks ?? 0)) return 'end';
          this.clock.set(this.clock.now() + 1);
          return 'wait';
        }
        if (typeof s !== 'number') {
          step++;
          // A fresh row each run: the steps may be played again, and operators may own their rows.
          const value = (Array.isArray(s) ? [...s] : s) as T;
          return { values: [value], timestamps: [Number.NEGATIVE_INFINITY], keys: undefined };
        }
        idle++;
        if (idle === SETTLE_POLLS) this.clock.set(s);
        if (idle < 2 * SETTLE_POLLS) return 'wait';
        idle = 0;
        step++;
        return 'wait';
      },
      available: () => new Promise<void>((resolve) => setTimeout(resolve, 5)),
      close() {},
    };
  }
}
