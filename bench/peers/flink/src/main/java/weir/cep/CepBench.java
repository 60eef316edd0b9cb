package weir.cep;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.IterativeCondition;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * The patterns of bench/cep.ts on Flink CEP over the same events: a port of its event generator
 * (and of Weir's DeterministicRandom, src/util/random.ts, bit for bit), bounded out-of-orderness
 * watermarks 1 s behind, keyed by user, heap state, parallelism 1, matches counted and
 * discarded. Prints one JSON line: wall and CPU time of the job (JVM process CPU, all threads,
 * from submission to end), peak RSS, matches.
 *
 * <p>Usage: {@code CepBench <fraud|strict3|loop-until> <events> <keys>}
 */
public final class CepBench {
  private static final long MINUTE = 60_000;
  private static final int SEED = 11;
  private static final AtomicLong MATCHES = new AtomicLong();
  private static final AtomicLong MATCHED_EVENTS = new AtomicLong();

  private CepBench() {}

  /** An event of bench/cep.ts: type 0 failure, 1 success, 2 and 3 other activity. */
  public static class Event {
    public int user;
    public int type;
    public int country;
    public long time;

    public Event() {}
  }

  /** Weir's DeterministicRandom, re-seeded per record index as its generator source does. */
  static final class Random {
    private int state;

    private static int mix(int x) {
      x = (x ^ (x >>> 16)) * 0x85ebca6b;
      x = (x ^ (x >>> 13)) * 0xc2b2ae35;
      return x ^ (x >>> 16);
    }

    Random reseed(int seed, long index) {
      int hi = (int) (index >>> 32);
      state = mix(mix(seed ^ 0x9e3779b9) ^ (int) index) ^ mix(hi + 0x632be5ab);
      return this;
    }

    double next() {
      state += 0x9e3779b9;
      return (mix(state) & 0xffffffffL) / 4294967296.0;
    }

    int below(int n) {
      return (int) Math.floor(next() * n);
    }
  }

  static Event makeEvent(long i, int keys) {
    Random random = new Random().reseed(SEED, i);
    Event e = new Event();
    e.user = random.below(keys);
    double r = random.next();
    e.type = r < 0.45 ? 0 : r < 0.8 ? 1 : r < 0.9 ? 2 : 3;
    e.country = random.next() < 0.9 ? e.user % 8 : random.below(8);
    e.time = i - random.below(500);
    return e;
  }

  private static SimpleCondition<Event> type(int t) {
    return SimpleCondition.of(e -> e.type == t);
  }

  static Pattern<Event, Event> pattern(String name) {
    return switch (name) {
      case "fraud" ->
          Pattern.<Event>begin("fail")
              .where(type(0))
              .times(3)
              .consecutive()
              .followedBy("success")
              .where(
                  new IterativeCondition<>() {
                    @Override
                    public boolean filter(Event e, Context<Event> ctx) throws Exception {
                      return e.type == 1
                          && e.country != ctx.getEventsForPattern("fail").iterator().next().country;
                    }
                  })
              .within(Duration.ofMillis(10 * MINUTE));
      case "strict3" ->
          Pattern.<Event>begin("a")
              .where(type(0))
              .next("b")
              .where(type(1))
              .next("c")
              .where(type(0))
              .within(Duration.ofMillis(MINUTE));
      case "loop-until" ->
          Pattern.<Event>begin("a")
              .where(type(2))
              .followedBy("b")
              .where(type(0))
              .oneOrMore()
              .until(type(1))
              .followedBy("d")
              .where(type(3))
              .within(Duration.ofMillis(10 * MINUTE));
      default -> throw new IllegalArgumentException("unknown pattern '" + name + "'");
    };
  }

  /** Counts matches and their events; emits nothing. */
  static final class Count extends PatternProcessFunction<Event, Integer> {
    @Override
    public void processMatch(Map<String, List<Event>> match, Context ctx, Collector<Integer> out) {
      MATCHES.incrementAndGet();
      long n = 0;
      for (List<Event> events : match.values()) n += events.size();
      MATCHED_EVENTS.addAndGet(n);
    }
  }

  private static double peakRssMb() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    return -1;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: CepBench <fraud|strict3|loop-until> <events> <keys>");
      System.exit(2);
    }
    String mode = args[0];
    long events = Long.parseLong(args[1]);
    int keys = Integer.parseInt(args[2]);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(1, new Configuration());
    DataStream<Event> stream =
        env.fromSequence(0, events - 1)
            .map(i -> makeEvent(i, keys))
            .returns(Event.class)
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(1000))
                    .withTimestampAssigner((e, previous) -> e.time));
    CEP.pattern(stream.keyBy(e -> e.user), pattern(mode))
        .process(new Count())
        .sinkTo(new DiscardingSink<>());
    OperatingSystemMXBean os =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    env.execute("cep-" + mode);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuSeconds = (os.getProcessCpuTime() - cpu0) / 1e9;
    System.out.printf(
        "{\"engine\":\"flink\",\"mode\":\"%s\",\"events\":%d,\"seconds\":%.3f,\"cpuSeconds\":%.3f,"
            + "\"eventsPerSec\":%.1f,\"eventsPerCpuSec\":%.1f,\"peakRssMb\":%.1f,"
            + "\"matches\":%d,\"matchedEvents\":%d}%n",
        mode,
        events,
        seconds,
        cpuSeconds,
        events / seconds,
        events / cpuSeconds,
        peakRssMb(),
        MATCHES.get(),
        MATCHED_EVENTS.get());
    System.exit(0);
  }
}
