/**
 * How a refused login or a failed TLS handshake is told from an outage, on
 * error trees shaped as the Kafka client builds them (no broker needed).
 */
import { describe, expect, it } from 'vitest';
import { isClusterUnreachable, KafkaReconnector } from '../../src/connectors/kafka/reconnect.js';
import { securityError, securityFailureOf } from '../../src/connectors/kafka/security.js';
import { WeirError } from '../../src/index.js';

/** The client's error for a refused SASL login, as seen from a metadata request. */
function refusedLogin(): Error {
  const protocol = Object.assign(new Error('SASL authentication failed.'), {
    code: 'PLT_KFK_PROTOCOL',
    apiId: 'SASL_AUTHENTICATION_FAILED',
  });
  const response = Object.assign(new Error('Received response with error'), {
    code: 'PLT_KFK_RESPONSE',
    errors: [protocol],
  });
  const auth = Object.assign(new Error('SASL authentication failed.', { cause: response }), {
    code: 'PLT_KFK_AUTHENTICATION',
  });
  const network = Object.assign(new Error('Connection to 10.0.0.7:9096 failed.', { cause: auth }), {
    code: 'PLT_KFK_NETWORK',
  });
  const any = Object.assign(new Error('Cannot connect to any broker.'), {
    code: 'PLT_KFK_MULTIPLE',
    errors: [network],
  });
  return Object.assign(new Error('metadata failed 2 times.'), {
    code: 'PLT_KFK_MULTIPLE',
    errors: [any, any],
  });
}

function untrustedCertificate(): Error {
  const tls = Object.assign(new Error('unable to verify the first certificate'), {
    code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  });
  return Object.assign(new Error('Connection to 10.0.0.7:9094 failed.', { cause: tls }), {
    code: 'PLT_KFK_NETWORK',
  });
}

const conn = {
  brokers: ['10.0.0.7:9096'],
  sasl: { mechanism: 'SCRAM-SHA-512', username: 'weir', password: 'Secret-1' },
  tls: {},
  reconnect: { maxOutageMs: 180_000, initialBackoffMs: 200, maxBackoffMs: 5_000 },
} as const;

describe('Kafka security failures', () => {
  it('are not an unreachable cluster, though wrapped in network errors', () => {
    expect(isClusterUnreachable(refusedLogin())).toBe(false);
    expect(isClusterUnreachable(untrustedCertificate())).toBe(false);
    expect(securityFailureOf(refusedLogin())).toMatchObject({
      kind: 'sasl',
      broker: '10.0.0.7:9096',
    });
    expect(securityFailureOf(untrustedCertificate())).toMatchObject({
      kind: 'tls',
      broker: '10.0.0.7:9094',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(securityFailureOf(refused)).toBeUndefined();
  });

  it('fail at once, naming the broker, the mechanism and the user, never the password', () => {
    const r = new KafkaReconnector(conn, "Kafka source 'orders'", {
      log: () => {},
      counter: undefined,
    });
    let thrown: unknown;
    try {
      r.failed(refusedLogin(), 'read its partitions', 'SOURCE_FAILED');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(WeirError);
    const e = thrown as WeirError;
    expect(e.code).toBe('SOURCE_FAILED');
    expect(e.retriable).toBe(false);
    expect(e.message).toBe(
      "Kafka source 'orders' cannot connect to broker 10.0.0.7:9096 (SASL SCRAM-SHA-512 as 'weir', TLS): " +
        'SASL authentication failed: SASL authentication failed. [SASL_AUTHENTICATION_FAILED]; ' +
        'check sasl (mechanism and credentials) and that the listener accepts this mechanism',
    );
    expect(e.message).not.toContain('Secret-1');
    const tls = securityError(untrustedCertificate(), conn, 'Kafka sink', 'SINK_FAILED')!;
    expect(tls.message).toContain(
      "Kafka sink cannot connect to broker 10.0.0.7:9094 (SASL SCRAM-SHA-512 as 'weir', TLS): TLS handshake failed: " +
        'unable to verify the first certificate [UNABLE_TO_VERIFY_LEAF_SIGNATURE]; check tls.caFile',
    );
  });
});
