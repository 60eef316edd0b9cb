package weir.nexmark.datastream;

import java.io.Serializable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * An inner regular join of two append streams keyed alike: each side's records stay in keyed
 * list state for the whole run (no TTL, as the reference sets none), and every arrival is
 * matched against the other side's records of its key.
 */
final class RegularJoin<L, R, O> extends KeyedCoProcessFunction<Long, L, R, O> {
  /** Which pairs of a key match (the join's non-equi condition). */
  interface Where<L, R> extends Serializable {
    boolean test(L left, R right);
  }

  /** The result of a matching pair. */
  interface Combine<L, R, O> extends Serializable {
    O apply(L left, R right);
  }

  private final Class<L> leftType;
  private final Class<R> rightType;
  private final Where<L, R> where;
  private final Combine<L, R, O> combine;
  private transient ListState<L> lefts;
  private transient ListState<R> rights;

  RegularJoin(Class<L> leftType, Class<R> rightType, Where<L, R> where, Combine<L, R, O> combine) {
    this.leftType = leftType;
    this.rightType = rightType;
    this.where = where;
    this.combine = combine;
  }

  @Override
  public void open(OpenContext context) {
    lefts = getRuntimeContext().getListState(new ListStateDescriptor<>("left", leftType));
    rights = getRuntimeContext().getListState(new ListStateDescriptor<>("right", rightType));
  }

  @Override
  public void processElement1(L left, Context ctx, Collector<O> out) throws Exception {
    lefts.add(left);
    for (R right : rights.get()) if (where.test(left, right)) out.collect(combine.apply(left, right));
  }

  @Override
  public void processElement2(R right, Context ctx, Collector<O> out) throws Exception {
    rights.add(right);
    for (L left : lefts.get()) if (where.test(left, right)) out.collect(combine.apply(left, right));
  }
}
