package weir.nexmark.datastream;

import static weir.nexmark.datastream.Streams.auctionColumns;
import static weir.nexmark.datastream.Streams.auctions;
import static weir.nexmark.datastream.Streams.bids;
import static weir.nexmark.datastream.Streams.people;

import java.util.Arrays;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import weir.nexmark.Events.Auction;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;
import weir.nexmark.Events.Person;

/** The queries built on regular joins (q3, q20) and those that aggregate or rank one (q4, q9). */
final class JoinQueries {
  private JoinQueries() {}

  /** q3 row. */
  public record Seller(String name, String city, String state, long id) {}

  private static final Set<String> STATES = Set.of("OR", "ID", "CA");

  /** q3, local item suggestion: sellers in OR/ID/CA of category-10 auctions. */
  static final Query<Seller> Q3 =
      new Query<>("q3", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return auctions(events)
              .filter(a -> a.category() == 10)
              .keyBy(Auction::seller)
              .connect(people(events).filter(p -> STATES.contains(p.state())).keyBy(Person::id))
              .process(
                  new RegularJoin<>(
                      Auction.class,
                      Person.class,
                      (a, p) -> true,
                      (a, p) -> new Seller(p.name(), p.city(), p.state(), a.id())),
                  TypeInformation.of(Seller.class));
        }

        @Override
        public Object[] row(Seller r) {
          return new Object[] {r.name(), r.city(), r.state(), r.id()};
        }
      };

  /** A bid and its auction. */
  public record BidAuction(Bid bid, Auction auction) {}

  /** q20, expand bid with auction: every bid on a category-10 auction. */
  static final Query<BidAuction> Q20 =
      new Query<>("q20", false) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(Bid::auction)
              .connect(auctions(events).filter(a -> a.category() == 10).keyBy(Auction::id))
              .process(
                  new RegularJoin<>(Bid.class, Auction.class, (b, a) -> true, BidAuction::new),
                  TypeInformation.of(BidAuction.class));
        }

        @Override
        public Object[] row(BidAuction r) {
          Object[] a = auctionColumns(r.auction());
          // The auction's columns but its id (the join key, already there as the bid's auction).
          return Streams.concat(Streams.bidColumns(r.bid()), Arrays.copyOfRange(a, 1, a.length));
        }
      };

  /** An auction and one of its bids within its lifetime. */
  public record AuctionBid(Auction auction, Bid bid) {}

  /** The join q4 and q9 start with: auctions with their bids timed within their lifetime. */
  static DataStream<AuctionBid> auctionBids(DataStream<Event> events) {
    return auctions(events)
        .keyBy(Auction::id)
        .connect(bids(events).keyBy(Bid::auction))
        .process(
            new RegularJoin<>(
                Auction.class,
                Bid.class,
                (a, b) -> a.dateTime() <= b.dateTime() && b.dateTime() <= a.expires(),
                AuctionBid::new),
            TypeInformation.of(AuctionBid.class))
        .name("auction bids");
  }

  /** An auction's category and a price: a bid's, or its winning one so far. */
  public record CategoryPrice(long id, long category, long price) {}

  /** Per auction, the maximum price so far as a changelog: {@code +I}, then {@code -U}/{@code +U}. */
  private static final class MaxPrice
      extends KeyedProcessFunction<Long, CategoryPrice, Change<CategoryPrice>> {
    private transient ValueState<CategoryPrice> max;

    @Override
    public void open(OpenContext context) {
      max = getRuntimeContext().getState(new ValueStateDescriptor<>("max", CategoryPrice.class));
    }

    @Override
    public void processElement(CategoryPrice x, Context ctx, Collector<Change<CategoryPrice>> out)
        throws Exception {
      CategoryPrice old = max.value();
      if (old == null) out.collect(new Change<>(RowKind.INSERT, x));
      else if (x.price() > old.price()) {
        out.collect(new Change<>(RowKind.UPDATE_BEFORE, old));
        out.collect(new Change<>(RowKind.UPDATE_AFTER, x));
      } else return;
      max.update(x);
    }
  }

  /** q4 row: a category and the average winning price. */
  public record CategoryAverage(long category, long average) {}

  /** Sum and count of a category's winning prices, and the average last emitted. */
  public static final class Average {
    public long sum;
    public long count;
    public long emitted;
    public boolean hasEmitted;
  }

  /** Per category, {@code AVG(final)} over the changelog of maxima (retractions take away). */
  private static final class AverageFinal
      extends KeyedProcessFunction<Long, Change<CategoryPrice>, Change<CategoryAverage>> {
    private transient ValueState<Average> state;

    @Override
    public void open(OpenContext context) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("average", Average.class));
    }

    @Override
    public void processElement(
        Change<CategoryPrice> c, Context ctx, Collector<Change<CategoryAverage>> out)
        throws Exception {
      Average acc = state.value();
      if (acc == null) acc = new Average();
      long category = ctx.getCurrentKey();
      if (c.retracts()) {
        acc.sum -= c.value().price();
        acc.count--;
      } else {
        acc.sum += c.value().price();
        acc.count++;
      }
      if (acc.count == 0) {
        if (acc.hasEmitted) out.collect(new Change<>(RowKind.DELETE, new CategoryAverage(category, acc.emitted)));
        state.clear();
        return;
      }
      long average = acc.sum / acc.count;
      if (!acc.hasEmitted) out.collect(new Change<>(RowKind.INSERT, new CategoryAverage(category, average)));
      else if (average != acc.emitted) {
        out.collect(new Change<>(RowKind.UPDATE_BEFORE, new CategoryAverage(category, acc.emitted)));
        out.collect(new Change<>(RowKind.UPDATE_AFTER, new CategoryAverage(category, average)));
      }
      acc.emitted = average;
      acc.hasEmitted = true;
      state.update(acc);
    }
  }

  /** q4, average winning price per category: two updating aggregations after the join. */
  static final Query<CategoryAverage> Q4 =
      new Query<>("q4", true) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return auctionBids(events)
              .map(ab -> new CategoryPrice(ab.auction().id(), ab.auction().category(), ab.bid().price()))
              .returns(CategoryPrice.class)
              .keyBy(CategoryPrice::id)
              .process(new MaxPrice(), new TypeHint<Change<CategoryPrice>>() {}.getTypeInfo())
              .keyBy(c -> c.value().category())
              .process(new AverageFinal(), new TypeHint<Change<CategoryAverage>>() {}.getTypeInfo());
        }

        @Override
        public Object[] row(CategoryAverage r) {
          return new Object[] {r.category(), r.average()};
        }
      };

  /** Per auction, the best bid so far: higher price, then earlier time, then first to arrive. */
  private static final class WinningBid
      extends KeyedProcessFunction<Long, AuctionBid, Change<AuctionBid>> {
    private transient ValueState<AuctionBid> best;

    @Override
    public void open(OpenContext context) {
      best = getRuntimeContext().getState(new ValueStateDescriptor<>("best", AuctionBid.class));
    }

    @Override
    public void processElement(AuctionBid x, Context ctx, Collector<Change<AuctionBid>> out)
        throws Exception {
      AuctionBid old = best.value();
      if (old == null) out.collect(new Change<>(RowKind.INSERT, x));
      else {
        Bid b = x.bid();
        Bid o = old.bid();
        if (b.price() < o.price() || (b.price() == o.price() && b.dateTime() >= o.dateTime())) return;
        out.collect(new Change<>(RowKind.UPDATE_BEFORE, old));
        out.collect(new Change<>(RowKind.UPDATE_AFTER, x));
      }
      best.update(x);
    }
  }

  /** q9, winning bids: per auction the highest bid within its lifetime (top-1). */
  static final Query<AuctionBid> Q9 =
      new Query<>("q9", true) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return auctionBids(events)
              .keyBy(ab -> ab.auction().id())
              .process(new WinningBid(), new TypeHint<Change<AuctionBid>>() {}.getTypeInfo());
        }

        @Override
        public Object[] row(AuctionBid r) {
          Bid b = r.bid();
          return Streams.concat(
              auctionColumns(r.auction()),
              new Object[] {b.auction(), b.bidder(), b.price(), b.dateTime(), b.extra()});
        }
      };
}
