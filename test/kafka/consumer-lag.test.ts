import { describe, expect, it } from 'vitest';
import { KafkaSource } from '../../src/connectors/kafka/index.js';
import type { RecordBatch, Sink, SinkWriter } from '../../src/index.js';
import { StreamEnvironment } from '../../src/index.js';
import { BROKERS, createTopic, json, produce, uniqueTopic, waitFor } from './helpers.js';

interface Ev {
  readonly id: number;
}

/** A sink that holds its task back (backpressure) until `open()` is called. */
class GateSink implements Sink<Ev> {
  readonly name = 'gate';
  readonly ids: number[] = [];
  private release: (() => void) | undefined;
  private gate: Promise<void> | undefined = new Promise((resolve) => {
    this.release = resolve;
  });

  open(): void {
    this.gate = undefined;
    this.release?.();
  }

  createWriter(): SinkWriter<Ev> {
    return {
      write: (batch: RecordBatch<Ev>) => {
        for (const e of batch.values) this.ids.push(e.id);
      },
      blocked: () => this.gate,
      close: () => {},
    };
  }
}

const events = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ value: JSON.stringify({ id: from + i }), partition: 0 }));

describe('Kafka consumer lag', () => {
  it('rises while the job is held back and the topic grows, and falls to 0 once it catches up', async () => {
    const topic = uniqueTopic('lag-rise');
    await createTopic(topic, 1);
    const sink = new GateSink();
    const env = new StreamEnvironment({ batchSize: 100 });
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          fetchMaxWaitMs: 50,
        }),
      )
      .uid('kafka')
      .sinkTo(sink);
    const job = env.executeAsync('lag');
    const labels = { operator: 'kafka', topic, partition: '0' };
    const lag = () => job.metrics.total('weir_kafka_partition_lag', labels);
    const offset = () => job.metrics.total('weir_kafka_partition_offset', labels);
    const seen = () => `lag ${lag()}, offset ${offset()}, written ${sink.ids.length}`;
    try {
      await waitFor(
        'the partition to be assigned',
        () => job.metrics.samples('weir_kafka_partition_lag', labels).length === 1,
      );
      expect(lag()).toBe(0);

      // Held back by the sink: at most a batch or two get through, the rest waits in Kafka.
      await produce(topic, events(0, 3_000));
      await waitFor(
        'lag of the first records',
        () => lag() > 0 && offset() + lag() === 3_000,
        20_000,
        seen,
      );
      const first = lag();
      expect(first).toBeGreaterThan(2_500);
      // The position is exactly what the source handed out.
      expect(offset()).toBe(job.metrics.total('weir_source_records_total', { operator: 'kafka' }));

      // The topic keeps growing while the job cannot take more: the lag grows with it.
      await produce(topic, events(3_000, 2_000));
      await waitFor('the lag to rise', () => offset() + lag() === 5_000, 20_000, seen);
      expect(lag()).toBeGreaterThan(first);
      expect(lag()).toBeLessThanOrEqual(5_000);

      sink.open();
      await waitFor(
        'the job to catch up',
        () => sink.ids.length === 5_000 && lag() === 0,
        20_000,
        seen,
      );
      expect(offset()).toBe(5_000);
      expect(sink.ids).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    } finally {
      sink.open();
      await job.cancel();
    }
  });
});
