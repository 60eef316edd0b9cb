package weir.sql;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs SQL queries over small tables given as JSON rows, one query after another in this JVM,
 * and writes each query's result rows (or its error) as one JSON line.
 *
 * <pre>
 * RowsQueryRunner CASES.json OUT.jsonl
 * </pre>
 *
 * CASES.json is an array of {@code {"name", "table": {"name", "columns": [[name, type]...],
 * "watermark": "SQL expression", "rows": [[...]...]}, "sql"}}. Types are STRING, INT, BIGINT,
 * DOUBLE, BOOLEAN and TIMESTAMP(3) (epoch milliseconds in the JSON, read as UTC). The table's
 * rows arrive in the given order from one source; its last column named in {@code watermark}
 * is its rowtime attribute. Each output line is {@code {"name", "rows": [[...]...]}} or {@code
 * {"name", "error": "..."}}; TIMESTAMP values are written as epoch milliseconds, DECIMAL as
 * plain text.
 */
public final class RowsQueryRunner {
  private static final ObjectMapper JSON = JsonRows.JSON;

  private RowsQueryRunner() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: RowsQueryRunner CASES.json OUT.jsonl");
      System.exit(2);
    }
    JsonNode cases = JSON.readTree(Files.readString(Path.of(args[0])));
    try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
      for (JsonNode c : cases) {
        ObjectNode line = JSON.createObjectNode();
        line.put("name", c.get("name").asText());
        try {
          line.set("rows", run(c));
        } catch (Exception e) {
          line.put("error", JsonRows.errorText(e));
        }
        out.write(JSON.writeValueAsString(line));
        out.write('\n');
        out.flush();
      }
    }
    // MiniCluster threads may linger; the work is done.
    System.exit(0);
  }

  private static ArrayNode run(JsonNode c) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(1);
    StreamTableEnvironment tEnv =
        StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    tEnv.getConfig().set("table.local-time-zone", "UTC");
    JsonRows.register(env, tEnv, c.get("table"));
    ArrayNode result = JSON.createArrayNode();
    try (CloseableIterator<Row> it = tEnv.sqlQuery(c.get("sql").asText()).execute().collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        ArrayNode out = result.addArray();
        for (int i = 0; i < row.getArity(); i++) out.add(JsonRows.json(row.getField(i)));
      }
    }
    return result;
  }
}
