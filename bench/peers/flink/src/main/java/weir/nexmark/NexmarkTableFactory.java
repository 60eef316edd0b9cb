package weir.nexmark;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Table connector {@code 'connector' = 'weir-nexmark'}: the {@link NexmarkSource} behind a table
 * with the reference Nexmark DDL's physical columns. Every other option is a {@link
 * NexmarkConfig} key ({@code 'events'}, {@code 'seed'}, {@code 'eventsPerSecond'}, ...).
 */
public final class NexmarkTableFactory implements DynamicTableSourceFactory {
  static final List<String> KEYS =
      List.of(
          "seed", "baseTime", "eventsPerSecond", "events", "personProportion",
          "auctionProportion", "bidProportion", "numActivePeople", "numInFlightAuctions",
          "hotAuctionRatio", "hotBiddersRatio", "hotSellersRatio", "avgPersonByteSize",
          "avgAuctionByteSize", "avgBidByteSize", "avgAuctionLengthMs", "numChannels");

  private static final Set<ConfigOption<?>> OPTIONS =
      KEYS.stream()
          .map(k -> ConfigOptions.key(k).stringType().noDefaultValue())
          .collect(Collectors.toSet());

  @Override
  public String factoryIdentifier() {
    return "weir-nexmark";
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return OPTIONS;
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    FactoryUtil.createTableFactoryHelper(this, context).validate();
    Map<String, String> options = new HashMap<>(context.getCatalogTable().getOptions());
    options.remove("connector");
    return new TableSource(NexmarkConfig.of(options));
  }

  /** An insert-only scan of the generated events. */
  private static final class TableSource implements ScanTableSource {
    private final NexmarkConfig config;

    TableSource(NexmarkConfig config) {
      this.config = config;
    }

    @Override
    public ChangelogMode getChangelogMode() {
      return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
      return SourceProvider.of(NexmarkSource.rows(config));
    }

    @Override
    public DynamicTableSource copy() {
      return new TableSource(config);
    }

    @Override
    public String asSummaryString() {
      return "weir-nexmark";
    }
  }
}
