package weir.cep;

/**
 * One element of a case's input: an event (id, type, key, timestamp, value) or, with {@code mark}
 * set, a watermark at {@code ts}. A POJO so that Flink serializes it without Kryo.
 */
public class Item {
  public String id = "";
  public String type = "";
  public String key = "";
  public long ts;
  public double v;
  public boolean mark;

  public Item() {}

  @Override
  public String toString() {
    return mark ? "W" + ts : id;
  }
}
