/** The benchmark sink: drops every result, but only after touching it. */
import type { RecordBatch, Sink, SinkWriter } from '../../src/index.js';

/**
 * Like Flink's `blackhole` connector: results go nowhere. Every record is still read (and
 * counted), so no engine can skip producing it.
 */
export class BlackholeSink implements Sink<unknown> {
  readonly name = 'blackhole';
  /** Takes changelogs too, as Flink's blackhole does. */
  readonly accepts = 'retract';
  /** Records consumed, over all subtasks. */
  records = 0;

  createWriter(): SinkWriter<unknown> {
    return {
      write: (batch: RecordBatch<unknown>) => {
        let n = 0;
        for (const value of batch.values) if (value !== undefined) n++;
        this.records += n;
      },
      close() {},
    };
  }
}
