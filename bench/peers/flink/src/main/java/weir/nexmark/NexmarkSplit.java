package weir.nexmark;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * One subtask's share of the stream, as in Weir's NexmarkGenerator: global indexes {@code
 * subtask, subtask + parallelism, ...}; {@code nextIndex} is the position to resume from.
 */
public final class NexmarkSplit implements SourceSplit {
  final int subtask;
  final int parallelism;
  final long nextIndex;

  NexmarkSplit(int subtask, int parallelism, long nextIndex) {
    this.subtask = subtask;
    this.parallelism = parallelism;
    this.nextIndex = nextIndex;
  }

  @Override
  public String splitId() {
    return subtask + "/" + parallelism;
  }

  /** Serializer of one split. */
  static final class Serializer implements SimpleVersionedSerializer<NexmarkSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(NexmarkSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      write(out, split);
      out.flush();
      return bytes.toByteArray();
    }

    @Override
    public NexmarkSplit deserialize(int version, byte[] serialized) throws IOException {
      return read(new DataInputStream(new ByteArrayInputStream(serialized)));
    }
  }

  /** Serializer of the enumerator's state: the splits not yet assigned. */
  static final class ListSerializer implements SimpleVersionedSerializer<List<NexmarkSplit>> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(List<NexmarkSplit> splits) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(splits.size());
      for (NexmarkSplit s : splits) write(out, s);
      out.flush();
      return bytes.toByteArray();
    }

    @Override
    public List<NexmarkSplit> deserialize(int version, byte[] serialized) throws IOException {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
      int n = in.readInt();
      List<NexmarkSplit> splits = new ArrayList<>(n);
      for (int i = 0; i < n; i++) splits.add(read(in));
      return splits;
    }
  }

  private static void write(DataOutputStream out, NexmarkSplit s) throws IOException {
    out.writeInt(s.subtask);
    out.writeInt(s.parallelism);
    out.writeLong(s.nextIndex);
  }

  private static NexmarkSplit read(DataInputStream in) throws IOException {
    return new NexmarkSplit(in.readInt(), in.readInt(), in.readLong());
  }
}
