/**
 * The generator's events and the source's batches, pinned by digests recorded from the
 * generator as it was before its per-event work was cut: any change to how events are made
 * must leave every field, kind and timestamp exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import {
  type NexmarkConfig,
  type NexmarkEvent,
  NexmarkSource,
  nexmarkConfig,
  nexmarkEvent,
} from '../../src/connectors/nexmark/index.js';
import { systemClock } from '../../src/core/clock.js';
import { MetricRegistry } from '../../src/metrics/registry.js';

/** 32-bit FNV-1a over a string's UTF-16 code units. */
function fnv1a(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}
const FNV_START = 0x811c9dc5;

/** Digest of the first `perKind` events of each kind from `start` on, and how many were read. */
function kindDigests(config: NexmarkConfig, start: number, perKind: number): string {
  const seen = { person: 0, auction: 0, bid: 0 };
  const digest = { person: FNV_START, auction: FNV_START, bid: FNV_START };
  for (let i = start; seen.person < perKind || seen.auction < perKind || seen.bid < perKind; i++) {
    const e = nexmarkEvent(i, config);
    if (seen[e.type] >= perKind) continue;
    seen[e.type]++;
    digest[e.type] = fnv1a(digest[e.type], `${i}:${JSON.stringify(e)}`);
  }
  return `${digest.person >>> 0} ${digest.auction >>> 0} ${digest.bid >>> 0}`;
}

/** Digest of every batch subtask `s` of `parallelism` reads, from `from`, values and timestamps. */
function sourceDigest(
  config: Partial<NexmarkConfig>,
  parallelism: number,
  batchSize: number,
  from?: number,
): string {
  const source = new NexmarkSource({ config });
  let h = FNV_START;
  let records = 0;
  for (let s = 0; s < parallelism; s++) {
    const reader = source.createReader({
      subtaskIndex: s,
      parallelism,
      batchSize,
      clock: systemClock,
      metrics: new MetricRegistry().group({ operator: 'nexmark' }),
      operatorId: 'nexmark',
      restoredPosition: from === undefined ? undefined : from + s,
    });
    for (let batch = reader.poll(); batch !== 'end'; batch = reader.poll()) {
      if (typeof batch === 'string') throw new Error(`unexpected ${batch}`);
      const values = batch.values as readonly NexmarkEvent[];
      expect(batch.timestamps).toHaveLength(values.length);
      h = fnv1a(h, `[${values.length}]${JSON.stringify(values)}${batch.timestamps.join(',')}`);
      records += values.length;
    }
  }
  return `${h >>> 0}/${records}`;
}

const odd: Partial<NexmarkConfig> = {
  seed: -77,
  eventsPerSecond: 3,
  personProportion: 2,
  auctionProportion: 5,
  bidProportion: 13,
  numActivePeople: 3,
  numInFlightAuctions: 7,
  hotAuctionRatio: 1,
  hotBiddersRatio: 3,
  hotSellersRatio: 1,
  avgPersonByteSize: 20,
  avgAuctionByteSize: 3000,
  avgBidByteSize: 33,
  numChannels: 17,
};

describe('nexmark generator digests (recorded before the per-event cuts)', () => {
  it('makes the same events of each kind, by index', () => {
    expect(kindDigests(nexmarkConfig(), 0, 2000)).toBe('908045148 2186466699 2183175257');
    expect(kindDigests(nexmarkConfig({ seed: 9 }), 2 ** 40 + 3, 500)).toBe(
      '4217755486 3124009199 305143646',
    );
    expect(kindDigests(nexmarkConfig(odd), 1_000_003, 500)).toBe(
      '4205237768 1519862947 3578027324',
    );
  });

  it('makes the same events where a draw needs two outputs (ranges above 2^21)', () => {
    const wide: Partial<NexmarkConfig> = {
      seed: 3,
      numActivePeople: 2 ** 31,
      numInFlightAuctions: 2 ** 31,
      hotAuctionRatio: 2 ** 31,
      hotBiddersRatio: 2 ** 22 + 1,
      numChannels: 1000,
    };
    expect(kindDigests(nexmarkConfig(wide), 2 ** 40 + 11, 300)).toBe(
      '2634614654 2612266367 1413680015',
    );
    // Bids padded beyond the extra pool: a 2.4 M spread and strings of several pool lengths.
    expect(kindDigests(nexmarkConfig({ ...wide, avgBidByteSize: 6_000_000 }), 5, 4)).toBe(
      '1371271621 1356989630 462916764',
    );
  });

  it('reads the same batches at every parallelism and from a restored position', () => {
    expect(sourceDigest({ maxEvents: 20_000 }, 1, 1024)).toBe('2172521774/20000');
    expect(sourceDigest({ maxEvents: 20_000, seed: 4 }, 3, 7)).toBe('3997446657/20000');
    expect(sourceDigest({ ...odd, maxEvents: 5_000 }, 4, 100)).toBe('1131883800/5000');
    expect(sourceDigest({ ...odd, maxEvents: 2 ** 40 + 3_000 }, 2, 64, 2 ** 40)).toBe(
      '4030505150/3000',
    );
  });
});
