import { describe, expect, it } from 'vitest';
import { runJobModule, startJobModule } from '../../src/index.js';
import { fixture } from './harness.js';

describe('backpressure between workers', () => {
  it('a slow sink on one worker holds back a fast source on another: in-flight batches stay within the channel capacity', async () => {
    const peakFor = async (records: number) => {
      const { result } = await runJobModule(fixture('slow-sink.ts'), {
        args: [String(records)],
        parallelism: 2,
        workers: 2,
        batchSize: 100,
        channelCapacity: 4,
        // The capacity alone: debloating would lower the limit by how fast the sink drains,
        // which depends on the machine's load (it has a test of its own below).
        bufferDebloating: false,
      });
      expect(result.metric('weir_source_records_total')).toBe(records);
      return result.metric('weir_worker_peak_in_flight_batches', { worker: '0' });
    };
    // 4x the input, same peak: memory does not grow with the backlog.
    const small = await peakFor(20_000);
    const large = await peakFor(80_000);
    expect(large).toBe(4); // the source did run ahead until the channel was full
    expect(small).toBeLessThanOrEqual(4);
    expect(large).toBeLessThanOrEqual(4);
  });
});

describe('buffer debloating between workers', () => {
  it('keeps fewer records in flight to a slow sink on another worker than the channel capacity would', async () => {
    // The remote sink subtask takes a batch of 512 every 400 ms: 1,280 records/s,
    // so with a 1 s target about 1,280 records (3 batches) may be in flight, not 8
    // batches. (Batches of 512 or more cross as they are; smaller ones are gathered.)
    const peakWith = async (bufferDebloating: boolean) => {
      const { result } = await runJobModule(fixture('throttled-sink.ts'), {
        args: ['12288', '400'],
        parallelism: 2,
        workers: 2,
        batchSize: 512,
        channelCapacity: 8,
        bufferDebloating,
      });
      expect(result.metric('weir_source_records_total')).toBe(12_288);
      return result.metric('weir_worker_peak_in_flight_batches', { worker: '0' });
    };
    // Side by side: each run mostly waits for its throttled sink.
    const [off, on] = await Promise.all([peakWith(false), peakWith(true)]);
    expect(off).toBe(8);
    expect(on).toBeGreaterThanOrEqual(1);
    expect(on).toBeLessThanOrEqual(4);
  }, 120_000);
});

describe('metrics of workers', () => {
  it('reach the job registry while the job runs, and add up to the final counts', async () => {
    const { client } = await startJobModule(fixture('slow-sink.ts'), {
      args: ['200000'],
      parallelism: 2,
      workers: 2,
      batchSize: 100,
      channelCapacity: 4,
    });
    let seenWhileRunning = 0;
    while (seenWhileRunning === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seenWhileRunning = client.metrics.total('weir_source_records_total');
    }
    const result = await client.result;
    expect(seenWhileRunning).toBeLessThan(200_000);
    expect(result.metric('weir_source_records_total')).toBe(200_000);
    expect(
      client.metrics.total('weir_operator_records_in_total', { subtask: '1' }),
    ).toBeGreaterThan(0);
  });
});
