import { describe, expect, it } from 'vitest';
import { PartitionTime } from '../../src/connectors/kafka/source/partition-time.js';
import { WatermarkStrategy } from '../../src/index.js';

const IDLE_MS = 400;
const generator = () =>
  WatermarkStrategy.forBoundedOutOfOrderness<number>(0).toSpec().createGenerator!();

/**
 * The combined watermark of a source takes the minimum over its partitions that are not idle.
 * A partition reads its last records and goes quiet: it goes idle only once the source's
 * watermark has reached the watermark of those records, however late the source next works its
 * watermark out, so that when every partition is idle their last records' watermark has counted.
 */
describe('a Kafka partition goes idle', () => {
  it("only once the source's watermark has reached its own", () => {
    const p = new PartitionTime<number>(generator(), 0);
    p.onRecord(5_000, 5_000, 100);
    p.periodic();
    // Quiet for far longer than the timeout, but the source's watermark is behind its own.
    expect(p.idle(true, 100 + 10 * IDLE_MS, IDLE_MS, Number.NEGATIVE_INFINITY)).toBe(false);
    expect(p.idle(true, 100 + 10 * IDLE_MS, IDLE_MS, p.watermark - 1)).toBe(false);
    expect(p.idle(true, 100 + 10 * IDLE_MS, IDLE_MS, p.watermark)).toBe(true);
    // A new record makes it active again until quiet for the timeout and reached.
    p.onRecord(6_000, 6_000, 5_000);
    p.periodic();
    expect(p.idle(true, 5_000 + IDLE_MS, IDLE_MS, 4_999)).toBe(false);
    expect(p.idle(true, 5_000 + IDLE_MS - 1, IDLE_MS, p.watermark)).toBe(false);
    expect(p.idle(true, 5_000 + IDLE_MS, IDLE_MS, p.watermark)).toBe(true);
  });

  it('without records, goes idle after the timeout since the reader opened', () => {
    const p = new PartitionTime<number>(generator(), 1_000);
    expect(p.idle(true, 1_000 + IDLE_MS - 1, IDLE_MS, Number.NEGATIVE_INFINITY)).toBe(false);
    expect(p.idle(true, 1_000 + IDLE_MS, IDLE_MS, Number.NEGATIVE_INFINITY)).toBe(true);
  });

  it('is never idle by time while it is not caught up, nor without an idleness timeout', () => {
    const p = new PartitionTime<number>(generator(), 0);
    p.onRecord(1, 1, 0);
    expect(p.idle(false, 10_000, IDLE_MS, Number.POSITIVE_INFINITY)).toBe(false);
    expect(p.idle(true, 10_000, undefined, Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('without a watermark generator, goes idle by time alone', () => {
    const p = new PartitionTime<number>(undefined, 0);
    p.onRecord(1, 1, 0);
    expect(p.idle(true, IDLE_MS, IDLE_MS, Number.NEGATIVE_INFINITY)).toBe(true);
  });
});
