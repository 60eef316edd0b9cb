package weir.nexmark.datastream;

import static weir.nexmark.datastream.Streams.bids;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;

/** The queries keeping the last or the best rows per key (q18, q19). */
final class RankQueries {
  private RankQueries() {}

  /** Keep-last deduplication by event time: a later (or equally timed) bid replaces the kept one. */
  private static final class LastBid
      extends KeyedProcessFunction<Tuple2<Long, Long>, Bid, Change<Bid>> {
    private transient ValueState<Bid> last;

    @Override
    public void open(OpenContext context) {
      last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Bid.class));
    }

    @Override
    public void processElement(Bid b, Context ctx, Collector<Change<Bid>> out) throws Exception {
      Bid old = last.value();
      if (old == null) out.collect(new Change<>(RowKind.INSERT, b));
      else if (b.dateTime() >= old.dateTime()) {
        out.collect(new Change<>(RowKind.UPDATE_BEFORE, old));
        out.collect(new Change<>(RowKind.UPDATE_AFTER, b));
      } else return;
      last.update(b);
    }
  }

  /** q18, last bid per bidder and auction. */
  static final Query<Bid> Q18 =
      new Query<>("q18", true) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(b -> Tuple2.of(b.bidder(), b.auction()), Types.TUPLE(Types.LONG, Types.LONG))
              .process(new LastBid(), new TypeHint<Change<Bid>>() {}.getTypeInfo());
        }

        @Override
        public Object[] row(Bid b) {
          return Streams.bidColumns(b);
        }
      };

  /** A bid and its rank (from 1). */
  public record Ranked(Bid bid, long rank) {}

  static final int TOP_N = 10;

  /**
   * Per auction, the 10 highest bids by price (equal prices in arrival order) with their rank: a
   * bid entering the top moves those below it down a rank ({@code -U} old rank, {@code +U} new).
   */
  private static final class TopBids extends KeyedProcessFunction<Long, Bid, Change<Ranked>> {
    private transient ValueState<List<Bid>> top;

    @Override
    public void open(OpenContext context) {
      TypeInformation<List<Bid>> type = Types.LIST(TypeInformation.of(Bid.class));
      top = getRuntimeContext().getState(new ValueStateDescriptor<>("top", type));
    }

    @Override
    public void processElement(Bid b, Context ctx, Collector<Change<Ranked>> out) throws Exception {
      List<Bid> list = top.value();
      if (list == null) list = new ArrayList<>(TOP_N + 1);
      int at = list.size();
      while (at > 0 && list.get(at - 1).price() < b.price()) at--;
      if (at >= TOP_N) return;
      int before = list.size();
      list.add(at, b);
      // The bids from `at` on move one place down: the one that held rank r + 1 is at r + 1 now.
      for (int r = at; r < Math.min(before + 1, TOP_N); r++) {
        if (r < before) {
          out.collect(new Change<>(RowKind.UPDATE_BEFORE, new Ranked(list.get(r + 1), r + 1)));
          out.collect(new Change<>(RowKind.UPDATE_AFTER, new Ranked(list.get(r), r + 1)));
        } else out.collect(new Change<>(RowKind.INSERT, new Ranked(list.get(r), r + 1)));
      }
      if (list.size() > TOP_N) list.remove(TOP_N);
      top.update(list);
    }
  }

  /** q19, auction top-10 price: the 10 highest bids per auction with their rank. */
  static final Query<Ranked> Q19 =
      new Query<>("q19", true) {
        @Override
        public DataStream<?> build(DataStream<Event> events, QueryContext context) {
          return bids(events)
              .keyBy(Bid::auction)
              .process(new TopBids(), new TypeHint<Change<Ranked>>() {}.getTypeInfo());
        }

        @Override
        public Object[] row(Ranked r) {
          return Streams.concat(Streams.bidColumns(r.bid()), new Object[] {r.rank()});
        }
      };
}
