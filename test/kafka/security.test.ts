/**
 * Secure connections to Kafka, against a private broker with TLS and SASL
 * listeners and certificates made for the test: a source, a sink and the
 * dead-letter producer round-trip records over each SASL mechanism (PLAIN,
 * SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER with a static token and with a
 * token provider) and over mutual TLS; a wrong password and an unknown CA
 * fail at once with an error naming the broker and the mechanism, instead
 * of riding out the reconnect budget.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type KafkaConnectionOptions,
  KafkaFormats,
  KafkaSink,
  KafkaSource,
} from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import { encryptedClientKey } from '../helpers/tls-certs.js';
import { uniqueTopic } from './helpers.js';
import { type SecureBroker, startSecureBroker, unsecuredJwt } from './secure-broker.js';

const PORT = Number(process.env.WEIR_KAFKA_SECURITY_PORT ?? 19120);
const USER = 'weir-user';
const PASSWORD = 'Sec-pw-4711';

interface Ev {
  readonly id: number;
}

type Security = Pick<KafkaConnectionOptions, 'brokers' | 'sasl' | 'tls'>;

let sb: SecureBroker;

beforeAll(async () => {
  sb = await startSecureBroker('kafka-security-test', PORT, USER, PASSWORD);
}, 240_000);

afterAll(async () => {
  await sb?.stop();
}, 120_000);

async function produce(topic: string, values: readonly string[]): Promise<void> {
  const producer = new Producer({ clientId: 'weir-test', bootstrapBrokers: sb.plaintext });
  try {
    await producer.send({
      messages: values.map((v) => ({ topic, value: Buffer.from(v) })) as never,
    });
  } finally {
    await producer.close();
  }
}

/** Everything in `topic`, read over the secure connection `security`. */
async function readAll(security: Security, topic: string): Promise<string[]> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<string>();
  env
    .fromSource(
      new KafkaSource<string>({
        ...security,
        topics: [topic],
        format: KafkaFormats.string(),
        stopAt: 'latest',
      }),
    )
    .sinkTo(sink);
  await env.execute('read back');
  return sink.values;
}

/** Source (with a dead-letter topic) -> sink, all over `security`; returns what the sink and the dead letters hold. */
async function roundTrip(
  security: Security,
): Promise<{ out: string[]; dead: string[]; warnings: string[] }> {
  const warnings: string[] = [];
  const onWarning = (m: string) => warnings.push(m);
  const input = uniqueTopic('sec-in');
  const output = uniqueTopic('sec-out');
  const dlq = uniqueTopic('sec-dlq');
  await sb.broker.createTopic(input, 2);
  await produce(input, [
    ...Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: i })),
    'not json',
  ]);
  const env = new StreamEnvironment({ parallelism: 1 });
  env
    .fromSource(
      new KafkaSource<Ev>({
        ...security,
        topics: [input],
        format: KafkaFormats.json<Ev>(),
        stopAt: 'latest',
        onError: { deadLetterTopic: dlq },
        onWarning,
      }),
    )
    .map((e) => ({ id: e.id * 10 }))
    .sinkTo(
      new KafkaSink<Ev>({ ...security, topic: output, format: KafkaFormats.json<Ev>(), onWarning }),
    );
  await env.execute('secure round trip');
  const out = await readAll(security, output);
  return { out, dead: await readAll(security, dlq), warnings };
}

function expectRoundTrip(result: { out: string[]; dead: string[]; warnings: string[] }): void {
  // At-least-once: a record may be written twice, never lost.
  const ids = [...new Set(result.out.map((v) => (JSON.parse(v) as Ev).id))].sort((a, b) => a - b);
  expect(ids, result.warnings.join('\n')).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
  expect(new Set(result.dead)).toEqual(new Set(['not json']));
}

// Each case mostly waits for the broker, on topics of its own: the cases run concurrently.
describe.concurrent('Kafka over TLS and SASL', () => {
  it('round-trips with SASL PLAIN over TLS', async () => {
    expectRoundTrip(
      await roundTrip({
        brokers: sb.saslSsl,
        tls: { caFile: sb.certs.caFile },
        sasl: { mechanism: 'PLAIN', username: USER, password: PASSWORD },
      }),
    );
  }, 90_000);

  it('round-trips with SCRAM-SHA-256 over TLS', async () => {
    expectRoundTrip(
      await roundTrip({
        brokers: sb.saslSsl,
        tls: { caFile: sb.certs.caFile },
        sasl: { mechanism: 'SCRAM-SHA-256', username: USER, password: PASSWORD },
      }),
    );
  }, 90_000);

  it('round-trips with SCRAM-SHA-512 without TLS (SASL_PLAINTEXT)', async () => {
    expectRoundTrip(
      await roundTrip({
        brokers: sb.saslPlaintext,
        sasl: { mechanism: 'SCRAM-SHA-512', username: USER, password: PASSWORD },
      }),
    );
  }, 90_000);

  it('round-trips with OAUTHBEARER, a static token and a token provider', async () => {
    let asked = 0;
    const [withToken, withProvider] = await Promise.all([
      roundTrip({
        brokers: sb.saslSsl,
        tls: { caFile: sb.certs.caFile },
        sasl: { mechanism: 'OAUTHBEARER', token: unsecuredJwt(USER) },
      }),
      roundTrip({
        brokers: sb.saslSsl,
        tls: { caFile: sb.certs.caFile },
        sasl: {
          mechanism: 'OAUTHBEARER',
          tokenProvider: async () => {
            asked++;
            return unsecuredJwt(USER);
          },
        },
      }),
    ]);
    expectRoundTrip(withToken);
    expectRoundTrip(withProvider);
    // The sink's producer thread asks the writer's provider too.
    expect(asked).toBeGreaterThan(1);
  }, 120_000);

  it('writes exactly-once (Kafka transactions) over SCRAM-SHA-512 and TLS', async () => {
    const security: Security = {
      brokers: sb.saslSsl,
      tls: { caFile: sb.certs.caFile },
      sasl: { mechanism: 'SCRAM-SHA-512', username: USER, password: PASSWORD },
    };
    const output = uniqueTopic('sec-eos');
    const dir = await mkdtemp(join(tmpdir(), 'weir-sec-eos-'));
    try {
      const env = new StreamEnvironment({ checkpointing: { directory: dir, intervalMs: 200 } });
      env.fromArray(Array.from({ length: 10 }, (_, i) => ({ id: i }))).sinkTo(
        new KafkaSink<Ev>({
          ...security,
          topic: output,
          format: KafkaFormats.json<Ev>(),
          deliveryGuarantee: 'exactly-once',
          transactionalIdPrefix: `${output}-tx`,
          checkpointIntervalMs: 200,
        }),
      );
      await env.execute('secure exactly-once');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // read_committed: only committed transactions, each record once.
    const ids = (await readAll(security, output)).map((v) => (JSON.parse(v) as Ev).id);
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  }, 90_000);

  it("reads in mode 'group' (Kafka's group protocol) over SCRAM-SHA-256", async ({ expect }) => {
    const input = uniqueTopic('sec-group');
    await sb.broker.createTopic(input, 2);
    await produce(
      input,
      Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: i })),
    );
    const sink = new CollectSink<Ev>();
    const env = new StreamEnvironment({ parallelism: 1 });
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: sb.saslPlaintext,
          sasl: { mechanism: 'SCRAM-SHA-256', username: USER, password: PASSWORD },
          topics: [input],
          format: KafkaFormats.json<Ev>(),
          mode: 'group',
          groupId: `${input}-group`,
        }),
      )
      .sinkTo(sink);
    const job = env.executeAsync('secure group');
    let failed: unknown;
    job.result.catch((e: unknown) => {
      failed = e;
    });
    try {
      await expect
        .poll(() => (failed === undefined ? sink.values.length : -1), { timeout: 60_000 })
        .toBeGreaterThanOrEqual(10);
    } finally {
      await job.cancel();
    }
    expect(new Set(sink.values.map((e) => e.id)).size).toBe(10);
  }, 90_000);

  it('round-trips over mutual TLS (a client certificate)', async () => {
    expectRoundTrip(
      await roundTrip({
        brokers: sb.ssl,
        tls: {
          caFile: sb.certs.caFile,
          certFile: sb.certs.clientCertFile,
          keyFile: sb.certs.clientKeyFile,
        },
      }),
    );
  }, 90_000);
});

/** Runs a job reading `input` (and writing to `output`) and returns its failure and how long it took. */
async function failure(
  source: Security,
  sink: Security | undefined,
): Promise<{ error: WeirError; ms: number }> {
  const input = uniqueTopic('sec-fail-in');
  await sb.broker.createTopic(input, 1);
  await produce(input, [JSON.stringify({ id: 1 })]);
  const env = new StreamEnvironment({ parallelism: 1 });
  const stream = env.fromSource(
    new KafkaSource<Ev>({
      ...source,
      topics: [input],
      format: KafkaFormats.json<Ev>(),
      stopAt: 'latest',
    }),
  );
  if (sink === undefined) stream.sinkTo(new CollectSink<Ev>());
  else
    stream.sinkTo(
      new KafkaSink<Ev>({
        ...sink,
        topic: uniqueTopic('sec-fail-out'),
        format: KafkaFormats.json<Ev>(),
      }),
    );
  const started = Date.now();
  const error = await env.execute('failing').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return { error: error as WeirError, ms: Date.now() - started };
}

describe.concurrent('Kafka security failures', () => {
  // The reconnect budget is 3 minutes by default: these fail well before it.
  const QUICK_MS = 30_000;

  it('a wrong password fails the source at once, naming the broker and the mechanism', async () => {
    const { error, ms } = await failure(
      {
        brokers: sb.saslSsl,
        tls: { caFile: sb.certs.caFile },
        sasl: { mechanism: 'SCRAM-SHA-256', username: USER, password: 'wrong-Pw-123' },
      },
      undefined,
    );
    expect(ms).toBeLessThan(QUICK_MS);
    expect(error.code).toBe('SOURCE_FAILED');
    expect(error.message).toContain(`broker ${sb.saslSsl[0]}`);
    expect(error.message).toContain(`SASL SCRAM-SHA-256 as '${USER}'`);
    expect(error.message).toContain('SASL authentication failed');
    expect(error.message).not.toContain('wrong-Pw-123');
  }, 60_000);

  it('a wrong password fails the sink at once, naming the broker and the mechanism', async () => {
    const { error, ms } = await failure(
      { brokers: sb.plaintext },
      {
        brokers: sb.saslPlaintext,
        sasl: { mechanism: 'PLAIN', username: USER, password: 'wrong-Pw-456' },
      },
    );
    expect(ms).toBeLessThan(QUICK_MS);
    expect(error.code).toBe('SINK_FAILED');
    expect(error.message).toContain(`broker ${sb.saslPlaintext[0]}`);
    expect(error.message).toContain(`SASL PLAIN as '${USER}'`);
    expect(error.message).not.toContain('wrong-Pw-456');
  }, 60_000);

  it('a broker certificate from an unknown CA fails at once, naming the broker', async () => {
    const { error, ms } = await failure(
      {
        brokers: sb.saslSsl,
        tls: { caFile: sb.certs.otherCaFile },
        sasl: { mechanism: 'PLAIN', username: USER, password: PASSWORD },
      },
      undefined,
    );
    expect(ms).toBeLessThan(QUICK_MS);
    expect(error.message).toContain(`broker ${sb.saslSsl[0]}`);
    expect(error.message).toContain('TLS handshake failed');
    expect(error.message).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(error.message).toContain('SASL PLAIN');
  }, 60_000);

  it('a missing certificate file fails when the connector opens, naming the option and the file', async () => {
    const { error } = await failure(
      { brokers: sb.ssl, tls: { caFile: `${sb.certs.dir}/nowhere.pem` } },
      undefined,
    );
    expect(error.message).toContain(
      `tls.caFile '${sb.certs.dir}/nowhere.pem' cannot be read (ENOENT)`,
    );
  }, 60_000);

  it('a client key that cannot be decrypted fails when the connector opens, without the password', async () => {
    const keyFile = await encryptedClientKey(sb.certs, 'right-Key-pw');
    const { error } = await failure(
      {
        brokers: sb.ssl,
        tls: {
          caFile: sb.certs.caFile,
          certFile: sb.certs.clientCertFile,
          keyFile,
          keyPassword: 'wrong-Key-pw',
        },
      },
      undefined,
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('the key cannot be decrypted with tls.keyPassword');
    expect(error.message).not.toContain('wrong-Key-pw');
  }, 60_000);

  it('checks the options when the connector is made, without showing secrets', () => {
    const make = (options: object) => () =>
      new KafkaSource<Ev>({
        brokers: sb.saslSsl,
        topics: ['t'],
        format: KafkaFormats.json<Ev>(),
        ...options,
      } as never);
    expect(make({ sasl: { mechanism: 'GSSAPI', username: 'u', password: 'Hidden-1' } })).toThrow(
      /KafkaSource: sasl\.mechanism .*'PLAIN'/,
    );
    expect(
      make({ sasl: { mechanism: 'GSSAPI', username: 'u', password: 'Hidden-1' } }),
    ).not.toThrow(/Hidden-1/);
    expect(make({ sasl: { mechanism: 'PLAIN', username: 'u', password: 4711 } })).toThrow(
      /KafkaSource: sasl\.password must be a string, got a number$/,
    );
    expect(make({ sasl: { mechanism: 'OAUTHBEARER' } })).toThrow(
      /OAUTHBEARER needs exactly one of token and tokenProvider/,
    );
    expect(make({ tls: { certFile: '/x.pem' } })).toThrow(/tls needs both certFile and keyFile/);
  });
});
