import { describe, expect, it } from 'vitest';
import { Pattern } from '../../src/api/cep/pattern.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { cepHarness, type Ev, resultOf } from './cep-harness.js';

describe('state under within', () => {
  const whole = Pattern.begin<Ev>('fail')
    .where((e) => e.type === 'f')
    .times(3)
    .followedBy('success')
    .where((e) => e.type === 's')
    .within(200)
    .toSpec();
  // Per-stage windows only: each partial match is bounded by the time since its last event.
  const perStage = Pattern.begin<Ev>('fail')
    .where((e) => e.type === 'f')
    .followedBy('again')
    .where((e) => e.type === 'f')
    .within(80, 'previousAndCurrent')
    .followedBy('success')
    .where((e) => e.type === 's')
    .within(120, 'previousAndCurrent')
    .toSpec();
  it.each([
    ['with a timed-out handler (each timeout when due)', true, whole],
    ['without one (timeouts swept lazily)', false, whole],
    ["with per-stage windows only (within(ms, 'previousAndCurrent'))", true, perStage],
    ['with per-stage windows only, without a timed-out handler', false, perStage],
  ])(
    'stays flat over a long run, %s: partial matches and buffered events are pruned by the window',
    (_, timeouts, spec) => {
      const h = cepHarness(spec, { timeouts });
      const random = new DeterministicRandom(3);
      const samples: { buffered: number; entries: number }[] = [];
      let time = 0;
      for (let i = 0; i < 60_000; i++) {
        time += 1;
        const type = random.next() < 0.8 ? 'f' : 's';
        const ts = time - random.int(5);
        h.processElement({ id: `${type}${i}`, type, ts, key: `k${random.int(100)}`, v: 0 }, ts);
        if (i % 100 === 99) h.processWatermark(time - 5);
        if (i % 2_000 === 1_999) {
          samples.push({
            buffered: h.metric('weir_cep_buffered'),
            entries: h.metric('weir_state_entries'),
          });
          h.clearOutput();
        }
      }
      const early = samples.slice(2, 6);
      const late = samples.slice(-10);
      const peak = (xs: typeof samples, f: (s: (typeof samples)[0]) => number) =>
        Math.max(...xs.map(f));
      // Each key holds at most the events of one window (about 2 per key per 200 ticks here).
      expect(peak(late, (s) => s.buffered)).toBeLessThanOrEqual(
        1.5 * peak(early, (s) => s.buffered),
      );
      expect(peak(late, (s) => s.entries)).toBeLessThanOrEqual(1.5 * peak(early, (s) => s.entries));
      expect(peak(samples, (s) => s.buffered)).toBeLessThan(5_000);
      h.processWatermark(Number.POSITIVE_INFINITY);
      expect(h.metric('weir_cep_buffered')).toBe(0);
      expect(h.metric('weir_state_entries')).toBe(0);
    },
  );

  it('processing time: matches in arrival order, timeouts from the clock', () => {
    const spec = Pattern.begin<Ev>('a')
      .where((e) => e.type === 'a')
      .followedBy('b')
      .where((e) => e.type === 'b')
      .within(100)
      .toSpec();
    const h = cepHarness(spec, { processingTime: true });
    const ev = (id: string): Ev => ({ id, type: id[0]!, ts: 0, key: 'k', v: 0 });
    h.setProcessingTime(10);
    h.processElement(ev('a1'));
    h.setProcessingTime(50);
    h.processElement(ev('b2'));
    h.processElement(ev('a3'));
    h.setProcessingTime(200);
    const r = resultOf(h);
    expect(r.matches).toEqual(['a1 b2']);
    expect(r.timedOut).toEqual(['a3@150']);
  });
});
