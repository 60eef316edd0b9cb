/**
 * What the PostgreSQL connectors wait out, and how they say so (no server);
 * the policy itself is tested in test/connectors/reconnect.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PostgresUpsertSink } from '../../src/connectors/postgres/index.js';
import { isConnectionLost, PostgresReconnector } from '../../src/connectors/postgres/reconnect.js';

const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
});

describe('isConnectionLost', () => {
  it('knows lost connections, and nothing else', () => {
    expect(isConnectionLost(lost)).toBe(true);
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('x'), { code: '57P03' }))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isConnectionLost(new Error('wrapped', { cause: lost }))).toBe(true);
    expect(isConnectionLost(Object.assign(new Error('dup'), { code: '23505' }))).toBe(false);
    expect(isConnectionLost(new Error('syntax error at or near "x"'))).toBe(false);
    expect(isConnectionLost(undefined)).toBe(false);
  });
});

describe('PostgresReconnector', () => {
  it('names the database and the cause', () => {
    let now = 1_000;
    const log: string[] = [];
    const r = new PostgresReconnector(
      { maxOutageMs: 60_000, initialBackoffMs: 100, maxBackoffMs: 5_000 },
      "sink 'x'",
      (m) => log.push(m),
      { inc: () => {} },
      () => 0.5,
      () => now,
    );
    now += r.failed(lost, 'write a batch', 'SINK_FAILED');
    now += 1_000;
    r.recovered();
    expect(log).toEqual([
      "sink 'x' could not write a batch, the database is unreachable (connect ECONNREFUSED 127.0.0.1:5432); retry 1 in 75 ms, 0.0 s into the outage (gives up after 60.0 s)",
      "sink 'x' reconnected to the database after 1.1 s (1 retry)",
    ]);
  });

  it('is validated with the connector options', () => {
    expect(
      () =>
        new PostgresUpsertSink({
          connection: 'postgres://x',
          table: 't',
          reconnect: { maxOutageMs: -1 },
        }),
    ).toThrow(
      'PostgresUpsertSink: reconnect.maxOutageMs must be a number of milliseconds >= 0, got -1',
    );
  });
});
