/**
 * Deterministic, splittable Nexmark event generator.
 *
 * Event number `i` (its "index", 0-based) is a pure function of `(config, i)`:
 *
 * - Its kind comes from `i mod totalProportion`: the first `personProportion` slots of each
 *   cycle are persons, the next `auctionProportion` auctions, the rest bids (1:3:46 by default).
 * - Its event time is `baseTime + floor(i * 1000 / eventsPerSecond)` (see
 *   {@link nexmarkEventTimestamp}), so times are non-decreasing in `i`.
 * - Person and auction ids are dense: the k-th person (base 0) has id `FIRST_PERSON_ID + k`,
 *   likewise auctions. Bids and auctions refer to people/auctions relative to the last id issued
 *   at or before `i` (the "lastBase0" functions), with a small lead into the future, exactly as
 *   in the reference generator.
 * - All random fields come from the PRNG in `prng.ts`, re-seeded from `(seed, i)` for every
 *   event, plus fixed lookup tables built from constant seeds (text pools, channel URLs, price
 *   quantiles).
 *
 * Hence subtask `s` of `P` can generate indexes `s, s+P, s+2P, ...` independently and the union
 * over all subtasks is exactly the sequential stream ({@link NexmarkGenerator}).
 *
 * Differences from the reference (nexmark/nexmark, Beam): the random streams are our own (see
 * `prng.ts`); strings are slices of fixed random text pools rather than built char by char;
 * prices use a 4096-entry log-uniform quantile table with linear interpolation instead of
 * `Math.pow` per event (bit-exact across platforms); the bidder id is offset by
 * `FIRST_PERSON_ID` once (the Flink port adds it twice); out-of-order groups and rate shapes
 * are not modelled. The draw order per event is part of the spec and is listed on the
 * `nextPerson`/`nextAuction`/`nextBid` helpers below.
 */

import { type NexmarkConfig, totalProportion } from '../config.js';
import {
  type Auction,
  type Bid,
  FIRST_AUCTION_ID,
  FIRST_CATEGORY_ID,
  FIRST_PERSON_ID,
  type NexmarkEvent,
  type NexmarkEventType,
  NUM_CATEGORIES,
  type Person,
} from '../model.js';
import { nextBelow, nextInt32, seedEvent, seedKey, setState } from './prng.js';

/** How many not-yet-created person ids a cold bidder/seller pick may reach ahead. */
export const PERSON_ID_LEAD = 10;

/** How many not-yet-created auction ids a cold auction pick may reach ahead. */
export const AUCTION_ID_LEAD = 10;

/** Hot auctions: the first auction of the current batch of this many auctions. */
export const HOT_AUCTION_BATCH = 100;

/** Hot bidders: the second person of the current batch of this many people. */
export const HOT_BIDDER_BATCH = 100;

/** Hot sellers: the first person of the current batch of this many people. */
export const HOT_SELLER_BATCH = 100;

/** The hot bid channels; a bid uses one of them with probability 1/2. */
export const HOT_CHANNELS: readonly string[] = Object.freeze([
  'Google',
  'Facebook',
  'Baidu',
  'Apple',
]);

// ---------------------------------------------------------------------------------------------
// Fixed lookup tables
// ---------------------------------------------------------------------------------------------

const FIRST_NAMES = [
  'Peter',
  'Paul',
  'Luke',
  'John',
  'Saul',
  'Vicky',
  'Kate',
  'Julie',
  'Sarah',
  'Deiter',
  'Walter',
];
const LAST_NAMES = [
  'Shultz',
  'Abrams',
  'Spencer',
  'White',
  'Bartels',
  'Walton',
  'Smith',
  'Jones',
  'Noris',
];
/** `FULL_NAMES[f * LAST_NAMES.length + l]` = first name f + ' ' + last name l (99 entries). */
const FULL_NAMES: readonly string[] = FIRST_NAMES.flatMap((f) =>
  LAST_NAMES.map((l) => `${f} ${l}`),
);
const CITIES = [
  'Phoenix',
  'Los Angeles',
  'San Francisco',
  'Boise',
  'Portland',
  'Bend',
  'Redmond',
  'Seattle',
  'Kent',
  'Cheyenne',
];
const STATES = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'];
/** `"0000" .. "9999"`. */
const DIGITS4: readonly string[] = Array.from({ length: 10_000 }, (_, i) =>
  String(i).padStart(4, '0'),
);

/** Length of the pool random short strings (names, descriptions, e-mails) are sliced from. */
export const TEXT_POOL_LENGTH = 1 << 18;
/** Length of the pool `extra` padding is sliced from. */
export const EXTRA_POOL_LENGTH = 1 << 20;
/** Constant PRNG states the fixed tables are drawn from ('TEXT', 'EXTR', 'CHAN'). */
const TEXT_POOL_STATE = 0x54455854;
const EXTRA_POOL_STATE = 0x45585452;
const CHANNEL_STATE = 0x4348414e;

/** Number of price quantile segments (2^12); see {@link nextPrice}. */
const PRICE_SEGMENTS = 4096;
/**
 * `PRICE_TABLE[j] = round(100 * 10^(6j/4096))`, j = 0..4096: log-uniform quantiles of a price
 * in cents between $1 and $1,000,000. Every unrounded value is at least 1e-4 away from a
 * rounding boundary, so any faithfully rounded `pow` (e.g. Java `StrictMath.pow`) yields the
 * same table (its sum is 29 697 835 158).
 */
const PRICE_TABLE: Float64Array = (() => {
  const t = new Float64Array(PRICE_SEGMENTS + 1);
  for (let j = 0; j <= PRICE_SEGMENTS; j++)
    t[j] = Math.round(100 * 10 ** ((6 * j) / PRICE_SEGMENTS));
  return t;
})();

let textPool = '';
let extraPool = '';
/** Number of entries built in the channel tables (0 = no table built yet). */
let builtChannels = 0;
let channelNames: string[] = [];
let channelUrls: string[] = [];
let hotUrls: string[] = [];

/**
 * String of `length` chars from the current PRNG stream. Per char, if `special` is non-zero:
 * one draw `nextBelow(13)`, and if it is 0 the char is `special`, otherwise a second draw gives
 * `'a' + nextBelow(26)`; with `special` 0 only the letter draw is made.
 */
function drawChars(length: number, special: number): string {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    bytes[i] = special !== 0 && nextBelow(13) === 0 ? special : 97 + nextBelow(26);
  }
  return Buffer.from(bytes.buffer, 0, length).toString('latin1');
}

/**
 * `s` as one flat string of its own. Concatenation makes a rope (a V8 cons string), which
 * every `split`, `indexOf` or regular expression over it must walk or flatten again; the
 * tables' strings are read by every bid, so they are flattened once when built.
 */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1');
}

/** 32-bit bit reversal, returned as a signed 32-bit int (like Java `Integer.reverse`). */
function reverse32(x: number): number {
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1);
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2);
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
  return (x >>> 16) | (x << 16);
}

/** `https://www.nexmark.com/<seg>/<seg>/<seg>/item.htm?query=1`, seg = 3–4 chars, '_' w.p. 1/13. */
function drawBaseUrl(): string {
  const a = drawChars(3 + nextBelow(2), 95);
  const b = drawChars(3 + nextBelow(2), 95);
  const c = drawChars(3 + nextBelow(2), 95);
  return `https://www.nexmark.com/${a}/${b}/${c}/item.htm?query=1`;
}

/**
 * Build the fixed tables. Each comes from its own constant-seeded stream, so they are identical
 * in every process: text pool (letters, ' ' w.p. 1/13), extra pool (letters), then the channel
 * stream: 4 hot URLs, then per channel i a base URL and, if `nextBelow(10) > 0`, the suffix
 * `&channel_id=<|reverse32(i)| as a signed int widened to 64 bits>`. The channel table for n
 * channels is a prefix of the one for n+1.
 */
function buildTables(numChannels: number): void {
  if (textPool === '') {
    setState(TEXT_POOL_STATE);
    textPool = drawChars(TEXT_POOL_LENGTH, 32);
    setState(EXTRA_POOL_STATE);
    extraPool = drawChars(EXTRA_POOL_LENGTH, 0);
  }
  setState(CHANNEL_STATE);
  const hot: string[] = [];
  for (let i = 0; i < HOT_CHANNELS.length; i++) hot.push(flat(drawBaseUrl()));
  const names: string[] = new Array(numChannels);
  const urls: string[] = new Array(numChannels);
  for (let i = 0; i < numChannels; i++) {
    let url = drawBaseUrl();
    if (nextBelow(10) > 0) url = `${url}&channel_id=${Math.abs(reverse32(i))}`;
    names[i] = flat(`channel-${i}`);
    urls[i] = flat(url);
  }
  hotUrls = hot;
  channelNames = names;
  channelUrls = urls;
  builtChannels = numChannels;
}

// ---------------------------------------------------------------------------------------------
// Random field helpers (all draw from the per-event PRNG stream)
// ---------------------------------------------------------------------------------------------

/**
 * Random string of up to `maxLength - 1` chars: length `3 + nextBelow(maxLength - 3)`, then
 * offset `nextBelow(TEXT_POOL_LENGTH - length + 1)` into the text pool, trimmed of spaces.
 */
function nextString(maxLength: number): string {
  const length = 3 + nextBelow(maxLength - 3);
  const offset = nextBelow(TEXT_POOL_LENGTH - length + 1);
  return textPool.slice(offset, offset + length).trim();
}

/** Exactly `length` letters sliced from the extra pool (no draw when `length` is 0). */
function nextExactString(length: number): string {
  if (length === 0) return '';
  if (length <= EXTRA_POOL_LENGTH) {
    const offset = nextBelow(EXTRA_POOL_LENGTH - length + 1);
    return extraPool.slice(offset, offset + length);
  }
  let out = '';
  while (length > 0) {
    const take = Math.min(length, EXTRA_POOL_LENGTH);
    const offset = nextBelow(EXTRA_POOL_LENGTH - take + 1);
    out += extraPool.slice(offset, offset + take);
    length -= take;
  }
  return out;
}

/**
 * Padding so that `currentSize + extra.length` averages `averageSize` (as the reference):
 * empty if `currentSize > averageSize`; otherwise with `rest = averageSize - currentSize` and
 * `delta = round(rest / 5)`, the length is `rest - delta + (delta ? nextBelow(2 * delta) : 0)`.
 */
function nextExtra(currentSize: number, averageSize: number): string {
  if (currentSize > averageSize) return '';
  const rest = averageSize - currentSize;
  const delta = Math.floor((rest + 2) / 5);
  const size = rest - delta + (delta === 0 ? 0 : nextBelow(2 * delta));
  return nextExactString(size);
}

/**
 * Log-uniform price in cents in `[100, 10^8)`: one draw `x`; segment `j = x >>> 20`, fraction
 * `f = x & 0xfffff`; price = `T[j] + floor((T[j+1] - T[j]) * f / 2^20)` with `T` the price table.
 */
function nextPrice(): number {
  const x = nextInt32() >>> 0;
  const j = x >>> 20;
  const lo = PRICE_TABLE[j]!;
  const hi = PRICE_TABLE[j + 1]!;
  return lo + Math.floor(((hi - lo) * (x & 0xfffff)) / 1048576);
}

// ---------------------------------------------------------------------------------------------
// Id spaces
// ---------------------------------------------------------------------------------------------

/**
 * Base-0 number of the last person created at or before event `eventId` (the person created by
 * `eventId` itself if it is a person event).
 */
export function lastBase0PersonId(eventId: number, config: NexmarkConfig): number {
  const total = totalProportion(config);
  const epoch = Math.floor(eventId / total);
  let offset = eventId - epoch * total;
  if (offset >= config.personProportion) offset = config.personProportion - 1;
  return epoch * config.personProportion + offset;
}

/**
 * Base-0 number of the last auction created at or before event `eventId` (the auction created
 * by `eventId` itself if it is an auction event). Is -1 before the first auction.
 */
export function lastBase0AuctionId(eventId: number, config: NexmarkConfig): number {
  const total = totalProportion(config);
  let epoch = Math.floor(eventId / total);
  let offset = eventId - epoch * total;
  if (offset < config.personProportion) {
    epoch--;
    offset = config.auctionProportion - 1;
  } else if (offset >= config.personProportion + config.auctionProportion) {
    offset = config.auctionProportion - 1;
  } else {
    offset -= config.personProportion;
  }
  return epoch * config.auctionProportion + offset;
}

/**
 * Cold person pick: uniform over the last `numActivePeople` people plus PERSON_ID_LEAD ahead;
 * `lastPerson` is {@link lastBase0PersonId} of the event.
 */
function nextBase0PersonId(lastPerson: number, config: NexmarkConfig): number {
  const numPeople = lastPerson + 1;
  const active = Math.min(numPeople, config.numActivePeople);
  return numPeople - active + nextBelow(active + PERSON_ID_LEAD);
}

/**
 * Cold auction pick: uniform over the last `numInFlightAuctions` auctions plus a lead;
 * `lastAuction` is {@link lastBase0AuctionId} of the event.
 */
function nextBase0AuctionId(lastAuction: number, config: NexmarkConfig): number {
  const maxAuction = lastAuction;
  const minAuction = Math.max(maxAuction - config.numInFlightAuctions, 0);
  return minAuction + nextBelow(maxAuction - minAuction + 1 + AUCTION_ID_LEAD);
}

// ---------------------------------------------------------------------------------------------
// Public per-index functions
// ---------------------------------------------------------------------------------------------

/**
 * Event time (epoch ms) of event `index`: `baseTime + floor(index * 1000 / eventsPerSecond)`,
 * computed exactly in integer arithmetic (valid while `index * 1000 / eventsPerSecond < 2^53`).
 * Equals the reference's `baseTime + (index * interEventDelayUs) / 1000` whenever the
 * inter-event delay `10^6 / eventsPerSecond` is a whole number of microseconds.
 */
export function nexmarkEventTimestamp(index: number, config: NexmarkConfig): number {
  const rate = config.eventsPerSecond;
  const seconds = Math.floor(index / rate);
  const rest = index - seconds * rate;
  return config.baseTime + seconds * 1000 + Math.floor((rest * 1000) / rate);
}

/** Kind of event `index`, from its position in the proportion cycle. */
export function nexmarkEventType(index: number, config: NexmarkConfig): NexmarkEventType {
  const slot = index % totalProportion(config);
  if (slot < config.personProportion) return 'person';
  if (slot < config.personProportion + config.auctionProportion) return 'auction';
  return 'bid';
}

/**
 * Draw order: name `nextBelow(99)`; e-mail local part `nextString(7)`, domain `nextString(5)`;
 * four credit-card groups `nextBelow(10000)`; city `nextBelow(10)`; state `nextBelow(6)`; extra.
 */
function nextPerson(lastPerson: number, timestamp: number, config: NexmarkConfig): Person {
  const id = lastPerson + FIRST_PERSON_ID;
  const name = FULL_NAMES[nextBelow(99)]!;
  const local = nextString(7);
  const emailAddress = `${local}@${nextString(5)}.com`;
  const g1 = DIGITS4[nextBelow(10_000)]!;
  const g2 = DIGITS4[nextBelow(10_000)]!;
  const g3 = DIGITS4[nextBelow(10_000)]!;
  const g4 = DIGITS4[nextBelow(10_000)]!;
  const creditCard = `${g1} ${g2} ${g3} ${g4}`;
  const city = CITIES[nextBelow(10)]!;
  const state = STATES[nextBelow(6)]!;
  const size =
    8 + name.length + emailAddress.length + creditCard.length + city.length + state.length;
  const extra = nextExtra(size, config.avgPersonByteSize);
  return { id, name, emailAddress, creditCard, city, state, dateTime: timestamp, extra };
}

/**
 * Draw order: hot-seller test `nextBelow(hotSellersRatio) > 0` (then, if cold, the seller pick);
 * category `nextBelow(5)`; initial bid price; auction length; item name `nextString(20)`;
 * description `nextString(100)`; reserve increment price; extra.
 */
function nextAuction(
  index: number,
  timestamp: number,
  lastPerson: number,
  lastAuction: number,
  layout: Layout,
): Auction {
  const config = layout.config;
  const id = lastAuction + FIRST_AUCTION_ID;
  let seller: number;
  if (nextBelow(config.hotSellersRatio) > 0) {
    seller = Math.floor(lastPerson / HOT_SELLER_BATCH) * HOT_SELLER_BATCH;
  } else {
    seller = nextBase0PersonId(lastPerson, config);
  }
  seller += FIRST_PERSON_ID;
  const category = FIRST_CATEGORY_ID + nextBelow(NUM_CATEGORIES);
  const initialBid = nextPrice();
  let averageLength = config.avgAuctionLengthMs;
  if (averageLength === null) {
    // Event-time span until numInFlightAuctions more auctions have been opened.
    averageLength = nexmarkEventTimestamp(index + layout.auctionEventsAhead, config) - timestamp;
  }
  const expires = timestamp + 1 + nextBelow(Math.max(averageLength * 2, 1));
  const itemName = nextString(20);
  const description = nextString(100);
  const reserve = initialBid + nextPrice();
  const size = 8 + itemName.length + description.length + 40;
  const extra = nextExtra(size, config.avgAuctionByteSize);
  return {
    id,
    itemName,
    description,
    initialBid,
    reserve,
    dateTime: timestamp,
    expires,
    seller,
    category,
    extra,
  };
}

/**
 * Draw order: hot-auction test `nextBelow(hotAuctionRatio) > 0` (then, if cold, the auction
 * pick); hot-bidder test `nextBelow(hotBiddersRatio) > 0` (then, if cold, the bidder pick);
 * price; hot-channel test `nextBelow(2) > 0` then `nextBelow(4)` (hot) or
 * `nextBelow(numChannels)`; extra.
 */
function nextBid(
  timestamp: number,
  lastPerson: number,
  lastAuction: number,
  config: NexmarkConfig,
): Bid {
  let auction: number;
  if (nextBelow(config.hotAuctionRatio) > 0) {
    auction = Math.floor(lastAuction / HOT_AUCTION_BATCH) * HOT_AUCTION_BATCH;
  } else {
    auction = nextBase0AuctionId(lastAuction, config);
  }
  auction += FIRST_AUCTION_ID;
  let bidder: number;
  if (nextBelow(config.hotBiddersRatio) > 0) {
    bidder = Math.floor(lastPerson / HOT_BIDDER_BATCH) * HOT_BIDDER_BATCH + 1;
  } else {
    bidder = nextBase0PersonId(lastPerson, config);
  }
  bidder += FIRST_PERSON_ID;
  const price = nextPrice();
  let channel: string;
  let url: string;
  if (nextBelow(2) > 0) {
    const i = nextBelow(HOT_CHANNELS.length);
    channel = HOT_CHANNELS[i]!;
    url = hotUrls[i]!;
  } else {
    const i = nextBelow(config.numChannels);
    channel = channelNames[i]!;
    url = channelUrls[i]!;
  }
  const extra = nextExtra(32, config.avgBidByteSize);
  return { auction, bidder, price, channel, url, dateTime: timestamp, extra };
}

/**
 * Generate event number `index` (an integer in `[0, 2^53)`, normally `< config.maxEvents`).
 * Pure in `(config, index)`: any process, in any order, produces the same event.
 */
export function nexmarkEvent(index: number, config: NexmarkConfig): NexmarkEvent {
  const layout = layoutOf(config);
  const epoch = Math.floor(index / layout.total);
  const timestamp = nexmarkEventTimestamp(index, config);
  return eventInCycle(index, epoch, index - epoch * layout.total, timestamp, layout);
}

/**
 * {@link nexmarkEvent} with its event time already computed (`timestamp` must be
 * {@link nexmarkEventTimestamp} of `index`), for callers that need the time too.
 */
export function nexmarkEventAt(
  index: number,
  timestamp: number,
  config: NexmarkConfig,
): NexmarkEvent {
  const layout = layoutOf(config);
  const epoch = Math.floor(index / layout.total);
  return eventInCycle(index, epoch, index - epoch * layout.total, timestamp, layout);
}

/**
 * Event `index`, from its place in its proportion cycle (`index = epoch * total + slot`), which
 * gives its kind and the last person and auction ids issued at or before it
 * (lastBase0PersonId / lastBase0AuctionId, computed once here).
 */
function eventInCycle(
  index: number,
  epoch: number,
  slot: number,
  timestamp: number,
  layout: Layout,
): NexmarkEvent {
  const config = layout.config;
  seedEvent(layout.seedKey, index);
  const persons = config.personProportion;
  const auctions = config.auctionProportion;
  if (slot < persons) {
    const lastPerson = epoch * persons + slot;
    return { type: 'person', person: nextPerson(lastPerson, timestamp, config) };
  }
  const lastPerson = epoch * persons + persons - 1;
  if (slot < persons + auctions) {
    const lastAuction = epoch * auctions + slot - persons;
    return {
      type: 'auction',
      auction: nextAuction(index, timestamp, lastPerson, lastAuction, layout),
    };
  }
  const lastAuction = epoch * auctions + auctions - 1;
  return { type: 'bid', bid: nextBid(timestamp, lastPerson, lastAuction, config) };
}

/**
 * Writes events `first, first + stride, ...` (`count` of them) and their event times into
 * `values[0..count)` and `timestamps[0..count)`: the same events as {@link nexmarkEventAt}, with
 * each event's place in its proportion cycle and in its second of event time advanced from the
 * previous one's instead of divided out again.
 */
export function nexmarkEventsInto(
  config: NexmarkConfig,
  first: number,
  stride: number,
  count: number,
  values: NexmarkEvent[],
  timestamps: number[],
): void {
  const layout = layoutOf(config);
  const total = layout.total;
  const rate = config.eventsPerSecond;
  const baseTime = config.baseTime;
  // index = epoch * total + slot, with 0 <= slot < total.
  let epoch = Math.floor(first / total);
  let slot = first - epoch * total;
  const epochStep = Math.floor(stride / total);
  const slotStep = stride - epochStep * total;
  // index = second * rate + rest, with 0 <= rest < rate (see nexmarkEventTimestamp).
  let second = Math.floor(first / rate);
  let rest = first - second * rate;
  const secondStep = Math.floor(stride / rate);
  const restStep = stride - secondStep * rate;
  let index = first;
  for (let k = 0; k < count; k++) {
    const timestamp = baseTime + second * 1000 + Math.floor((rest * 1000) / rate);
    timestamps[k] = timestamp;
    values[k] = eventInCycle(index, epoch, slot, timestamp, layout);
    index += stride;
    epoch += epochStep;
    slot += slotStep;
    if (slot >= total) {
      slot -= total;
      epoch++;
    }
    second += secondStep;
    rest += restStep;
    if (rest >= rate) {
      rest -= rate;
      second++;
    }
  }
}

/** What the generator derives from a config, once per config (configs are frozen). */
interface Layout {
  readonly config: NexmarkConfig;
  readonly seedKey: number;
  readonly total: number;
  /** Events until `numInFlightAuctions` more auctions have been opened. */
  readonly auctionEventsAhead: number;
}

/** The layout of the config used last: a job generates from one config, so one entry suffices. */
let lastLayout: Layout | undefined;

function layoutOf(config: NexmarkConfig): Layout {
  const last = lastLayout;
  if (last !== undefined && last.config === config) return last;
  if (config.numChannels > builtChannels) buildTables(config.numChannels);
  const total = totalProportion(config);
  const layout: Layout = {
    config,
    seedKey: seedKey(config.seed),
    total,
    auctionEventsAhead: Math.floor((config.numInFlightAuctions * total) / config.auctionProportion),
  };
  lastLayout = layout;
  return layout;
}

/**
 * Idealised serialized size in bytes of an event, as the reference accounts for it when sizing
 * `extra`: 8 per number plus string lengths (person: id + strings, excluding `dateTime`;
 * auction: strings + 6 numbers; bid: 4 numbers + `extra`, excluding channel and URL).
 */
export function nexmarkEventByteSize(event: NexmarkEvent): number {
  switch (event.type) {
    case 'person': {
      const p = event.person;
      return (
        8 +
        p.name.length +
        p.emailAddress.length +
        p.creditCard.length +
        p.city.length +
        p.state.length +
        p.extra.length
      );
    }
    case 'auction': {
      const a = event.auction;
      return 8 + a.itemName.length + a.description.length + 40 + a.extra.length;
    }
    case 'bid':
      return 32 + event.bid.extra.length;
  }
}

/** Options for {@link NexmarkGenerator}. */
export interface NexmarkGeneratorOptions {
  /** This subtask's number, `0 <= subtask < parallelism`. Default 0. */
  readonly subtask?: number;
  /** Number of parallel subtasks sharing the stream. Default 1. */
  readonly parallelism?: number;
  /**
   * Global index of the next event to emit, e.g. restored from a checkpoint of
   * {@link NexmarkGenerator.nextIndex}. Must be `≡ subtask (mod parallelism)`. Default `subtask`.
   */
  readonly nextIndex?: number;
}

/**
 * Iterates one subtask's share of the stream: global indexes `subtask, subtask + parallelism,
 * ...` below `config.maxEvents`. The union over all subtasks of one parallelism is the
 * sequential stream; each subtask's events are in non-decreasing event time, so
 * {@link nextTimestamp} is a valid watermark for the subtask.
 */
export class NexmarkGenerator implements IterableIterator<NexmarkEvent> {
  /** The generator config. */
  readonly config: NexmarkConfig;
  /** This subtask's number. */
  readonly subtask: number;
  /** Number of subtasks. */
  readonly parallelism: number;
  private index: number;

  /** Create the generator for one subtask (by default the whole stream). */
  constructor(config: NexmarkConfig, options: NexmarkGeneratorOptions = {}) {
    const parallelism = options.parallelism ?? 1;
    const subtask = options.subtask ?? 0;
    const nextIndex = options.nextIndex ?? subtask;
    if (!Number.isSafeInteger(parallelism) || parallelism < 1) {
      throw new RangeError(`nexmark: parallelism must be a positive integer, got ${parallelism}`);
    }
    if (!Number.isSafeInteger(subtask) || subtask < 0 || subtask >= parallelism) {
      throw new RangeError(`nexmark: subtask must be in [0, ${parallelism}), got ${subtask}`);
    }
    if (!Number.isSafeInteger(nextIndex) || nextIndex < 0 || nextIndex % parallelism !== subtask) {
      throw new RangeError(
        `nexmark: nextIndex must be a non-negative integer ≡ ${subtask} (mod ${parallelism}), got ${nextIndex}`,
      );
    }
    this.config = config;
    this.subtask = subtask;
    this.parallelism = parallelism;
    this.index = nextIndex;
  }

  /** Global index of the next event this subtask will emit (its checkpoint position). */
  get nextIndex(): number {
    return this.index;
  }

  /** Event time of the next event; no later event of this subtask is earlier. */
  nextTimestamp(): number {
    return nexmarkEventTimestamp(this.index, this.config);
  }

  /** Whether another event remains below `config.maxEvents`. */
  hasNext(): boolean {
    return this.index < this.config.maxEvents;
  }

  /** Return the next event and advance; throws `RangeError` when exhausted. */
  nextEvent(): NexmarkEvent {
    const index = this.index;
    if (!(index < this.config.maxEvents)) {
      throw new RangeError('nexmark: generator exhausted');
    }
    this.index = index + this.parallelism;
    return nexmarkEvent(index, this.config);
  }

  /** Iterator protocol; prefer {@link nextEvent} in hot loops (no result object). */
  next(): IteratorResult<NexmarkEvent, undefined> {
    if (!this.hasNext()) return { done: true, value: undefined };
    return { done: false, value: this.nextEvent() };
  }

  /** Returns itself. */
  [Symbol.iterator](): this {
    return this;
  }
}
