package weir.sql;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs the SQL differential suite's queries over shared tables given as JSON rows, in batches of
 * queries per job in this JVM, and writes each query's final rows (its changelog applied) or its
 * error as one JSON line.
 *
 * <pre>
 * DifferentialRunner SUITE.json OUT.jsonl
 * </pre>
 *
 * SUITE.json is {@code {"tables": [{"name", "columns": [[name, type]...], "watermark": "SQL
 * expression" or null, "rows": [[...]...]}...], "cases": [{"name", "sql"}...]}}. Types are
 * STRING, INT, BIGINT, DOUBLE, BOOLEAN, DATE (days since 1970-01-01 in the JSON),
 * DECIMAL(p, s) (plain text), TIMESTAMP(3) (epoch milliseconds, read as UTC) and TIMESTAMP_LTZ(3)
 * (epoch milliseconds of the instant). Each table's
 * rows arrive in the given order from one source; the first word of {@code watermark} is the
 * rowtime column. A case may name a session time zone ({@code "zone"}, UTC otherwise). Each output line is {@code {"name", "updating": bool, "rows": [[...]...]}}
 * (the rows left after applying every +I/-U/+U/-D, sorted) or {@code {"name", "error"}};
 * values are written as they were read (TIME as milliseconds of the day).
 */
public final class DifferentialRunner {
  private static final ObjectMapper JSON = JsonRows.JSON;

  private DifferentialRunner() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: DifferentialRunner SUITE.json OUT.jsonl");
      System.exit(2);
    }
    JsonNode suite = JSON.readTree(Files.readString(Path.of(args[0])));
    JsonNode tables = suite.get("tables");
    List<JsonNode> cases = new ArrayList<>();
    suite.get("cases").forEach(cases::add);
    try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
      for (int from = 0; from < cases.size(); from += BATCH) {
        List<JsonNode> batch = cases.subList(from, Math.min(cases.size(), from + BATCH));
        for (ObjectNode line : runBatch(tables, batch)) {
          out.write(JSON.writeValueAsString(line));
          out.write('\n');
        }
        out.flush();
      }
    }
    // MiniCluster threads may linger; the work is done.
    System.exit(0);
  }

  /** Queries per Flink job: starting a job costs seconds, running one of these queries little. */
  private static final int BATCH = 40;

  /**
   * Runs a batch of queries as one job (each query's changelog tagged with its index, unioned,
   * collected); a query that does not plan there, or every query when the job fails, runs again
   * alone, so that each answer or error is the query's own.
   */
  private static List<ObjectNode> runBatch(JsonNode tables, List<JsonNode> batch) {
    List<ObjectNode> lines = new ArrayList<>();
    List<Map<String, Integer>> finals = new ArrayList<>();
    boolean[] updating = new boolean[batch.size()];
    DataStream<String> all = null;
    StreamTableEnvironment tEnv = tableEnvironment(tables);
    for (int i = 0; i < batch.size(); i++) {
      ObjectNode line = JSON.createObjectNode();
      line.put("name", batch.get(i).get("name").asText());
      lines.add(line);
      finals.add(null);
      if (batch.get(i).hasNonNull("zone")) {
        // A session time zone of its own: the query runs alone, in its own environment.
        runAlone(tables, batch.get(i), line);
        continue;
      }
      try {
        DataStream<String> changes =
            tEnv.toChangelogStream(tEnv.sqlQuery(batch.get(i).get("sql").asText()))
                .map(new Tagged(i))
                .returns(Types.STRING);
        all = all == null ? changes : all.union(changes);
        finals.set(i, new TreeMap<>());
      } catch (Exception e) {
        runAlone(tables, batch.get(i), line);
      }
    }
    if (all == null) return lines;
    try (CloseableIterator<String> it = all.executeAndCollect()) {
      while (it.hasNext()) {
        String[] parts = it.next().split("\t", 3);
        int i = Integer.parseInt(parts[0]);
        RowKind kind = RowKind.fromByteValue(Byte.parseByte(parts[1]));
        if (kind != RowKind.INSERT) updating[i] = true;
        apply(finals.get(i), kind, parts[2]);
      }
    } catch (Exception e) {
      for (int i = 0; i < batch.size(); i++) {
        if (finals.get(i) != null) runAlone(tables, batch.get(i), lines.get(i));
      }
      return lines;
    }
    for (int i = 0; i < batch.size(); i++) {
      if (finals.get(i) != null) setRows(lines.get(i), updating[i], finals.get(i));
    }
    return lines;
  }

  /** A query's changes as {@code index TAB kind TAB values-as-JSON}. */
  private static final class Tagged implements MapFunction<Row, String> {
    private final int index;

    Tagged(int index) {
      this.index = index;
    }

    @Override
    public String map(Row row) throws Exception {
      ArrayNode values = JSON.createArrayNode();
      for (int i = 0; i < row.getArity(); i++) values.add(JsonRows.json(row.getField(i)));
      return index + "\t" + row.getKind().toByteValue() + "\t" + JSON.writeValueAsString(values);
    }
  }

  /** Adds (+I, +U) or takes out (-U, -D) one row of a final table. */
  private static void apply(Map<String, Integer> counts, RowKind kind, String text) {
    boolean add = kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER;
    int n = counts.getOrDefault(text, 0) + (add ? 1 : -1);
    if (n < 0) throw new IllegalStateException("changelog retracts an absent row " + text);
    if (n == 0) counts.remove(text);
    else counts.put(text, n);
  }

  private static void setRows(ObjectNode line, boolean updating, Map<String, Integer> counts) {
    ArrayNode rows = JSON.createArrayNode();
    try {
      for (Map.Entry<String, Integer> e : counts.entrySet()) {
        for (int i = 0; i < e.getValue(); i++) rows.add(JSON.readTree(e.getKey()));
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    line.put("updating", updating);
    line.set("rows", rows);
  }

  /** Runs one query as its own job, through collect(), into {@code line}. */
  private static void runAlone(JsonNode tables, JsonNode c, ObjectNode line) {
    try {
      String zone = c.hasNonNull("zone") ? c.get("zone").asText() : "UTC";
      run(tables, c.get("sql").asText(), zone, line);
    } catch (Exception e) {
      line.remove("updating");
      line.remove("rows");
      line.put("error", JsonRows.errorText(e));
    }
  }

  private static void run(JsonNode tables, String sql, String zone, ObjectNode line)
      throws Exception {
    StreamTableEnvironment tEnv = tableEnvironment(tables, zone);
    // The final table: each row's JSON text and how many times it is there.
    Map<String, Integer> counts = new TreeMap<>();
    boolean updating = false;
    try (CloseableIterator<Row> it = tEnv.sqlQuery(sql).execute().collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        ArrayNode values = JSON.createArrayNode();
        for (int i = 0; i < row.getArity(); i++) values.add(JsonRows.json(row.getField(i)));
        if (row.getKind() != RowKind.INSERT) updating = true;
        apply(counts, row.getKind(), JSON.writeValueAsString(values));
      }
    }
    setRows(line, updating, counts);
  }

  /** A fresh job at parallelism 1 in UTC with the suite's tables. */
  private static StreamTableEnvironment tableEnvironment(JsonNode tables) {
    return tableEnvironment(tables, "UTC");
  }

  /** A fresh job at parallelism 1 in the session time zone {@code zone} with the suite's tables. */
  private static StreamTableEnvironment tableEnvironment(JsonNode tables, String zone) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    StreamTableEnvironment tEnv =
        StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    tEnv.getConfig().set("table.local-time-zone", zone);
    for (JsonNode table : tables) JsonRows.register(env, tEnv, table);
    return tEnv;
  }
}
