/** Printing records: a sink writing one line per record to standard output or a stream. */
export type { PrintSinkOptions } from './config.js';
export { PrintSink } from './sink/print-sink.js';
