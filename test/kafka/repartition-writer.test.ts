import { describe, it } from 'vitest';
import { setHeldTasks } from '../../src/connectors/kafka/group/held-tasks.js';
import {
  decodeEntry,
  repartitionTopicName,
} from '../../src/connectors/kafka/group/repartition-topic.js';
import { RepartitionSink } from '../../src/connectors/kafka/group/repartition-writer.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import { BROKERS, readRecords, uniqueTopic, waitFor, waitForStableEnd } from './helpers.js';

/** Idle marks of `producer` in each partition of `topic`. */
async function idleMarks(topic: string, producer: string): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const m of await readRecords(topic)) {
    const headers = new Map(m.headers.map(([k, v]) => [Buffer.from(k), v ?? Buffer.alloc(0)]));
    const e = decodeEntry(m.value ?? null, headers, `${m.topic}:${m.partition}@${m.offset}`);
    if (e.kind === 'mark' && e.producer === producer && e.mark.kind === 'idle')
      counts.set(m.partition, (counts.get(m.partition) ?? 0) + 1);
  }
  return counts;
}

/**
 * A repartition writer of input 0 into a new two-partition topic, opened as
 * the sink operator opens it (recover with nothing to commit, the topic
 * created), speaking for one task of its input that this process holds (a
 * reader says so). `done` releases the task and closes the writer.
 */
async function openWriter(prefix: string) {
  const app = uniqueTopic(prefix);
  const topic = repartitionTopicName(app, 'join');
  const input = uniqueTopic(`${prefix}-in`);
  const spec = { topic, partitions: 2, maxParallelism: 128, producerTopics: [[input]] };
  const sink = new RepartitionSink(
    BROKERS,
    app,
    spec,
    0,
    (v: never) => v,
    () => 'run-1',
  );
  const reader = {};
  setHeldTasks(reader, new Set([`${input}:0`]));
  const writer = sink.createWriter({
    subtaskIndex: 0,
    parallelism: 1,
    operatorId: 'join-exchange-out-0',
    metrics: new MetricRegistry().group({}),
  });
  const done = async () => {
    setHeldTasks(reader, new Set());
    await writer.close();
  };
  try {
    await writer.recover([]);
    await writer.blocked?.();
  } catch (e) {
    await done();
    throw e;
  }
  return { topic, input, writer, done };
}

describe('repartition writer', () => {
  it('says an unchanged mark again, so a consumer restored past it hears every producer', async () => {
    const { topic, input, writer, done } = await openWriter('rw');
    try {
      // An input partition without records is idle: its task says so, and says it again.
      writer.writeIdle?.();
      // Marks go out in the writer's transactions: commit one per poll, as checkpoints would.
      let counts = new Map<number, number>();
      let checkpoint = 0;
      await waitFor(
        'the idle mark to be said three times in every partition',
        async () => {
          await writer.commit([writer.preCommit(++checkpoint)]);
          counts = await idleMarks(topic, `0/${input}:0`);
          return (counts.get(0) ?? 0) >= 3 && (counts.get(1) ?? 0) >= 3;
        },
        30_000,
        () => JSON.stringify([...counts]),
      );
    } finally {
      await done();
    }
  }, 60_000);

  it('ends the transaction no checkpoint covers when it closes, so read_committed readers of its partitions go on', async () => {
    const { topic, writer, done } = await openWriter('rw-close');
    const batch = (values: string[]) => ({
      values,
      timestamps: values.map((_, i) => i),
      keys: undefined,
    });
    try {
      // Checkpoint 1 covers a and b; c and a mark in every partition come after
      // it, in a transaction that only a later checkpoint could commit.
      writer.write(batch(['a', 'b']));
      await writer.commit([writer.preCommit(1)]);
      writer.write(batch(['c']));
      writer.writeWatermark?.(5);
    } finally {
      await done();
    }
    // Left open, the transaction would hold back every partition's last stable
    // offset until the broker's transaction timeout (minutes): closing aborts it.
    await waitForStableEnd(topic, { timeoutMs: 20_000 });
  }, 60_000);
});
