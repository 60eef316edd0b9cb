/** Option validation: mistakes fail when a connector is created, not when the job runs. */
import { describe, expect, it } from 'vitest';
import { formatLsn, parseLsn } from '../../src/connectors/postgres/cdc/lsn.js';
import {
  PostgresTransactionalSink,
  PostgresUpsertSink,
  postgresCdc,
} from '../../src/connectors/postgres/index.js';
import {
  civilFromDays,
  daysFromCivil,
  formatZonedTimestamp,
} from '../../src/connectors/postgres/temporal.js';
import { parseArrayLiteral, parseHstore } from '../../src/connectors/postgres/type-mapping.js';

const connection = 'postgres://weir:weir@127.0.0.1:54329/weir';

describe('option validation', () => {
  it('rejects bad CDC options with a message naming the option', () => {
    expect(() => postgresCdc({ connection, tables: [], slotName: 's' })).toThrow(
      /tables must list at least one table/,
    );
    expect(() => postgresCdc({ connection, tables: ['t'], slotName: 'Bad-Name' })).toThrow(
      /slotName must be 1-63 lower-case/,
    );
    expect(() => postgresCdc({ connection, tables: ['t', 'public.t'], slotName: 's' })).toThrow(
      /listed twice/,
    );
    expect(() => postgresCdc({ connection, tables: ['a.b.c'], slotName: 's' })).toThrow(
      /is not a table name/,
    );
    expect(() =>
      postgresCdc({
        connection,
        tables: ['t'],
        slotName: 's',
        types: { decimal: 'precise' as never },
      }),
    ).toThrow(/types.decimal must be one of 'string', 'double'/);
    expect(() => postgresCdc({ connection: 42 as never, tables: ['t'], slotName: 's' })).toThrow(
      /connection must be/,
    );
    expect(() =>
      postgresCdc({ connection, tables: ['t'], slotName: 's', snapshotFetchSize: 0 }),
    ).toThrow(/snapshotFetchSize/);
    expect(postgresCdc({ connection, tables: ['"Mixed"."Case"'], slotName: 's' }).name).toBe(
      'postgres-cdc s',
    );
  });

  it('rejects bad sink options', () => {
    expect(() => new PostgresUpsertSink({ connection, table: 'x', keyColumns: [] })).toThrow(
      /keyColumns must be a non-empty list/,
    );
    expect(
      () => new PostgresUpsertSink({ connection, table: 'x', onRejected: 'skip' as never }),
    ).toThrow(/onRejected must be/);
    expect(
      () =>
        new PostgresTransactionalSink({
          connection,
          table: 'x',
          transactionPrefix: 'p'.repeat(151),
        }),
    ).toThrow(/transactionPrefix/);
  });
});

describe('parsing helpers', () => {
  it('round-trips LSNs, dates and array and hstore literals', () => {
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848');
    for (const days of [-719_528, -1, 0, 19_782, 2_932_896]) {
      const { year, month, day } = civilFromDays(days);
      expect(daysFromCivil(year, month, day)).toBe(days);
    }
    expect(formatZonedTimestamp(0, 6)).toBe('1970-01-01T00:00:00.000000Z');
    expect(formatZonedTimestamp(-1, 3)).toBe('1969-12-31T23:59:59.999Z');
    expect(parseArrayLiteral('[0:1]={{"a,b",NULL},{"\\\\",x}}')).toEqual([
      ['a,b', null],
      ['\\', 'x'],
    ]);
    expect(parseHstore('"a b"=>"1", "c"=>NULL')).toEqual({ 'a b': '1', c: null });
  });
});
