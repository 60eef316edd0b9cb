import { describe, expect, it } from 'vitest';
import type { StreamMessage } from '../../src/core/messages.js';
import { StreamEnvironment } from '../../src/index.js';
import {
  DEBLOAT_PERIOD_MS,
  debloatedRecordLimit,
  InputDebloater,
  nextDrainRate,
  nextRecordLimit,
} from '../../src/runtime/task/buffer-debloat.js';
import { Channel } from '../../src/runtime/task/channel.js';
import { connectPeers, PeerChannels } from '../../src/runtime/workers/peer-channels.js';
import { Wakeup } from '../../src/runtime/workers/wakeup.js';

const batch = (n: number): StreamMessage<number> => ({
  kind: 'batch',
  batch: {
    values: new Array<number>(n).fill(0),
    timestamps: new Array<number>(n).fill(0),
    keys: undefined,
  },
});

describe('the record limit of a channel', () => {
  it('is what the drain rate takes in the target time, at least 1', () => {
    expect(debloatedRecordLimit(5000, 1000)).toBe(5000);
    expect(debloatedRecordLimit(5000, 200)).toBe(1000);
    expect(debloatedRecordLimit(1_000_000, 1000)).toBe(1_000_000);
    expect(debloatedRecordLimit(0.4, 1000)).toBe(1);
    expect(debloatedRecordLimit(0, 1000)).toBe(1);
    expect(debloatedRecordLimit(Number.NaN, 1000)).toBe(1);
  });

  it('falls at once when the rate falls, and rises at most to twice the limit or what was drained', () => {
    expect(nextRecordLimit(100_000, 300, 1000)).toBe(300);
    expect(nextRecordLimit(100_000, 300, 1000, 50_000)).toBe(300);
    expect(nextRecordLimit(1, 1_000_000, 1000)).toBe(2);
    expect(nextRecordLimit(4096, 1_000_000, 1000)).toBe(8192);
    expect(nextRecordLimit(1, 1_000_000, 1000, 30_000)).toBe(60_000);
    expect(nextRecordLimit(1, 20_000, 1000, 30_000)).toBe(20_000);
    let limit = 1;
    for (let period = 0; period < 20; period++) limit = nextRecordLimit(limit, 1_000_000, 1000);
    expect(limit).toBe(1_000_000);
  });
});

describe('the drain rate estimate', () => {
  it('starts at 0 and converges to a steady rate', () => {
    let rate = 0;
    rate = nextDrainRate(rate, 500, 100); // 5000 records/s
    expect(rate).toBeGreaterThan(0);
    expect(rate).toBeLessThan(5000);
    for (let i = 0; i < 300; i++) rate = nextDrainRate(rate, 500, 100);
    expect(rate).toBeGreaterThan(4990);
    expect(rate).toBeLessThanOrEqual(5000);
  });

  it('weighs a sample by the time it covers', () => {
    // After a steady 1000/s, a silent period of 2 s pulls the estimate down more than one of 100 ms.
    const long = nextDrainRate(1000, 0, 2000);
    const short = nextDrainRate(1000, 0, 100);
    expect(long).toBeLessThan(short);
    expect(short).toBeLessThan(1000);
  });

  it('smooths a consumer that takes a batch every 2 s to about its mean rate', () => {
    // 1024 records every 2 s (512/s), sampled every 100 ms: one full period, nineteen empty.
    let rate = 512;
    const seen: number[] = [];
    for (let i = 0; i < 400; i++) {
      rate = nextDrainRate(rate, i % 20 === 0 ? 1024 : 0, 100);
      if (i >= 200) seen.push(rate);
    }
    const mean = seen.reduce((a, b) => a + b, 0) / seen.length;
    expect(mean).toBeGreaterThan(400);
    expect(mean).toBeLessThan(620);
    expect(Math.max(...seen)).toBeLessThan(1024 * 2);
  });
});

describe('a channel with a record limit', () => {
  it('admits one batch when empty whatever the limit, then only below the limit, never above capacity', () => {
    const c = new Channel<number>(4);
    c.setRecordLimit(1);
    expect(c.hasRoom()).toBe(true);
    c.push(batch(1000));
    expect(c.hasRoom()).toBe(false);
    c.push({ kind: 'watermark', time: 1 }); // control messages are not counted
    c.setRecordLimit(2500);
    expect(c.hasRoom()).toBe(true);
    c.push(batch(1000));
    c.push(batch(1000));
    expect(c.queuedRecords).toBe(3000);
    expect(c.hasRoom()).toBe(false);
    c.setRecordLimit(Number.POSITIVE_INFINITY);
    expect(c.hasRoom()).toBe(true);
    c.push(batch(1));
    expect(c.hasRoom()).toBe(false); // capacity: 4 batches
    c.shift();
    c.shift();
    expect(c.consumedRecords).toBe(1000);
    expect(c.queuedRecords).toBe(2001);
  });
});

describe('the debloater of an input task', () => {
  /**
   * Keeps `c` as full as it admits (batches of 10 records) and drains
   * `perPeriod` records every period for `periods` periods; returns the time reached.
   */
  const drain = (
    d: InputDebloater,
    c: Channel<number>,
    perPeriod: number,
    periods: number,
    from: number,
  ): number => {
    let now = from;
    for (let p = 0; p < periods; p++) {
      while (c.hasRoom()) c.push(batch(10));
      let taken = 0;
      while (taken < perPeriod) {
        const m = c.shift();
        if (m === undefined) break;
        if (m.kind === 'batch') taken += m.batch.values.length;
      }
      now += DEBLOAT_PERIOD_MS;
      d.tick(now);
    }
    return now;
  };

  it('starts each channel at one batch and settles at what the consumer drains in the target time', () => {
    const c = new Channel<number>(1000);
    const d = new InputDebloater([c], 500);
    c.push(batch(10));
    expect(c.hasRoom()).toBe(false);
    c.shift();
    d.tick(0);
    // 200 records per 100 ms = 2000/s; target 500 ms: 1000 records.
    const now = drain(d, c, 200, 200, 0);
    expect(d.drainRates[0]).toBeGreaterThan(1900);
    expect(d.drainRates[0]).toBeLessThan(2100);
    expect(c.queuedRecords).toBeGreaterThan(500);
    expect(c.queuedRecords).toBeLessThanOrEqual(1000 + 10);
    // The consumer slows to 100/s: the backlog drains, and then at most 50 records (500 ms) queue.
    drain(d, c, 10, 200, now);
    expect(d.drainRates[0]).toBeGreaterThan(50);
    expect(d.drainRates[0]).toBeLessThan(150);
    expect(c.queuedRecords).toBeLessThanOrEqual(60);
  });

  it('bounds each channel of a task by its own drain rate', () => {
    const fast = new Channel<number>(1000);
    const slow = new Channel<number>(1000);
    const d = new InputDebloater([fast, slow], 1000);
    d.tick(0);
    let now = 0;
    for (let p = 0; p < 300; p++) {
      for (const [c, n] of [
        [fast, 1000],
        [slow, 100],
      ] as const) {
        while (c.hasRoom()) c.push(batch(100));
        for (let taken = 0; taken < n; taken += 100) c.shift();
      }
      now += DEBLOAT_PERIOD_MS;
      d.tick(now);
    }
    // 10,000/s and 1,000/s with a 1 s target.
    expect(fast.queuedRecords).toBeGreaterThan(5000);
    expect(fast.queuedRecords).toBeLessThanOrEqual(10_100);
    expect(slow.queuedRecords).toBeGreaterThan(500);
    expect(slow.queuedRecords).toBeLessThanOrEqual(1100);
  });

  it('ignores the time before the task first ran', () => {
    const c = new Channel<number>(8);
    const d = new InputDebloater([c], 1000);
    d.tick(60_000); // first step a minute after the task was built
    c.push(batch(100));
    c.shift();
    d.tick(60_100);
    // 100 records in the 100 ms since the first step (1000/s), not in the last minute (under 2/s).
    expect(d.drainRates[0]).toBeGreaterThan(20);
  });
});

describe('the record limit across worker threads', () => {
  it('travels with the credits: the sender keeps fewer records in flight than the receiver allows', async () => {
    const [linkA, linkB] = connectPeers();
    const a = new PeerChannels(linkA, new Wakeup());
    const b = new PeerChannels(linkB, new Wakeup());
    const sender = a.sender('0/0/0', 8, 1);
    const receiver = b.receiver('0/0/0');
    const deliver = async (from: PeerChannels, to: PeerChannels) => {
      from.flush(true);
      for (let i = 0; i < 100 && !to.poll(); i++) await new Promise((r) => setTimeout(r, 5));
    };
    // Slow start: one batch in flight.
    expect(sender.hasRoom()).toBe(true);
    sender.push(batch(600));
    sender.push({ kind: 'watermark', time: 1 }); // seals the batch
    expect(sender.hasRoom()).toBe(false);
    await deliver(a, b);
    expect(receiver.shift()?.kind).toBe('batch');
    receiver.setRecordLimit?.(1500);
    await deliver(b, a);
    // 1500 records may be in flight: batches of 600 while fewer are.
    expect(sender.hasRoom()).toBe(true);
    sender.push(batch(600));
    sender.push({ kind: 'watermark', time: 2 });
    expect(sender.hasRoom()).toBe(true);
    sender.push(batch(600));
    sender.push({ kind: 'watermark', time: 3 });
    expect(sender.hasRoom()).toBe(true);
    sender.push(batch(600));
    sender.push({ kind: 'watermark', time: 4 });
    expect(sender.hasRoom()).toBe(false);
    expect(receiver.consumedRecords).toBe(600);
    a.close();
    b.close();
  });
});

describe('the bufferDebloating option', () => {
  it('refuses a target that is not a positive whole number of milliseconds', () => {
    for (const targetMs of [0, -5, 1.5, Number.NaN]) {
      expect(() => new StreamEnvironment({ bufferDebloating: { targetMs } })).toThrow(
        /bufferDebloating\.targetMs must be a positive whole number/,
      );
    }
    expect(() => new StreamEnvironment({ bufferDebloating: { targetMs: 250 } })).not.toThrow();
    expect(() => new StreamEnvironment({ bufferDebloating: false })).not.toThrow();
  });
});
