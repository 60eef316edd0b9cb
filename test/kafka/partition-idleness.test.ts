import { describe, expect, it } from 'vitest';
import { PartitionTime } from '../../src/connectors/kafka/source/partition-time.js';
import { WatermarkStrategy } from '../../src/index.js';

const IDLE_MS = 400;
const generator = () =>
  WatermarkStrategy.forBoundedOutOfOrderness<number>(0).toSpec().createGenerator!();

/**
 * The combined watermark of a source takes the minimum over its partitions
 * that are not idle, and stays put while all are. A partition reads its last
 * records and goes quiet: the watermark of those records must count at least
 * once, however late the source next works its watermark out.
 */
describe('a Kafka partition goes idle', () => {
  it('only once the combined watermark has taken in the watermark of its last records', () => {
    const p = new PartitionTime<number>(generator(), 0);
    p.countIn();
    p.onRecord(5_000, 5_000, 100);
    p.periodic();
    // Quiet for far longer than the timeout, but its last record was never counted.
    expect(p.idle(true, 100 + 10 * IDLE_MS, IDLE_MS)).toBe(false);
    p.countIn();
    expect(p.idle(true, 100 + 10 * IDLE_MS, IDLE_MS)).toBe(true);
    // A new record makes it active again until counted and quiet.
    p.onRecord(6_000, 6_000, 5_000);
    expect(p.idle(true, 5_000 + IDLE_MS, IDLE_MS)).toBe(false);
    p.countIn();
    expect(p.idle(true, 5_000 + IDLE_MS - 1, IDLE_MS)).toBe(false);
    expect(p.idle(true, 5_000 + IDLE_MS, IDLE_MS)).toBe(true);
  });

  it('is never idle by time while it is not caught up, nor without an idleness timeout', () => {
    const p = new PartitionTime<number>(generator(), 0);
    p.onRecord(1, 1, 0);
    p.countIn();
    expect(p.idle(false, 10_000, IDLE_MS)).toBe(false);
    expect(p.idle(true, 10_000, undefined)).toBe(false);
  });

  it('without a watermark generator, goes idle by time alone', () => {
    const p = new PartitionTime<number>(undefined, 0);
    p.onRecord(1, 1, 0);
    expect(p.idle(true, IDLE_MS, IDLE_MS)).toBe(true);
  });
});
