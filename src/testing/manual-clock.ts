import type { Clock } from '../core/clock.js';

/** A processing-time clock that moves only when the test moves it. */
export class ManualClock implements Clock {
  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  /** Moves the clock to `time`; processing time never goes backwards. */
  set(time: number): void {
    if (time < this.time) {
      throw new RangeError(`processing time cannot go back from ${this.time} to ${time}`);
    }
    this.time = time;
  }
}
