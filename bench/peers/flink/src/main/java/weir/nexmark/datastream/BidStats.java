package weir.nexmark.datastream;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import weir.nexmark.Events.Bid;

/**
 * The aggregate of q15 and q16: bid counts per price rank, and per distinct bidder and auction
 * the set of ranks it was seen with (a bit mask), so a bid costs one map lookup per distinct-count
 * family. Mutated in place; tumbling windows only (no merge).
 */
final class BidStats implements AggregateFunction<Bid, BidStats.Accumulator, long[]> {
  /** Bid counts per rank, rank masks per bidder and auction, the latest bid time. */
  public static final class Accumulator {
    public long[] bids = new long[3];
    public Map<Long, Integer> bidders = new HashMap<>();
    public Map<Long, Integer> auctions = new HashMap<>();
    public long lastTime = Long.MIN_VALUE;
  }

  static final TypeInformation<Accumulator> ACCUMULATOR = TypeInformation.of(Accumulator.class);
  static final TypeInformation<long[]> RESULT = TypeInformation.of(long[].class);

  /** Index in the result of the latest bid time; before it, the twelve counts in SQL order. */
  static final int LAST_TIME = 12;

  @Override
  public Accumulator createAccumulator() {
    return new Accumulator();
  }

  private static void mark(Map<Long, Integer> seen, long id, int bit) {
    Integer mask = seen.get(id);
    if (mask == null) seen.put(id, bit);
    else if ((mask & bit) == 0) seen.put(id, mask | bit);
  }

  @Override
  public Accumulator add(Bid b, Accumulator acc) {
    int rank = Streams.priceRank(b.price());
    acc.bids[rank]++;
    int bit = 1 << rank;
    mark(acc.bidders, b.bidder(), bit);
    mark(acc.auctions, b.auction(), bit);
    if (b.dateTime() > acc.lastTime) acc.lastTime = b.dateTime();
    return acc;
  }

  private static void distinct(Map<Long, Integer> seen, long[] out, int at) {
    long r1 = 0;
    long r2 = 0;
    long r3 = 0;
    for (int mask : seen.values()) {
      if ((mask & 1) != 0) r1++;
      if ((mask & 2) != 0) r2++;
      if ((mask & 4) != 0) r3++;
    }
    out[at] = seen.size();
    out[at + 1] = r1;
    out[at + 2] = r2;
    out[at + 3] = r3;
  }

  /** The twelve counts (bids, bidders, auctions; each total then per rank), then the last time. */
  @Override
  public long[] getResult(Accumulator acc) {
    long[] out = new long[13];
    out[0] = acc.bids[0] + acc.bids[1] + acc.bids[2];
    out[1] = acc.bids[0];
    out[2] = acc.bids[1];
    out[3] = acc.bids[2];
    distinct(acc.bidders, out, 4);
    distinct(acc.auctions, out, 8);
    out[LAST_TIME] = acc.lastTime;
    return out;
  }

  @Override
  public Accumulator merge(Accumulator a, Accumulator b) {
    throw new UnsupportedOperationException("tumbling windows only");
  }
}
