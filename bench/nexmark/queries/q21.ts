/**
 * q21, channel ids: a fixed id for the four hot channels (compared case-insensitively),
 * otherwise the `channel_id` parameter of the bid's url; bids with neither are dropped.
 */
import type { Bid } from '../../../src/connectors/nexmark/index.js';
import type { Collector } from '../../../src/index.js';
import { bids } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q21. */
export interface Q21Row {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly channel: string;
  readonly channelId: string;
}

const HOT_IDS: ReadonlyMap<string, string> = new Map([
  ['apple', '0'],
  ['google', '1'],
  ['facebook', '2'],
  ['baidu', '3'],
]);

/** The fixed id of a hot channel (`LOWER(channel)` is apple/google/facebook/baidu), else undefined. */
export function hotChannelId(channel: string): string | undefined {
  // Only names of 5, 6 or 8 characters can match: skip lowercasing the others.
  const n = channel.length;
  if (n !== 5 && n !== 6 && n !== 8) return undefined;
  return HOT_IDS.get(channel.toLowerCase());
}

const CHANNEL_ID = /(&|^)channel_id=([^&]*)/;

/** `REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)`: null when the url has no match. */
export function extractChannelId(url: string): string | null {
  const m = CHANNEL_ID.exec(url);
  return m === null ? null : (m[2] ?? null);
}

function channelIds(b: Bid, out: Collector<Q21Row>): void {
  const channelId = hotChannelId(b.channel) ?? extractChannelId(b.url);
  if (channelId === null) return;
  out.collect({
    auction: b.auction,
    bidder: b.bidder,
    price: b.price,
    channel: b.channel,
    channelId,
  });
}

export const q21: NexmarkQuery<Q21Row> = {
  name: 'q21',
  title: 'channel ids: hot channels by name, others from the url',
  deterministic: true,
  build: (events) => bids(events).flatMap(channelIds),
  toRow: (r) => [r.auction, r.bidder, r.price, r.channel, r.channelId],
};
