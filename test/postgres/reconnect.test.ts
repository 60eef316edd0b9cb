/** The reconnect policy on its own: which errors it retries, its backoff, its budget, its log. */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { PostgresUpsertSink } from '../../src/connectors/postgres/index.js';
import {
  isConnectionLost,
  Reconnector,
  reconnectSchema,
} from '../../src/connectors/postgres/reconnect.js';

const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
});

function policy(settings: Partial<v.InferInput<typeof reconnectSchema>> = {}, random = 0.5) {
  let now = 1_000;
  const log: string[] = [];
  let retries = 0;
  const r = new Reconnector(
    v.parse(reconnectSchema, settings),
    "sink 'x'",
    (m) => log.push(m),
    { inc: () => retries++ },
    () => random,
    () => now,
  );
  return {
    r,
    log,
    retries: () => retries,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

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

describe('Reconnector', () => {
  it('waits twice as long before each retry, capped, with jitter of up to half the wait', () => {
    const p = policy({ initialBackoffMs: 100, maxBackoffMs: 1_000 }, 1);
    const waits = Array.from({ length: 6 }, () => p.r.failed(lost, 'write', 'SINK_FAILED'));
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    const low = policy({ initialBackoffMs: 100, maxBackoffMs: 1_000 }, 0);
    expect(low.r.failed(lost, 'write', 'SINK_FAILED')).toBe(50);
  });

  it('logs every retry once with its cause, counts it, and logs the recovery', () => {
    const p = policy();
    p.r.failed(lost, 'write a batch', 'SINK_FAILED');
    p.advance(75);
    p.r.failed(lost, 'write a batch', 'SINK_FAILED');
    p.advance(1_000);
    p.r.recovered();
    p.r.recovered(); // no outage: nothing to say
    expect(p.retries()).toBe(2);
    expect(p.log).toHaveLength(3);
    expect(p.log[0]).toMatch(
      /^sink 'x' could not write a batch, the database is unreachable \(connect ECONNREFUSED 127\.0\.0\.1:5432\); retry 1 in 75 ms/,
    );
    expect(p.log[1]).toMatch(
      /retry 2 in 150 ms, 0\.1 s into the outage \(gives up after 60\.0 s\)/,
    );
    expect(p.log[2]).toBe("sink 'x' reconnected after 1.1 s (2 retries)");
  });

  it('fails once the outage would outlast maxOutageMs, naming the cause; the next outage starts afresh', () => {
    const p = policy({ maxOutageMs: 1_000, initialBackoffMs: 400, maxBackoffMs: 400 });
    expect(p.r.failed(lost, 'write', 'SINK_FAILED')).toBe(300);
    p.advance(300);
    expect(p.r.failed(lost, 'write', 'SINK_FAILED')).toBe(300);
    p.advance(600);
    let failure: unknown;
    try {
      p.r.failed(lost, 'write a batch', 'SINK_FAILED');
    } catch (e) {
      failure = e;
    }
    expect(failure).toMatchObject({
      code: 'SINK_FAILED',
      retriable: true,
      message: expect.stringMatching(
        /^sink 'x' could not write a batch: the database has been unreachable for 0\.9 s \(2 retries; reconnect\.maxOutageMs is 1000 ms\): connect ECONNREFUSED/,
      ),
    });
    expect(p.r.inOutage).toBe(false);
    expect(p.r.failed(lost, 'write', 'SINK_FAILED')).toBe(300);
  });

  it('rethrows other errors untouched, and maxOutageMs 0 retries nothing', () => {
    const p = policy();
    const constraint = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(() => p.r.failed(constraint, 'write', 'SINK_FAILED')).toThrow(constraint);
    const never = policy({ maxOutageMs: 0 });
    expect(() => never.r.failed(lost, 'write', 'SINK_FAILED')).toThrow(/unreachable for 0\.0 s/);
    expect(never.retries()).toBe(0);
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
