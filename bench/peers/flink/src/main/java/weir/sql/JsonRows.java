package weir.sql;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

/**
 * Column types and values of the JSON tables the SQL runners read: STRING, INT, BIGINT, DOUBLE,
 * BOOLEAN, DATE (days since 1970-01-01), DECIMAL(p, s) (plain text), TIMESTAMP(3) (epoch
 * milliseconds, UTC) and TIMESTAMP_LTZ(3) (epoch milliseconds of the instant); results are written back the same way (TIME as milliseconds of the day,
 * a non-finite DOUBLE as its Java text).
 */
final class JsonRows {
  static final ObjectMapper JSON = new ObjectMapper();

  private JsonRows() {}

  static TypeInformation<?> typeInfo(String type) {
    if (type.startsWith("DECIMAL")) return Types.BIG_DEC;
    switch (type) {
      case "STRING":
        return Types.STRING;
      case "INT":
        return Types.INT;
      case "BIGINT":
        return Types.LONG;
      case "DOUBLE":
        return Types.DOUBLE;
      case "BOOLEAN":
        return Types.BOOLEAN;
      case "DATE":
        return Types.LOCAL_DATE;
      case "TIMESTAMP(3)":
        return Types.LOCAL_DATE_TIME;
      case "TIMESTAMP_LTZ(3)":
        return Types.INSTANT;
      default:
        throw new IllegalArgumentException("unsupported column type " + type);
    }
  }

  static DataType dataType(String type) {
    if (type.startsWith("DECIMAL")) {
      String[] ps = type.substring(type.indexOf('(') + 1, type.indexOf(')')).split(",");
      return DataTypes.DECIMAL(Integer.parseInt(ps[0].trim()), Integer.parseInt(ps[1].trim()));
    }
    switch (type) {
      case "STRING":
        return DataTypes.STRING();
      case "INT":
        return DataTypes.INT();
      case "BIGINT":
        return DataTypes.BIGINT();
      case "DOUBLE":
        return DataTypes.DOUBLE();
      case "BOOLEAN":
        return DataTypes.BOOLEAN();
      case "DATE":
        return DataTypes.DATE();
      case "TIMESTAMP(3)":
        return DataTypes.TIMESTAMP(3);
      case "TIMESTAMP_LTZ(3)":
        return DataTypes.TIMESTAMP_LTZ(3);
      default:
        throw new IllegalArgumentException("unsupported column type " + type);
    }
  }

  static Object value(JsonNode v, String type) {
    if (v == null || v.isNull()) return null;
    if (type.startsWith("DECIMAL")) return new BigDecimal(v.asText());
    switch (type) {
      case "STRING":
        return v.asText();
      case "INT":
        return v.asInt();
      case "BIGINT":
        return v.asLong();
      case "DOUBLE":
        return v.asDouble();
      case "BOOLEAN":
        return v.asBoolean();
      case "DATE":
        return LocalDate.ofEpochDay(v.asLong());
      case "TIMESTAMP_LTZ(3)":
        return Instant.ofEpochMilli(v.asLong());
      default:
        return LocalDateTime.ofEpochSecond(
            Math.floorDiv(v.asLong(), 1000L),
            (int) Math.floorMod(v.asLong(), 1000L) * 1_000_000,
            ZoneOffset.UTC);
    }
  }

  static JsonNode json(Object v) {
    if (v == null) return JSON.nullNode();
    if (v instanceof LocalDateTime) {
      return JSON.getNodeFactory()
          .numberNode(((LocalDateTime) v).toInstant(ZoneOffset.UTC).toEpochMilli());
    }
    if (v instanceof Instant) return JSON.getNodeFactory().numberNode(((Instant) v).toEpochMilli());
    if (v instanceof LocalDate) return JSON.getNodeFactory().numberNode(((LocalDate) v).toEpochDay());
    if (v instanceof LocalTime) {
      return JSON.getNodeFactory().numberNode(((LocalTime) v).toNanoOfDay() / 1_000_000L);
    }
    if (v instanceof BigDecimal) {
      return JSON.getNodeFactory().textNode(((BigDecimal) v).toPlainString());
    }
    if (v instanceof Double && !Double.isFinite((Double) v)) {
      return JSON.getNodeFactory().textNode(v.toString());
    }
    return JSON.valueToTree(v);
  }

  /** Registers a JSON table as a view over its rows, with its watermark if it has one. */
  static void register(
      StreamExecutionEnvironment env, StreamTableEnvironment tEnv, JsonNode table) {
    JsonNode columns = table.get("columns");
    int width = columns.size();
    String[] names = new String[width];
    String[] types = new String[width];
    TypeInformation<?>[] infos = new TypeInformation<?>[width];
    Schema.Builder schema = Schema.newBuilder();
    for (int i = 0; i < width; i++) {
      names[i] = columns.get(i).get(0).asText();
      types[i] = columns.get(i).get(1).asText();
      infos[i] = typeInfo(types[i]);
      schema.column(names[i], dataType(types[i]));
    }
    JsonNode watermark = table.get("watermark");
    if (watermark != null && !watermark.isNull()) {
      schema.watermark(watermark.asText().trim().split("\\s+")[0], watermark.asText());
    }
    List<Row> rows = new ArrayList<>();
    for (JsonNode r : table.get("rows")) {
      Row row = new Row(width);
      for (int i = 0; i < width; i++) row.setField(i, value(r.get(i), types[i]));
      rows.add(row);
    }
    DataStream<Row> stream = env.fromData(rows, Types.ROW_NAMED(names, infos));
    tEnv.createTemporaryView(table.get("name").asText(), stream, schema.build());
  }

  /** An error's message, with its root cause's when that is another. */
  static String errorText(Exception e) {
    Throwable root = e;
    while (root.getCause() != null) root = root.getCause();
    return e.getMessage() + (root == e ? "" : " / " + root.getMessage());
  }
}
