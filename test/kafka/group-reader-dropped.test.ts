import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';
import {
  BROKERS,
  createTopic,
  groupOffsets,
  json,
  produce,
  uniqueTopic,
  waitFor,
} from './helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

interface Ev {
  readonly id: number;
}

const records = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({
    value: JSON.stringify({ id: from + i }),
    partition: (from + i) % 2,
  }));

describe('Kafka source in a process group (KIP-848 consumer protocol)', () => {
  it('a reader the group dropped joins again as a new member and goes on reading and committing', async () => {
    const topic = uniqueTopic('gr-drop-in');
    const applicationId = uniqueTopic('gr-drop-app');
    await createTopic(topic, 2);
    const dir = await mkdtemp(join(tmpdir(), 'weir-gr-drop-'));
    dirs.push(dir);
    const warnings: string[] = [];
    const env = new StreamEnvironment({
      parallelism: 1,
      checkpointing: { directory: dir, intervalMs: 200 },
    });
    const sink = new CollectSink<Ev>();
    // In a process group without keyed state, the source reads in group mode on the
    // consumer protocol, with the group's session timeout set to 6 s.
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          fetchMaxWaitMs: 50,
          onWarning: (line) => warnings.push(line),
        }).inProcessGroup({ applicationId, brokers: BROKERS }),
      )
      .sinkTo(sink);
    const job = env.executeAsync('dropped reader');
    const partitions = () => job.metrics.total('weir_kafka_source_partitions');
    const ids = () => new Set(sink.values.map((v) => v.id));
    try {
      await waitFor('both partitions', () => partitions() === 2, 30_000);
      await produce(topic, records(0, 100));
      await waitFor('the first 100 records', () => ids().size === 100, 30_000);

      // The process is starved (no heartbeat) past the group's 6 s session timeout: the
      // group drops the reader's member, whose client alone would heartbeat in vain from
      // then on, fetching partitions that are no longer its own and failing every commit.
      // 15 s: a broker on a loaded machine (load average 16 in CI) was seen not to have
      // expired the session 9 s in.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 15_000);
      await produce(topic, records(100, 200));
      const diagnose = () =>
        `${ids().size} ids, ${partitions()} partitions; ${warnings.join(' | ')}`;
      await waitFor('every record', () => ids().size === 200, 60_000, diagnose);
      expect(warnings.join('\n')).toMatch(/dropped this reader/);
      // Only a member the group knows commits: the offsets of the checkpoints after the pause.
      await waitFor(
        'the offsets committed by the new member',
        async () => {
          const o = await groupOffsets(applicationId, topic);
          return o[0] === 100 && o[1] === 100;
        },
        30_000,
        diagnose,
      );
      expect(partitions()).toBe(2);
    } finally {
      await job.cancel();
    }
  }, 120_000);
});
