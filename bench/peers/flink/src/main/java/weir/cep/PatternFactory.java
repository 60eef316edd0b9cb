package weir.cep;

import java.time.Duration;
import java.util.List;
import org.apache.flink.cep.nfa.aftermatch.AfterMatchSkipStrategy;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.WithinType;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Builds a Flink CEP {@link Pattern} from a pattern described as data: the JSON form of Weir's
 * PatternSpec (src/core/cep.ts) with conditions in the {@link Cond} language. Stages are added
 * with the same calls a hand-written Flink pattern would use, in the order Flink's documentation
 * shows (quantifier, optional, inner contiguity, greedy, until).
 */
final class PatternFactory {
  private PatternFactory() {}

  static Pattern<Item, Item> build(JsonNode spec) {
    Pattern<Item, Item> p = sequence(spec.path("stages"), skip(spec.path("skip")), "stages");
    if (spec.hasNonNull("withinMs")) p = p.within(Duration.ofMillis(spec.get("withinMs").asLong()));
    return p;
  }

  /** Stage names in pattern order (groups flattened), each once: the order matches are printed in. */
  static void stageNames(JsonNode stages, List<String> into) {
    for (JsonNode s : stages) {
      if (s.has("group")) stageNames(s.get("group").path("stages"), into);
      else if (!into.contains(s.path("name").asText())) into.add(s.path("name").asText());
    }
  }

  private static Pattern<Item, Item> sequence(
      JsonNode stages, AfterMatchSkipStrategy skip, String where) {
    Pattern<Item, Item> p = null;
    int i = 0;
    for (JsonNode stage : stages) {
      String at = where + "[" + i++ + "]";
      String contiguity = stage.path("contiguity").asText();
      if (stage.has("group")) {
        Pattern<Item, Item> group =
            sequence(stage.get("group").path("stages"), AfterMatchSkipStrategy.noSkip(), at);
        Pattern<Item, Item> g =
            p == null
                ? Pattern.begin(group, skip)
                : switch (contiguity) {
                  case "strict" -> p.next(group);
                  case "relaxed" -> p.followedBy(group);
                  case "any" -> p.followedByAny(group);
                  default ->
                      throw new IllegalArgumentException(at + ": a group cannot follow with '" + contiguity + "'");
                };
        p = quantify(g, stage.path("quantifier"));
        continue;
      }
      String name = stage.path("name").asText();
      Pattern<Item, Item> s =
          p == null
              ? Pattern.begin(name, skip)
              : switch (contiguity) {
                case "strict" -> p.next(name);
                case "relaxed" -> p.followedBy(name);
                case "any" -> p.followedByAny(name);
                case "not-next" -> p.notNext(name);
                case "not-followed-by" -> p.notFollowedBy(name);
                default -> throw new IllegalArgumentException(at + ": unknown contiguity '" + contiguity + "'");
              };
      if (stage.has("where")) s = s.where(new Cond.AsFlink(Cond.parse(stage.get("where"), at + ".where")));
      s = quantify(s, stage.path("quantifier"));
      if (stage.has("until")) s = s.until(new Cond.AsFlink(Cond.parse(stage.get("until"), at + ".until")));
      if (stage.hasNonNull("withinPreviousMs")) {
        s = s.within(Duration.ofMillis(stage.get("withinPreviousMs").asLong()), WithinType.PREVIOUS_AND_CURRENT);
      }
      p = s;
    }
    if (p == null) throw new IllegalArgumentException(where + ": a pattern needs a stage");
    return p;
  }

  private static Pattern<Item, Item> quantify(Pattern<Item, Item> p, JsonNode q) {
    if (q.isMissingNode()) return p;
    int min = q.path("min").asInt(1);
    boolean unbounded = q.path("max").isNull();
    int max = unbounded ? Integer.MAX_VALUE : q.path("max").asInt(1);
    if (unbounded) p = min == 1 ? p.oneOrMore() : p.timesOrMore(min);
    else if (min != 1 || max != 1) p = min == max ? p.times(min) : p.times(min, max);
    if (q.path("optional").asBoolean()) p = p.optional();
    switch (q.path("inner").asText("relaxed")) {
      case "strict" -> p = p.consecutive();
      case "any" -> p = p.allowCombinations();
      default -> {}
    }
    if (q.path("greedy").asBoolean()) p = p.greedy();
    return p;
  }

  private static AfterMatchSkipStrategy skip(JsonNode s) {
    String kind = s.path("kind").asText("no-skip");
    String stage = s.path("stage").asText();
    boolean throwOnMiss = s.path("throwOnMiss").asBoolean();
    return switch (kind) {
      case "no-skip" -> AfterMatchSkipStrategy.noSkip();
      case "skip-to-next" -> AfterMatchSkipStrategy.skipToNext();
      case "skip-past-last-event" -> AfterMatchSkipStrategy.skipPastLastEvent();
      case "skip-to-first" ->
          throwOnMiss
              ? AfterMatchSkipStrategy.skipToFirst(stage).throwExceptionOnMiss()
              : AfterMatchSkipStrategy.skipToFirst(stage);
      case "skip-to-last" ->
          throwOnMiss
              ? AfterMatchSkipStrategy.skipToLast(stage).throwExceptionOnMiss()
              : AfterMatchSkipStrategy.skipToLast(stage);
      default -> throw new IllegalArgumentException("unknown skip strategy '" + kind + "'");
    };
  }
}
