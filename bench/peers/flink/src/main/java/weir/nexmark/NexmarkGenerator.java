package weir.nexmark;

import java.nio.charset.StandardCharsets;
import weir.nexmark.Events.Auction;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;
import weir.nexmark.Events.Person;

/**
 * Port of Weir's Nexmark generator (src/connectors/nexmark/generator.ts): event number {@code
 * index} is a pure function of (config, index), drawn in the same order from the same PRNG, so
 * both engines see identical events. The TypeScript module documents every draw; this file
 * follows it line by line. One instance per thread (it owns its PRNG state).
 */
public final class NexmarkGenerator {
  static final long FIRST_PERSON_ID = 1000;
  static final long FIRST_AUCTION_ID = 1000;
  static final long FIRST_CATEGORY_ID = 10;
  static final long NUM_CATEGORIES = 5;
  static final long PERSON_ID_LEAD = 10;
  static final long AUCTION_ID_LEAD = 10;
  static final long HOT_AUCTION_BATCH = 100;
  static final long HOT_BIDDER_BATCH = 100;
  static final long HOT_SELLER_BATCH = 100;
  static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};

  private static final String[] FIRST_NAMES = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
  };
  private static final String[] LAST_NAMES = {
    "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
  };
  private static final String[] CITIES = {
    "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle",
    "Kent", "Cheyenne"
  };
  private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  private static final String[] FULL_NAMES = new String[FIRST_NAMES.length * LAST_NAMES.length];
  private static final String[] DIGITS4 = new String[10_000];

  static final int TEXT_POOL_LENGTH = 1 << 18;
  static final int EXTRA_POOL_LENGTH = 1 << 20;
  private static final int TEXT_POOL_STATE = 0x54455854;
  private static final int EXTRA_POOL_STATE = 0x45585452;
  private static final int CHANNEL_STATE = 0x4348414e;
  private static final int PRICE_SEGMENTS = 4096;
  private static final long[] PRICE_TABLE = new long[PRICE_SEGMENTS + 1];

  static {
    for (int f = 0; f < FIRST_NAMES.length; f++) {
      for (int l = 0; l < LAST_NAMES.length; l++) {
        FULL_NAMES[f * LAST_NAMES.length + l] = FIRST_NAMES[f] + " " + LAST_NAMES[l];
      }
    }
    for (int i = 0; i < DIGITS4.length; i++) DIGITS4[i] = String.format("%04d", i);
    long sum = 0;
    for (int j = 0; j <= PRICE_SEGMENTS; j++) {
      PRICE_TABLE[j] = Math.round(100 * StrictMath.pow(10, (6.0 * j) / PRICE_SEGMENTS));
      sum += PRICE_TABLE[j];
    }
    if (sum != 29_697_835_158L) throw new IllegalStateException("price table sum " + sum);
  }

  /** Fixed tables, built once per process (the channel tables grow as configs need). */
  private static final class Tables {
    final String textPool;
    final String extraPool;
    final String[] hotUrls;
    final String[] channelNames;
    final String[] channelUrls;

    Tables(String textPool, String extraPool, String[] hotUrls, String[] names, String[] urls) {
      this.textPool = textPool;
      this.extraPool = extraPool;
      this.hotUrls = hotUrls;
      this.channelNames = names;
      this.channelUrls = urls;
    }
  }

  private static Tables tables;

  private static synchronized Tables tables(int numChannels) {
    if (tables != null && tables.channelNames.length >= numChannels) return tables;
    Prng r = new Prng();
    r.setState(TEXT_POOL_STATE);
    String text = drawChars(r, TEXT_POOL_LENGTH, ' ');
    r.setState(EXTRA_POOL_STATE);
    String extra = drawChars(r, EXTRA_POOL_LENGTH, (char) 0);
    r.setState(CHANNEL_STATE);
    String[] hot = new String[HOT_CHANNELS.length];
    for (int i = 0; i < hot.length; i++) hot[i] = drawBaseUrl(r);
    String[] names = new String[numChannels];
    String[] urls = new String[numChannels];
    for (int i = 0; i < numChannels; i++) {
      String url = drawBaseUrl(r);
      if (r.nextBelow(10) > 0) url = url + "&channel_id=" + Math.abs((long) Integer.reverse(i));
      names[i] = "channel-" + i;
      urls[i] = url;
    }
    tables = new Tables(text, extra, hot, names, urls);
    return tables;
  }

  /** Per char: with a special char, one draw nextBelow(13) (0 = special), else a letter draw. */
  private static String drawChars(Prng r, int length, char special) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] =
          (byte) (special != 0 && r.nextBelow(13) == 0 ? special : 'a' + (int) r.nextBelow(26));
    }
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  private static String drawBaseUrl(Prng r) {
    String a = drawChars(r, 3 + (int) r.nextBelow(2), '_');
    String b = drawChars(r, 3 + (int) r.nextBelow(2), '_');
    String c = drawChars(r, 3 + (int) r.nextBelow(2), '_');
    return "https://www.nexmark.com/" + a + "/" + b + "/" + c + "/item.htm?query=1";
  }

  private final NexmarkConfig config;
  private final Tables t;
  private final Prng r = new Prng();
  private final int key;
  private final long total;

  /** A generator for one config. */
  public NexmarkGenerator(NexmarkConfig config) {
    this.config = config;
    this.t = tables(config.numChannels);
    this.key = Prng.seedKey(config.seed);
    this.total = config.totalProportion();
  }

  /** Event time of event {@code index}: baseTime + floor(index * 1000 / eventsPerSecond). */
  public static long timestamp(long index, NexmarkConfig c) {
    long rate = c.eventsPerSecond;
    long seconds = index / rate;
    long rest = index - seconds * rate;
    return c.baseTime + seconds * 1000 + (rest * 1000) / rate;
  }

  /** Event type code of event {@code index}. */
  public int type(long index) {
    long slot = index % total;
    if (slot < config.personProportion) return Events.PERSON;
    if (slot < config.personProportion + config.auctionProportion) return Events.AUCTION;
    return Events.BID;
  }

  /** Event number {@code index}. */
  public Event event(long index) {
    r.seedEvent(key, index);
    long ts = timestamp(index, config);
    return switch (type(index)) {
      case Events.PERSON -> new Event(Events.PERSON, person(index, ts), null, null);
      case Events.AUCTION -> new Event(Events.AUCTION, null, auction(index, ts), null);
      default -> new Event(Events.BID, null, null, bid(index, ts));
    };
  }

  long lastBase0PersonId(long eventId) {
    long epoch = eventId / total;
    long offset = eventId - epoch * total;
    if (offset >= config.personProportion) offset = config.personProportion - 1;
    return epoch * config.personProportion + offset;
  }

  long lastBase0AuctionId(long eventId) {
    long epoch = eventId / total;
    long offset = eventId - epoch * total;
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

  private long nextBase0PersonId(long eventId) {
    long numPeople = lastBase0PersonId(eventId) + 1;
    long active = Math.min(numPeople, config.numActivePeople);
    return numPeople - active + r.nextBelow(active + PERSON_ID_LEAD);
  }

  private long nextBase0AuctionId(long eventId) {
    long maxAuction = lastBase0AuctionId(eventId);
    long minAuction = Math.max(maxAuction - config.numInFlightAuctions, 0);
    return minAuction + r.nextBelow(maxAuction - minAuction + 1 + AUCTION_ID_LEAD);
  }

  private String nextString(int maxLength) {
    int length = 3 + (int) r.nextBelow(maxLength - 3);
    int offset = (int) r.nextBelow(TEXT_POOL_LENGTH - length + 1);
    return t.textPool.substring(offset, offset + length).trim();
  }

  private String nextExactString(long length) {
    if (length == 0) return "";
    if (length <= EXTRA_POOL_LENGTH) {
      int offset = (int) r.nextBelow(EXTRA_POOL_LENGTH - length + 1);
      return t.extraPool.substring(offset, offset + (int) length);
    }
    StringBuilder out = new StringBuilder();
    while (length > 0) {
      int take = (int) Math.min(length, EXTRA_POOL_LENGTH);
      int offset = (int) r.nextBelow(EXTRA_POOL_LENGTH - take + 1);
      out.append(t.extraPool, offset, offset + take);
      length -= take;
    }
    return out.toString();
  }

  private String nextExtra(long currentSize, long averageSize) {
    if (currentSize > averageSize) return "";
    long rest = averageSize - currentSize;
    long delta = (rest + 2) / 5;
    long size = rest - delta + (delta == 0 ? 0 : r.nextBelow(2 * delta));
    return nextExactString(size);
  }

  private long nextPrice() {
    long x = r.nextInt32() & 0xffffffffL;
    int j = (int) (x >>> 20);
    long lo = PRICE_TABLE[j];
    long hi = PRICE_TABLE[j + 1];
    return lo + ((hi - lo) * (x & 0xfffff)) / 1048576;
  }

  private Person person(long index, long ts) {
    long id = lastBase0PersonId(index) + FIRST_PERSON_ID;
    String name = FULL_NAMES[(int) r.nextBelow(99)];
    String local = nextString(7);
    String email = local + "@" + nextString(5) + ".com";
    String g1 = DIGITS4[(int) r.nextBelow(10_000)];
    String g2 = DIGITS4[(int) r.nextBelow(10_000)];
    String g3 = DIGITS4[(int) r.nextBelow(10_000)];
    String g4 = DIGITS4[(int) r.nextBelow(10_000)];
    String creditCard = g1 + " " + g2 + " " + g3 + " " + g4;
    String city = CITIES[(int) r.nextBelow(10)];
    String state = STATES[(int) r.nextBelow(6)];
    long size =
        8 + name.length() + email.length() + creditCard.length() + city.length() + state.length();
    String extra = nextExtra(size, config.avgPersonByteSize);
    return new Person(id, name, email, creditCard, city, state, ts, extra);
  }

  private Auction auction(long index, long ts) {
    long id = lastBase0AuctionId(index) + FIRST_AUCTION_ID;
    long seller;
    if (r.nextBelow(config.hotSellersRatio) > 0) {
      seller = Math.floorDiv(lastBase0PersonId(index), HOT_SELLER_BATCH) * HOT_SELLER_BATCH;
    } else {
      seller = nextBase0PersonId(index);
    }
    seller += FIRST_PERSON_ID;
    long category = FIRST_CATEGORY_ID + r.nextBelow(NUM_CATEGORIES);
    long initialBid = nextPrice();
    long averageLength = config.avgAuctionLengthMs;
    if (averageLength < 0) {
      long eventsAhead = (config.numInFlightAuctions * total) / config.auctionProportion;
      averageLength = timestamp(index + eventsAhead, config) - ts;
    }
    long expires = ts + 1 + r.nextBelow(Math.max(averageLength * 2, 1));
    String itemName = nextString(20);
    String description = nextString(100);
    long reserve = initialBid + nextPrice();
    long size = 8 + itemName.length() + description.length() + 40;
    String extra = nextExtra(size, config.avgAuctionByteSize);
    return new Auction(
        id, itemName, description, initialBid, reserve, ts, expires, seller, category, extra);
  }

  private Bid bid(long index, long ts) {
    long auction;
    if (r.nextBelow(config.hotAuctionRatio) > 0) {
      auction = Math.floorDiv(lastBase0AuctionId(index), HOT_AUCTION_BATCH) * HOT_AUCTION_BATCH;
    } else {
      auction = nextBase0AuctionId(index);
    }
    auction += FIRST_AUCTION_ID;
    long bidder;
    if (r.nextBelow(config.hotBiddersRatio) > 0) {
      bidder = Math.floorDiv(lastBase0PersonId(index), HOT_BIDDER_BATCH) * HOT_BIDDER_BATCH + 1;
    } else {
      bidder = nextBase0PersonId(index);
    }
    bidder += FIRST_PERSON_ID;
    long price = nextPrice();
    String channel;
    String url;
    if (r.nextBelow(2) > 0) {
      int i = (int) r.nextBelow(HOT_CHANNELS.length);
      channel = HOT_CHANNELS[i];
      url = t.hotUrls[i];
    } else {
      int i = (int) r.nextBelow(config.numChannels);
      channel = t.channelNames[i];
      url = t.channelUrls[i];
    }
    String extra = nextExtra(32, config.avgBidByteSize);
    return new Bid(auction, bidder, price, channel, url, ts, extra);
  }
}
