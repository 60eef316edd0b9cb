import { describe, expect, it } from 'vitest';
import { WatermarkValve } from '../../src/runtime/task/watermark-valve.js';

/** A valve over `n` channels that logs what it forwards: watermarks as numbers, idleness as 'idle'. */
function valve(n: number): { v: WatermarkValve; log: (number | 'idle')[] } {
  const log: (number | 'idle')[] = [];
  const v = new WatermarkValve(
    n,
    (t) => log.push(t),
    () => log.push('idle'),
  );
  return { v, log };
}

describe('watermark valve (union / shuffle input)', () => {
  it('forwards the minimum over its channels, never going back', () => {
    /*
     * input A   ──3──────5──────────9──────────▶
     * input B   ──────4──────────────────(idle)
     * operator  ──────3───4─────────────9──────▶
     */
    const { v, log } = valve(2);
    v.watermark(0, 3);
    expect(log).toEqual([]); // B has said nothing yet
    v.watermark(1, 4);
    expect(log).toEqual([3]);
    v.watermark(0, 5);
    expect(log).toEqual([3, 4]);
    v.watermark(0, 9);
    expect(log).toEqual([3, 4]);
    v.watermark(0, 7); // lower than A's own: ignored
    v.markIdle(1);
    expect(log).toEqual([3, 4, 9]);
    expect(v.combined).toBe(9);
  });

  it('a channel back from idleness counts again only once it has caught up', () => {
    /*
     * A:  3 ─ 9 ────────── 12 ──────────── 20
     * B:  4 ─ (idle) ─ data, W 4 ─ W 10 ─ W 13
     * out 3   9           12                13   (B rejoins at 13 >= 12)
     */
    const { v, log } = valve(2);
    v.watermark(0, 3);
    v.watermark(1, 4);
    v.watermark(0, 9);
    v.markIdle(1);
    expect(log).toEqual([3, 4, 9]);
    v.activate(1); // B sends data again; its watermark 4 is behind 9
    v.watermark(0, 12);
    expect(log).toEqual([3, 4, 9, 12]);
    v.watermark(1, 10); // still behind: time must not go back
    expect(log).toEqual([3, 4, 9, 12]);
    v.watermark(1, 13); // caught up: rejoins
    expect(log).toEqual([3, 4, 9, 12]);
    v.watermark(0, 20);
    expect(log).toEqual([3, 4, 9, 12, 13]);
  });

  it('when every channel is idle, forwards the highest watermark and declares itself idle', () => {
    const { v, log } = valve(3);
    v.watermark(0, 5);
    v.watermark(1, 8);
    v.watermark(2, 2);
    expect(log).toEqual([2]);
    v.markIdle(2);
    expect(log).toEqual([2, 5]);
    v.markIdle(0);
    expect(log).toEqual([2, 5, 8]);
    v.markIdle(1);
    expect(log).toEqual([2, 5, 8, 'idle']);
  });

  it('an ended channel counts as +inf', () => {
    const { v, log } = valve(2);
    v.watermark(0, 5);
    v.watermark(1, 3);
    v.end(1);
    expect(log).toEqual([3, 5]);
    v.end(0);
    expect(log).toEqual([3, 5, Number.POSITIVE_INFINITY]);
  });
});
