package weir.nexmark;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import weir.nexmark.Events.Auction;
import weir.nexmark.Events.Bid;
import weir.nexmark.Events.Event;
import weir.nexmark.Events.Person;

/**
 * The JSON the harness writes. Result rows are arrays of column values: BIGINT and INT as
 * numbers, DECIMAL as its plain string, TIMESTAMP as epoch ms (UTC), strings as strings. Events
 * are written like JSON.stringify of Weir's NexmarkEvent (same keys, same order).
 */
public final class Json {
  private Json() {}

  public static void value(StringBuilder out, Object v) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof Long || v instanceof Integer || v instanceof Short) {
      out.append(v);
    } else if (v instanceof BigDecimal d) {
      string(out, d.toPlainString());
    } else if (v instanceof LocalDateTime t) {
      out.append(t.toInstant(ZoneOffset.UTC).toEpochMilli());
    } else if (v instanceof java.time.Instant t) {
      out.append(t.toEpochMilli());
    } else if (v instanceof Double || v instanceof Float || v instanceof Boolean) {
      out.append(v);
    } else {
      string(out, v.toString());
    }
  }

  public static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
          else out.append(c);
        }
      }
    }
    out.append('"');
  }

  private static void field(StringBuilder out, String name, Object v, boolean first) {
    if (!first) out.append(',');
    string(out, name);
    out.append(':');
    value(out, v);
  }

  static String event(Event e) {
    StringBuilder out = new StringBuilder(256);
    switch (e.type()) {
      case Events.PERSON -> {
        Person p = e.person();
        out.append("{\"type\":\"person\",\"person\":{");
        field(out, "id", p.id(), true);
        field(out, "name", p.name(), false);
        field(out, "emailAddress", p.emailAddress(), false);
        field(out, "creditCard", p.creditCard(), false);
        field(out, "city", p.city(), false);
        field(out, "state", p.state(), false);
        field(out, "dateTime", p.dateTime(), false);
        field(out, "extra", p.extra(), false);
      }
      case Events.AUCTION -> {
        Auction a = e.auction();
        out.append("{\"type\":\"auction\",\"auction\":{");
        field(out, "id", a.id(), true);
        field(out, "itemName", a.itemName(), false);
        field(out, "description", a.description(), false);
        field(out, "initialBid", a.initialBid(), false);
        field(out, "reserve", a.reserve(), false);
        field(out, "dateTime", a.dateTime(), false);
        field(out, "expires", a.expires(), false);
        field(out, "seller", a.seller(), false);
        field(out, "category", a.category(), false);
        field(out, "extra", a.extra(), false);
      }
      default -> {
        Bid b = e.bid();
        out.append("{\"type\":\"bid\",\"bid\":{");
        field(out, "auction", b.auction(), true);
        field(out, "bidder", b.bidder(), false);
        field(out, "price", b.price(), false);
        field(out, "channel", b.channel(), false);
        field(out, "url", b.url(), false);
        field(out, "dateTime", b.dateTime(), false);
        field(out, "extra", b.extra(), false);
      }
    }
    return out.append("}}").toString();
  }
}
