/**
 * A window aggregation over a changelog accumulates each slice, and each partial of the local
 * combiner, apart: a partial may hold a row's retraction without its insert, or an update whose
 * -U and +U cancel in count but not in sum. Whatever the cut into consecutive partials, their
 * merge must give the result of accumulating every change in one (the batch result of the
 * final rows), for COUNT, SUM, AVG, MIN, MAX and the DISTINCT aggregates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../src/index.js';
import { signedAggregate } from '../../src/sql/planner/window-changes.js';
import { aggregateOverV } from './aggregate-over-v.js';

const CALLS = [
  'COUNT(*)',
  'SUM(v)',
  'AVG(v)',
  'MIN(v)',
  'MAX(v)',
  'COUNT(DISTINCT v)',
  'SUM(DISTINCT v)',
];

function windowAggregate() {
  // Column 1 carries the sign, as signedRows appends it.
  return signedAggregate(aggregateOverV(CALLS, 'signed'), 1);
}

/** The batch result of the rows left: COUNT, SUM, AVG (integer, as INT's), MIN, MAX, distinct count and sum. */
function batch(rows: readonly number[]): unknown[] {
  if (rows.length === 0) return [];
  const sum = rows.reduce((a, b) => a + b, 0);
  const distinct = [...new Set(rows)];
  return [
    rows.length,
    sum,
    Math.trunc(sum / rows.length),
    Math.min(...rows),
    Math.max(...rows),
    distinct.length,
    distinct.reduce((a, b) => a + b, 0),
  ];
}

describe('signed window accumulators', () => {
  it('merged from any cut into consecutive partials, equal one accumulation and the batch result', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ v: fc.integer({ min: -4, max: 6 }), retractLater: fc.boolean() }), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 6 }),
        (inserts, cuts) => {
          // Each insert, and for some a later retraction of it (as -U / -D): the changes in order.
          const changes: Row[] = [];
          const left: number[] = [];
          inserts.forEach(({ v, retractLater }, i) => {
            changes.push([v, 1]);
            if (retractLater) changes.splice(Math.min(changes.length, i + 2), 0, [v, -1]);
            else left.push(v);
          });
          const fn = windowAggregate();
          const merge = fn.merge!;
          const ends = [...new Set(cuts.map((c) => c % (changes.length + 1)))].sort(
            (a, b) => a - b,
          );
          let merged = fn.createAccumulator();
          let start = 0;
          for (const end of [...ends, changes.length]) {
            let partial = fn.createAccumulator();
            for (const change of changes.slice(start, end)) partial = fn.add(change, partial);
            merged = merge(merged, partial);
            start = end;
          }
          const result = fn.getResult(merged) as unknown[];
          expect(
            result.length === 0 ? [] : result.map((x) => (typeof x === 'bigint' ? Number(x) : x)),
          ).toEqual(batch(left));
        },
      ),
      { numRuns: 300 },
    );
  });
});
