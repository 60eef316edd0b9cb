package weir.cep;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.cep.pattern.conditions.IterativeCondition;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * The condition language both engines interpret (test/cep/flink/case.ts has the TypeScript
 * side): comparisons on an event's fields, and/or/not, and iterative conditions over the events
 * the partial match already holds for a stage.
 */
sealed interface Cond extends Serializable {
  boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception;

  /** Always true. */
  record True() implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) {
      return true;
    }
  }

  /** The event's type is one of {@code types}. */
  record Type(List<String> types) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) {
      return types.contains(e.type);
    }
  }

  /** {@code field op value}. */
  record Cmp(String field, String op, double value) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) {
      return compare(fieldOf(e, field), op, value);
    }
  }

  record And(List<Cond> parts) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception {
      for (Cond c : parts) if (!c.test(e, ctx)) return false;
      return true;
    }
  }

  record Or(List<Cond> parts) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception {
      for (Cond c : parts) if (c.test(e, ctx)) return true;
      return false;
    }
  }

  record Not(Cond part) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception {
      return !part.test(e, ctx);
    }
  }

  /** The values of {@code stage}'s events so far plus the event's own, compared with {@code value}. */
  record Sum(String stage, String op, double value) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception {
      double sum = 0;
      for (Item m : ctx.getEventsForPattern(stage)) sum += m.v;
      return compare(sum + e.v, op, value);
    }
  }

  /** The number of {@code stage}'s events so far, compared with {@code value}. */
  record Count(String stage, String op, double value) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception {
      int n = 0;
      for (Item ignored : ctx.getEventsForPattern(stage)) n++;
      return compare(n, op, value);
    }
  }

  /** The event's value against the value of {@code stage}'s last event; true if it has none. */
  record VsLast(String stage, String op) implements Cond {
    public boolean test(Item e, IterativeCondition.Context<Item> ctx) throws Exception {
      Item last = null;
      for (Item m : ctx.getEventsForPattern(stage)) last = m;
      return last == null || compare(e.v, op, last.v);
    }
  }

  private static double fieldOf(Item e, String name) {
    return switch (name) {
      case "v" -> e.v;
      case "ts" -> e.ts;
      default -> throw new IllegalArgumentException("unknown field '" + name + "'");
    };
  }

  private static boolean compare(double a, String op, double b) {
    return switch (op) {
      case "<" -> a < b;
      case "<=" -> a <= b;
      case ">" -> a > b;
      case ">=" -> a >= b;
      case "==" -> a == b;
      case "!=" -> a != b;
      default -> throw new IllegalArgumentException("unknown comparison '" + op + "'");
    };
  }

  /** Reads a condition; {@code where} names its place in the case for error messages. */
  static Cond parse(JsonNode n, String where) {
    String kind = n.path("kind").asText();
    return switch (kind) {
      case "true" -> new True();
      case "type" -> {
        List<String> types = new java.util.ArrayList<>();
        n.path("types").forEach(t -> types.add(t.asText()));
        yield new Type(List.copyOf(types));
      }
      case "cmp" -> new Cmp(n.path("field").asText(), n.path("op").asText(), n.path("value").asDouble());
      case "and", "or" -> {
        List<Cond> parts = new java.util.ArrayList<>();
        int i = 0;
        for (JsonNode p : n.path("parts")) parts.add(parse(p, where + ".parts[" + i++ + "]"));
        yield kind.equals("and") ? new And(List.copyOf(parts)) : new Or(List.copyOf(parts));
      }
      case "not" -> new Not(parse(n.path("part"), where + ".part"));
      case "sum" -> new Sum(n.path("stage").asText(), n.path("op").asText(), n.path("value").asDouble());
      case "count" ->
          new Count(n.path("stage").asText(), n.path("op").asText(), n.path("value").asDouble());
      case "vsLast" -> new VsLast(n.path("stage").asText(), n.path("op").asText());
      default -> throw new IllegalArgumentException(where + ": unknown condition kind '" + kind + "'");
    };
  }

  /** A condition as Flink CEP takes it. */
  final class AsFlink extends IterativeCondition<Item> {
    private final Cond cond;

    AsFlink(Cond cond) {
      this.cond = cond;
    }

    @Override
    public boolean filter(Item value, Context<Item> ctx) throws Exception {
      return cond.test(value, ctx);
    }
  }
}
