/**
 * A Kafka broker stopped for half a minute while exactly-once jobs run costs
 * a pause, not the job: one job runs through the API, one through `weir run`
 * (both against a private broker that this file stops and starts again).
 * Both resume by themselves, and their committed output is exactly that of a
 * run without the outage.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Consumer, Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaFormats, KafkaSink, KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';
import { startWeir } from '../cli/run-cli.js';
import { buildOutageJob, type OutageEvent, type OutageResult } from './fixtures/outage-job.js';
import { uniqueTopic, waitFor } from './helpers.js';
import { PrivateBroker } from './private-broker.js';

/**
 * How long the broker stays down: six times the connectors' request timeout
 * (5 s here), so that every client sees its requests time out and retries
 * many times with its backoff at the cap, yet well inside the 3-minute
 * outage budget (`reconnect.maxOutageMs`). WEIR_KAFKA_OUTAGE_MS sets another.
 */
const OUTAGE_MS = Number(process.env.WEIR_KAFKA_OUTAGE_MS ?? 30_000);
const KEYS = 5;
/** Records per job: half before the outage, half after. */
const RECORDS = 2_000;
const PARTITIONS = 2;

const broker = new PrivateBroker(
  'kafka-outage-test',
  Number(process.env.WEIR_KAFKA_OUTAGE_PORT ?? 19_092),
);
let dir: string | undefined;

beforeAll(async () => {
  await broker.destroy();
  await broker.up();
  dir = await mkdtemp(join(tmpdir(), 'weir-outage-'));
}, 240_000);

afterAll(async () => {
  await broker.destroy();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}, 120_000);

function event(i: number): OutageEvent {
  return { key: `k${i % KEYS}`, i };
}

/** Keyed, so each key stays in one partition and its running count has one order. */
async function produce(topic: string, from: number, to: number): Promise<void> {
  const producer = new Producer({
    clientId: 'weir-test',
    bootstrapBrokers: broker.brokers,
    idempotent: true,
  });
  try {
    for (let i = from; i < to; i += 500) {
      const slice = Array.from({ length: Math.min(500, to - i) }, (_, j) => event(i + j));
      await producer.send({
        messages: slice.map((e) => ({
          topic,
          key: Buffer.from(e.key),
          value: Buffer.from(JSON.stringify(e)),
        })),
      });
    }
  } finally {
    await producer.close();
  }
}

/** Everything committed in `topic` now, read with read_committed. */
async function committed(topic: string): Promise<string[]> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<OutageResult>();
  env
    .fromSource(
      new KafkaSource<OutageResult>({
        brokers: broker.brokers,
        topics: [topic],
        format: KafkaFormats.json<OutageResult>(),
        isolationLevel: 'read_committed',
        stopAt: 'latest',
      }),
    )
    .sinkTo(sink);
  await env.execute('read committed output');
  return canon(sink.values);
}

/**
 * Waits until every partition of `topic` is stable: its last stable offset
 * (where a read_committed read to 'latest' stops) is its high watermark.
 * EndTxn returns before the coordinator has written the transaction's
 * markers, so a read right after a job's last commit may stop before that
 * transaction. Returns the partitions still held back when `timeoutMs` passes
 * (none once stable).
 */
async function waitForStableEnd(
  topic: string,
  timeoutMs: number,
): Promise<{ partition: number; stable: bigint; high: bigint }[]> {
  const consumer = new Consumer({
    clientId: 'weir-test',
    bootstrapBrokers: broker.brokers,
    groupId: `${topic}-stable-end`,
  });
  try {
    const partitions = { [topic]: Array.from({ length: PARTITIONS }, (_, p) => p) };
    const ends = async (isolationLevel: 0 | 1) =>
      (
        await consumer.listOffsetsWithTimestamps({
          topics: [topic],
          partitions,
          timestamp: -1n,
          isolationLevel,
        })
      ).get(topic);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [stable, high] = await Promise.all([ends(1), ends(0)]);
      const held = partitions[topic]!.filter(
        (p) => stable?.get(p)?.offset !== high?.get(p)?.offset,
      );
      if (held.length === 0 || Date.now() > deadline)
        return held.map((partition) => ({
          partition,
          stable: BigInt(stable?.get(partition)?.offset ?? -1),
          high: BigInt(high?.get(partition)?.offset ?? -1),
        }));
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await consumer.close();
  }
}

/** Runs Kafka's kafka-transactions.sh (TransactionsCommand) against the test's broker. */
function transactionsCommand(...args: string[]): Promise<string> {
  return new Promise<string>((resolve) => {
    execFile(
      'bash',
      [
        fileURLToPath(new URL('../../scripts/kafka.sh', import.meta.url)),
        'run',
        'org.apache.kafka.tools.TransactionsCommand',
        '--bootstrap-server',
        broker.brokers[0]!,
        ...args,
      ],
      (error, stdout, stderr) => resolve(`${args[0]}: ${stdout}${stderr}${error?.message ?? ''}`),
    );
  });
}

/**
 * Kafka's own view of what holds `topic` back: the open transactions its
 * coordinator knows of (ids carry the topic's name), and a report of them,
 * the partitions' producers and hanging transactions for a failure message.
 */
async function openTransactions(topic: string): Promise<{ open: string[]; report: string }> {
  const run = transactionsCommand;
  const list = await run('list');
  const open = list
    .split('\n')
    .filter((l) => l.includes(topic) && !/Empty|CompleteCommit|CompleteAbort/.test(l));
  const out = [`open: ${open.join('\n') || 'none'}`];
  for (const id of open.map((l) => l.trim().split(/\s+/)[0]!))
    out.push(await run('describe', '--transactional-id', id));
  for (let p = 0; p < PARTITIONS; p++)
    out.push(await run('describe-producers', '--topic', topic, '--partition', String(p)));
  out.push(await run('find-hanging', '--broker-id', '1'));
  return { open, report: out.join('\n') };
}

const canon = (rs: readonly OutageResult[]) => rs.map((r) => `${r.key}/${r.i}/${r.count}`).sort();

/** What a run without failures commits: per key, the running count after each of its records. */
function expected(records = RECORDS): string[] {
  const counts = new Map<string, number>();
  const out: OutageResult[] = [];
  for (let i = 0; i < records; i++) {
    const { key } = event(i);
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    out.push({ key, i, count });
  }
  return canon(out);
}

/**
 * Records of the generated job, written at {@link GENERATED_RATE} per second:
 * they keep coming during the outage. The job starts once the other two have
 * committed, so its 60 s of input outlast its own start and the outage.
 */
const GENERATED = 1_500;
const GENERATED_RATE = 25;

/**
 * {@link waitFor} for checks that read topics through a whole job: every
 * 500 ms, not every 50, so that the waiting does not take the CPU the jobs
 * under test need.
 */
const waitForRead = (
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  diagnose?: () => string,
) =>
  waitFor(
    what,
    async () => (await check()) || new Promise<boolean>((r) => setTimeout(() => r(false), 500)),
    timeoutMs,
    diagnose,
  );

describe(`a Kafka broker down for ${OUTAGE_MS / 1000} s under exactly-once jobs`, () => {
  it('pauses the jobs, which resume by themselves with exact output', async () => {
    const apiIn = uniqueTopic('outage-api-in');
    const apiOut = uniqueTopic('outage-api-out');
    const cliIn = uniqueTopic('outage-cli-in');
    const cliOut = uniqueTopic('outage-cli-out');
    const genOut = uniqueTopic('outage-gen-out');
    for (const t of [apiIn, apiOut, cliIn, cliOut, genOut]) await broker.createTopic(t, PARTITIONS);
    await produce(apiIn, 0, RECORDS / 2);
    await produce(cliIn, 0, RECORDS / 2);

    // The job through the API: restart strategy as `weir run` sets it for checkpointed jobs.
    const warnings: string[] = [];
    const env = new StreamEnvironment({
      parallelism: 2,
      checkpointing: { directory: join(dir!, 'api-checkpoints'), intervalMs: 1_000 },
      restartStrategy: { kind: 'exponential-delay', maxBackoffMs: 10_000 },
    });
    buildOutageJob(env, {
      brokers: broker.brokers,
      input: apiIn,
      output: apiOut,
      prefix: `${apiOut}-tx`,
      onWarning: (m) => warnings.push(m),
    });
    const client = env.executeAsync('outage api');
    let ended: string | undefined;
    client.result.then(
      (r) => {
        ended = r.status;
      },
      (e: unknown) => {
        ended = `failed: ${e instanceof Error ? e.message : String(e)}`;
      },
    );

    // The same job through `weir run`, with its defaults for a checkpointed job.
    const cli = startWeir(
      [
        'run',
        'test/kafka/fixtures/outage-job.ts',
        '--workers',
        '0',
        '--parallelism',
        '2',
        '--checkpoint-dir',
        join(dir!, 'cli-checkpoints'),
        '--checkpoint-interval',
        '1',
        '--',
        broker.brokers.join(','),
        cliIn,
        cliOut,
        `${cliOut}-tx`,
      ],
      600_000,
    );
    let cliExited = false;
    void cli.done.then(() => {
      cliExited = true;
    });

    // A job whose sink has records to write while the broker is away: its
    // open transaction cannot be flushed, so the task fails and restarts from
    // the last checkpoint (aborting that transaction) until the broker is back.
    // Started once the other two have committed (below), so that a slow start
    // of theirs does not use up its input before the outage.
    const startGenerated = () => {
      const genEnv = new StreamEnvironment({
        parallelism: 2,
        checkpointing: { directory: join(dir!, 'gen-checkpoints'), intervalMs: 1_000 },
        restartStrategy: { kind: 'exponential-delay', maxBackoffMs: 10_000 },
      });
      genEnv
        .fromGenerator<OutageResult>({
          count: GENERATED,
          ratePerSecond: GENERATED_RATE,
          generate: (i) => ({ ...event(i), count: 1 }),
        })
        .uid('generated')
        .setParallelism(1)
        .keyBy((r) => r.key)
        .reduce((a, b) => ({ key: a.key, i: b.i, count: a.count + b.count }))
        .uid('count')
        .sinkTo(
          new KafkaSink<OutageResult>({
            brokers: broker.brokers,
            topic: genOut,
            format: KafkaFormats.json<OutageResult>(),
            key: (r) => r.key,
            deliveryGuarantee: 'exactly-once',
            transactionalIdPrefix: `${genOut}-tx`,
            requestTimeoutMs: 5_000,
            onWarning: (m) => genLog.push(`${new Date().toISOString()} ${m}`),
          }),
        )
        .uid('sink');
      const genClient = genEnv.executeAsync('outage generated');
      genClient.monitor.onRestart(({ cause }) => {
        restartCauses.push(cause instanceof Error ? cause.message : String(cause));
        genLog.push(`${new Date().toISOString()} restart after: ${restartCauses.at(-1)}`);
      });
      genClient.result.then(
        (r) => {
          genEnded = r.status;
        },
        (e: unknown) => {
          genEnded = `failed: ${e instanceof Error ? e.message : String(e)}`;
        },
      );
      return genClient;
    };
    const restartCauses: string[] = [];
    /** The generated job's restarts and its sink's warnings, for a failure message. */
    const genLog: string[] = [];
    let genEnded: string | undefined;
    let genClient: ReturnType<typeof startGenerated> | undefined;

    try {
      // Both jobs run and commit before the outage.
      await waitForRead(
        'the API job to complete checkpoints and commit output',
        async () =>
          client.metrics.total('weir_checkpoints_completed_total') >= 3 &&
          (await committed(apiOut)).length > 0,
        120_000,
      );
      await waitForRead(
        'the CLI job to commit output',
        async () => (await committed(cliOut)).length > 0,
        120_000,
      );
      const gen = startGenerated();
      genClient = gen;
      await waitForRead(
        'the generated job to commit output',
        async () => (await committed(genOut)).length > 0,
        120_000,
      );
      const before = {
        api: (await committed(apiOut)).length,
        cli: (await committed(cliOut)).length,
      };

      // The generated job must still have input to write when the broker goes.
      expect(gen.metrics.total('weir_source_records_total')).toBeLessThan(GENERATED);
      const down = Date.now();
      genLog.push(`${new Date().toISOString()} broker down`);
      await broker.down();
      await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - down)));
      // Paused, not ended.
      expect(ended).toBeUndefined();
      expect(genEnded).toBeUndefined();
      expect(cliExited, cli.output('stderr')).toBe(false);
      await broker.up();
      genLog.push(`${new Date().toISOString()} broker up`);
      const back = Date.now();

      await produce(apiIn, RECORDS / 2, RECORDS);
      await produce(cliIn, RECORDS / 2, RECORDS);
      const want = expected();
      let api: string[] = [];
      let viaCli: string[] = [];
      await waitForRead(
        'every result committed after the outage',
        async () => {
          api = await committed(apiOut);
          viaCli = await committed(cliOut);
          return api.length >= want.length && viaCli.length >= want.length;
        },
        240_000,
        () =>
          `api ${api.length}, cli ${viaCli.length} of ${want.length}; job ${client.monitor.status}; ` +
          `cli stderr: ${cli.output('stderr').slice(-2000)}`,
      );
      const resumedAfterMs = Date.now() - back;
      // A few more checkpoints: nothing more (no duplicate) may appear.
      const more = client.metrics.total('weir_checkpoints_completed_total') + 2;
      await waitFor(
        'two more checkpoints',
        () => client.metrics.total('weir_checkpoints_completed_total') >= more,
        60_000,
      );
      api = await committed(apiOut);
      viaCli = await committed(cliOut);

      expect(api).toEqual(want);
      expect(viaCli).toEqual(want);
      // The generated job runs out of input and finishes, every result committed once.
      await waitFor(
        'the generated job to finish',
        () => genEnded !== undefined,
        240_000,
        () => `${gen.monitor.status}; restarts: ${restartCauses.join(' | ')}`,
      );
      expect(genEnded).toBe('finished');
      // The job's last commit has returned, its markers may not be written yet.
      let held = await waitForStableEnd(genOut, 60_000);
      if (held.length > 0) {
        const heldText = held
          .map((h) => `${genOut}:${h.partition} stable ${h.stable} < high ${h.high}`)
          .join(', ');
        const { open, report } = await openTransactions(genOut);
        // A transaction of the job that its coordinator still has open: the restore did not
        // fence it. That is Weir's to fix.
        if (open.length > 0)
          expect.fail(
            `the generated job finished, but a transaction holds its output back: ${heldText}\n` +
              `${report}\n${genLog.slice(-80).join('\n')}`,
          );
        // Else a hanging transaction: records of a producer that the broker took while it
        // was shutting down, of a transaction its coordinator does not have open (no marker
        // was ever written for them), which nothing but an abort by an operator ends (Kafka's
        // `kafka-transactions.sh find-hanging` / `abort`). Seen in one or two of about thirty
        // runs under load; it is aborted as an operator would, and the output must still be exact.
        for (const h of held)
          await transactionsCommand(
            'abort',
            '--topic',
            genOut,
            '--partition',
            String(h.partition),
            '--start-offset',
            String(h.stable),
          );
        console.log(
          `hanging transaction(s) after the outage, aborted with kafka-transactions.sh: ${heldText}\n${report}`,
        );
        held = await waitForStableEnd(genOut, 60_000);
        expect(held).toEqual([]);
      }
      expect(await committed(genOut)).toEqual(expected(GENERATED));
      expect(restartCauses.length).toBeGreaterThanOrEqual(1);
      expect(ended).toBeUndefined();
      expect(client.monitor.status).toBe('running');
      expect(cliExited).toBe(false);
      // Every retry was logged with its cause and counted.
      const reconnects = client.metrics.total('weir_kafka_reconnects_total');
      expect(reconnects).toBeGreaterThan(0);
      expect(
        warnings.some((w) =>
          /could not .*, the Kafka cluster is unreachable .*; retry \d+ in/.test(w),
        ),
      ).toBe(true);
      expect(warnings.some((w) => /reconnected to the Kafka cluster after/.test(w))).toBe(true);
      const cliErr = cli.output('stderr');
      expect(cliErr).toMatch(/WEIR_KAFKA.*the Kafka cluster is unreachable/);
      console.log(
        `outage ${OUTAGE_MS} ms; committed before it: api ${before.api}, cli ${before.cli}; ` +
          `all ${want.length} committed ${resumedAfterMs} ms after the broker was back; ` +
          `api job: ${client.monitor.restarts()} restart(s), ${reconnects} reconnect retries, ` +
          `${client.metrics.total('weir_checkpoints_failed_total')} failed checkpoint(s); ` +
          `cli job restarts logged: ${(cliErr.match(/; restart \d+ in/g) ?? []).length}; ` +
          `generated job: ${restartCauses.length} restart(s), the first after: ${restartCauses[0]?.slice(0, 200)}`,
      );
    } finally {
      await client.cancel().catch(() => {});
      await genClient?.cancel().catch(() => {});
      cli.child.kill('SIGINT');
      await cli.done.catch(() => {});
    }
  }, 600_000);
});
