package weir.nexmark.datastream;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The DataStream queries by name: those Weir has written by hand (bench/nexmark/queries). */
public final class Queries {
  private Queries() {}

  private static final Map<String, Query<?>> BY_NAME = new LinkedHashMap<>();

  static {
    for (Query<?> q :
        List.of(
            StatelessQueries.Q0,
            StatelessQueries.Q1,
            StatelessQueries.Q2,
            JoinQueries.Q3,
            JoinQueries.Q4,
            WindowQueries.Q5,
            WindowQueries.Q7,
            WindowQueries.Q8,
            JoinQueries.Q9,
            WindowQueries.Q11,
            WindowQueries.Q12,
            StatelessQueries.Q13,
            StatelessQueries.Q14,
            WindowQueries.Q15,
            WindowQueries.Q16,
            WindowQueries.Q17,
            RankQueries.Q18,
            RankQueries.Q19,
            JoinQueries.Q20,
            StatelessQueries.Q21,
            StatelessQueries.Q22)) {
      BY_NAME.put(q.name, q);
    }
  }

  /** The query called {@code name}; throws naming the known ones otherwise. */
  public static Query<?> named(String name) {
    Query<?> q = BY_NAME.get(name);
    if (q == null) {
      throw new IllegalArgumentException(
          "no DataStream query '" + name + "'; known: " + String.join(", ", BY_NAME.keySet()));
    }
    return q;
  }
}
