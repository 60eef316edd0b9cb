import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { invalidArgument, WeirError } from '../../../core/errors.js';
import type { ReplayableSource, ReplayRange } from '../../../core/replay.js';
import type { Json } from '../../../core/snapshot.js';
import type { SourceContext, SourceReader } from '../../../core/source.js';
import { type BadRecordPolicy, reasonOf } from '../../shared/bad-records.js';
import { parseOptions } from '../../shared/config.js';
import { refuseTimeRange } from '../../shared/replay-range.js';
import {
  type DirectorySourceOptions,
  directorySourceSchema,
  type FileNameFilter,
} from '../config.js';
import { compareNames, ownerOf } from '../file-names.js';
import type { FileFormat } from '../formats/format-types.js';
import { type FileFeed, FileReader, parsePosition } from './file-reader.js';
import { FileSource } from './file-source.js';
import { listDirectoryFiles, resolveReplayFiles } from './replay-files.js';

export type { DirectorySourceOptions, FileNameFilter } from '../config.js';

/**
 * An unbounded source that watches a directory and reads each new file as it
 * appears, by listing the directory every `pollIntervalMs` (polling, because
 * `fs.watch` is unreliable across platforms and network file systems):
 *
 * ```ts
 * env.fromSource(new DirectorySource('incoming', FileFormat.jsonLines<Click>(), { filter: '.jsonl' }))
 * ```
 *
 * Guarantees: within one run of the job, each regular file whose name passes
 * the filter is read exactly once, completely, by a single subtask; files
 * found by the same listing are read in name order (by UTF-16 code units),
 * and files appearing later are read after them (so a late file whose name
 * sorts earlier is still read, just later). Batches follow the same rules as
 * {@link FileSource}: exactly `batchSize` records, except the last batch of
 * each file. Records carry no timestamp. Bad records are handled as `onError`
 * says; a directory or file that cannot be read fails the job.
 *
 * A file must be complete when it appears: write it elsewhere (or under a name
 * starting with `.` or `_`, or one the filter rejects) and rename it into
 * place. A file is never re-read, even if it changes later.
 *
 * Checkpoints: the position holds the names of the files read (and of those
 * skipped because `processExisting` was false), the file being read and how
 * many of its records were handed out; a job restored from it continues with
 * exactly the next record, then reads every file not yet read. The list of
 * names grows with every file (it is not compacted yet). Without a restore, a
 * new run starts afresh: with `processExisting` it reads the files present again.
 *
 * With `parallel: true` every subtask lists the directory and reads the files
 * whose names hash to it (in name order, as above), so one file is still read
 * by one subtask. Positions are per file either way: a restore merges the
 * positions of all old subtasks (a file settled anywhere is settled; a file
 * being read resumes after its records handed out, first) and splits the rest
 * anew, so a checkpoint restores at any parallelism, `parallel` on or off.
 *
 * Replay (`weir replay`): {@link DirectorySource.replay} reads the files
 * present now, or others named by path or glob, the same way, then ends.
 */
export class DirectorySource<T> implements ReplayableSource<T> {
  readonly bounded = false;
  /** With option `parallel`: each subtask reads the files whose names hash to it. */
  readonly parallelizable: boolean;
  /** Positions are per file, so a checkpoint restores at any parallelism (and with `parallel` on or off). */
  readonly rescalable = true;
  readonly name: string;
  private readonly pollIntervalMs: number;
  private readonly accept: (name: string) => boolean;
  private readonly processExisting: boolean;
  private readonly onError: BadRecordPolicy;

  constructor(
    readonly path: string,
    private readonly format: FileFormat<T>,
    private readonly options: DirectorySourceOptions = {},
  ) {
    if (typeof path !== 'string' || path.length === 0) {
      throw invalidArgument('DirectorySource needs a directory path');
    }
    const config = parseOptions('DirectorySource', directorySourceSchema, options);
    this.pollIntervalMs = config.pollIntervalMs;
    this.accept = nameFilter(config.filter);
    this.processExisting = config.processExisting;
    this.onError = config.onError;
    this.name = config.name ?? `${format.name} directory`;
    this.parallelizable = config.parallel;
  }

  /**
   * A bounded, single-subtask source reading `range.files` (paths or globs,
   * resolved as `resolveReplayFiles` says: sorted, each must match) or,
   * without them, the files the directory holds now that this source would
   * read (the filter applies; `processExisting` does not, since the replay is
   * of everything there), in name order; then it ends. Same format, `onError`
   * policy and name. A time range (`from`/`to`) is refused, as for
   * {@link FileSource.replay}.
   */
  replay(range: ReplayRange): FileSource<T> {
    refuseTimeRange(this.name, range, ' or name the files to read');
    const files =
      range.files === undefined
        ? listDirectoryFiles(this.name, this.path, this.accept)
        : resolveReplayFiles(this.name, range.files);
    const { onError } = this.options;
    return new FileSource(files, this.format, {
      name: this.name,
      ...(onError === undefined ? {} : { onError }),
    });
  }

  createReader(context: SourceContext): SourceReader<T> {
    const own = context.restoredPosition;
    const positions = context.restoredPositions ?? (own === undefined ? [] : [own]);
    const { settled, reading } = this.mergePositions(positions);
    const { path, pollIntervalMs, accept } = this;
    const { subtaskIndex, parallelism } = context;
    const mine = (name: string) => parallelism === 1 || ownerOf(name, parallelism) === subtaskIndex;
    const processExisting = this.processExisting || positions.length > 0;
    // Files being read at the checkpoint come first, each resuming after its records handed out.
    const resumed = new Map([...reading].filter(([file]) => mine(basename(file))));
    const resumeIn = [...resumed.keys()].sort(compareNames);
    const feed: FileFeed = {
      async *files(signal: AbortSignal) {
        const started = new Set<string>();
        for (const file of resumeIn) {
          started.add(basename(file));
          yield file;
        }
        let first = true;
        while (!signal.aborted) {
          let entries: Dirent[];
          try {
            entries = await readdir(path, { withFileTypes: true });
          } catch (cause) {
            throw new WeirError(
              'SOURCE_FAILED',
              `cannot list directory '${path}': ${reasonOf(cause)}`,
              { cause, domain: 'external', retriable: true },
            );
          }
          const fresh: string[] = [];
          for (const entry of entries) {
            const name = entry.name;
            if (!entry.isFile() || settled.has(name) || started.has(name) || !accept(name))
              continue;
            if (first && !processExisting) settled.add(name);
            else if (mine(name)) fresh.push(name);
          }
          first = false;
          fresh.sort(compareNames);
          for (const name of fresh) {
            started.add(name);
            yield join(path, name);
          }
          try {
            await sleep(pollIntervalMs, undefined, { signal });
          } catch {
            return; // aborted: the reader is closing
          }
        }
      },
      completed(file: string) {
        settled.add(basename(file));
        resumed.delete(file);
      },
      // Files resumed but not settled stay in the feed's position: the reader's own
      // position names only the file it is handing out, not those read ahead or not reached.
      snapshot: () =>
        resumed.size === 0
          ? [...settled]
          : { settled: [...settled], reading: Object.fromEntries(resumed) },
      resumedRecords: (file: string) => resumed.get(file) ?? 0,
    };
    return new FileReader(context, feed, this.format, this.onError, undefined);
  }

  /**
   * Merges the positions of every subtask of a checkpoint, at whatever
   * parallelism it ran: the names of the files settled anywhere, and each
   * file being read with the records of it handed out.
   */
  private mergePositions(positions: readonly Json[]): {
    settled: Set<string>;
    reading: Map<string, number>;
  } {
    const settled = new Set<string>();
    const reading = new Map<string, number>();
    for (const json of positions) {
      const position = parsePosition(json, `source '${this.name}'`);
      if (position === undefined) continue;
      const feed = directoryFeedOf(position.feed);
      if (feed === undefined) {
        throw new WeirError(
          'INVALID_JOB',
          `cannot resume source '${this.name}': the checkpoint holds no list of files read`,
        );
      }
      for (const name of feed.settled) settled.add(name);
      // A file resumed but not yet reached by its reader is in that reader's feed
      // and, once reached, in its position too: the larger count is the later one.
      const resume = (file: string, records: number) =>
        reading.set(file, Math.max(reading.get(file) ?? -1, records));
      for (const [file, records] of Object.entries(feed.reading)) resume(file, records);
      if (position.file !== null) resume(position.file, position.records);
    }
    for (const file of reading.keys()) if (settled.has(basename(file))) reading.delete(file);
    return { settled, reading };
  }
}

/**
 * A directory reader's feed position: the names settled, as a plain list, or
 * with the files resumed after a restore whose reading has not ended.
 */
function directoryFeedOf(
  feed: Json,
): { settled: readonly string[]; reading: Record<string, number> } | undefined {
  const names = (list: Json | undefined): list is string[] =>
    Array.isArray(list) && list.every((n) => typeof n === 'string');
  if (names(feed)) return { settled: feed, reading: {} };
  if (typeof feed !== 'object' || feed === null || Array.isArray(feed)) return undefined;
  const { settled, reading } = feed;
  if (!names(settled) || typeof reading !== 'object' || reading === null || Array.isArray(reading))
    return undefined;
  const counts: Record<string, number> = {};
  for (const [file, n] of Object.entries(reading)) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return undefined;
    counts[file] = n;
  }
  return { settled, reading: counts };
}

function nameFilter(filter: FileNameFilter | undefined): (name: string) => boolean {
  const visible = (name: string) => !name.startsWith('.') && !name.startsWith('_');
  if (filter === undefined) return visible;
  if (typeof filter === 'string') {
    const suffix = filter.startsWith('*') ? filter.slice(1) : filter;
    return (name) => visible(name) && name.endsWith(suffix);
  }
  if (filter instanceof RegExp) {
    // A global or sticky RegExp keeps state between tests; use a stateless copy.
    const re = new RegExp(filter.source, filter.flags.replace(/[gy]/g, ''));
    return (name) => visible(name) && re.test(name);
  }
  return (name) => visible(name) && filter(name);
}
