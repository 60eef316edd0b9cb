/** The retry policy of the Kafka connectors, step by step on a manual clock (no broker). */
import { describe, expect, it } from 'vitest';
import {
  isClusterUnreachable,
  kafkaReconnectSchema,
  Reconnector,
} from '../../src/connectors/kafka/reconnect.js';
import { parseOptions } from '../../src/connectors/shared/config.js';
import { WeirError } from '../../src/index.js';

const refused = Object.assign(
  new AggregateError([new Error('Connection to 127.0.0.1:9 failed.')], 'metadata failed 4 times.'),
  {
    code: 'PLT_KFK_MULTIPLE',
  },
);
const coordinatorMoved = Object.assign(
  new AggregateError([{ apiId: 'NOT_COORDINATOR' }], 'Received response with error'),
  {},
);
const tooLarge = Object.assign(
  new AggregateError([{ apiId: 'MESSAGE_TOO_LARGE' }], 'Received response with error'),
  {},
);

function setup(settings: { maxOutageMs: number; initialBackoffMs: number; maxBackoffMs: number }) {
  let now = 0;
  const logs: string[] = [];
  let counted = 0;
  const r = new Reconnector(
    settings,
    "Kafka source 's'",
    { log: (m) => logs.push(m), counter: { inc: () => counted++ } },
    () => 0.5,
    () => now,
  );
  return { r, logs, advance: (ms: number) => (now += ms), counted: () => counted };
}

describe('Reconnector', () => {
  it('waits with doubling, capped, jittered backoff, logging and counting each retry', () => {
    const { r, logs, advance, counted } = setup({
      maxOutageMs: 60_000,
      initialBackoffMs: 200,
      maxBackoffMs: 1_000,
    });
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const w = r.failed(refused, 'fetch records', 'SOURCE_FAILED');
      waits.push(w);
      advance(w);
    }
    // Half fixed, half random (0.5 here): 3/4 of 200, 400, 800, then the cap 1000.
    expect(waits).toEqual([150, 300, 600, 750, 750]);
    expect(counted()).toBe(5);
    expect(logs[0]).toBe(
      "Kafka source 's' cannot reach Kafka while trying to fetch records (metadata failed 4 times.); retry 1 in 150 ms, 0.0 s into the outage (gives up after 60.0 s)",
    );
    r.recovered();
    expect(logs.at(-1)).toBe("Kafka source 's' reached Kafka again after 2.5 s (5 retries)");
    expect(r.inOutage).toBe(false);
    // A new outage starts the backoff over.
    expect(r.failed(coordinatorMoved, 'commit', 'SINK_FAILED')).toBe(150);
    expect(logs.at(-1)).toContain('got a transient Kafka error while trying to commit');
    expect(logs.at(-1)).toContain('[NOT_COORDINATOR]');
  });

  it('fails with a retriable error naming the outage once it outlasts maxOutageMs', () => {
    const { r, advance } = setup({
      maxOutageMs: 1_000,
      initialBackoffMs: 200,
      maxBackoffMs: 1_000,
    });
    advance(r.failed(refused, 'fetch records', 'SOURCE_FAILED'));
    advance(r.failed(refused, 'fetch records', 'SOURCE_FAILED'));
    advance(500);
    let error: unknown;
    try {
      r.failed(refused, 'fetch records', 'SOURCE_FAILED');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('SOURCE_FAILED');
    expect((error as WeirError).retriable).toBe(true);
    expect((error as WeirError).message).toBe(
      "Kafka source 's' could not fetch records: the Kafka cluster has been unreachable for 0.9 s (2 retries; reconnect.maxOutageMs is 1000 ms): metadata failed 4 times.",
    );
  });

  it('rethrows an error of the request itself at once', () => {
    const { r, counted } = setup({
      maxOutageMs: 60_000,
      initialBackoffMs: 200,
      maxBackoffMs: 1_000,
    });
    expect(() => r.failed(tooLarge, 'write', 'SINK_FAILED')).toThrow(tooLarge);
    expect(counted()).toBe(0);
  });

  it('tells an unreachable cluster from a refused request, through nested errors', () => {
    expect(isClusterUnreachable(refused)).toBe(true);
    expect(isClusterUnreachable({ code: 'PLT_KFK_NETWORK' })).toBe(true);
    expect(isClusterUnreachable(new Error('x', { cause: { code: 'ECONNREFUSED' } }))).toBe(true);
    expect(isClusterUnreachable(coordinatorMoved)).toBe(true);
    expect(isClusterUnreachable(tooLarge)).toBe(false);
    expect(isClusterUnreachable(new Error('topic name is invalid'))).toBe(false);
  });

  it('validates its options', () => {
    expect(parseOptions('KafkaSource', kafkaReconnectSchema, {})).toEqual({
      maxOutageMs: 180_000,
      initialBackoffMs: 200,
      maxBackoffMs: 5_000,
    });
    expect(
      parseOptions('KafkaSource', kafkaReconnectSchema, { maxOutageMs: Infinity }).maxOutageMs,
    ).toBe(Infinity);
    expect(() => parseOptions('KafkaSource', kafkaReconnectSchema, { maxOutageMs: -1 })).toThrow(
      'KafkaSource: maxOutageMs must be a number of milliseconds >= 0, got -1',
    );
  });
});
