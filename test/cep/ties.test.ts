/**
 * Records of one timestamp: in arrival order by default, in a comparator's order when
 * `CEP.pattern` is given one (Flink's `EventComparator`), in event time and in processing time.
 */
import { describe, expect, it } from 'vitest';
import { Pattern } from '../../src/api/cep/pattern.js';
import { KeyedOneInputHarness } from '../../src/testing/keyed-one-input-harness.js';
import { cepHarness, cepOperator, type Ev, isType, resultOf, sorted } from './cep-harness.js';

const ev = (id: string, ts: number, v = 0, key = 'k'): Ev => ({
  id,
  type: id.replace(/[0-9.]+$/, ''),
  ts,
  key,
  v,
});

const aNextB = Pattern.begin<Ev>('a').where(isType('a')).next('b').where(isType('b')).toSpec();
const byValue = (x: Ev, y: Ev) => x.v - y.v;

function eventTime(input: readonly (Ev | number)[], comparator?: (x: Ev, y: Ev) => number) {
  const h = cepHarness(aNextB, comparator === undefined ? {} : { comparator });
  for (const x of input) {
    if (typeof x === 'number') h.processWatermark(x);
    else h.processElement(x, x.ts);
  }
  h.processWatermark(Number.POSITIVE_INFINITY);
  return sorted(resultOf(h).matches);
}

describe('ties in event time', () => {
  // b5 arrives before a5; a comparator on the value can put a5 first.
  const input = [ev('b5', 5, 2), ev('a5', 5, 1), ev('c6', 6), ev('a7', 7, 1), ev('b7', 7, 2)];

  it('keep arrival order without a comparator', () => {
    expect(eventTime(input)).toEqual(['a7 b7']);
  });

  it('follow the comparator, and its ties keep arrival order', () => {
    expect(eventTime(input, byValue)).toEqual(['a5 b5', 'a7 b7']);
    expect(eventTime(input, (x, y) => y.v - x.v)).toEqual([]);
    // Equal under the comparator: arrival order decides, so b9 (first) then a9.
    const equal = [ev('b9', 9, 1), ev('a9', 9, 1), ev('b9.1', 9, 1)];
    expect(eventTime(equal, byValue)).toEqual(['a9 b9.1']);
  });

  it('are sorted per key: the comparator only orders records of one timestamp', () => {
    // Keyed, out of order, with a late record: Flink's keyed event-time test with a comparator.
    const input = [
      ev('b3', 3, 1, 'x'),
      ev('a3', 3, 0, 'x'),
      ev('a3', 3, 5, 'y'),
      ev('b3', 3, 6, 'y'),
      ev('b2', 2, 9, 'x'),
      2,
      ev('a1', 1, 0, 'x'),
      ev('a4', 4, 0, 'y'),
      ev('b4', 4, 0, 'y'),
    ];
    // x: b2, then a3 (v 0) before b3 (v 1): a3 b3. y: a3 (5) before b3 (6); a4 and b4 tie
    // (0 and 0) and keep arrival order: a4 b4. a1 is late.
    expect(eventTime(input, byValue)).toEqual(['a3 b3', 'a3 b3', 'a4 b4']);
  });
});

describe('ties in processing time', () => {
  it('records of one millisecond are matched together once the clock moves on, sorted', () => {
    const h = cepHarness(aNextB, { processingTime: true, comparator: byValue });
    h.setProcessingTime(10);
    h.processElement(ev('b1', 0, 2));
    h.processElement(ev('a2', 0, 1));
    // Nothing is matched while the clock is still at 10.
    expect(resultOf(h).matches).toEqual([]);
    h.setProcessingTime(11);
    expect(resultOf(h).matches).toEqual(['a2 b1']);
    // The next millisecond's records are sorted among themselves only.
    h.processElement(ev('b3', 0, 0));
    h.setProcessingTime(12);
    h.processElement(ev('a4', 0, 5));
    h.processElement(ev('b5', 0, 9));
    h.setProcessingTime(20);
    expect(resultOf(h).matches).toEqual(['a2 b1', 'a4 b5']);
  });

  it('without a comparator, records are matched on arrival', () => {
    const h = cepHarness(aNextB, { processingTime: true });
    h.setProcessingTime(10);
    h.processElement(ev('b1', 0, 2));
    h.processElement(ev('a2', 0, 1));
    h.processElement(ev('b3', 0, 3));
    expect(resultOf(h).matches).toEqual(['a2 b3']);
  });

  it('records waiting for their millisecond survive a snapshot', () => {
    const h = cepHarness(aNextB, { processingTime: true, comparator: byValue });
    h.setProcessingTime(10);
    h.processElement(ev('b1', 0, 2));
    h.processElement(ev('a2', 0, 1));
    const snapshot = h.snapshot(1);
    const restored = new KeyedOneInputHarness<string, Ev, string>(
      cepOperator(aNextB, { processingTime: true, comparator: byValue }),
      (e) => e.key,
      { restoreFrom: [snapshot], processingTime: 10 },
    );
    restored.setProcessingTime(11);
    expect(resultOf(restored).matches).toEqual(['a2 b1']);
  });
});
