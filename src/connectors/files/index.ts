/** File connectors: bounded and watched-directory file sources (JSON Lines, CSV), a JSON Lines sink and an exactly-once part-file sink. */
export {
  BAD_RECORDS_METRIC,
  type BadRecord,
  type BadRecordPolicy,
  type DeadLetter,
} from './bad-records.js';
export type {
  CsvDialectOptions,
  CsvHeaderOptions,
  CsvNoHeaderOptions,
  CsvRecord,
} from './csv.js';
export {
  DirectorySource,
  type DirectorySourceOptions,
  type FileNameFilter,
} from './directory-source.js';
export {
  ExactlyOnceFileSink,
  type ExactlyOnceFileSinkOptions,
} from './exactly-once-file-sink.js';
export { FileSource, type FileSourceOptions } from './file-source.js';
export { FileFormat, type FormatOutput, type RecordPosition } from './format.js';
export type { JsonLinesFormatOptions } from './json-lines.js';
export { JsonLinesSink, type JsonLinesSinkOptions } from './json-lines-sink.js';
