package weir.nexmark.datastream;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.CloseableIterator;
import weir.nexmark.Events.Event;
import weir.nexmark.Json;
import weir.nexmark.NexmarkConfig;
import weir.nexmark.NexmarkSource;

/**
 * Runs the DataStream queries in a local MiniCluster: heap state (HashMapStateBackend), no
 * checkpoints, event time from the events with the reference's 4 s watermark delay.
 */
public final class DataStreamJobs {
  private DataStreamJobs() {}

  private static StreamExecutionEnvironment environment(int parallelism, boolean objectReuse) {
    Configuration conf = new Configuration();
    conf.setString("pipeline.object-reuse", Boolean.toString(objectReuse));
    conf.setString("state.backend.type", "hashmap");
    return StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
  }

  private static DataStream<Event> events(StreamExecutionEnvironment env, NexmarkConfig config) {
    return env.fromSource(NexmarkSource.events(config), Streams.watermarks(), "nexmark")
        .returns(Event.class);
  }

  /** Submits {@code query} with its results discarded; the caller waits on the client. */
  public static JobClient blackhole(
      String query, int parallelism, NexmarkConfig config, boolean objectReuse, String sideInput)
      throws Exception {
    StreamExecutionEnvironment env = environment(parallelism, objectReuse);
    Queries.named(query)
        .build(events(env, config), new QueryContext(sideInput))
        .sinkTo(new DiscardingSink<>())
        .name("blackhole");
    return env.executeAsync("nexmark " + query + " (DataStream)");
  }

  /**
   * Runs all {@code queries} as one job (sharing the source), applies each one's changelog to a
   * multiset and writes the final rows to {@code dir/<query>.jsonl} as JSON arrays (as the SQL
   * harness does). Returns the total number of rows.
   */
  public static long collect(
      List<String> queries, int parallelism, NexmarkConfig config, Path dir, String sideInput)
      throws Exception {
    Files.createDirectories(dir);
    // With object reuse, as the benchmark runs the queries, so the checked code is the timed one.
    StreamExecutionEnvironment env = environment(parallelism, true);
    DataStream<Event> events = events(env, config);
    DataStream<String> lines = null;
    for (String name : queries) {
      Query<?> query = Queries.named(name);
      DataStream<String> rendered =
          anyResults(query.build(events, new QueryContext(sideInput)))
              .map(new RenderLine<>(query))
              .returns(Types.STRING);
      lines = lines == null ? rendered : lines.union(rendered);
    }
    if (lines == null) throw new IllegalArgumentException("no queries to collect");
    Map<String, Map<String, Long>> counts = new HashMap<>();
    for (String name : queries) counts.put(name, new HashMap<>());
    try (CloseableIterator<String> it = lines.executeAndCollect("nexmark collect (DataStream)")) {
      while (it.hasNext()) {
        String line = it.next();
        int tab = line.indexOf('\t');
        long delta = line.charAt(tab + 1) == '+' ? 1 : -1;
        counts.get(line.substring(0, tab)).merge(line.substring(tab + 2), delta, Long::sum);
      }
    }
    long rows = 0;
    for (String name : queries) {
      Path file = dir.resolve(name + ".jsonl");
      try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        for (Map.Entry<String, Long> e : counts.get(name).entrySet()) {
          if (e.getValue() < 0) {
            throw new IllegalStateException(name + " retracted a row it never added: " + e.getKey());
          }
          for (long i = 0; i < e.getValue(); i++) {
            w.write(e.getKey());
            w.write('\n');
            rows++;
          }
        }
      }
    }
    return rows;
  }

  /** A query's results as objects, for rendering (each query renders its own results). */
  @SuppressWarnings("unchecked")
  private static DataStream<Object> anyResults(DataStream<?> results) {
    return (DataStream<Object>) results;
  }

  /** A result as {@code <query> TAB <+|-> <JSON array of its row>}. */
  private static final class RenderLine<R>
      implements org.apache.flink.api.common.functions.MapFunction<Object, String> {
    private final Query<R> query;

    RenderLine(Query<R> query) {
      this.query = query;
    }

    @Override
    @SuppressWarnings("unchecked")
    public String map(Object result) {
      boolean retract = false;
      Object value = result;
      if (query.updating) {
        Change<?> c = (Change<?>) result;
        retract = c.retracts();
        value = c.value();
      }
      StringBuilder out = new StringBuilder(query.name).append('\t').append(retract ? '-' : '+');
      out.append('[');
      Object[] row = query.row((R) value);
      for (int i = 0; i < row.length; i++) {
        if (i > 0) out.append(',');
        Json.value(out, row[i]);
      }
      return out.append(']').toString();
    }
  }
}
