/**
 * The rule for sinks that commit on checkpoints: without checkpointing, a job
 * with such a sink and a source that never ends is refused when it is built
 * (it would commit nothing, silently); bounded jobs commit at the end of
 * their input, and jobs that take checkpoints commit on each.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaFormats, KafkaSink } from '../../src/connectors/kafka/index.js';
import { PostgresTransactionalSink } from '../../src/connectors/postgres/index.js';
import { ExactlyOnceFileSink, type Sink, StreamEnvironment, WeirError } from '../../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-commit-check-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const endless = { name: 'ticks', ratePerSecond: 1000, generate: (i: number) => i };

function kafkaSink(deliveryGuarantee: 'exactly-once' | 'at-least-once'): Sink<number> {
  return new KafkaSink<number>({
    brokers: ['127.0.0.1:1'],
    topic: 'never-written',
    format: KafkaFormats.json<number>(),
    deliveryGuarantee,
    ...(deliveryGuarantee === 'exactly-once' ? { transactionalIdPrefix: 'never' } : {}),
  });
}

describe('a sink that commits on checkpoints, without checkpointing', () => {
  const sinks: [string, () => Sink<number>][] = [
    ['ExactlyOnceFileSink', () => new ExactlyOnceFileSink<number>({ directory: join(dir, 'x') })],
    ['exactly-once KafkaSink', () => kafkaSink('exactly-once')],
    [
      'PostgresTransactionalSink',
      () =>
        new PostgresTransactionalSink<number>({
          connection: 'postgres://127.0.0.1:1/none',
          table: 'never_written',
        }),
    ],
  ];

  it.each(sinks)('%s after an endless source is refused when the job is built', (_, sink) => {
    const env = new StreamEnvironment();
    env.fromGenerator(endless).sinkTo(sink());
    let error: unknown;
    try {
      env.executeAsync('endless');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('INVALID_JOB');
    expect((error as Error).message).toMatch(
      /commits its output when a checkpoint completes, but this job takes no checkpoints and source 'ticks' never ends.*--checkpoint-dir/,
    );
  });

  it('is accepted after a bounded source, and commits at the end of the input', async () => {
    const out = join(dir, 'bounded');
    const env = new StreamEnvironment({ parallelism: 1 });
    env
      .fromGenerator({ ...endless, count: 5, ratePerSecond: undefined })
      .sinkTo(new ExactlyOnceFileSink<number>({ directory: out }));
    const result = await env.execute('bounded');
    expect(result.status).toBe('finished');
    const visible = (await readdir(out)).filter((f) => !f.startsWith('.'));
    expect(visible.length).toBeGreaterThan(0);
  });

  it('is accepted when the job takes checkpoints', async () => {
    const env = new StreamEnvironment({
      checkpointing: { directory: join(dir, 'chk'), intervalMs: 50 },
    });
    env
      .fromGenerator(endless)
      .sinkTo(new ExactlyOnceFileSink<number>({ directory: join(dir, 'c') }));
    const client = env.executeAsync('checkpointed');
    await client.cancel();
    expect((await client.result).status).toBe('cancelled');
  });

  it('does not apply to an at-least-once Kafka sink', () => {
    expect(kafkaSink('at-least-once').commitsOnCheckpoint).toBe(false);
    expect(kafkaSink('exactly-once').commitsOnCheckpoint).toBe(true);
  });
});
