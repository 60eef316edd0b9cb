import { describe, expect, it } from 'vitest';
import { ProcessingTimeScheduler } from '../../src/runtime/task/timers.js';

/** A clock the test moves by hand. */
function manualClock() {
  let now = 0;
  return {
    now: () => now,
    set: (t: number) => {
      now = t;
    },
  };
}

describe('processing-time callbacks of halted tasks', () => {
  it('stay pending while their task is halted and fire once it resumes', () => {
    const clock = manualClock();
    const timers = new ProcessingTimeScheduler(clock);
    const a = { halted: false };
    const b = { halted: false };
    const fired: string[] = [];
    timers.owner = a;
    timers.schedule(10, () => fired.push('a@10'));
    timers.owner = b;
    timers.schedule(10, () => fired.push('b@10'));
    timers.owner = undefined;
    timers.schedule(10, () => fired.push('none@10'));

    a.halted = true;
    clock.set(10);
    // Unowned callbacks are held too while some task is halted.
    expect(timers.fireDue(true)).toBe(true);
    expect(fired).toEqual(['b@10']);
    expect(timers.fireDue(true)).toBe(false);
    expect(timers.nextTime()).toBe(10);

    a.halted = false;
    expect(timers.fireDue(false)).toBe(true);
    expect(fired.sort()).toEqual(['a@10', 'b@10', 'none@10']);
    expect(timers.nextTime()).toBeUndefined();
  });

  it('a callback scheduled by a callback belongs to the same task, and a held one can still be cancelled', () => {
    const clock = manualClock();
    const timers = new ProcessingTimeScheduler(clock);
    const task = { halted: false };
    const fired: number[] = [];
    timers.owner = task;
    timers.schedule(5, (t) => {
      fired.push(t);
      timers.schedule(20, (u) => fired.push(u));
    });
    const cancel = timers.schedule(6, (t) => fired.push(t));
    timers.owner = undefined;

    clock.set(5);
    timers.fireDue();
    expect(fired).toEqual([5]);
    task.halted = true;
    clock.set(30);
    timers.fireDue();
    expect(fired).toEqual([5]);
    cancel();
    task.halted = false;
    timers.fireDue();
    expect(fired).toEqual([5, 20]);
  });
});
