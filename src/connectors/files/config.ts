/**
 * Options of the file connectors, declared once: each schema gives the
 * options type and its validation when the connector is created.
 */
import * as v from 'valibot';
import { fileBadRecordPolicy } from '../shared/bad-records.js';
import { fn, nonEmptyString, type OptionsOf, positiveInt, positiveMs } from '../shared/config.js';

/** Which file names a `DirectorySource` reads. */
export type FileNameFilter = string | RegExp | ((name: string) => boolean);

/** Schema of {@link FileSourceOptions}. */
export const fileSourceSchema = v.object({
  /** What to do with records that cannot be read; default `'fail'`. See `BadRecordPolicy`. */
  onError: fileBadRecordPolicy,
  /**
   * Split the files over the source's subtasks (file `i` of the list to
   * subtask `i` mod parallelism) instead of reading them all on one; its
   * checkpoints then restore at any parallelism. Default false.
   */
  parallel: v.optional(v.boolean('must be true or false'), false),
  /** Shown in plans, errors and metrics; default `'<format> file'`. */
  name: v.optional(v.string('must be a string')),
});

/** Options of `FileSource`. */
export type FileSourceOptions = OptionsOf<typeof fileSourceSchema>;

/** Schema of {@link DirectorySourceOptions}. */
export const directorySourceSchema = v.object({
  /** How often the directory is listed, in milliseconds; default 1000. */
  pollIntervalMs: v.optional(positiveMs(), 1000),
  /**
   * Which file names to read; all by default. A string is a suffix such as
   * `'.jsonl'` (a leading `*` is ignored, so `'*.jsonl'` works too), a RegExp
   * is tested against the name, a function decides. Names starting with `.`
   * or `_` (in-progress or hidden files, by convention) are never read.
   */
  filter: v.optional(
    v.custom<FileNameFilter>(
      (x) => typeof x === 'string' || x instanceof RegExp || typeof x === 'function',
      'must be a string, RegExp or function',
    ),
  ),
  /** Whether files already in the directory when the job starts are read; default true. */
  processExisting: v.optional(v.boolean('must be true or false'), true),
  /**
   * Split the files over the source's subtasks (each name goes to the subtask
   * a hash of it picks) instead of reading them all on one. Default false.
   */
  parallel: v.optional(v.boolean('must be true or false'), false),
  /** What to do with records that cannot be read; default `'fail'`. See `BadRecordPolicy`. */
  onError: fileBadRecordPolicy,
  /** Shown in plans, errors and metrics; default `'<format> directory'`. */
  name: v.optional(v.string('must be a string')),
});

/** Options of `DirectorySource`. */
export type DirectorySourceOptions = OptionsOf<typeof directorySourceSchema>;

/** Schema of {@link JsonLinesSinkOptions}. */
export const jsonLinesSinkSchema = v.object({
  /**
   * Renders a record as one line; `JSON.stringify` by default. The result
   * must not contain a line break. A record it cannot render (it throws, or
   * returns something other than a string, as `JSON.stringify` does for
   * `undefined`) fails the job with code `SINK_FAILED`.
   */
  serialize: v.optional(fn<(value: never) => string>()),
  /** Append to existing files instead of replacing them; default false. */
  append: v.optional(v.boolean('must be true or false')),
  /**
   * Bytes buffered ahead of the disk per subtask; beyond that the sink holds
   * its task back (backpressure) until the buffer drains. Default 1 MiB.
   */
  bufferBytes: v.optional(positiveInt()),
  /** Shown in plans, errors and metrics; default `'jsonl file'`. */
  name: v.optional(v.string('must be a string')),
});

/** Options of `JsonLinesSink`. */
export type JsonLinesSinkOptions<T> = Omit<OptionsOf<typeof jsonLinesSinkSchema>, 'serialize'> & {
  /** See `serialize` in the JSON Lines sink's option schema: renders a record as one line. */
  readonly serialize?: (value: T) => string;
};

/** Schema of {@link ExactlyOnceFileSinkOptions}. */
export const exactlyOnceFileSinkSchema = v.object({
  /** Directory that receives the committed part files. */
  directory: nonEmptyString('must be a directory path'),
  /** Renders one record as one line (without the newline). JSON by default. */
  format: v.optional(fn<(value: never) => string>()),
  /** File name prefix. Default `part`. */
  prefix: v.optional(v.string('must be a string'), 'part'),
});

/** Options of `ExactlyOnceFileSink`. */
export type ExactlyOnceFileSinkOptions<T> = Omit<
  OptionsOf<typeof exactlyOnceFileSinkSchema>,
  'format'
> & {
  /** Renders one record as one line (without the newline). JSON by default. */
  readonly format?: (value: T) => string;
};
