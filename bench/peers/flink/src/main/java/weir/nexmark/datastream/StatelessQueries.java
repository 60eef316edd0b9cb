package weir.nexmark.datastream;

import static weir.nexmark.datastream.Streams.bids;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;

/** The queries without state: maps, filters, a lookup in a static table. */
final class StatelessQueries {
  private StatelessQueries() {}

  /** q0 row: a bid projected. */
  public record Passed(long auction, long bidder, long price, long dateTime, String extra) {}

  /** q1 row: a bid projected, its price in euro cents (a double). */
  public record Projected(long auction, long bidder, double price, long dateTime, String extra) {}

  /** q0, pass-through: every bid, projected to five columns. */
  static final Query<Passed> Q0 =
      new Query<>("q0", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .map(b -> new Passed(b.auction(), b.bidder(), b.price(), b.dateTime(), b.extra()))
              .returns(Passed.class);
        }

        @Override
        public Object[] row(Passed r) {
          return new Object[] {r.auction(), r.bidder(), r.price(), r.dateTime(), r.extra()};
        }
      };

  /** q1, currency conversion: every bid with its price in euro. */
  static final Query<Projected> Q1 =
      new Query<>("q1", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .map(
                  b ->
                      new Projected(
                          b.auction(), b.bidder(), b.price() * 0.908, b.dateTime(), b.extra()))
              .returns(Projected.class);
        }

        @Override
        public Object[] row(Projected r) {
          return new Object[] {
            r.auction(), r.bidder(), Streams.euroDecimal(r.price()), r.dateTime(), r.extra()
          };
        }
      };

  /** q2 row. */
  public record AuctionPrice(long auction, long price) {}

  /** q2, selection: the bids on every 123rd auction. */
  static final Query<AuctionPrice> Q2 =
      new Query<>("q2", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .filter(b -> b.auction() % 123 == 0)
              .map(b -> new AuctionPrice(b.auction(), b.price()))
              .returns(AuctionPrice.class);
        }

        @Override
        public Object[] row(AuctionPrice r) {
          return new Object[] {r.auction(), r.price()};
        }
      };

  /** q13 row. */
  public record SideInputRow(long auction, long bidder, long price, long dateTime, String value) {}

  /** Rows of q13's side input; bids look it up by {@code auction % SIDE_INPUT_ROWS}. */
  static final int SIDE_INPUT_ROWS = 10_000;

  /** q13, bounded side input join: every bid with the side table's value for its key. */
  static final Query<SideInputRow> Q13 =
      new Query<>("q13", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          if (context.sideInput() == null) throw new IllegalArgumentException("q13 needs sideInput=FILE");
          return bids(events).flatMap(new SideInputJoin(context.sideInput())).name("side input join");
        }

        @Override
        public Object[] row(SideInputRow r) {
          return new Object[] {r.auction(), r.bidder(), r.price(), r.dateTime(), r.value()};
        }
      };

  /** Looks bids up in the side input, held in memory (an inner join: no value, no result). */
  private static final class SideInputJoin extends RichFlatMapFunction<Bid, SideInputRow> {
    private final String path;
    private transient Map<Long, String> table;

    SideInputJoin(String path) {
      this.path = path;
    }

    @Override
    public void open(OpenContext context) throws IOException {
      table = new HashMap<>();
      List<String> lines = Files.readAllLines(Path.of(path), StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.isEmpty()) continue;
        int comma = line.indexOf(',');
        try {
          table.put(Long.parseLong(line.substring(0, comma)), line.substring(comma + 1));
        } catch (RuntimeException e) {
          throw new IOException(path + ":" + (i + 1) + ": expected 'key,value', got '" + line + "'", e);
        }
      }
    }

    @Override
    public void flatMap(Bid b, Collector<SideInputRow> out) {
      String value = table.get(b.auction() % SIDE_INPUT_ROWS);
      if (value != null) {
        out.collect(new SideInputRow(b.auction(), b.bidder(), b.price(), b.dateTime(), value));
      }
    }
  }

  /** q14 row; {@code price} in euro cents. */
  public record Calculated(
      long auction, long bidder, double price, String bidTimeType, long dateTime, String extra,
      long cCounts) {}

  /** {@code dayTime} for hours 8-18, {@code nightTime} for 0-6 and 20-23, else {@code otherTime}. */
  static String bidTimeType(long time) {
    int hour = Streams.hourOfDay(time);
    if (hour >= 8 && hour <= 18) return "dayTime";
    if (hour <= 6 || hour >= 20) return "nightTime";
    return "otherTime";
  }

  static long countChar(String s, char c) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) if (s.charAt(i) == c) n++;
    return n;
  }

  /** q14, calculation: price filter, time-of-day class, character count. */
  static final Query<Calculated> Q14 =
      new Query<>("q14", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .filter(
                  b -> {
                    // 0.908 * price in (1e6, 5e7), decided exactly in integers.
                    long milli = b.price() * 908;
                    return milli > 1_000_000_000L && milli < 50_000_000_000L;
                  })
              .map(
                  b ->
                      new Calculated(
                          b.auction(),
                          b.bidder(),
                          b.price() * 0.908,
                          bidTimeType(b.dateTime()),
                          b.dateTime(),
                          b.extra(),
                          countChar(b.extra(), 'c')))
              .returns(Calculated.class);
        }

        @Override
        public Object[] row(Calculated r) {
          return new Object[] {
            r.auction(), r.bidder(), Streams.euroDecimal(r.price()), r.bidTimeType(),
            r.dateTime(), r.extra(), r.cCounts()
          };
        }
      };

  /** q21 row. */
  public record ChannelRow(long auction, long bidder, long price, String channel, String channelId) {}

  private static final Pattern CHANNEL_ID = Pattern.compile("(&|^)channel_id=([^&]*)");

  /** The fixed id of a hot channel (compared case-insensitively), else null. */
  static String hotChannelId(String channel) {
    int n = channel.length();
    // Only names of 5, 6 or 8 characters can match: skip lowercasing the others.
    if (n != 5 && n != 6 && n != 8) return null;
    return switch (channel.toLowerCase()) {
      case "apple" -> "0";
      case "google" -> "1";
      case "facebook" -> "2";
      case "baidu" -> "3";
      default -> null;
    };
  }

  /** q21, channel ids: hot channels by name, others from the url. */
  static final Query<ChannelRow> Q21 =
      new Query<>("q21", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .flatMap(
                  (Bid b, Collector<ChannelRow> out) -> {
                    String id = hotChannelId(b.channel());
                    if (id == null) {
                      Matcher m = CHANNEL_ID.matcher(b.url());
                      if (!m.find()) return;
                      id = m.group(2);
                    }
                    out.collect(new ChannelRow(b.auction(), b.bidder(), b.price(), b.channel(), id));
                  })
              .returns(ChannelRow.class);
        }

        @Override
        public Object[] row(ChannelRow r) {
          return new Object[] {r.auction(), r.bidder(), r.price(), r.channel(), r.channelId()};
        }
      };

  /** q22 row. */
  public record Directories(
      long auction, long bidder, long price, String channel, String dir1, String dir2,
      String dir3) {}

  /**
   * SPLIT_INDEX(s, '/', first) to SPLIT_INDEX(s, '/', first + 2) (null past the last token) in
   * one scan, cutting only those three tokens: the algorithm of Weir's q22.
   */
  static String[] threeTokens(String s, int first) {
    String[] tokens = new String[3];
    int start = 0;
    for (int k = 0; k < first; k++) {
      int slash = s.indexOf('/', start);
      if (slash < 0) return tokens;
      start = slash + 1;
    }
    for (int k = 0; k < 3; k++) {
      int slash = s.indexOf('/', start);
      if (slash < 0) {
        tokens[k] = s.substring(start);
        break;
      }
      tokens[k] = s.substring(start, slash);
      start = slash + 1;
    }
    return tokens;
  }

  /** q22, url directories: the first three path segments. */
  static final Query<Directories> Q22 =
      new Query<>("q22", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .map(
                  b -> {
                    String[] dirs = threeTokens(b.url(), 3);
                    return new Directories(
                        b.auction(), b.bidder(), b.price(), b.channel(), dirs[0], dirs[1], dirs[2]);
                  })
              .returns(Directories.class);
        }

        @Override
        public Object[] row(Directories r) {
          return new Object[] {
            r.auction(), r.bidder(), r.price(), r.channel(), r.dir1(), r.dir2(), r.dir3()
          };
        }
      };
}
