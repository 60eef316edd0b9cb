package weir.nexmark.datastream;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;
import weir.nexmark.Events;
import weir.nexmark.Events.Auction;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;
import weir.nexmark.Events.Person;

/** What the queries share: the views of the event stream, watermarks, SQL formatting. */
public final class Streams {
  private Streams() {}

  /** One day in ms; days are UTC calendar days. */
  public static final long DAY_MS = 86_400_000L;

  /**
   * The reference DDL's watermark, {@code dateTime - INTERVAL '4' SECOND}: Flink's bounded
   * out-of-orderness subtracts one more ms than its bound, hence 4 s - 1 ms (as Weir's).
   */
  public static WatermarkStrategy<Event> watermarks() {
    return WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(3999))
        .withTimestampAssigner((e, previous) -> e.dateTime());
  }

  /** The bids among the events. */
  public static DataStream<Bid> bids(DataStream<Event> events) {
    return events.flatMap(new BidsOf()).returns(Bid.class).name("bids");
  }

  /** The auctions among the events. */
  public static DataStream<Auction> auctions(DataStream<Event> events) {
    return events.flatMap(new AuctionsOf()).returns(Auction.class).name("auctions");
  }

  /** The people among the events. */
  public static DataStream<Person> people(DataStream<Event> events) {
    return events.flatMap(new PeopleOf()).returns(Person.class).name("people");
  }

  private static final class BidsOf implements FlatMapFunction<Event, Bid> {
    @Override
    public void flatMap(Event e, Collector<Bid> out) {
      if (e.type() == Events.BID) out.collect(e.bid());
    }
  }

  private static final class AuctionsOf implements FlatMapFunction<Event, Auction> {
    @Override
    public void flatMap(Event e, Collector<Auction> out) {
      if (e.type() == Events.AUCTION) out.collect(e.auction());
    }
  }

  private static final class PeopleOf implements FlatMapFunction<Event, Person> {
    @Override
    public void flatMap(Event e, Collector<Person> out) {
      if (e.type() == Events.PERSON) out.collect(e.person());
    }
  }

  /** An auction's columns in the order of the {@code auction} view. */
  public static Object[] auctionColumns(Auction a) {
    return new Object[] {
      a.id(), a.itemName(), a.description(), a.initialBid(), a.reserve(), a.dateTime(),
      a.expires(), a.seller(), a.category(), a.extra()
    };
  }

  /** A bid's columns in the order of the {@code bid} view. */
  public static Object[] bidColumns(Bid b) {
    return new Object[] {
      b.auction(), b.bidder(), b.price(), b.channel(), b.url(), b.dateTime(), b.extra()
    };
  }

  /** Concatenates rows of columns. */
  public static Object[] concat(Object[]... parts) {
    int n = 0;
    for (Object[] p : parts) n += p.length;
    Object[] out = new Object[n];
    int i = 0;
    for (Object[] p : parts) {
      System.arraycopy(p, 0, out, i, p.length);
      i += p.length;
    }
    return out;
  }

  /** {@code 0.908 * price} as the exact DECIMAL(24, 3) Flink prints, from the double. */
  public static BigDecimal euroDecimal(double euros) {
    return BigDecimal.valueOf(Math.round(euros * 1000), 3);
  }

  /** {@code DATE_FORMAT(t, 'yyyy-MM-dd')} of a UTC timestamp. */
  public static String formatDay(long time) {
    ZonedDateTime t = Instant.ofEpochMilli(time).atZone(ZoneOffset.UTC);
    return String.format("%04d-%02d-%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth());
  }

  /** {@code DATE_FORMAT(t, 'HH:mm')} of a UTC timestamp. */
  public static String formatMinute(long time) {
    ZonedDateTime t = Instant.ofEpochMilli(time).atZone(ZoneOffset.UTC);
    return String.format("%02d:%02d", t.getHour(), t.getMinute());
  }

  /** {@code HOUR(t)} of a UTC timestamp. */
  public static int hourOfDay(long time) {
    return (int) (Math.floorMod(time, DAY_MS) / 3_600_000L);
  }

  /** Price ranks: 0 below $100, 1 below $10,000, 2 from $10,000 (prices in cents). */
  public static int priceRank(long price) {
    return price < 10_000 ? 0 : price < 1_000_000 ? 1 : 2;
  }

  /** {@code COUNT(*)} (with merge, for session and sliding windows). */
  public static final class Count<T> implements AggregateFunction<T, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(T value, Long n) {
      return n + 1;
    }

    @Override
    public Long getResult(Long n) {
      return n;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }
}
