/**
 * What the Kafka connectors wait out, and how they say so (no broker); the
 * policy itself is tested in test/connectors/reconnect.test.ts.
 */

import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  isClusterUnreachable,
  KafkaReconnector,
  kafkaReconnectEntry,
} from '../../src/connectors/kafka/reconnect.js';
import { parseOptions } from '../../src/connectors/shared/config.js';

const schema = v.object({ reconnect: kafkaReconnectEntry });

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

function setup() {
  const logs: string[] = [];
  const r = new KafkaReconnector(
    { maxOutageMs: 1_000, initialBackoffMs: 200, maxBackoffMs: 1_000 },
    "Kafka source 's'",
    { log: (m) => logs.push(m), counter: undefined },
    () => 0.5,
    () => 0,
  );
  return { r, logs };
}

describe('KafkaReconnector', () => {
  it('names the cluster, the cause and the Kafka error codes', () => {
    const { r, logs } = setup();
    r.failed(refused, 'fetch records', 'SOURCE_FAILED');
    expect(logs[0]).toBe(
      "Kafka source 's' could not fetch records, the Kafka cluster is unreachable (metadata failed 4 times.); retry 1 in 150 ms, 0.0 s into the outage (gives up after 1.0 s)",
    );
    r.failed(coordinatorMoved, 'commit', 'SINK_FAILED');
    expect(logs.at(-1)).toContain('the Kafka cluster answered with a transient error');
    expect(logs.at(-1)).toContain('[NOT_COORDINATOR]');
    r.recovered();
    expect(logs.at(-1)).toBe(
      "Kafka source 's' reconnected to the Kafka cluster after 0.0 s (2 retries)",
    );
  });

  it('rethrows an error of the request itself at once', () => {
    const { r, logs } = setup();
    expect(() => r.failed(tooLarge, 'write', 'SINK_FAILED')).toThrow(tooLarge);
    expect(logs).toEqual([]);
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
    expect(parseOptions('KafkaSource', schema, {}).reconnect).toEqual({
      maxOutageMs: 180_000,
      initialBackoffMs: 200,
      maxBackoffMs: 5_000,
    });
    expect(
      parseOptions('KafkaSource', schema, { reconnect: { maxOutageMs: Infinity } }).reconnect
        .maxOutageMs,
    ).toBe(Infinity);
    expect(() => parseOptions('KafkaSource', schema, { reconnect: { maxOutageMs: -1 } })).toThrow(
      'KafkaSource: reconnect.maxOutageMs must be a number of milliseconds >= 0, got -1',
    );
  });
});
