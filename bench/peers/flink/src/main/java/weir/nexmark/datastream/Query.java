package weir.nexmark.datastream;

import java.io.Serializable;
import org.apache.flink.streaming.api.datastream.DataStream;
import weir.nexmark.Events.Event;

/**
 * A Nexmark query on Flink's DataStream API, written with the algorithm of Weir's query of the
 * same name (bench/nexmark/queries), and how its results read as the SQL query's rows.
 *
 * @param <R> a result row; an updating query emits {@link Change}s of them
 */
public abstract class Query<R> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** {@code q0}, {@code q5}, ... */
  public final String name;

  /** Whether {@link #build} emits {@link Change}s of rows rather than rows. */
  public final boolean updating;

  protected Query(String name, boolean updating) {
    this.name = name;
    this.updating = updating;
  }

  /** Adds the query reading {@code events}, which carry event time and watermarks. */
  public abstract DataStream<?> build(DataStream<Event> events, QueryContext context);

  /** One result as the SQL query's row: its columns, in SELECT order. */
  public abstract Object[] row(R result);
}
