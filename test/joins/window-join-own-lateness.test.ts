/**
 * Which watermark a window join judges late records by. Flink's window join judges both
 * sides by the join's watermark, the lesser of its two inputs'; so does Weir's by default.
 * Where the join stands in for a window aggregation of one input (Weir SQL's window join of
 * grouping-only window aggregations, test/sql/window-join-distinct.test.ts), that side is
 * judged by its own input's watermark, as the aggregation would judge it: a record behind its
 * own input's watermark is dropped whether or not the other input's watermark arrived yet.
 */
import { describe, expect, it } from 'vitest';
import type { JoinSides } from '../../src/core/joins.js';
import {
  innerJoinPairs,
  WindowJoinFunction,
} from '../../src/runtime/operators/joins/window-join.js';
import { KeyedCoProcessOperator } from '../../src/runtime/operators/keyed/keyed-co-process.js';
import { TwoInputHarness } from '../../src/testing/index.js';

interface Ev {
  readonly k: string;
  readonly id: string;
}

function harness(ownLateness?: JoinSides) {
  const operator = new KeyedCoProcessOperator<string, Ev, Ev, string>(
    new WindowJoinFunction<string, Ev, Ev, string>({
      windows: { size: 10, slide: 10, offset: 0 },
      apply: innerJoinPairs((l: Ev, r: Ev) => `${l.id}+${r.id}`),
      leftLateTag: undefined,
      rightLateTag: undefined,
      ownLateness,
    }),
    'weir_join_late_records_total',
  );
  return new TwoInputHarness<Ev, Ev, string>(operator, {
    keySelector1: (e) => e.k,
    keySelector2: (e) => e.k,
  });
}

/** The left input's watermark passes window [0, 10) while the right's has not arrived yet. */
function run(h: ReturnType<typeof harness>): string[] {
  h.processElement2({ k: 'a', id: 'r1' }, 3);
  h.processWatermark1(15);
  h.processElement1({ k: 'a', id: 'late-l' }, 4); // behind its own input's watermark
  h.processElement2({ k: 'a', id: 'r2' }, 5); // its input's watermark has not passed it
  h.processWatermark2(30);
  h.endInput1();
  h.endInput2();
  return h.outputValues();
}

describe('window join lateness', () => {
  it("judges both sides by the join's watermark by default, as Flink does", () => {
    const h = harness();
    expect(run(h).sort()).toEqual(['late-l+r1', 'late-l+r2']);
    expect(h.metric('weir_join_late_records_total')).toBe(0);
  });

  it("judges a side by its own input's watermark where asked", () => {
    const h = harness({ left: true, right: false });
    expect(run(h)).toEqual([]);
    expect(h.metric('weir_join_late_records_total')).toBe(1);
  });

  it('judges each side by its own watermark where both are asked, joining the records in time', () => {
    const h = harness({ left: true, right: true });
    h.processWatermark1(15);
    h.processWatermark2(12);
    h.processElement2({ k: 'a', id: 'r' }, 11);
    h.processElement1({ k: 'a', id: 'late-l' }, 9);
    h.processElement2({ k: 'a', id: 'late-r' }, 8);
    h.processElement1({ k: 'a', id: 'l' }, 16);
    h.endInput1();
    h.endInput2();
    expect(h.outputValues()).toEqual(['l+r']);
    expect(h.metric('weir_join_late_records_total')).toBe(2);
  });
});
