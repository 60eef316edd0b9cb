/**
 * Credentials never leave the process: SASL passwords, an OAUTHBEARER
 * token, a client key's password and the private keys themselves appear in
 * no REST answer of the web UI (job, graph, metrics, exceptions), no
 * Prometheus metric, no `explain()`, no logged warning, no error (message,
 * stack or any nested cause) and no CLI log, text or JSON, while jobs run
 * over secure connections and when a login is refused. Needs a private
 * broker with secure listeners.
 */
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaFormats, KafkaSink, KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, type JobClient, StreamEnvironment } from '../../src/index.js';
import { generateToken } from '../../src/ui/rest-token.js';
import { startWebUi, type WebUi } from '../../src/ui/server.js';
import { startBundledWeir } from '../cli/run-cli.js';
import { encryptedClientKey } from '../helpers/tls-certs.js';
import { send } from '../ui/http.js';
import { uniqueTopic } from './helpers.js';
import { type SecureBroker, startSecureBroker, unsecuredJwt } from './secure-broker.js';

const PORT = Number(process.env.WEIR_KAFKA_LEAK_PORT ?? 19130);
const USER = 'leak-user';
const PASSWORD = 'Leak-pw-93f1c2';
const WRONG_PASSWORD = 'Wrong-pw-77ab10';
const KEY_PASSWORD = 'Key-pw-5e6d42';
const TOKEN = unsecuredJwt(USER);

let sb: SecureBroker;
let ui: WebUi;
let encryptedKeyFile: string;
const restToken = generateToken();
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.message}\n${w.stack ?? ''}`);

/** Every string that must never be shown. */
function secrets(): string[] {
  // A line of base64 from the middle of each private key.
  const keyLine = (file: string) => readFileSync(file, 'utf8').split('\n')[3]!;
  return [
    PASSWORD,
    WRONG_PASSWORD,
    KEY_PASSWORD,
    TOKEN,
    TOKEN.split('.')[1]!,
    keyLine(sb.certs.clientKeyFile),
    keyLine(encryptedKeyFile),
  ];
}

function expectNoSecrets(where: string, text: string): void {
  for (const secret of secrets())
    expect(text.includes(secret), `${where} shows a secret`).toBe(false);
}

beforeAll(async () => {
  process.on('warning', onWarning);
  sb = await startSecureBroker('kafka-credential-leak-test', PORT, USER, PASSWORD);
  encryptedKeyFile = await encryptedClientKey(sb.certs, KEY_PASSWORD);
  ui = await startWebUi({ port: 0, token: restToken });
}, 240_000);

afterAll(async () => {
  process.off('warning', onWarning);
  await ui?.close();
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

async function count(topic: string): Promise<number> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<string>();
  env
    .fromSource(
      new KafkaSource<string>({
        brokers: sb.plaintext,
        topics: [topic],
        format: KafkaFormats.string(),
        stopAt: 'latest',
      }),
    )
    .sinkTo(sink);
  await env.execute('count');
  return sink.values.length;
}

/** Every readable resource of the REST API for `client`. */
async function everythingShown(client: JobClient): Promise<string> {
  const paths = [
    '/jobs',
    `/jobs/${client.jobId}`,
    `/jobs/${client.jobId}/metrics`,
    `/jobs/${client.jobId}/checkpoints`,
    `/jobs/${client.jobId}/exceptions`,
    '/metrics',
  ];
  const answers = await Promise.all(paths.map((path) => send(ui.url, { path })));
  for (const [i, answer] of answers.entries()) expect(answer.status, paths[i]).toBe(200);
  return answers.map((a) => a.body).join('\n');
}

describe('credentials', () => {
  it('are shown nowhere while jobs run over SCRAM, OAUTHBEARER and mutual TLS with an encrypted key', async () => {
    const input = uniqueTopic('leak-in');
    const viaTls = uniqueTopic('leak-mtls');
    const viaToken = uniqueTopic('leak-oauth');
    await sb.broker.createTopic(input, 1);
    await produce(input, ['a', 'b', 'c', 'd', 'e']);
    const env = new StreamEnvironment({ parallelism: 1 });
    const stream = env
      .fromSource(
        new KafkaSource<string>({
          brokers: sb.saslSsl,
          tls: { caFile: sb.certs.caFile },
          sasl: { mechanism: 'SCRAM-SHA-512', username: USER, password: PASSWORD },
          topics: [input],
          format: KafkaFormats.string(),
          stopAt: 'latest',
        }),
      )
      .uid('scram-source');
    stream
      .sinkTo(
        new KafkaSink<string>({
          brokers: sb.ssl,
          tls: {
            caFile: sb.certs.caFile,
            certFile: sb.certs.clientCertFile,
            keyFile: encryptedKeyFile,
            keyPassword: KEY_PASSWORD,
          },
          topic: viaTls,
          format: KafkaFormats.string(),
        }),
      )
      .uid('mtls-sink');
    stream
      .sinkTo(
        new KafkaSink<string>({
          brokers: sb.saslSsl,
          tls: { caFile: sb.certs.caFile },
          sasl: { mechanism: 'OAUTHBEARER', token: TOKEN },
          topic: viaToken,
          format: KafkaFormats.string(),
        }),
      )
      .uid('oauth-sink');
    expectNoSecrets('explain()', env.explain());
    const client = env.executeAsync('with secrets');
    ui.addJob(client);
    await client.result;
    expect(await count(viaTls)).toBe(5);
    expect(await count(viaToken)).toBe(5);
    expectNoSecrets('the REST API', await everythingShown(client));
    expectNoSecrets('warnings', warnings.join('\n'));
  }, 90_000);

  it('are shown nowhere when a login is refused', async () => {
    const input = uniqueTopic('leak-refused');
    await sb.broker.createTopic(input, 1);
    const env = new StreamEnvironment({ parallelism: 1 });
    env
      .fromSource(
        new KafkaSource<string>({
          brokers: sb.saslSsl,
          tls: { caFile: sb.certs.caFile },
          sasl: { mechanism: 'PLAIN', username: USER, password: WRONG_PASSWORD },
          topics: [input],
          format: KafkaFormats.string(),
          stopAt: 'latest',
        }),
      )
      .uid('refused-source')
      .sinkTo(
        new KafkaSink<string>({
          brokers: sb.saslSsl,
          tls: { caFile: sb.certs.caFile },
          sasl: { mechanism: 'OAUTHBEARER', tokenProvider: () => TOKEN },
          topic: uniqueTopic('leak-never'),
          format: KafkaFormats.string(),
        }),
      );
    const client = env.executeAsync('refused');
    ui.addJob(client);
    const error = await client.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('SASL authentication failed');
    // The message, the stack and every nested cause, with all their fields.
    expectNoSecrets('the error', inspect(error, { depth: 20, showHidden: true }));
    const shown = await everythingShown(client);
    expect(shown).toContain('SASL authentication failed');
    expectNoSecrets('the REST API', shown);
    expectNoSecrets('warnings', warnings.join('\n'));
  }, 60_000);

  it('are shown in no CLI log, text or JSON, when a login is refused', async () => {
    const input = uniqueTopic('leak-cli');
    await sb.broker.createTopic(input, 1);
    process.env.WEIR_TEST_KAFKA_PASSWORD = WRONG_PASSWORD;
    try {
      const args = [
        'test/kafka/fixtures/secure-job.ts',
        '--',
        sb.saslSsl[0]!,
        sb.certs.caFile,
        'SCRAM-SHA-256',
        USER,
        input,
      ];
      const [json, text] = await Promise.all([
        startBundledWeir(['run', '--log-format', 'json', ...args], 120_000).done,
        startBundledWeir(['run', '--verbose', ...args], 120_000).done,
      ]);
      for (const [name, run] of [
        ['JSON', json],
        ['text', text],
      ] as const) {
        expect(run.code, `${name}: ${run.stderr}`).not.toBe(0);
        const output = `${run.stdout}\n${run.stderr}`;
        expect(output, name).toContain('SASL authentication failed');
        expectNoSecrets(`the ${name} log`, output);
      }
      expect(() => JSON.parse(json.stderr.trim().split('\n').at(-1)!)).not.toThrow();
    } finally {
      delete process.env.WEIR_TEST_KAFKA_PASSWORD;
    }
  }, 150_000);
});
