package weir.nexmark;

import java.io.Serializable;
import java.util.Map;

/**
 * Port of Weir's NexmarkConfig (src/connectors/nexmark/config.ts): the generator parameters,
 * with the same defaults. Built from string options ("seed", "events", "eventsPerSecond", ...),
 * as they arrive from the command line or a table's WITH clause.
 */
public final class NexmarkConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Default event time of event 0: 2015-07-15T00:00:00Z. */
  public static final long DEFAULT_BASE_TIME = 1436918400000L;

  public final long seed;
  public final long baseTime;
  public final long eventsPerSecond;
  /** Number of events; Long.MAX_VALUE means unbounded. */
  public final long maxEvents;
  public final long personProportion;
  public final long auctionProportion;
  public final long bidProportion;
  public final long numActivePeople;
  public final long numInFlightAuctions;
  public final long hotAuctionRatio;
  public final long hotBiddersRatio;
  public final long hotSellersRatio;
  public final long avgPersonByteSize;
  public final long avgAuctionByteSize;
  public final long avgBidByteSize;
  /** Average auction length in ms, or -1 to derive it as the reference does. */
  public final long avgAuctionLengthMs;
  public final int numChannels;

  private NexmarkConfig(Map<String, String> o) {
    seed = get(o, "seed", 0);
    baseTime = get(o, "baseTime", DEFAULT_BASE_TIME);
    eventsPerSecond = get(o, "eventsPerSecond", 10_000);
    maxEvents = get(o, "events", Long.MAX_VALUE);
    personProportion = get(o, "personProportion", 1);
    auctionProportion = get(o, "auctionProportion", 3);
    bidProportion = get(o, "bidProportion", 46);
    numActivePeople = get(o, "numActivePeople", 1000);
    numInFlightAuctions = get(o, "numInFlightAuctions", 100);
    hotAuctionRatio = get(o, "hotAuctionRatio", 2);
    hotBiddersRatio = get(o, "hotBiddersRatio", 4);
    hotSellersRatio = get(o, "hotSellersRatio", 4);
    avgPersonByteSize = get(o, "avgPersonByteSize", 200);
    avgAuctionByteSize = get(o, "avgAuctionByteSize", 500);
    avgBidByteSize = get(o, "avgBidByteSize", 100);
    avgAuctionLengthMs = get(o, "avgAuctionLengthMs", -1);
    numChannels = (int) get(o, "numChannels", 10_000);
    if (eventsPerSecond < 1 || personProportion < 1 || auctionProportion < 1 || bidProportion < 1
        || numChannels < 1 || maxEvents < 0) {
      throw new IllegalArgumentException("nexmark: invalid config " + o);
    }
  }

  /** A config from options; missing keys take the reference defaults. */
  public static NexmarkConfig of(Map<String, String> options) {
    return new NexmarkConfig(options);
  }

  private static long get(Map<String, String> o, String key, long fallback) {
    String v = o.get(key);
    return v == null ? fallback : Long.parseLong(v.trim());
  }

  /** Events per proportion cycle. */
  public long totalProportion() {
    return personProportion + auctionProportion + bidProportion;
  }
}
