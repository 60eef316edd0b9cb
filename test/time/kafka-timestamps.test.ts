/**
 * The Kafka source stamps records itself (per partition, inside the source):
 * event times beyond the safe-integer range fail the job there, naming the
 * source, the record and the value. Needs the test broker.
 */
import { describe, expect, it } from 'vitest';
import { KafkaSource } from '../../src/connectors/kafka/index.js';
import { StreamEnvironment, WatermarkStrategy, WeirError } from '../../src/index.js';
import { BROKERS, createTopic, json, produce, uniqueTopic } from '../kafka/helpers.js';

interface Ev {
  readonly id: number;
  readonly t: number;
}

async function failure(job: Promise<unknown>): Promise<WeirError> {
  const error = await job.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return error as WeirError;
}

/**
 * Two partitions, ids 0..5; id 3 carries `t: 2^60`. (Kafka timestamps beyond
 * the safe range are refused by the broker itself, so that path is covered
 * by the unit tests of `checkTimestamps`.)
 */
async function topicWithBadRecord(): Promise<string> {
  const topic = uniqueTopic('bad-time');
  await createTopic(topic, 2);
  await produce(
    topic,
    Array.from({ length: 6 }, (_, id) => ({
      value: JSON.stringify({ id, t: id === 3 ? 2 ** 60 : id * 1000 }),
      partition: id % 2,
    })),
  );
  return topic;
}

describe.each([1, 2])('Kafka source event times at parallelism %i', (p) => {
  const run = (topic: string, strategy: WatermarkStrategy<Ev>, mode: 'assign' | 'group') =>
    new StreamEnvironment({ parallelism: p })
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          watermarks: strategy,
          ...(mode === 'assign'
            ? { stopAt: 'latest' as const }
            : {
                mode: 'group' as const,
                groupId: uniqueTopic('g'),
                startFrom: 'earliest' as const,
              }),
        }),
      )
      .uid('orders')
      .executeAndCollect();

  it.each(['assign', 'group'] as const)(
    'a timestamp assigner returning a time beyond the safe range (%s mode)',
    async (mode) => {
      const topic = await topicWithBadRecord();
      const error = await failure(
        run(
          topic,
          WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.t),
          mode,
        ),
      );
      expect(error.code).toBe('INVALID_TIMESTAMP');
      expect(error.operatorId).toBe('orders');
      expect(error.record).toBe(`{"id":3,"t":${2 ** 60}}`);
      expect(error.message).toContain(
        `timestamp assigner returned ${2 ** 60} for record {"id":3,"t":${2 ** 60}}`,
      );
    },
    30_000,
  );
});
