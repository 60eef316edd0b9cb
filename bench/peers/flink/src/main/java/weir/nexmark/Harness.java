package weir.nexmark;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import weir.nexmark.datastream.DataStreamJobs;

/**
 * Runs Nexmark queries as Flink SQL in a local MiniCluster, over the events of {@link
 * NexmarkSource}.
 *
 * <pre>
 * Harness dump OUT key=value...          first events as JSON lines (generator equality test)
 * Harness run --job SPEC [--job SPEC]... one job after another in this JVM
 * </pre>
 *
 * A SPEC is {@code query=q5,mode=collect|blackhole,parallelism=2,out=DIR,events=N,...}; keys
 * other than query/mode/parallelism/out/objectReuse/sideInput/engine are generator options ({@link
 * NexmarkConfig}); {@code sideInput} is the CSV file of q13's side input table. In
 * {@code collect} mode {@code query} may list several queries ({@code q0+q5+q11}), run as one
 * job; each query's changelog is applied to a multiset and the final rows are written to {@code
 * DIR/<query>.jsonl} as JSON arrays, one per line. In {@code blackhole} mode one query's rows go
 * to Flink's blackhole connector and {@code seconds} is the job's net runtime. {@code
 * engine=datastream} runs the queries written on the DataStream API ({@code
 * weir.nexmark.datastream}) instead of SQL (collect mode: as one job, its rows written alike). Query {@code gen} times the generator alone in a plain loop. For
 * every job one JSON line of timings goes to stdout.
 */
public final class Harness {
  private static final Set<String> JOB_KEYS =
      Set.of("query", "mode", "parallelism", "out", "objectReuse", "sideInput", "engine");

  private Harness() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 2 && args[0].equals("dump")) {
      dump(Path.of(args[1]), options(List.of(args).subList(2, args.length)));
      return;
    }
    if (args.length == 0 || !args[0].equals("run")) {
      System.err.println("usage: Harness dump OUT key=value... | run --job SPEC...");
      System.exit(2);
    }
    for (int i = 1; i < args.length; i++) {
      if (!args[i].equals("--job") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --job SPEC, got " + args[i]);
      }
      Map<String, String> spec = options(List.of(args[++i].split(",")));
      System.out.println(runJob(spec));
      System.out.flush();
    }
    // MiniCluster threads may linger; the work is done.
    System.exit(0);
  }

  private static Map<String, String> options(List<String> pairs) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : pairs) {
      int eq = pair.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("expected key=value, got " + pair);
      out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return out;
  }

  private static void dump(Path out, Map<String, String> options) throws IOException {
    NexmarkConfig config = NexmarkConfig.of(options);
    NexmarkGenerator generator = new NexmarkGenerator(config);
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (long i = 0; i < config.maxEvents; i++) {
        w.write(Json.event(generator.event(i)));
        w.write('\n');
      }
    }
  }

  private static String runJob(Map<String, String> spec) throws Exception {
    String query = spec.get("query");
    String mode = spec.getOrDefault("mode", "blackhole");
    int parallelism = Integer.parseInt(spec.getOrDefault("parallelism", "1"));
    Map<String, String> generatorOptions = new LinkedHashMap<>(spec);
    generatorOptions.keySet().removeAll(JOB_KEYS);
    NexmarkConfig config = NexmarkConfig.of(generatorOptions);
    boolean objectReuse = Boolean.parseBoolean(spec.getOrDefault("objectReuse", "false"));
    String engine = spec.getOrDefault("engine", "sql");
    if (!engine.equals("sql") && !engine.equals("datastream")) {
      throw new IllegalArgumentException("engine must be sql or datastream, got " + engine);
    }
    boolean dataStream = engine.equals("datastream");
    long rows = -1;
    double seconds;
    double cpuSeconds;
    long started = System.nanoTime();
    long cpuStarted = processCpuNanos();
    if (query.equals("gen")) {
      NexmarkGenerator generator = new NexmarkGenerator(config);
      long checksum = 0;
      for (long i = 0; i < config.maxEvents; i++) {
        // Use a string of every event, so no part of its generation can be optimized away.
        Events.Event e = generator.event(i);
        checksum += e.dateTime() + extraLength(e);
      }
      seconds = (System.nanoTime() - started) / 1e9;
      cpuSeconds = (processCpuNanos() - cpuStarted) / 1e9;
      if (checksum == 42) System.err.println("unlikely checksum");
    } else if (mode.equals("collect") && dataStream) {
      rows = DataStreamJobs.collect(List.of(query.split("\\+")), parallelism, config,
          Path.of(spec.get("out")), spec.get("sideInput"));
      seconds = (System.nanoTime() - started) / 1e9;
      cpuSeconds = (processCpuNanos() - cpuStarted) / 1e9;
    } else if (mode.equals("collect")) {
      rows = collect(List.of(query.split("\\+")), parallelism, generatorOptions,
          Path.of(spec.get("out")), spec.get("sideInput"));
      seconds = (System.nanoTime() - started) / 1e9;
      cpuSeconds = (processCpuNanos() - cpuStarted) / 1e9;
    } else if (dataStream) {
      JobClient client =
          DataStreamJobs.blackhole(query, parallelism, config, objectReuse, spec.get("sideInput"));
      long cpuSubmitted = processCpuNanos();
      JobExecutionResult result = client.getJobExecutionResult().get();
      cpuSeconds = (processCpuNanos() - cpuSubmitted) / 1e9;
      seconds = result.getNetRuntime(TimeUnit.MILLISECONDS) / 1e3;
    } else {
      StreamTableEnvironment tEnv = tableEnvironment(parallelism, generatorOptions, objectReuse);
      Table table = queryTable(tEnv, query, spec.get("sideInput"));
      // Planning happens before submission; count the CPU of the job from submission on.
      TableResult result = table.executeInsert(TableDescriptor.forConnector("blackhole").build());
      long cpuSubmitted = processCpuNanos();
      result.await();
      cpuSeconds = (processCpuNanos() - cpuSubmitted) / 1e9;
      seconds =
          result
                  .getJobClient()
                  .orElseThrow()
                  .getJobExecutionResult()
                  .get()
                  .getNetRuntime(TimeUnit.MILLISECONDS)
              / 1e3;
    }
    double wallSeconds = (System.nanoTime() - started) / 1e9;
    StringBuilder out = new StringBuilder("{");
    out.append("\"query\":");
    Json.string(out, query);
    out.append(",\"engine\":\"flink\",\"api\":\"").append(engine);
    out.append("\",\"events\":").append(config.maxEvents);
    out.append(",\"seconds\":").append(seconds);
    out.append(",\"wallSeconds\":").append(wallSeconds);
    out.append(",\"cpuSeconds\":").append(cpuSeconds);
    out.append(",\"eventsPerSec\":").append(config.maxEvents / seconds);
    out.append(",\"peakRssMb\":").append(peakRssMb());
    out.append(",\"parallelism\":").append(parallelism);
    out.append(",\"rows\":").append(rows);
    return out.append('}').toString();
  }

  /**
   * Runs a query file's setup statements and returns the table of its final SELECT. {@code
   * ${SIDE_INPUT}} in the file stands for {@code sideInput}, required by the queries using it.
   */
  private static Table queryTable(StreamTableEnvironment tEnv, String query, String sideInput)
      throws IOException {
    String sql = resource("queries/" + query + ".sql");
    if (sql.contains("${SIDE_INPUT}")) {
      if (sideInput == null) throw new IllegalArgumentException(query + " needs sideInput=FILE");
      sql = sql.replace("${SIDE_INPUT}", sideInput);
    }
    List<String> statements = statements(sql);
    for (String statement : statements.subList(0, statements.size() - 1)) {
      tEnv.executeSql(statement);
    }
    return tEnv.sqlQuery(statements.get(statements.size() - 1));
  }

  /**
   * Runs all {@code queries} as one job (sharing the source), each into a changelog sink, then
   * applies each changelog to a multiset and writes the final rows to {@code dir/<query>.jsonl}.
   * Returns the total number of rows.
   */
  private static long collect(
      List<String> queries,
      int parallelism,
      Map<String, String> generatorOptions,
      Path dir,
      String sideInput)
      throws Exception {
    Files.createDirectories(dir);
    StreamTableEnvironment tEnv = tableEnvironment(parallelism, generatorOptions, false);
    StatementSet set = tEnv.createStatementSet();
    for (String query : queries) {
      String path = dir.resolve(query + ".changelog").toString();
      set.add(
          queryTable(tEnv, query, sideInput)
              .insertInto(
                  TableDescriptor.forConnector("weir-changelog").option("path", path).build()));
    }
    set.execute().await();

    long rows = 0;
    for (String query : queries) {
      Map<String, Long> counts = new HashMap<>();
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, query + ".changelog.*")) {
        for (Path file : files) {
          for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            counts.merge(line.substring(1), line.charAt(0) == '+' ? 1L : -1L, Long::sum);
          }
          Files.delete(file);
        }
      }
      try (BufferedWriter w =
          Files.newBufferedWriter(dir.resolve(query + ".jsonl"), StandardCharsets.UTF_8)) {
        for (Map.Entry<String, Long> e : counts.entrySet()) {
          if (e.getValue() < 0) throw new IllegalStateException("retracted missing row " + e);
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

  /** A streaming table environment on a local MiniCluster, configured as the reference runs. */
  private static StreamTableEnvironment tableEnvironment(
      int parallelism, Map<String, String> generatorOptions, boolean objectReuse)
      throws IOException {
    Configuration conf = new Configuration();
    // Off by default, as in the reference: chained operators then copy every record.
    conf.setString("pipeline.object-reuse", Boolean.toString(objectReuse));
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    StreamTableEnvironment tEnv =
        StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
    Configuration table = tEnv.getConfig().getConfiguration();
    // Table options of the reference benchmark's flink config (nexmark/nexmark conf/config.yaml).
    table.setString("table.exec.mini-batch.enabled", "true");
    table.setString("table.exec.mini-batch.allow-latency", "2s");
    table.setString("table.exec.mini-batch.size", "50000");
    table.setString("table.optimizer.distinct-agg.split.enabled", "true");
    table.setString("table.local-time-zone", "UTC");
    for (String statement : statements(sourceDdl(generatorOptions))) tEnv.executeSql(statement);
    return tEnv;
  }

  /** Appends a row as a JSON array of its field values. */
  static void rowJson(StringBuilder out, Row row) {
    out.append('[');
    for (int i = 0; i < row.getArity(); i++) {
      if (i > 0) out.append(',');
      Json.value(out, row.getField(i));
    }
    out.append(']');
  }

  private static String sourceDdl(Map<String, String> generatorOptions) throws IOException {
    StringBuilder options = new StringBuilder();
    for (Map.Entry<String, String> e : generatorOptions.entrySet()) {
      options.append(",\n  '").append(e.getKey()).append("' = '").append(e.getValue()).append("'");
    }
    return resource("source.sql").replace("${OPTIONS}", options);
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = Harness.class.getResourceAsStream("/weir-nexmark/" + name)) {
      if (in == null) throw new IllegalArgumentException("no such query file: " + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The statements of a SQL file: comment lines dropped, split at a ';' ending a line. */
  public static List<String> statements(String sql) {
    StringBuilder kept = new StringBuilder();
    for (String line : sql.split("\n")) {
      if (!line.trim().startsWith("--")) kept.append(line).append('\n');
    }
    List<String> out = new ArrayList<>();
    for (String s : kept.toString().split(";\\s*\n")) {
      if (!s.isBlank()) out.add(s.trim());
    }
    return out;
  }

  private static int extraLength(Events.Event e) {
    return switch (e.type()) {
      case Events.PERSON -> e.person().extra().length();
      case Events.AUCTION -> e.auction().extra().length();
      default -> e.bid().extra().length();
    };
  }

  /** CPU time of the whole JVM (all threads: tasks, JIT, GC), in ns. */
  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    return 0;
  }

  private static long peakRssMb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }
}
