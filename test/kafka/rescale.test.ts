/**
 * A Kafka source in assign mode restores at another parallelism: a job
 * stopped with a savepoint at parallelism 2 resumes at 1 and at 4 (the
 * partitions spread anew over the subtasks) and its exactly-once output holds
 * every record once, as an uninterrupted run's does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KafkaFormats, KafkaSource } from '../../src/connectors/kafka/index.js';
import { ExactlyOnceFileSink, StreamEnvironment } from '../../src/index.js';
import { committedLines } from '../helpers/committed-lines.js';
import { BROKERS, createTopic, produce, uniqueTopic, waitFor } from './helpers.js';

interface Event {
  readonly k: string;
  readonly n: number;
}

const PARTITIONS = 4;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function job(topic: string, parallelism: number, out: string, dir: string, bounded: boolean) {
  const env = new StreamEnvironment({
    parallelism,
    batchSize: 50,
    checkpointing: { directory: join(dir, `checkpoints-${parallelism}`), intervalMs: 200 },
  });
  env
    .fromSource(
      new KafkaSource<Event>({
        brokers: BROKERS,
        topics: [topic],
        format: KafkaFormats.json<Event>(),
        fetchMaxWaitMs: 50,
        ...(bounded ? { stopAt: 'latest' as const } : {}),
      }),
    )
    .uid('events')
    .map((e) => ({ k: e.k, n: e.n }))
    .uid('copy')
    .sinkTo(new ExactlyOnceFileSink<Event>({ directory: out }))
    .uid('sink');
  return env;
}

const events = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, j) => {
    const n = from + j;
    return { value: JSON.stringify({ k: `k${n % 11}`, n }), partition: n % PARTITIONS };
  });

describe('Kafka source savepoints at another parallelism', () => {
  it.each([1, 4])(
    'stopped at parallelism 2, resumed at %i: every record once',
    async (resumeAt) => {
      const dir = await mkdtemp(join(tmpdir(), 'weir-kafka-rescale-'));
      dirs.push(dir);
      const topic = uniqueTopic('rescale');
      await createTopic(topic, PARTITIONS);
      await produce(topic, events(0, 1000));
      const out = join(dir, 'out');
      const first = job(topic, 2, out, dir, false).executeAsync('first');
      await waitFor(
        'the first half committed',
        async () => (await committedLines(out).catch(() => [])).length >= 1000,
        60_000,
      );
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      expect((await committedLines(out)).length).toBe(1000);

      await produce(topic, events(1000, 2000));
      const second = job(topic, resumeAt, out, dir, true).executeAsync('second', {
        restoreFrom: savepoint,
      });
      expect((await second.result).status).toBe('finished');
      const lines = (await committedLines(out))
        .map((l) => (JSON.parse(l) as Event).n)
        .sort((a, b) => a - b);
      expect(lines).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    },
    180_000,
  );
});
