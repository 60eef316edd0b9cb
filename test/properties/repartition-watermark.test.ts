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

  it("of a join's partition (producers of both inputs): the join's watermark in one process, never ahead of it", () => {
    // Producers are named `<input>/<task>`; the two inputs' tasks are told apart by that prefix.
    const inputs = [
      ['0/l:0', '0/l:1'],
      ['1/r:0', '1/r:1'],
    ];
    const joinObservation = fc.record({
      producer: fc.constantFrom(...inputs.flat()),
      mark: observation.map((o) => o.mark),
    });
    fc.assert(
      fc.property(fc.array(joinObservation, { maxLength: 80 }), (observations) => {
        const both = new RepartitionWatermark(inputs.flat());
        // One process: a watermark per input, and the join's is the minimum over those not idle.
        const each = inputs.map((producers) => new RepartitionWatermark(producers));
        let join = Number.NEGATIVE_INFINITY;
        const wasIdle = new Set<string>();
        let cameBack = false;
        for (const { producer, mark } of observations) {
          both.observe(producer, mark);
          each[Number(producer[0])]!.observe(producer, mark);
          if (mark.kind === 'idle') wasIdle.add(producer);
          else if (wasIdle.has(producer)) cameBack = true;
          const active = each.filter((w) => !w.idle()).map((w) => w.current());
          if (active.length > 0) join = Math.max(join, Math.min(...active));
          const now = both.current();
          expect(now).toBeLessThanOrEqual(join);
          // Equal unless a producer came back from idleness behind what its input had reached.
          if (!cameBack) expect(now).toBe(join);
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
