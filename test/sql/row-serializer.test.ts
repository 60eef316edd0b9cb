/**
 * The serializer of SQL rows in keyed state: every kind of SQL value (nested ARRAY, ROW and
 * MAP too) comes back from a snapshot's JSON text as it went in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../src/index.js';
import {
  ROW_SERIALIZER,
  ROWS_SERIALIZER,
  SQL_VALUE_SERIALIZER,
} from '../../src/sql/planner/row-serializer.js';

/** Scalars as rows hold them: see src/sql/types/values.ts. */
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string(),
  fc.integer(),
  fc.double(), // with NaN, the infinities and -0
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), // DECIMAL unscaled, BIGINT beyond 2^53
  fc.uint8Array({ maxLength: 8 }), // BINARY / VARBINARY
);

/** MAP keys may be any SQL value; these are the ones a query can build. */
const mapKey = fc.oneof(fc.string(), fc.integer(), fc.bigInt(), fc.boolean());

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }), // ARRAY or ROW
    fc.array(fc.tuple(mapKey, tie('value')), { maxLength: 4 }).map((entries) => new Map(entries)), // MAP
  ),
}));

/** Through the snapshot's text, as a checkpoint file holds it. */
function viaText<T>(serializer: { toJson(v: T): unknown; fromJson(j: never, v: number): T }, v: T) {
  const text = JSON.stringify(serializer.toJson(v));
  return serializer.fromJson(JSON.parse(text) as never, 1);
}

describe('SQL row serializer', () => {
  it('round-trips every kind of SQL value, nested', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(viaText(SQL_VALUE_SERIALIZER, v)).toEqual(v);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips rows and lists of rows', () => {
    const row = fc.array(value, { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 4 }), (rows: Row[]) => {
        expect(viaText(ROWS_SERIALIZER, rows)).toEqual(rows);
        for (const r of rows) expect(viaText(ROW_SERIALIZER, r)).toEqual(r);
      }),
    );
  });

  it('keeps the entry order of a MAP and the types of its keys', () => {
    const m = new Map<unknown, unknown>([
      [2n, 'big'],
      ['2', 'text'],
      [2, new Map([['inner', [1, null]]])],
    ]);
    const back = viaText(SQL_VALUE_SERIALIZER, [m]) as [Map<unknown, unknown>];
    expect([...back[0].keys()]).toEqual([2n, '2', 2]);
    expect(back[0].get(2)).toEqual(new Map([['inner', [1, null]]]));
  });

  it('reads the lists of rows of snapshots written before MAP and BINARY were tagged', () => {
    expect(ROWS_SERIALIZER.fromJson([[1, { b: '12' }, { n: 'NaN' }, 'x']], 1)).toEqual([
      [1, 12n, Number.NaN, 'x'],
    ]);
  });
});
