package weir.nexmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

/**
 * Table connector {@code 'connector' = 'weir-side-input', 'path' = P}: q13's bounded side input,
 * a lookup table {@code (key BIGINT, value VARCHAR)} read from a CSV file of {@code key,value}
 * lines into memory when the lookup function opens (as the reference's CSV lookup source did;
 * Flink 2's filesystem connector has no lookup). Lookups are by {@code key} only.
 */
public final class SideInputTableFactory implements DynamicTableSourceFactory {
  static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue();

  @Override
  public String factoryIdentifier() {
    return "weir-side-input";
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(PATH);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of();
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
    helper.validate();
    return new TableSource(helper.getOptions().get(PATH));
  }

  private static final class TableSource implements LookupTableSource {
    private final String path;

    TableSource(String path) {
      this.path = path;
    }

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
      int[][] keys = context.getKeys();
      if (keys.length != 1 || keys[0].length != 1 || keys[0][0] != 0) {
        throw new IllegalArgumentException("weir-side-input looks up by its first column only");
      }
      return LookupFunctionProvider.of(new Lookup(path));
    }

    @Override
    public DynamicTableSource copy() {
      return new TableSource(path);
    }

    @Override
    public String asSummaryString() {
      return "weir-side-input";
    }
  }

  /** Each key's row, loaded once per subtask. */
  public static final class Lookup extends LookupFunction {
    private static final long serialVersionUID = 1L;
    private final String path;
    private transient Map<Long, List<RowData>> rows;

    public Lookup(String path) {
      this.path = path;
    }

    @Override
    public void open(FunctionContext context) {
      rows = new HashMap<>();
      try {
        int lineNumber = 0;
        for (String line : Files.readAllLines(Path.of(path), StandardCharsets.UTF_8)) {
          lineNumber++;
          if (line.isEmpty()) continue;
          int comma = line.indexOf(',');
          if (comma <= 0) {
            throw new IllegalArgumentException(path + ":" + lineNumber + ": expected key,value");
          }
          long key = Long.parseLong(line.substring(0, comma));
          RowData row = GenericRowData.of(key, StringData.fromString(line.substring(comma + 1)));
          rows.computeIfAbsent(key, k -> new java.util.ArrayList<>()).add(row);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public Collection<RowData> lookup(RowData keyRow) {
      if (keyRow.isNullAt(0)) return List.of();
      return rows.getOrDefault(keyRow.getLong(0), List.of());
    }
  }
}
