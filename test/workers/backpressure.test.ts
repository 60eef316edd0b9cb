import { describe, expect, it } from 'vitest';
import { runJobModule } from '../../src/index.js';
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
