import { describe, expect, it } from 'vitest';
import { StepTimer } from '../../src/runtime/instrumentation/step-timer.js';

/** A timer on a clock the test moves by hand. */
function fakeTimer() {
  let now = 0;
  const timer = new StepTimer(() => now);
  return {
    timer,
    /** A step of `ms` starting now. */
    step(ms: number, progressed: boolean, blocked: boolean) {
      const start = now;
      now += ms;
      timer.record(start, progressed, blocked);
    },
    wait(ms: number) {
      now += ms;
    },
    get now() {
      return now;
    },
  };
}

describe('StepTimer', () => {
  it('splits wall-clock time into busy, idle and backpressured', () => {
    const t = fakeTimer();
    t.step(100, true, false); // busy 100
    t.wait(50); // idle (not blocked after the step)
    t.step(200, true, true); // idle 0, busy 200, then blocked
    t.wait(150); // backpressured
    t.step(1, false, true); // backpressured 1 (a step that could not proceed)
    t.wait(99); // backpressured
    t.step(0, true, false);
    expect(t.timer.totals(t.now)).toEqual({ busy: 0.3, idle: 0.05, backpressured: 0.25 });
    const shares = t.timer.shares(t.now);
    expect(shares.busy).toBeCloseTo(0.5);
    expect(shares.backpressured).toBeCloseTo(0.25 / 0.6);
    expect(shares.busy + shares.idle + shares.backpressured).toBeCloseTo(1);
  });

  it('reports recent shares: the current window, backed by the previous one while young', () => {
    const t = fakeTimer();
    for (let i = 0; i < 10; i++) t.step(100, true, false); // a second fully busy
    for (let i = 0; i < 10; i++) {
      t.wait(90);
      t.step(10, true, false); // then 10 % busy
    }
    expect(t.timer.shares(t.now).busy).toBeCloseTo(0.1);
    t.wait(100);
    // The new window is young: the previous one (10 % busy) weighs in.
    expect(t.timer.shares(t.now).busy).toBeCloseTo(100 / 1100);
  });

  it('counts time since the last step in the state the task was left in', () => {
    const t = fakeTimer();
    t.step(10, true, true);
    t.wait(2000);
    expect(t.timer.shares(t.now).backpressured).toBeGreaterThan(0.99);
    t.timer.finish();
    t.wait(3000);
    expect(t.timer.totals(t.now).idle).toBeCloseTo(3);
  });
});
