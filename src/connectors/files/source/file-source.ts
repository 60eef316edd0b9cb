import { describeRecord, invalidArgument, WeirError } from '../../../core/errors.js';
import type { ReplayableSource, ReplayRange } from '../../../core/replay.js';
import type { SourceContext, SourceReader } from '../../../core/source.js';
import type { BadRecordPolicy } from '../../shared/bad-records.js';
import { parseOptions } from '../../shared/config.js';
import { refuseTimeRange } from '../../shared/replay-range.js';
import { type FileSourceOptions, fileSourceSchema } from '../config.js';
import type { FileFormat } from '../formats/format-types.js';
import { type FileFeed, FileReader, parsePosition } from './file-reader.js';
import { fileSplitFeed, mergeFileProgress } from './file-splits.js';
import { resolveReplayFiles } from './replay-files.js';

export type { FileSourceOptions } from '../config.js';

/**
 * A bounded source reading one file, or several one after another, in a
 * {@link FileFormat} such as JSON Lines or CSV:
 *
 * ```ts
 * env.fromSource(new FileSource('clicks.jsonl', FileFormat.jsonLines<Click>()))
 * env.fromSource(new FileSource(['a.csv', 'b.csv'], FileFormat.csv({ header: true }), { onError: 'skip' }))
 * ```
 *
 * Guarantees: every record of every file is emitted exactly once, in file
 * order and then line order, by a single subtask (not parallelizable). Batches
 * hold exactly the environment's `batchSize` records except the last batch of
 * each file, however the file is chunked on read, so runs over the same files
 * give the same batches and watermarks. Records carry no timestamp: assign
 * them with `assignTimestampsAndWatermarks`. Files are read in the background,
 * a bounded number of records ahead of the job. A bad record is handled as
 * `onError` says, never dropped silently; a file that cannot be read fails
 * the job with code `SOURCE_FAILED` naming the file.
 *
 * Checkpoints: the reader's position is the number of files done plus the
 * records of the current file handed out, so a job restored from a checkpoint
 * continues with exactly the next record (the files must not have changed).
 * Bad records before that point are not reported again; a dead letter may see
 * a few bad records after it twice.
 *
 * With `parallel: true` the files are split over the source's subtasks (file
 * `i` to subtask `i` mod parallelism), each read in list order by its
 * subtask, so records of different files interleave. The position then says,
 * per file, whether it is done or how many of its records were handed out; a
 * restore merges the positions of all old subtasks and splits the files
 * anew, so a checkpoint or savepoint restores at any parallelism, each
 * record still emitted exactly once.
 *
 * Replay (`weir replay`): {@link FileSource.replay} reads the same files, or
 * others named by path or glob, the same way.
 */
export class FileSource<T> implements ReplayableSource<T> {
  readonly bounded = true;
  /** With option `parallel`: the files are split over the subtasks. */
  readonly parallelizable: boolean;
  /** With option `parallel`: a checkpoint restores at any parallelism. */
  readonly rescalable: boolean;
  readonly name: string;
  /** The files, in reading order. */
  readonly paths: readonly string[];
  private readonly onError: BadRecordPolicy;

  constructor(
    path: string | readonly string[],
    private readonly format: FileFormat<T>,
    private readonly options: FileSourceOptions = {},
  ) {
    const paths = typeof path === 'string' ? [path] : [...path];
    if (paths.length === 0) throw invalidArgument('FileSource needs at least one file');
    for (const p of paths) {
      if (typeof p !== 'string' || p.length === 0) {
        throw invalidArgument(`FileSource paths must be non-empty strings, got ${String(p)}`);
      }
    }
    this.paths = paths;
    const config = parseOptions('FileSource', fileSourceSchema, options);
    this.onError = config.onError;
    this.name = config.name ?? `${format.name} file`;
    this.parallelizable = config.parallel;
    this.rescalable = config.parallel;
    if (config.parallel && new Set(paths).size !== paths.length) {
      throw invalidArgument(
        'FileSource: a parallel source names each file once (its checkpoints track files by path)',
      );
    }
  }

  /**
   * A bounded, single-subtask source reading `range.files` (paths or globs,
   * resolved as `resolveReplayFiles` says: sorted, each must match) or,
   * without them, this source's own files in their configured order, with the
   * same format, `onError` policy and name. Its output depends only on the
   * files' contents. A time range (`from`/`to`) is refused: file records get
   * their event time downstream, so nothing in a file says which records a
   * time range holds. `positions` name other sources' splits and are ignored.
   */
  replay(range: ReplayRange): FileSource<T> {
    refuseTimeRange(this.name, range, ' or name the files to read');
    const files =
      range.files === undefined ? this.paths : resolveReplayFiles(this.name, range.files);
    return new FileSource(files, this.format, {
      ...this.options,
      name: this.name,
      parallel: false,
    });
  }

  createReader(context: SourceContext): SourceReader<T> {
    if (this.parallelizable) return this.splitReader(context);
    const paths = this.paths;
    const restored = parsePosition(context.restoredPosition, `source '${this.name}'`);
    let completed = 0;
    if (restored !== undefined) {
      const n = restored.feed;
      if (typeof n === 'object' && n !== null && !Array.isArray(n) && 'done' in n) {
        throw new WeirError(
          'INVALID_JOB',
          `cannot resume source '${this.name}': the checkpoint was taken with option parallel, ` +
            'whose positions track each file; restore it with parallel: true',
        );
      }
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > paths.length) {
        throw new WeirError(
          'INVALID_JOB',
          `cannot resume source '${this.name}': the checkpoint had read ${describeRecord(n)} ` +
            `files, but the source has ${paths.length}`,
        );
      }
      completed = n;
    }
    const start = completed;
    const feed: FileFeed = {
      async *files() {
        for (let i = start; i < paths.length; i++) yield paths[i]!;
      },
      completed() {
        completed++;
      },
      snapshot: () => completed,
    };
    return new FileReader(context, feed, this.format, this.onError, restored);
  }

  /** A reader of this subtask's share of the files, resuming from every old subtask's position. */
  private splitReader(context: SourceContext): SourceReader<T> {
    const own = context.restoredPosition;
    const positions = context.restoredPositions ?? (own === undefined ? [] : [own]);
    const progress = mergeFileProgress(this.name, this.paths, positions);
    const feed = fileSplitFeed(this.paths, context.subtaskIndex, context.parallelism, progress);
    return new FileReader(context, feed, this.format, this.onError, undefined);
  }
}
