import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BASE_TIME,
  DEFAULT_NEXMARK_CONFIG,
  FIRST_AUCTION_ID,
  FIRST_CATEGORY_ID,
  FIRST_PERSON_ID,
  HOT_CHANNELS,
  lastBase0AuctionId,
  lastBase0PersonId,
  type NexmarkConfig,
  type NexmarkEvent,
  NexmarkGenerator,
  NUM_CATEGORIES,
  nexmarkConfig,
  nexmarkEvent,
  nexmarkEventByteSize,
  nexmarkEventTime,
  nexmarkEventTimestamp,
  nexmarkEventType,
  totalProportion,
} from '../../src/connectors/nexmark/index.js';
import {
  mix32,
  nextBelow,
  nextInt32,
  seedEvent,
  seedKey,
} from '../../src/connectors/nexmark/source/prng.js';

function range(config: NexmarkConfig, start: number, count: number): NexmarkEvent[] {
  const out: NexmarkEvent[] = [];
  for (let i = start; i < start + count; i++) out.push(nexmarkEvent(i, config));
  return out;
}

/** 32-bit FNV-1a over a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const defaults = nexmarkConfig();

describe('nexmark config', () => {
  it('has the reference defaults', () => {
    expect(defaults).toEqual(DEFAULT_NEXMARK_CONFIG);
    expect(defaults).toMatchObject({
      personProportion: 1,
      auctionProportion: 3,
      bidProportion: 46,
      numActivePeople: 1000,
      numInFlightAuctions: 100,
      hotAuctionRatio: 2,
      hotBiddersRatio: 4,
      hotSellersRatio: 4,
      avgPersonByteSize: 200,
      avgAuctionByteSize: 500,
      avgBidByteSize: 100,
      eventsPerSecond: 10_000,
      numChannels: 10_000,
      avgAuctionLengthMs: null,
    });
    expect(new Date(DEFAULT_BASE_TIME).toISOString()).toBe('2015-07-15T00:00:00.000Z');
    expect(totalProportion(defaults)).toBe(50);
    expect(Object.isFrozen(defaults)).toBe(true);
    // Plain data: survives a JSON round trip except for the unbounded maxEvents.
    const bounded = nexmarkConfig({ maxEvents: 10 });
    expect(JSON.parse(JSON.stringify(bounded))).toEqual(bounded);
  });

  it('rejects invalid values', () => {
    expect(() => nexmarkConfig({ eventsPerSecond: 0 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ eventsPerSecond: 2.5 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ personProportion: 0 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ maxEvents: -1 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ hotAuctionRatio: 0 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ numChannels: 0 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ seed: 1.5 })).toThrow(RangeError);
    expect(() => nexmarkConfig({ avgAuctionLengthMs: 0 })).toThrow(RangeError);
    expect(nexmarkConfig({ avgAuctionLengthMs: 5000 }).avgAuctionLengthMs).toBe(5000);
  });
});

describe('nexmark PRNG', () => {
  it('matches the documented test vectors (for ports)', () => {
    expect([0, 1, 42, -1].map((x) => mix32(x) >>> 0)).toEqual([
      0, 1753845952, 388445122, 1734902346,
    ]);
    seedEvent(seedKey(42), 0);
    const a = [nextInt32() >>> 0, nextInt32() >>> 0, nextInt32() >>> 0];
    seedEvent(seedKey(42), 2 ** 40 + 7);
    const b = [nextInt32() >>> 0, nextBelow(1000), nextBelow(2 ** 40)];
    expect(a).toEqual([4242538625, 1272794188, 24773328]);
    expect(b).toEqual([850540472, 76, 424922268379]);
  });

  it('nextBelow stays in range and is roughly uniform', () => {
    seedEvent(seedKey(1), 123);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const v = nextBelow(10);
      counts[v] = (counts[v] ?? 0) + 1;
    }
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
    for (const n of [1, 2, 3, 2 ** 21, 2 ** 21 + 1, 2 ** 32 + 5, 2 ** 53]) {
      for (let i = 0; i < 1000; i++) {
        const v = nextBelow(n);
        expect(Number.isSafeInteger(v) && v >= 0 && v < n).toBe(true);
      }
    }
  });
});

describe('nexmark generator', () => {
  it('emits persons, auctions and bids exactly 1:3:46 per 50-event cycle', () => {
    const counts = { person: 0, auction: 0, bid: 0 };
    const cycles = 1000;
    for (let i = 0; i < 50 * cycles; i++) {
      const e = nexmarkEvent(i, defaults);
      const slot = i % 50;
      const expected = slot < 1 ? 'person' : slot < 4 ? 'auction' : 'bid';
      if (e.type !== expected) throw new Error(`event ${i}: ${e.type} != ${expected}`);
      const type = nexmarkEventType(i, defaults);
      if (type !== e.type) throw new Error(`event ${i}: nexmarkEventType says ${type}`);
      counts[e.type]++;
    }
    expect(counts).toEqual({ person: cycles, auction: 3 * cycles, bid: 46 * cycles });
  });

  it('honours custom proportions', () => {
    const c = nexmarkConfig({ personProportion: 2, auctionProportion: 5, bidProportion: 13 });
    const counts = { person: 0, auction: 0, bid: 0 };
    for (let i = 0; i < 20 * 100; i++) counts[nexmarkEvent(i, c).type]++;
    expect(counts).toEqual({ person: 200, auction: 500, bid: 1300 });
  });

  it('issues dense person and auction ids and keeps references in the spec ranges', () => {
    const configs = [
      defaults,
      nexmarkConfig({ seed: 9, numActivePeople: 50, numInFlightAuctions: 20, hotBiddersRatio: 1 }),
      nexmarkConfig({
        personProportion: 2,
        auctionProportion: 5,
        bidProportion: 13,
        hotAuctionRatio: 1,
      }),
    ];
    // Plain comparisons per event and one expectation per config: a dozen `expect` calls per
    // event made this test take most of the file's time.
    for (const c of configs) {
      const broken: string[] = [];
      const check = (i: number, what: string, ok: boolean) => {
        if (!ok) broken.push(`event ${i}: ${what}`);
      };
      let persons = 0;
      let auctions = 0;
      let bidsOnCreatedAuction = 0;
      let bids = 0;
      for (let i = 0; i < 60_000; i++) {
        const e = nexmarkEvent(i, c);
        const lastPerson = lastBase0PersonId(i, c);
        const lastAuction = lastBase0AuctionId(i, c);
        if (e.type === 'person') {
          check(i, `person id ${e.person.id}`, e.person.id === FIRST_PERSON_ID + persons);
          check(i, `last person ${lastPerson}`, lastPerson === persons);
          persons++;
        } else if (e.type === 'auction') {
          const a = e.auction;
          check(i, `auction id ${a.id}`, a.id === FIRST_AUCTION_ID + auctions);
          check(i, `last auction ${lastAuction}`, lastAuction === auctions);
          auctions++;
          const seller = a.seller - FIRST_PERSON_ID;
          check(
            i,
            `seller ${seller}`,
            seller >= Math.max(0, lastPerson + 1 - Math.max(c.numActivePeople, 100)) &&
              seller <= lastPerson + 10,
          );
          check(
            i,
            `category ${a.category}`,
            a.category >= FIRST_CATEGORY_ID && a.category < FIRST_CATEGORY_ID + NUM_CATEGORIES,
          );
          check(i, `expires ${a.expires} <= ${a.dateTime}`, a.expires > a.dateTime);
          check(i, `reserve ${a.reserve} <= ${a.initialBid}`, a.reserve > a.initialBid);
        } else {
          const b = e.bid;
          const auction = b.auction - FIRST_AUCTION_ID;
          const bidder = b.bidder - FIRST_PERSON_ID;
          check(
            i,
            `bid on auction ${auction}`,
            auction >= Math.max(0, lastAuction - Math.max(c.numInFlightAuctions, 99)) &&
              auction <= lastAuction + 10,
          );
          check(
            i,
            `bidder ${bidder}`,
            bidder >= Math.max(0, lastPerson + 1 - Math.max(c.numActivePeople, 100)) &&
              bidder <= lastPerson + 10,
          );
          bids++;
          if (auction <= lastAuction) bidsOnCreatedAuction++;
        }
      }
      expect(broken.slice(0, 10)).toEqual([]);
      // Only cold picks landing in the look-ahead lead reference not-yet-created auctions.
      const ahead = 1 - bidsOnCreatedAuction / bids;
      expect(ahead).toBeLessThan(
        (1 / c.hotAuctionRatio) * (10 / (c.numInFlightAuctions + 11)) + 0.01,
      );
    }
  }, 120_000);

  it('picks hot auctions, bidders and sellers at the configured ratios', () => {
    const c = defaults;
    let bids = 0;
    let hotAuction = 0;
    let hotBidder = 0;
    let auctions = 0;
    let hotSeller = 0;
    for (let i = 0; i < 200_000; i++) {
      const e = nexmarkEvent(i, c);
      if (e.type === 'bid') {
        bids++;
        if (e.bid.auction - FIRST_AUCTION_ID === Math.floor(lastBase0AuctionId(i, c) / 100) * 100)
          hotAuction++;
        if (e.bid.bidder - FIRST_PERSON_ID === Math.floor(lastBase0PersonId(i, c) / 100) * 100 + 1)
          hotBidder++;
      } else if (e.type === 'auction') {
        auctions++;
        if (e.auction.seller - FIRST_PERSON_ID === Math.floor(lastBase0PersonId(i, c) / 100) * 100)
          hotSeller++;
      }
    }
    // P(hot) = 1 - 1/ratio, plus the small chance that a cold pick lands on the hot id.
    expect(hotAuction / bids).toBeGreaterThan(0.49);
    expect(hotAuction / bids).toBeLessThan(0.53);
    expect(hotBidder / bids).toBeGreaterThan(0.74);
    expect(hotBidder / bids).toBeLessThan(0.77);
    expect(hotSeller / auctions).toBeGreaterThan(0.73);
    expect(hotSeller / auctions).toBeLessThan(0.78);
  });

  it('is deterministic per seed and independent of generation order', () => {
    const a = range(nexmarkConfig({ seed: 1 }), 0, 2000);
    const b = range(nexmarkConfig({ seed: 1 }), 0, 2000);
    expect(b).toEqual(a);
    // Reverse order, interleaved with another seed: still the same events.
    const other = nexmarkConfig({ seed: 2 });
    const c1 = nexmarkConfig({ seed: 1 });
    for (let i = 1999; i >= 0; i--) {
      nexmarkEvent(i * 7 + 3, other);
      expect(nexmarkEvent(i, c1)).toEqual(a[i]);
    }
    const d = range(other, 0, 2000);
    let differing = 0;
    for (let i = 0; i < 2000; i++) if (JSON.stringify(d[i]) !== JSON.stringify(a[i])) differing++;
    expect(differing).toBeGreaterThan(1990);
    // Seeds are taken modulo 2^32.
    expect(range(nexmarkConfig({ seed: 1 + 2 ** 32 }), 0, 50)).toEqual(a.slice(0, 50));
  });

  it('produces a stable stream (golden fingerprint for ports)', () => {
    const c = nexmarkConfig({ seed: 42 });
    expect(fnv1a(JSON.stringify(range(c, 0, 5000)))).toBe(2913989629);
    expect(nexmarkEvent(123_456_789, c)).toEqual({
      type: 'bid',
      bid: {
        auction: 7408400,
        bidder: 2470101,
        price: 957184,
        channel: 'Apple',
        url: 'https://www.nexmark.com/whmg/vld/cnq/item.htm?query=1',
        dateTime: 1436930745678,
        extra: 'rnpngqrvipqhggdvpiudvcpkfhukdqngmvflqktlrfptvfpomwvlrgybhqifol',
      },
    });
  });

  it('splits across P subtasks into exactly the sequential stream', () => {
    const c = nexmarkConfig({ seed: 5 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 200 }),
        (parallelism, start, length) => {
          const bounded = nexmarkConfig({ seed: c.seed, maxEvents: start + length });
          const sequential = range(c, start, length);
          const merged = new Array<NexmarkEvent | undefined>(length);
          for (let s = 0; s < parallelism; s++) {
            const first = start + ((s - (start % parallelism) + parallelism) % parallelism);
            const gen = new NexmarkGenerator(bounded, {
              subtask: s,
              parallelism,
              nextIndex: first,
            });
            let lastTime = Number.NEGATIVE_INFINITY;
            while (gen.hasNext()) {
              const index = gen.nextIndex;
              // Plain tests rather than an `expect` per event, which cost most of the time.
              if (gen.nextTimestamp() < lastTime)
                throw new Error(`subtask ${s}: time ${gen.nextTimestamp()} after ${lastTime}`);
              lastTime = gen.nextTimestamp();
              const e = gen.nextEvent();
              if (merged[index - start] !== undefined) throw new Error(`event ${index} twice`);
              merged[index - start] = e;
            }
          }
          expect(merged).toEqual(sequential);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('iterates with for..of, stops at maxEvents and validates options', () => {
    const c = nexmarkConfig({ maxEvents: 120 });
    const all = [...new NexmarkGenerator(c)];
    expect(all).toEqual(range(c, 0, 120));
    const g = new NexmarkGenerator(c, { subtask: 1, parallelism: 3 });
    expect([...g].length).toBe(40);
    expect(g.hasNext()).toBe(false);
    expect(g.next()).toEqual({ done: true, value: undefined });
    expect(() => g.nextEvent()).toThrow(RangeError);
    expect(() => new NexmarkGenerator(c, { parallelism: 0 })).toThrow(RangeError);
    expect(() => new NexmarkGenerator(c, { subtask: 3, parallelism: 3 })).toThrow(RangeError);
    expect(() => new NexmarkGenerator(c, { subtask: 1, parallelism: 3, nextIndex: 5 })).toThrow(
      RangeError,
    );
    const resumed = new NexmarkGenerator(c, { subtask: 1, parallelism: 3, nextIndex: 100 });
    expect(resumed.nextEvent()).toEqual(all[100]);
    expect(resumed.nextIndex).toBe(103);
  });

  it('advances event time at the configured rate', () => {
    const c = defaults;
    let last = Number.NEGATIVE_INFINITY;
    const broken: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      const e = nexmarkEvent(i, c);
      const t = nexmarkEventTime(e);
      // 10 000 events/s = 100 µs apart.
      if (
        t !== DEFAULT_BASE_TIME + Math.floor(i / 10) ||
        t !== nexmarkEventTimestamp(i, c) ||
        t < last
      )
        broken.push(`event ${i} at ${t}, after ${last}`);
      last = t;
    }
    expect(broken.slice(0, 10)).toEqual([]);
    const slow = nexmarkConfig({ eventsPerSecond: 3, baseTime: 0 });
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => nexmarkEventTimestamp(i, slow))).toEqual([
      0, 333, 666, 1000, 1333, 1666, 2000,
    ]);
    const fast = nexmarkConfig({ eventsPerSecond: 10_000_000, baseTime: 0 });
    expect(nexmarkEventTimestamp(2 ** 45 + 123_456_789, fast)).toBe(
      Math.floor((2 ** 45 + 123_456_789) / 10_000),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (rate, index) => {
          const cfg = nexmarkConfig({ eventsPerSecond: rate, baseTime: 0 });
          const t = nexmarkEventTimestamp(index, cfg);
          const exact = (BigInt(index) * 1000n) / BigInt(rate);
          expect(BigInt(t)).toBe(exact);
          expect(nexmarkEventTimestamp(index + 1, cfg)).toBeGreaterThanOrEqual(t);
        },
      ),
    );
  });

  it('derives auction lengths from in-flight auctions, or from avgAuctionLengthMs', () => {
    const mean = (c: NexmarkConfig): number => {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < 100_000; i++) {
        const e = nexmarkEvent(i, c);
        if (e.type === 'auction') {
          sum += e.auction.expires - e.auction.dateTime;
          n++;
        }
      }
      return sum / n;
    };
    // floor(100 * 50 / 3) = 1666 events ahead at 10 events/ms ≈ 166.6 ms.
    expect(mean(defaults)).toBeGreaterThan(160);
    expect(mean(defaults)).toBeLessThan(174);
    const fixed = mean(nexmarkConfig({ avgAuctionLengthMs: 60_000 }));
    expect(fixed).toBeGreaterThan(58_000);
    expect(fixed).toBeLessThan(62_000);
  });

  it('pads records to the configured average sizes', () => {
    for (const c of [
      defaults,
      nexmarkConfig({ avgPersonByteSize: 1000, avgAuctionByteSize: 300, avgBidByteSize: 2000 }),
    ]) {
      const sum = { person: 0, auction: 0, bid: 0 };
      const n = { person: 0, auction: 0, bid: 0 };
      for (let i = 0; i < 100_000; i++) {
        const e = nexmarkEvent(i, c);
        sum[e.type] += nexmarkEventByteSize(e);
        n[e.type]++;
      }
      expect(Math.abs(sum.person / n.person / c.avgPersonByteSize - 1)).toBeLessThan(0.02);
      expect(Math.abs(sum.auction / n.auction / c.avgAuctionByteSize - 1)).toBeLessThan(0.02);
      expect(Math.abs(sum.bid / n.bid / c.avgBidByteSize - 1)).toBeLessThan(0.02);
    }
    // Records already larger than the target get no padding.
    const tiny = nexmarkConfig({ avgBidByteSize: 10, avgPersonByteSize: 0 });
    for (let i = 0; i < 500; i++) {
      const e = nexmarkEvent(i, tiny);
      if (e.type === 'bid') expect(e.bid.extra).toBe('');
      if (e.type === 'person') expect(e.person.extra).toBe('');
    }
  });

  it('uses a price table that any faithful pow reproduces', () => {
    // round(100 * 10^(6j/4096)) must not sit near a .5 tie, so a 1-ulp pow difference
    // (e.g. Java StrictMath.pow vs V8) cannot change the table.
    let sum = 0;
    for (let j = 0; j <= 4096; j++) {
      const v = 100 * 10 ** ((6 * j) / 4096);
      expect(Math.abs(v - Math.floor(v) - 0.5)).toBeGreaterThan(1e-4);
      sum += Math.round(v);
    }
    expect(sum).toBe(29_697_835_158); // table checksum for ports
  });

  it('draws positive integer, log-uniform prices', () => {
    const decades = new Array<number>(6).fill(0);
    let n = 0;
    const broken: number[] = [];
    const check = (p: number): void => {
      if (!(Number.isInteger(p) && p >= 100 && p < 100_000_000)) broken.push(p);
      const d = Math.min(5, Math.floor(Math.log10(p / 100)));
      decades[d] = (decades[d] ?? 0) + 1;
      n++;
    };
    for (let i = 0; i < 100_000; i++) {
      const e = nexmarkEvent(i, defaults);
      if (e.type === 'bid') check(e.bid.price);
      else if (e.type === 'auction') check(e.auction.initialBid);
    }
    expect(broken.slice(0, 10)).toEqual([]);
    for (const d of decades) expect(Math.abs(d / n - 1 / 6)).toBeLessThan(0.01);
  });

  it('builds plausible strings, channels and URLs', () => {
    const urlByChannel = new Map<string, string>();
    let bids = 0;
    let hot = 0;
    // Plain tests per event and one expectation at the end: `expect` per field per event
    // cost seconds.
    const broken: string[] = [];
    const check = (i: number, what: string, ok: boolean) => {
      if (!ok) broken.push(`event ${i}: ${what}`);
    };
    for (let i = 0; i < 50_000; i++) {
      const e = nexmarkEvent(i, defaults);
      if (e.type === 'person') {
        const p = e.person;
        check(i, `name ${p.name}`, /^[A-Z][a-z]+ [A-Z][a-z]+$/.test(p.name));
        check(i, `email ${p.emailAddress}`, /^[a-z ]*@[a-z ]*\.com$/.test(p.emailAddress));
        check(i, `card ${p.creditCard}`, /^\d{4} \d{4} \d{4} \d{4}$/.test(p.creditCard));
        check(i, `state ${p.state}`, ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'].includes(p.state));
        check(i, 'empty city', p.city.length > 0);
        check(i, `extra ${p.extra}`, /^[a-z]*$/.test(p.extra));
      } else if (e.type === 'auction') {
        const a = e.auction;
        check(i, `item ${a.itemName}`, a.itemName.length < 20 && a.itemName === a.itemName.trim());
        check(i, `description ${a.description}`, a.description.length < 100);
      } else {
        const b = e.bid;
        bids++;
        if (HOT_CHANNELS.includes(b.channel)) hot++;
        else
          check(
            i,
            `channel ${b.channel}`,
            Number(b.channel.replace(/^channel-/, '')) < defaults.numChannels,
          );
        check(
          i,
          `url ${b.url}`,
          /^https:\/\/www\.nexmark\.com\/[a-z_]+\/[a-z_]+\/[a-z_]+\/item\.htm\?query=1/.test(b.url),
        );
        const known = urlByChannel.get(b.channel);
        if (known === undefined) urlByChannel.set(b.channel, b.url);
        else check(i, `url ${b.url} of ${b.channel} was ${known}`, b.url === known);
      }
    }
    expect(broken.slice(0, 10)).toEqual([]);
    expect(Math.abs(hot / bids - 0.5)).toBeLessThan(0.02);
    // A smaller channel table is a prefix of the default one.
    const few = nexmarkConfig({ numChannels: 3 });
    for (let i = 4; i < 2000; i++) {
      const e = nexmarkEvent(i, few);
      if (e.type === 'bid' && !HOT_CHANNELS.includes(e.bid.channel)) {
        expect(['channel-0', 'channel-1', 'channel-2']).toContain(e.bid.channel);
        const known = urlByChannel.get(e.bid.channel);
        if (known !== undefined) expect(e.bid.url).toBe(known);
      }
    }
  });
});
