/** File connectors: bounded and watched-directory file sources (JSON Lines, CSV), a JSON Lines sink and an exactly-once part-file sink. */
export {
  BAD_RECORDS_METRIC,
  type BadRecord,
  type BadRecordPolicy,
  type DeadLetter,
} from '../shared/bad-records.js';
export type {
  CsvDialectOptions,
  CsvHeaderOptions,
  CsvNoHeaderOptions,
  CsvRecord,
} from './formats/csv.js';
export { FileFormat, type FormatOutput, type RecordPosition } from './formats/format.js';
export type { JsonLinesFormatOptions } from './formats/json-lines.js';
export {
  ExactlyOnceFileSink,
  type ExactlyOnceFileSinkOptions,
} from './sink/exactly-once-file-sink.js';
export { JsonLinesSink, type JsonLinesSinkOptions } from './sink/json-lines-sink.js';
export {
  DirectorySource,
  type DirectorySourceOptions,
  type FileNameFilter,
} from './source/directory-source.js';
export { FileSource, type FileSourceOptions } from './source/file-source.js';
