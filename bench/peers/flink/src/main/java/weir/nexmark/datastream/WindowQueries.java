package weir.nexmark.datastream;

import static weir.nexmark.datastream.Streams.DAY_MS;
import static weir.nexmark.datastream.Streams.auctions;
import static weir.nexmark.datastream.Streams.bids;
import static weir.nexmark.datastream.Streams.people;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingProcessingTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;

/** The queries over event-time (and q12's processing-time) windows. */
final class WindowQueries {
  private WindowQueries() {}

  /** A count per key and window. */
  public record KeyCount(long key, long count, long start, long end) {}

  /** Emits the single count of a window with its key and bounds. */
  private static final class WithWindow
      extends ProcessWindowFunction<Long, KeyCount, Long, TimeWindow> {
    @Override
    public void process(Long key, Context ctx, Iterable<Long> counts, Collector<KeyCount> out) {
      TimeWindow w = ctx.window();
      out.collect(new KeyCount(key, counts.iterator().next(), w.getStart(), w.getEnd()));
    }
  }

  /** q5 row: an auction with the most bids in some window, and that count. */
  public record Hot(long auction, long num) {}

  /** Per window (keyed by its end), the auctions whose count is the window's maximum. */
  private static final class Hottest extends ProcessWindowFunction<KeyCount, Hot, Long, TimeWindow> {
    @Override
    public void process(Long end, Context ctx, Iterable<KeyCount> counts, Collector<Hot> out) {
      long max = 0;
      for (KeyCount c : counts) if (c.count() > max) max = c.count();
      for (KeyCount c : counts) if (c.count() >= max) out.collect(new Hot(c.key(), c.count()));
    }
  }

  /** q5, hot items: most-bid auctions per 10 s window sliding by 2 s. */
  static final Query<Hot> Q5 =
      new Query<>("q5", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              // Only the auction crosses the shuffle (the event time travels with the record).
              .map(Bid::auction)
              .returns(Types.LONG)
              .keyBy(a -> a)
              .window(SlidingEventTimeWindows.of(Duration.ofSeconds(10), Duration.ofSeconds(2)))
              .aggregate(new Streams.Count<>(), new WithWindow())
              // Each count is stamped with its window's end - 1, so a tumbling window of one
              // slide, keyed by the window end, holds exactly the counts of one sliding window.
              .keyBy(KeyCount::end)
              .window(TumblingEventTimeWindows.of(Duration.ofSeconds(2)))
              .process(new Hottest());
        }

        @Override
        public Object[] row(Hot r) {
          return new Object[] {r.auction(), r.num()};
        }
      };

  static final long Q7_WINDOW_MS = 10_000;

  /** A bid, or a copy of a bid timed exactly at the end of the window it is sent to. */
  public record Q7Input(Bid bid, boolean boundary) {
    long windowStart() {
      return boundary
          ? bid.dateTime() - Q7_WINDOW_MS
          : bid.dateTime() - Math.floorMod(bid.dateTime(), Q7_WINDOW_MS);
    }
  }

  /** What a q7 window holds until it closes: its maximum and the bids that may match it. */
  public static final class Highest {
    public long max = Long.MIN_VALUE;
    /** The window's own bids priced at {@code max}. */
    public List<Bid> best = new ArrayList<>();
    /** Bids at the window's end (matched if priced at {@code max}). */
    public List<Bid> boundary = new ArrayList<>();
  }

  /** Keyed by window start; a timer at the window's end (inclusive) emits the matches. */
  private static final class HighestBid extends KeyedProcessFunction<Long, Q7Input, Bid> {
    private transient ValueState<Highest> state;

    @Override
    public void open(OpenContext context) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("highest", Highest.class));
    }

    @Override
    public void processElement(Q7Input x, Context ctx, Collector<Bid> out) throws Exception {
      Highest h = state.value();
      if (h == null) {
        h = new Highest();
        // All bids timed <= the window end have arrived once the watermark reaches it.
        ctx.timerService().registerEventTimeTimer(ctx.getCurrentKey() + Q7_WINDOW_MS);
      }
      Bid b = x.bid();
      if (x.boundary()) h.boundary.add(b);
      else if (b.price() > h.max) {
        h.max = b.price();
        h.best = new ArrayList<>();
        h.best.add(b);
      } else if (b.price() == h.max) h.best.add(b);
      state.update(h);
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<Bid> out) throws Exception {
      Highest h = state.value();
      if (h == null) return;
      for (Bid b : h.best) out.collect(b);
      for (Bid b : h.boundary) if (b.price() == h.max) out.collect(b);
      state.clear();
    }
  }

  /** q7, highest bid: the bids at the maximum price of a 10 s tumbling window. */
  static final Query<Bid> Q7 =
      new Query<>("q7", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .flatMap(
                  (Bid b, Collector<Q7Input> out) -> {
                    out.collect(new Q7Input(b, false));
                    if (b.dateTime() % Q7_WINDOW_MS == 0) out.collect(new Q7Input(b, true));
                  })
              .returns(Q7Input.class)
              .keyBy(Q7Input::windowStart)
              .process(new HighestBid())
              .returns(Bid.class);
        }

        @Override
        public Object[] row(Bid b) {
          return new Object[] {b.auction(), b.price(), b.bidder(), b.dateTime(), b.extra()};
        }
      };

  /** A person's columns q8 reads (the time gives the window's start). */
  public record NewPerson(long id, String name, long dateTime) {}

  /** q8 row. */
  public record NewUser(long id, String name, long starttime) {}

  /** q8, monitor new users: people who opened an auction in the window they registered in. */
  static final Query<NewUser> Q8 =
      new Query<>("q8", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          // Only the columns the query reads cross the shuffle.
          DataStream<NewPerson> persons =
              people(events)
                  .map(p -> new NewPerson(p.id(), p.name(), p.dateTime()))
                  .returns(NewPerson.class);
          DataStream<Long> sellers = auctions(events).map(a -> a.seller()).returns(Types.LONG);
          return persons
              .coGroup(sellers)
              .where(NewPerson::id)
              .equalTo(s -> s)
              .window(TumblingEventTimeWindows.of(Duration.ofSeconds(10)))
              .apply(
                  (Iterable<NewPerson> ps, Iterable<Long> sold, Collector<NewUser> out) -> {
                    if (!sold.iterator().hasNext()) return;
                    Set<String> names = new HashSet<>();
                    for (NewPerson p : ps) {
                      if (names.add(p.name())) {
                        long start = p.dateTime() - Math.floorMod(p.dateTime(), 10_000L);
                        out.collect(new NewUser(p.id(), p.name(), start));
                      }
                    }
                  },
                  Types.POJO(NewUser.class));
        }

        @Override
        public Object[] row(NewUser r) {
          return new Object[] {r.id(), r.name(), r.starttime()};
        }
      };

  /** q11, user sessions: the bids of each bidder per session (10 s gap). */
  static final Query<KeyCount> Q11 =
      new Query<>("q11", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              // Only the bidder crosses the shuffle (the event time travels with the record).
              .map(Bid::bidder)
              .returns(Types.LONG)
              .keyBy(b -> b)
              .window(EventTimeSessionWindows.withGap(Duration.ofSeconds(10)))
              .aggregate(new Streams.Count<>(), new WithWindow());
        }

        @Override
        public Object[] row(KeyCount r) {
          return new Object[] {r.key(), r.count(), r.start(), r.end()};
        }
      };

  /** q12, processing-time windows: bids per bidder per 10 s of wall-clock time. */
  static final Query<KeyCount> Q12 =
      new Query<>("q12", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(Bid::bidder)
              .window(TumblingProcessingTimeWindows.of(Duration.ofSeconds(10)))
              .aggregate(new Streams.Count<Bid>(), new WithWindow());
        }

        @Override
        public Object[] row(KeyCount r) {
          return new Object[] {r.key(), r.count(), r.start(), r.end()};
        }
      };

  /** A day window's result: its channel (q16; null for q15), start, and the counts. */
  public record DayStats(String channel, long start, long[] stats) {}

  /** Emits a day window's single result with its start (and the key, when a channel). */
  private static final class InDay<K>
      extends ProcessWindowFunction<long[], DayStats, K, TimeWindow> {
    @Override
    public void process(K key, Context ctx, Iterable<long[]> results, Collector<DayStats> out) {
      String channel = key instanceof String s ? s : null;
      out.collect(new DayStats(channel, ctx.window().getStart(), results.iterator().next()));
    }
  }

  private static final TypeInformation<DayStats> DAY_STATS = TypeInformation.of(DayStats.class);

  private static Object[] statsRow(Object[] head, long[] stats) {
    Object[] out = new Object[head.length + 12];
    System.arraycopy(head, 0, out, 0, head.length);
    for (int i = 0; i < 12; i++) out[head.length + i] = stats[i];
    return out;
  }

  /** q15, bidding statistics per day; one tumbling day window keyed by the day. */
  static final Query<DayStats> Q15 =
      new Query<>("q15", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(b -> Math.floorDiv(b.dateTime(), DAY_MS))
              .window(TumblingEventTimeWindows.of(Duration.ofDays(1)))
              .aggregate(new BidStats(), new InDay<Long>(), BidStats.ACCUMULATOR,
                  BidStats.RESULT, DAY_STATS);
        }

        @Override
        public Object[] row(DayStats r) {
          return statsRow(new Object[] {Streams.formatDay(r.start())}, r.stats());
        }
      };

  /** q16, channel statistics per day, plus the latest HH:mm; keyed by channel. */
  static final Query<DayStats> Q16 =
      new Query<>("q16", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(Bid::channel)
              .window(TumblingEventTimeWindows.of(Duration.ofDays(1)))
              .aggregate(new BidStats(), new InDay<String>(), BidStats.ACCUMULATOR,
                  BidStats.RESULT, DAY_STATS);
        }

        @Override
        public Object[] row(DayStats r) {
          Object[] head = {
            r.channel(),
            Streams.formatDay(r.start()),
            // MAX(DATE_FORMAT(dateTime, 'HH:mm')) within one day = the latest bid's minute.
            Streams.formatMinute(r.stats()[BidStats.LAST_TIME])
          };
          return statsRow(head, r.stats());
        }
      };

  /** q17 accumulator: bid counts per rank, min, max, sum of prices (mutated in place). */
  public static final class AuctionStats {
    public long[] bids = new long[3];
    public long min = Long.MAX_VALUE;
    public long max = Long.MIN_VALUE;
    public long sum;
  }

  private static final class AuctionStatsOf
      implements AggregateFunction<Bid, AuctionStats, AuctionStats> {
    @Override
    public AuctionStats createAccumulator() {
      return new AuctionStats();
    }

    @Override
    public AuctionStats add(Bid b, AuctionStats acc) {
      acc.bids[Streams.priceRank(b.price())]++;
      if (b.price() < acc.min) acc.min = b.price();
      if (b.price() > acc.max) acc.max = b.price();
      acc.sum += b.price();
      return acc;
    }

    @Override
    public AuctionStats getResult(AuctionStats acc) {
      return acc;
    }

    @Override
    public AuctionStats merge(AuctionStats a, AuctionStats b) {
      throw new UnsupportedOperationException("tumbling windows only");
    }
  }

  /** q17 row. */
  public record AuctionDay(long auction, long start, AuctionStats stats) {}

  private static final class AuctionInDay
      extends ProcessWindowFunction<AuctionStats, AuctionDay, Long, TimeWindow> {
    @Override
    public void process(
        Long key, Context ctx, Iterable<AuctionStats> results, Collector<AuctionDay> out) {
      out.collect(new AuctionDay(key, ctx.window().getStart(), results.iterator().next()));
    }
  }

  /** q17, auction statistics per day; keyed by auction. */
  static final Query<AuctionDay> Q17 =
      new Query<>("q17", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(Bid::auction)
              .window(TumblingEventTimeWindows.of(Duration.ofDays(1)))
              .aggregate(new AuctionStatsOf(), new AuctionInDay());
        }

        @Override
        public Object[] row(AuctionDay r) {
          AuctionStats s = r.stats();
          long total = s.bids[0] + s.bids[1] + s.bids[2];
          return new Object[] {
            r.auction(), Streams.formatDay(r.start()), total, s.bids[0], s.bids[1], s.bids[2],
            s.min, s.max, s.sum / total, s.sum
          };
        }
      };
}
