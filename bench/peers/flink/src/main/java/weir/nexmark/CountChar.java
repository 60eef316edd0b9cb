package weir.nexmark;

import org.apache.flink.table.functions.ScalarFunction;

/** q14's UDF: how many times the first character of {@code c} occurs in {@code s}. */
public final class CountChar extends ScalarFunction {
  /** Count of {@code c.charAt(0)} in {@code s}; 0 for a null string. */
  public long eval(String s, String c) {
    if (s == null) return 0;
    char target = c.charAt(0);
    long count = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == target) count++;
    }
    return count;
  }
}
