import type { RecordBatch } from '../../../core/record-batch.js';
import type { Sink, SinkContext, SinkWriter } from '../../../core/sink.js';
import { parseOptions } from '../../shared/config.js';
import { type PrintSinkOptions, printSinkSchema } from '../config.js';

export type { PrintSinkOptions } from '../config.js';

/** Prints one line per record; with parallelism above 1 the line starts with the subtask number. */
export class PrintSink<T> implements Sink<T> {
  readonly name = 'print';
  /** Prints changes as they come, like Flink's print sink. */
  readonly accepts = 'retract';
  constructor(private readonly options: PrintSinkOptions = {}) {
    parseOptions('PrintSink', printSinkSchema, options);
  }

  createWriter(context: SinkContext): SinkWriter<T> {
    const stream = this.options.stream ?? process.stdout;
    const format = this.options.format ?? ((v: unknown) => JSON.stringify(v));
    const prefix =
      (this.options.prefix === undefined ? '' : `${this.options.prefix}> `) +
      (context.parallelism > 1 ? `${context.subtaskIndex + 1}> ` : '');
    let pending: Promise<void> | undefined;
    return {
      write(batch: RecordBatch<T>) {
        let text = '';
        for (const v of batch.values) text += `${prefix}${format(v)}\n`;
        if (!stream.write(text)) {
          pending ??= new Promise<void>((resolve) =>
            stream.once('drain', () => {
              pending = undefined;
              resolve();
            }),
          );
        }
      },
      blocked: () => pending,
      close: () => pending,
    };
  }
}
