package weir.nexmark;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.function.SerializableFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import weir.nexmark.Events.Auction;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;
import weir.nexmark.Events.Person;

/**
 * The Nexmark stream as a Flink source, split exactly as Weir's NexmarkSource: at parallelism
 * P, reader s generates indexes s, s+P, s+2P, ... (each reader's events are in event-time
 * order). SQL reads {@link RowData} rows {@code (event_type, person, auction, bid)} ({@link
 * #rows}); DataStream jobs read the {@link Event}s themselves ({@link #events}).
 */
public final class NexmarkSource<T> implements Source<T, NexmarkSplit, List<NexmarkSplit>> {
  private static final long serialVersionUID = 1L;
  private final NexmarkConfig config;
  private final SerializableFunction<Event, T> convert;

  private NexmarkSource(NexmarkConfig config, SerializableFunction<Event, T> convert) {
    this.config = config;
    this.convert = convert;
  }

  /** The rows of the reference DDL's physical columns. */
  public static NexmarkSource<RowData> rows(NexmarkConfig config) {
    return new NexmarkSource<>(config, NexmarkSource::toRow);
  }

  /** The events as generated. */
  public static NexmarkSource<Event> events(NexmarkConfig config) {
    return new NexmarkSource<>(config, e -> e);
  }

  @Override
  public Boundedness getBoundedness() {
    return config.maxEvents == Long.MAX_VALUE
        ? Boundedness.CONTINUOUS_UNBOUNDED
        : Boundedness.BOUNDED;
  }

  @Override
  public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> createEnumerator(
      SplitEnumeratorContext<NexmarkSplit> context) {
    int p = context.currentParallelism();
    List<NexmarkSplit> splits = new ArrayList<>(p);
    for (int s = 0; s < p; s++) splits.add(new NexmarkSplit(s, p, s));
    return new Enumerator(context, splits);
  }

  @Override
  public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> restoreEnumerator(
      SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> checkpoint) {
    return new Enumerator(context, new ArrayList<>(checkpoint));
  }

  @Override
  public SimpleVersionedSerializer<NexmarkSplit> getSplitSerializer() {
    return new NexmarkSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<List<NexmarkSplit>> getEnumeratorCheckpointSerializer() {
    return new NexmarkSplit.ListSerializer();
  }

  @Override
  public SourceReader<T, NexmarkSplit> createReader(SourceReaderContext context) {
    return new Reader<>(config, convert);
  }

  /** Hands split s to reader s when it registers; there are no further splits. */
  private static final class Enumerator
      implements SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> {
    private final SplitEnumeratorContext<NexmarkSplit> context;
    private final List<NexmarkSplit> pending;

    Enumerator(SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> pending) {
      this.context = context;
      this.pending = pending;
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {}

    @Override
    public void addSplitsBack(List<NexmarkSplit> splits, int subtaskId) {
      pending.addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
      for (var it = pending.iterator(); it.hasNext(); ) {
        NexmarkSplit split = it.next();
        if (split.subtask % context.currentParallelism() == subtaskId) {
          context.assignSplit(split, subtaskId);
          it.remove();
        }
      }
      context.signalNoMoreSplits(subtaskId);
    }

    @Override
    public List<NexmarkSplit> snapshotState(long checkpointId) {
      return new ArrayList<>(pending);
    }

    @Override
    public void close() {}
  }

  /** Generates the events of its splits, one per poll. */
  private static final class Reader<T> implements SourceReader<T, NexmarkSplit> {
    private final NexmarkConfig config;
    private final SerializableFunction<Event, T> convert;
    private final NexmarkGenerator generator;
    private final ArrayDeque<NexmarkSplit> queued = new ArrayDeque<>();
    private NexmarkSplit current;
    private long next;
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    Reader(NexmarkConfig config, SerializableFunction<Event, T> convert) {
      this.config = config;
      this.convert = convert;
      this.generator = new NexmarkGenerator(config);
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) {
      while (current == null || next >= config.maxEvents) {
        current = queued.poll();
        if (current == null) {
          if (noMoreSplits) return InputStatus.END_OF_INPUT;
          available = new CompletableFuture<>();
          return InputStatus.NOTHING_AVAILABLE;
        }
        next = current.nextIndex;
      }
      output.collect(convert.apply(generator.event(next)));
      next += current.parallelism;
      return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public List<NexmarkSplit> snapshotState(long checkpointId) {
      List<NexmarkSplit> state = new ArrayList<>();
      if (current != null) state.add(new NexmarkSplit(current.subtask, current.parallelism, next));
      state.addAll(queued);
      return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return available;
    }

    @Override
    public void addSplits(List<NexmarkSplit> splits) {
      queued.addAll(splits);
      available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
      noMoreSplits = true;
      available.complete(null);
    }

    @Override
    public void close() {}
  }

  /** The row of the reference DDL's physical columns (event_type, person, auction, bid). */
  static RowData toRow(Event e) {
    return switch (e.type()) {
      case Events.PERSON -> GenericRowData.of(Events.PERSON, person(e.person()), null, null);
      case Events.AUCTION -> GenericRowData.of(Events.AUCTION, null, auction(e.auction()), null);
      default -> GenericRowData.of(Events.BID, null, null, bid(e.bid()));
    };
  }

  private static RowData person(Person p) {
    return GenericRowData.of(
        p.id(),
        StringData.fromString(p.name()),
        StringData.fromString(p.emailAddress()),
        StringData.fromString(p.creditCard()),
        StringData.fromString(p.city()),
        StringData.fromString(p.state()),
        TimestampData.fromEpochMillis(p.dateTime()),
        StringData.fromString(p.extra()));
  }

  private static RowData auction(Auction a) {
    return GenericRowData.of(
        a.id(),
        StringData.fromString(a.itemName()),
        StringData.fromString(a.description()),
        a.initialBid(),
        a.reserve(),
        TimestampData.fromEpochMillis(a.dateTime()),
        TimestampData.fromEpochMillis(a.expires()),
        a.seller(),
        a.category(),
        StringData.fromString(a.extra()));
  }

  private static RowData bid(Bid b) {
    return GenericRowData.of(
        b.auction(),
        b.bidder(),
        b.price(),
        StringData.fromString(b.channel()),
        StringData.fromString(b.url()),
        TimestampData.fromEpochMillis(b.dateTime()),
        StringData.fromString(b.extra()));
  }
}
