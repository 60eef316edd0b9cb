package weir.cep;

import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.EventComparator;
import org.apache.flink.cep.PatternStream;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.functions.TimedOutPartialMatchHandler;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Runs CEP cases on Flink CEP: each case is a pattern described as data, an input of events and
 * watermarks, and a time domain. Cases run as pipelines of shared jobs (source, watermarks from
 * the input's marks, keyBy, CEP, output) in a local MiniCluster at parallelism 1, so each case's
 * elements and watermarks reach the CEP operator exactly in the order given.
 *
 * <p>Usage: {@code CepPeer cases.json} — prints one JSON line per case, in input order:
 * {@code {"name", "matches", "timedOut", "late"}} (each sorted), or {@code {"name", "error"}} if
 * Flink rejects the pattern or the job fails. A match is its stages in pattern order, each as
 * {@code stage:id,id}; a timeout adds {@code @timeoutTimestamp}.
 */
public final class CepPeer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CASES_PER_JOB = 24;
  private static final OutputTag<String> TIMED_OUT = new OutputTag<>("timed-out") {};
  private static final OutputTag<Item> LATE = new OutputTag<>("late") {};

  private CepPeer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: CepPeer <cases.json>");
      System.exit(2);
    }
    JsonNode root = JSON.readTree(new File(args[0]));
    JsonNode cases = root.isArray() ? root : root.path("cases");
    List<JsonNode> all = new ArrayList<>();
    cases.forEach(all::add);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    for (int from = 0; from < all.size(); from += CASES_PER_JOB) {
      List<JsonNode> chunk = all.subList(from, Math.min(all.size(), from + CASES_PER_JOB));
      for (ObjectNode result : runChunk(chunk)) out.println(JSON.writeValueAsString(result));
    }
    // MiniCluster threads may linger; the work is done.
    System.exit(0);
  }

  /** Runs the cases as one job; if it fails, each on its own, so a failure names its case. */
  private static List<ObjectNode> runChunk(List<JsonNode> chunk) {
    try {
      return runJob(chunk);
    } catch (Exception failed) {
      if (chunk.size() == 1) return List.of(error(chunk.get(0), failed));
      List<ObjectNode> results = new ArrayList<>();
      for (JsonNode c : chunk) results.addAll(runChunk(List.of(c)));
      return results;
    }
  }

  private static List<ObjectNode> runJob(List<JsonNode> cases) throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(1, new Configuration());
    env.getConfig().setAutoWatermarkInterval(0);
    ObjectNode[] results = new ObjectNode[cases.size()];
    List<DataStream<String>> outputs = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      JsonNode c = cases.get(i);
      try {
        outputs.addAll(addCase(env, i, c));
        results[i] = empty(c);
      } catch (Exception rejected) {
        results[i] = error(c, rejected);
      }
    }
    if (!outputs.isEmpty()) {
      DataStream<String> all = outputs.get(0);
      for (DataStream<String> o : outputs.subList(1, outputs.size())) all = all.union(o);
      try (CloseableIterator<String> it = all.executeAndCollect("weir cep cases")) {
        while (it.hasNext()) {
          String[] line = it.next().split("\t", 3);
          ((ArrayNode) results[Integer.parseInt(line[0])].get(line[1])).add(line[2]);
        }
      }
    }
    for (ObjectNode r : results) {
      for (String field : List.of("matches", "timedOut", "late")) {
        if (r.has(field)) sortArray((ArrayNode) r.get(field));
      }
    }
    return List.of(results);
  }

  /** One case's pipeline: its outputs as tab-separated lines {@code index, field, text}. */
  private static List<DataStream<String>> addCase(StreamExecutionEnvironment env, int index, JsonNode c) {
    Pattern<Item, Item> pattern = PatternFactory.build(c.path("pattern"));
    List<String> stages = new ArrayList<>();
    PatternFactory.stageNames(c.path("pattern").path("stages"), stages);
    boolean processingTime = c.path("time").asText("event").equals("processing");
    DataStream<Item> items =
        env.fromData(items(c.path("input")), TypeInformation.of(Item.class))
            .assignTimestampsAndWatermarks(new MarkWatermarks())
            .filter(e -> !e.mark);
    JsonNode order = c.path("comparator");
    PatternStream<Item> patterns =
        order.isMissingNode() || order.isNull()
            ? CEP.pattern(items.keyBy(e -> e.key), pattern)
            : CEP.pattern(items.keyBy(e -> e.key), pattern, byValue(order.path("descending").asBoolean(false)));
    patterns = processingTime ? patterns.inProcessingTime() : patterns.sideOutputLateData(LATE);
    SingleOutputStreamOperator<String> matches = patterns.process(new Emit(index, stages));
    List<DataStream<String>> out = new ArrayList<>();
    out.add(matches);
    out.add(matches.getSideOutput(TIMED_OUT));
    if (!processingTime) out.add(matches.getSideOutput(LATE).map(e -> index + "\tlate\t" + e.id));
    return out;
  }

  /** Orders the events of one timestamp by value (the case's {@code comparator}). */
  private static EventComparator<Item> byValue(boolean descending) {
    return (x, y) -> descending ? Double.compare(y.v, x.v) : Double.compare(x.v, y.v);
  }

  private static List<Item> items(JsonNode input) {
    List<Item> items = new ArrayList<>();
    for (JsonNode n : input) {
      Item item = new Item();
      if (n.has("watermark")) {
        item.mark = true;
        item.ts = n.get("watermark").asLong();
      } else {
        item.id = n.path("id").asText();
        item.type = n.path("type").asText();
        item.key = n.path("key").asText();
        item.ts = n.path("ts").asLong();
        item.v = n.path("v").asDouble();
      }
      items.add(item);
    }
    return items;
  }

  private static ObjectNode empty(JsonNode c) {
    ObjectNode r = JSON.createObjectNode();
    r.put("name", c.path("name").asText());
    r.putArray("matches");
    r.putArray("timedOut");
    r.putArray("late");
    return r;
  }

  private static ObjectNode error(JsonNode c, Exception e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    ObjectNode r = JSON.createObjectNode();
    r.put("name", c.path("name").asText());
    r.put("error", root.getClass().getSimpleName() + ": " + root.getMessage());
    return r;
  }

  private static void sortArray(ArrayNode a) {
    List<String> values = new ArrayList<>();
    a.forEach(v -> values.add(v.asText()));
    Collections.sort(values);
    a.removeAll();
    values.forEach(a::add);
  }

  /** Matches as text; stages in pattern order, those with events only. */
  static String text(Map<String, List<Item>> match, List<String> stages) {
    StringBuilder b = new StringBuilder();
    for (String s : stages) {
      List<Item> events = match.get(s);
      if (events == null || events.isEmpty()) continue;
      if (b.length() > 0) b.append(' ');
      b.append(s).append(':');
      for (int i = 0; i < events.size(); i++) b.append(i == 0 ? "" : ",").append(events.get(i).id);
    }
    return b.toString();
  }

  /** Emits matches, and timed-out partial matches to a side output, as text lines. */
  static final class Emit extends PatternProcessFunction<Item, String>
      implements TimedOutPartialMatchHandler<Item> {
    private final int index;
    private final List<String> stages;

    Emit(int index, List<String> stages) {
      this.index = index;
      this.stages = new ArrayList<>(stages);
    }

    @Override
    public void processMatch(Map<String, List<Item>> match, Context ctx, Collector<String> out) {
      out.collect(index + "\tmatches\t" + text(new TreeMap<>(match), stages));
    }

    @Override
    public void processTimedOutMatch(Map<String, List<Item>> match, Context ctx) {
      ctx.output(TIMED_OUT, index + "\ttimedOut\t" + text(match, stages) + "@" + ctx.timestamp());
    }
  }

  /** Watermarks exactly where the input has marks (and none periodically). */
  static final class MarkWatermarks implements WatermarkStrategy<Item> {
    @Override
    public WatermarkGenerator<Item> createWatermarkGenerator(WatermarkGeneratorSupplier.Context ctx) {
      return new WatermarkGenerator<>() {
        @Override
        public void onEvent(Item e, long ts, WatermarkOutput out) {
          if (e.mark) out.emitWatermark(new Watermark(e.ts));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput out) {}
      };
    }

    @Override
    public org.apache.flink.api.common.eventtime.TimestampAssigner<Item> createTimestampAssigner(
        org.apache.flink.api.common.eventtime.TimestampAssignerSupplier.Context ctx) {
      return (e, previous) -> e.ts;
    }
  }
}
