import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ProducerMark,
  RepartitionWatermark,
} from '../../src/connectors/kafka/group/repartition-watermarks.js';

const PRODUCERS = ['in:0', 'in:1', 'in:2'];

const observation = fc.record({
  producer: fc.constantFrom(...PRODUCERS),
  mark: fc.oneof(
    fc
      .integer({ min: 0, max: 10_000 })
      .map((w): ProducerMark => ({ kind: 'watermark', watermark: w })),
    fc.constant<ProducerMark>({ kind: 'idle' }),
  ),
});

describe('watermark of a repartition partition', () => {
  it('never goes back, waits for every producer, and follows the slowest active one', () => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 60 }), (observations) => {
        const wm = new RepartitionWatermark(PRODUCERS);
        const latest = new Map<string, ProducerMark>();
        let before = Number.NEGATIVE_INFINITY;
        for (const { producer, mark } of observations) {
          wm.observe(producer, mark);
          const prev = latest.get(producer);
          const regress =
            mark.kind === 'watermark' &&
            prev?.kind === 'watermark' &&
            mark.watermark < prev.watermark;
          if (!regress) latest.set(producer, mark);
          const now = wm.current();
          expect(now).toBeGreaterThanOrEqual(before);
          if (latest.size < PRODUCERS.length) expect(now).toBe(Number.NEGATIVE_INFINITY);
          const active = [...latest.values()].filter((m) => m.kind === 'watermark');
          const min = Math.min(...active.map((m) => (m.kind === 'watermark' ? m.watermark : 0)));
          // Above an active producer only if it was already there before that producer came back.
          if (latest.size === PRODUCERS.length && active.length > 0)
            expect(now).toBe(Math.max(before, min));
          expect(wm.idle()).toBe(latest.size === PRODUCERS.length && active.length === 0);
          before = now;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a watermark from a producer it does not know', () => {
    const wm = new RepartitionWatermark(['in:0']);
    expect(() => wm.observe('in:7', { kind: 'idle' })).toThrow("unknown producer task 'in:7'");
  });
});
