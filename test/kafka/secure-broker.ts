/**
 * A private broker with secure listeners (scripts/kafka.sh with
 * WEIR_KAFKA_SECURE_DIR) and certificates made for the test: SASL_SSL on
 * `port` + 2, SSL with client certificates on `port` + 3, SASL_PLAINTEXT on
 * `port` + 4, and PLAINTEXT on `port` for test tooling.
 */
import { rm } from 'node:fs/promises';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certs.js';
import { PrivateBroker } from './private-broker.js';

export interface SecureBroker {
  readonly broker: PrivateBroker;
  readonly certs: TestCertificates;
  readonly user: string;
  readonly password: string;
  readonly plaintext: string[];
  readonly saslSsl: string[];
  readonly ssl: string[];
  readonly saslPlaintext: string[];
  stop(): Promise<void>;
}

/** Makes certificates and starts the broker; `stop` removes both. */
export async function startSecureBroker(
  name: string,
  port: number,
  user: string,
  password: string,
): Promise<SecureBroker> {
  const certs = await makeTestCertificates();
  const broker = new PrivateBroker(name, port, {
    WEIR_KAFKA_SECURE_DIR: certs.dir,
    WEIR_KAFKA_SASL_USER: user,
    WEIR_KAFKA_SASL_PASSWORD: password,
  });
  const stop = async () => {
    await broker.destroy();
    await rm(certs.dir, { recursive: true, force: true });
  };
  try {
    await broker.destroy();
    await broker.up();
  } catch (error) {
    await stop();
    throw error;
  }
  const at = (p: number) => [`127.0.0.1:${p}`];
  return {
    broker,
    certs,
    user,
    password,
    plaintext: at(port),
    saslSsl: at(port + 2),
    ssl: at(port + 3),
    saslPlaintext: at(port + 4),
    stop,
  };
}

/** An unsigned JWT that Kafka's unsecured OAUTHBEARER validator accepts. */
export function unsecuredJwt(subject: string, lifetimeSeconds = 3600): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none' })}.${part({ sub: subject, iat: now, exp: now + lifetimeSeconds })}.`;
}
