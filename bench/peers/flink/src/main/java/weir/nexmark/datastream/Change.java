package weir.nexmark.datastream;

import org.apache.flink.types.RowKind;

/**
 * One change of an updating result, as Flink SQL's changelog carries it: {@code +I}/{@code +U}
 * add the row, {@code -U}/{@code -D} take it away.
 */
public record Change<T>(RowKind kind, T value) {
  /** Whether the change takes a row away. */
  public boolean retracts() {
    return kind == RowKind.UPDATE_BEFORE || kind == RowKind.DELETE;
  }
}
