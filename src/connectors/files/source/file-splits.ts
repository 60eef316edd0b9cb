import { describeRecord, WeirError } from '../../../core/errors.js';
import type { Json } from '../../../core/snapshot.js';
import { type FileFeed, parsePosition } from './file-reader.js';

/**
 * How far a parallel file source got, over all its subtasks: the files read
 * to the end, and for each file being read, the records handed out. This is
 * what makes its checkpoints restorable at any parallelism: a file's state
 * does not depend on which subtask read it.
 */
export interface FileProgress {
  readonly done: Set<string>;
  readonly partial: Map<string, number>;
}

/**
 * Merges the positions of every subtask of a checkpoint (at whatever
 * parallelism it ran). A position of the single-subtask form (the number of
 * files done, in list order) is read too, so a source switched to `parallel`
 * can restore a checkpoint from before the switch.
 */
export function mergeFileProgress(
  source: string,
  paths: readonly string[],
  positions: readonly Json[],
): FileProgress {
  const known = new Set(paths);
  const done = new Set<string>();
  const partial = new Map<string, number>();
  const check = (path: string) => {
    if (!known.has(path)) {
      throw new WeirError(
        'INVALID_JOB',
        `cannot resume source '${source}': the checkpoint has read file '${path}', which is not one of the source's files`,
      );
    }
  };
  // A file resumed but not yet reached by its reader is in that reader's feed
  // and, once reached, in its position too: the larger count is the later one.
  const resume = (path: string, records: number) => {
    partial.set(path, Math.max(partial.get(path) ?? 0, records));
  };
  for (const json of positions) {
    const position = parsePosition(json, `source '${source}'`);
    if (position === undefined) continue;
    const { feed } = position;
    if (typeof feed === 'number' && Number.isInteger(feed) && feed >= 0 && feed <= paths.length) {
      for (const path of paths.slice(0, feed)) done.add(path);
    } else if (isSplitFeed(feed)) {
      for (const path of feed.done) {
        check(path);
        done.add(path);
      }
      for (const [path, records] of Object.entries(feed.partial ?? {})) {
        check(path);
        resume(path, records);
      }
    } else {
      throw new WeirError(
        'INVALID_JOB',
        `cannot resume source '${source}': the checkpoint holds no list of files read, got ${describeRecord(feed)}`,
      );
    }
    if (position.file !== null && position.records > 0) {
      check(position.file);
      resume(position.file, position.records);
    }
  }
  for (const path of done) partial.delete(path);
  return { done, partial };
}

/** A parallel reader's feed: files done, and files resumed whose reading has not ended. */
interface SplitFeedJson {
  readonly done: string[];
  readonly partial?: Record<string, number>;
}

function isSplitFeed(feed: Json): feed is Json & SplitFeedJson {
  if (typeof feed !== 'object' || feed === null || Array.isArray(feed)) return false;
  const { done, partial } = feed;
  if (!Array.isArray(done) || !done.every((p) => typeof p === 'string')) return false;
  if (partial === undefined) return true;
  return (
    typeof partial === 'object' &&
    partial !== null &&
    !Array.isArray(partial) &&
    Object.values(partial).every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
  );
}

/**
 * The share of subtask `subtask` of `parallelism`: file `i` of the list goes
 * to subtask `i mod parallelism`, files done are skipped, and a file being
 * read at the checkpoint resumes after its records handed out.
 */
export function fileSplitFeed(
  paths: readonly string[],
  subtask: number,
  parallelism: number,
  progress: FileProgress,
): FileFeed {
  const { done } = progress;
  const owned = new Set(paths.filter((_, i) => i % parallelism === subtask));
  const partial = new Map([...progress.partial].filter(([path]) => owned.has(path)));
  return {
    async *files() {
      for (let i = subtask; i < paths.length; i += parallelism) {
        const path = paths[i]!;
        if (!done.has(path)) yield path;
      }
    },
    completed(path: string) {
      done.add(path);
      partial.delete(path);
    },
    // Files resumed but not done stay in the feed's position: the reader's own
    // position names only the file it is handing out, not those read ahead or not reached.
    snapshot(): Json {
      if (partial.size === 0) return { done: [...done] };
      return { done: [...done], partial: Object.fromEntries(partial) };
    },
    resumedRecords: (path: string) => partial.get(path) ?? 0,
  };
}
