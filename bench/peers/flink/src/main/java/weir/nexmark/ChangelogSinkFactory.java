package weir.nexmark;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * Table connector {@code 'connector' = 'weir-changelog', 'path' = P}: every subtask writes the
 * changelog it receives to {@code P.<subtask>}, one line per row: {@code +[...]} for an insert
 * or update-after, {@code -[...]} for a delete or update-before (rows as in {@link Json}). The
 * harness applies these files to a multiset to get a query's final result.
 */
public final class ChangelogSinkFactory implements DynamicTableSinkFactory {
  static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue();

  @Override
  public String factoryIdentifier() {
    return "weir-changelog";
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
  public DynamicTableSink createDynamicTableSink(Context context) {
    FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
    helper.validate();
    return new TableSink(
        helper.getOptions().get(PATH),
        context.getCatalogTable().getResolvedSchema().toPhysicalRowDataType());
  }

  /** Accepts any changelog and hands rows, converted to {@link Row}, to the writers. */
  private static final class TableSink implements DynamicTableSink {
    private final String path;
    private final org.apache.flink.table.types.DataType type;

    TableSink(String path, org.apache.flink.table.types.DataType type) {
      this.path = path;
      this.type = type;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
      return ChangelogMode.all();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
      return SinkV2Provider.of(new FileSink(path, context.createDataStructureConverter(type)));
    }

    @Override
    public DynamicTableSink copy() {
      return new TableSink(path, type);
    }

    @Override
    public String asSummaryString() {
      return "weir-changelog";
    }
  }

  private static final class FileSink implements Sink<RowData> {
    private static final long serialVersionUID = 1L;
    private final String path;
    private final DynamicTableSink.DataStructureConverter converter;

    FileSink(String path, DynamicTableSink.DataStructureConverter converter) {
      this.path = path;
      this.converter = converter;
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
      converter.open(
          RuntimeConverter.Context.create(context.getUserCodeClassLoader().asClassLoader()));
      Path file = Path.of(path + "." + context.getTaskInfo().getIndexOfThisSubtask());
      BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
      return new SinkWriter<>() {
        @Override
        public void write(RowData row, Context c) throws IOException {
          RowKind kind = row.getRowKind();
          boolean add = kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER;
          StringBuilder line = new StringBuilder(add ? "+" : "-");
          Harness.rowJson(line, (Row) converter.toExternal(row));
          out.write(line.append('\n').toString());
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
          out.flush();
        }

        @Override
        public void close() throws IOException {
          out.close();
        }
      };
    }
  }
}
