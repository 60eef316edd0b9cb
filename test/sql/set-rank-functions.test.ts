/**
 * The keyed functions behind INTERSECT/EXCEPT and the retracting Top-N, driven change by change
 * in the operator harness: the changes each emits, and the error (naming the row) for a
 * retraction of a row the function does not hold, which expired state alone excuses.
 */
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/core/changelog.js';
import type { Row } from '../../src/index.js';
import { RetractRankFunction } from '../../src/sql/planner/retract-rank.js';
import { RowCounts } from '../../src/sql/planner/set-operation-planner.js';
import { KeyedOneInputHarness } from '../../src/testing/index.js';

const change = (kind: Change<Row>['kind'], ...value: unknown[]): Change<Row> => ({ kind, value });
const text = (c: Change<Row>) => `${c.kind} ${JSON.stringify(c.value)}`;

/** Feeds `changes` to the harness one by one; what it emitted, as `kind json` texts. */
function feed(
  h: KeyedOneInputHarness<string, Change<Row>, Change<Row>>,
  changes: readonly Change<Row>[],
): string[] {
  for (const c of changes) h.processElement(c, 0);
  return h.outputValues().map(text);
}

function counts(op: 'INTERSECT' | 'EXCEPT', all: boolean, ttl?: { ttlMs: number }) {
  // Rows `[value, side]`: side 0 is the left input, 1 the right.
  return KeyedOneInputHarness.forProcessFunction(new RowCounts(op, all, 1, ttl), (c: Change<Row>) =>
    JSON.stringify(c.value[0]),
  );
}

describe('INTERSECT and EXCEPT counts', () => {
  it('EXCEPT ALL emits a copy per left row beyond the right count, and takes retractions out', () => {
    expect(
      feed(counts('EXCEPT', true), [
        change('+I', 'x', 0),
        change('+I', 'x', 0),
        change('+I', 'x', 1),
        change('-D', 'x', 1),
        change('-U', 'x', 0),
      ]),
    ).toEqual(['+I ["x"]', '+I ["x"]', '-D ["x"]', '+I ["x"]', '-D ["x"]']);
  });

  it('INTERSECT emits a row once while both sides hold it', () => {
    expect(
      feed(counts('INTERSECT', false), [
        change('+I', 7, 0),
        change('+I', 7, 0),
        change('+I', 7, 1),
        change('-D', 7, 0),
      ]),
    ).toEqual(['+I [7]']);
  });

  it('refuses a retraction of a row its side does not hold, naming it, unless state may have expired', () => {
    expect(() => counts('EXCEPT', false).processElement(change('-D', 'gone', 1), 0)).toThrow(
      'EXCEPT: a retraction (-D) of a row its right input does not hold: ["gone"]',
    );
    const h = counts('EXCEPT', false, { ttlMs: 1000 });
    h.processElement(change('-D', 'gone', 1), 0);
    expect(h.outputValues()).toEqual([]);
  });
});

describe('the retracting Top-N', () => {
  const compare = (a: Row, b: Row) => (b[1] as number) - (a[1] as number);
  const topN = (rankNumber: boolean, ttl?: { ttlMs: number }) =>
    KeyedOneInputHarness.forProcessFunction(
      new RetractRankFunction({
        compare,
        start: 1,
        end: 2,
        width: 2,
        rankNumber,
        insertOnly: false,
        ttl,
      }),
      () => 'one partition',
    );

  it('moves the next row up when a kept row is retracted', () => {
    expect(
      feed(topN(true), [
        change('+I', 'a', 5),
        change('+I', 'b', 9),
        change('+I', 'c', 1),
        change('-D', 'b', 9),
      ]),
    ).toEqual([
      '+I ["a",5,1]',
      '-U ["a",5,1]',
      '+U ["b",9,1]',
      '+I ["a",5,2]',
      '-U ["b",9,1]',
      '+U ["a",5,1]',
      '-U ["a",5,2]',
      '+U ["c",1,2]',
    ]);
  });

  it('without row numbers emits only the rows entering and leaving the range', () => {
    expect(
      feed(topN(false), [change('+I', 'a', 5), change('+I', 'b', 9), change('+I', 'c', 7)]),
    ).toEqual(['+I ["a",5]', '+I ["b",9]', '-D ["a",5]', '+I ["c",7]']);
  });

  it('refuses a retraction of a row its partition does not hold, unless state may have expired', () => {
    expect(() => topN(true).processElement(change('-U', 'z', 3), 0)).toThrow(
      'Top-N: a retraction (-U) of a row that is not in its partition: ["z",3]',
    );
    const h = topN(true, { ttlMs: 1000 });
    h.processElement(change('-U', 'z', 3), 0);
    expect(h.outputValues()).toEqual([]);
  });
});
