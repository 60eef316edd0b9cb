import { describeRecord, WeirError } from '../../../core/errors.js';
import { type RecordBatch, untimedBatch } from '../../../core/record-batch.js';
import type { Json } from '../../../core/snapshot.js';
import type { PollStatus, SourceContext, SourceReader } from '../../../core/source.js';
import { bytesReadCounter } from '../../../metrics/connector-metrics.js';
import type { Counter } from '../../../metrics/registry.js';
import { BadRecordHandler, type BadRecordPolicy, reasonOf } from '../../shared/bad-records.js';
import type { FileFormat, FormatOutput } from '../formats/format-types.js';

/**
 * The files a reader reads, in order: a fixed list for a bounded
 * source (the iterable ends), a watched directory for an unbounded one.
 */
export interface FileFeed {
  /**
   * The files still to read, in order. After a restore, the file that was
   * being read at the checkpoint (if any) comes first.
   */
  files(signal: AbortSignal): AsyncIterable<string>;
  /** Every record of `path` has been handed out by `poll`. */
  completed(path: string): void;
  /** Which files are completed, as JSON; a feed created from it skips them. */
  snapshot(): Json;
  /**
   * Records of `path` handed out before the checkpoint being restored, which
   * the reader skips: for feeds that resume several files (a source restored
   * at another parallelism). Without it, only the position's own file resumes.
   */
  resumedRecords?(path: string): number;
}

/**
 * A file source reader's checkpointed position: the feed's state
 * (which files are done), the file being read and how many of its records
 * `poll` has handed out.
 */
export interface FilePosition {
  readonly feed: Json;
  readonly file: string | null;
  readonly records: number;
}

/** Reads a restored position, failing clearly if it is not one of ours. */
export function parsePosition(json: Json | undefined, source: string): FilePosition | undefined {
  if (json === undefined) return undefined;
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const { feed, file, records } = json;
    if (
      feed !== undefined &&
      (file === null || typeof file === 'string') &&
      typeof records === 'number' &&
      Number.isInteger(records) &&
      records >= 0
    ) {
      return { feed, file, records };
    }
  }
  throw new WeirError(
    'INVALID_JOB',
    `the restored position of ${source} is not a file source position: ${describeRecord(json)}`,
  );
}

/** Thrown into a format's read loop by `proceed` when reading must stop. */
class ReaderStopped extends Error {
  constructor() {
    super('file reader stopped');
    this.name = 'ReaderStopped';
  }
}

/** A file whose records are (partly) in the buffer. */
interface BufferedFile {
  readonly path: string;
  /** Records of the file handed out before the restored checkpoint (skipped on reading). */
  readonly before: number;
  /** Index in the buffer just past the file's last record, once the file has been read to its end. */
  end: number | undefined;
}

/** Records buffered ahead of `poll` before reading pauses, in batches. */
const BUFFERED_BATCHES = 2;
/** Lower bound of the read-ahead, so tiny batch sizes still read in useful chunks. */
const MIN_BUFFERED_RECORDS = 1024;
/** Consumed records kept at the front of the buffer before it is compacted. */
const COMPACT_AFTER = 4096;

/**
 * A source reader over a sequence of files. A background loop reads
 * the files one after another through a {@link FileFormat} into a buffer,
 * pausing while the buffer is full; `poll` hands out batches of exactly
 * `context.batchSize` records, except that a file's last batch may be
 * smaller (batches never span files). So batch boundaries, and the
 * watermarks that follow them, depend only on the input, not on I/O timing.
 *
 * `snapshot` gives the position after the last record handed out (files done,
 * current file, records of it handed out). A reader restored from it skips
 * the done files and the first records of the current file, and does not
 * re-report bad records that came before them; bad records after them may be
 * reported again (a dead letter is at-least-once across restores).
 */
export class FileReader<T> implements SourceReader<T> {
  private values: T[] = [];
  /** Index in `values` of the next record to hand out. */
  private head = 0;
  /** Files with records in the buffer (or being read), oldest first. */
  private readonly files: BufferedFile[] = [];
  /** Records of `files[0]` handed out so far. */
  private handedOut = 0;
  /** Records of the restored file still to skip (handed out before the checkpoint). */
  private skip = 0;
  /** All files of a bounded feed have been read. */
  private done = false;
  private failure: WeirError | undefined;
  /** The loop must stop: the reader failed or is closing. */
  private stopped = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private wakeConsumer: (() => void) | undefined;
  private consumerWait: Promise<void> | undefined;
  private wakeProducer: (() => void) | undefined;
  private readonly batchSize: number;
  private readonly highWater: number;
  private readonly badRecords: BadRecordHandler;
  private readonly filesRead: Counter;
  private readonly bytes: Counter;
  private currentFile = '';

  constructor(
    context: SourceContext,
    private readonly feed: FileFeed,
    private readonly format: FileFormat<T>,
    policy: BadRecordPolicy,
    private readonly restored: FilePosition | undefined,
  ) {
    this.batchSize = context.batchSize;
    this.highWater = Math.max(BUFFERED_BATCHES * context.batchSize, MIN_BUFFERED_RECORDS);
    this.badRecords = new BadRecordHandler(policy, context.metrics, context.operatorId);
    this.filesRead = context.metrics.counter(
      'weir_source_files_total',
      'Files the source has read to the end',
    );
    this.bytes = bytesReadCounter(context.metrics);
  }

  open(): void {
    this.loop ??= this.run();
  }

  poll(): RecordBatch<T> | PollStatus {
    const batchSize = this.batchSize;
    for (;;) {
      const file = this.files[0];
      if (file === undefined) {
        if (this.failure !== undefined) throw this.failure;
        return this.done ? 'end' : 'wait';
      }
      if (file.end !== undefined && file.end - this.head <= batchSize) {
        const n = file.end - this.head;
        const batch = n > 0 ? this.take(n) : undefined;
        this.files.shift();
        this.handedOut = 0;
        this.feed.completed(file.path);
        if (batch !== undefined) return batch;
        continue;
      }
      if (this.values.length - this.head >= batchSize) {
        this.handedOut += batchSize;
        return this.take(batchSize);
      }
      if (this.failure !== undefined) throw this.failure;
      return 'wait';
    }
  }

  available(): Promise<void> {
    if (this.pollable()) return Promise.resolve();
    this.consumerWait ??= new Promise<void>((resolve) => {
      this.wakeConsumer = resolve;
    });
    return this.consumerWait;
  }

  /** The position after the last record `poll` returned; see {@link FilePosition}. */
  snapshot(): Json {
    const file = this.files[0];
    if (file === undefined) return { feed: this.feed.snapshot(), file: null, records: 0 };
    return { feed: this.feed.snapshot(), file: file.path, records: file.before + this.handedOut };
  }

  async close(): Promise<void> {
    this.stop();
    try {
      await this.loop;
    } finally {
      await this.badRecords.close();
    }
  }

  private readonly output: FormatOutput<T> = {
    record: (value: T): void => {
      if (this.stopped) return;
      if (this.skip > 0) {
        this.skip--;
        return;
      }
      this.values.push(value);
      if (this.wakeConsumer !== undefined && this.values.length - this.head >= this.batchSize) {
        this.notify();
      }
    },
    bad: (line: number, text: string, error: unknown): void => {
      if (this.stopped) return;
      // Bad records before the restore point were dealt with before the checkpoint.
      if (this.skip > 0) return;
      const failure = this.badRecords.handle({
        file: this.currentFile,
        line,
        error: reasonOf(error),
        text,
      });
      if (failure !== undefined) this.fail(failure);
    },
    bytesRead: (count: number): void => {
      this.bytes.inc(count);
    },
    proceed: async (): Promise<void> => {
      for (;;) {
        if (this.stopped) throw new ReaderStopped();
        const deadLetter = this.badRecords.room();
        if (deadLetter !== undefined) {
          await deadLetter;
          continue;
        }
        if (this.values.length - this.head < this.highWater) return;
        await new Promise<void>((resolve) => {
          this.wakeProducer = resolve;
        });
      }
    },
  };

  private async run(): Promise<void> {
    try {
      let first = true;
      for await (const path of this.feed.files(this.abort.signal)) {
        if (this.stopped) return;
        const resumeIn = first ? this.restored?.file : undefined;
        first = false;
        let before = this.feed.resumedRecords?.(path) ?? 0;
        if (resumeIn !== undefined && resumeIn !== null) {
          if (path !== resumeIn) {
            throw new WeirError(
              'INVALID_JOB',
              `cannot resume file source: the checkpoint was taken while reading '${resumeIn}', ` +
                `but the source now continues with '${path}'`,
            );
          }
          before = this.restored?.records ?? 0;
        }
        const file: BufferedFile = { path, before, end: undefined };
        this.skip = before;
        this.currentFile = path;
        this.files.push(file);
        try {
          await this.format.read(path, this.output, this.abort.signal);
        } catch (e) {
          if (this.stopped) return;
          throw e instanceof WeirError ? e : readFailed(path, e);
        }
        if (this.stopped) return;
        this.skip = 0;
        this.filesRead.inc();
        file.end = this.values.length;
        this.notify();
      }
      this.done = true;
      this.notify();
    } catch (e) {
      if (this.stopped) return;
      this.fail(
        e instanceof WeirError
          ? e
          : new WeirError('SOURCE_FAILED', `file source failed: ${reasonOf(e)}`, {
              cause: e,
              domain: 'external',
              retriable: true,
            }),
      );
    }
  }

  private take(n: number): RecordBatch<T> {
    const start = this.head;
    const batch = this.values.slice(start, start + n);
    this.head = start + n;
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.values.length) this.compact();
    if (this.wakeProducer !== undefined && this.values.length - this.head < this.highWater) {
      const wake = this.wakeProducer;
      this.wakeProducer = undefined;
      wake();
    }
    return untimedBatch(batch);
  }

  private compact(): void {
    const dropped = this.head;
    this.values = this.values.slice(dropped);
    this.head = 0;
    for (const file of this.files) if (file.end !== undefined) file.end -= dropped;
  }

  private pollable(): boolean {
    const file = this.files[0];
    return (
      this.failure !== undefined ||
      (this.done && file === undefined) ||
      (file !== undefined && file.end !== undefined) ||
      this.values.length - this.head >= this.batchSize
    );
  }

  private notify(): void {
    const wake = this.wakeConsumer;
    this.wakeConsumer = undefined;
    this.consumerWait = undefined;
    wake?.();
  }

  private fail(failure: WeirError): void {
    this.failure ??= failure;
    this.stop();
    this.notify();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    const wake = this.wakeProducer;
    this.wakeProducer = undefined;
    wake?.();
  }
}

function readFailed(file: string, cause: unknown): WeirError {
  return new WeirError('SOURCE_FAILED', `cannot read file '${file}': ${reasonOf(cause)}`, {
    cause,
    domain: 'external',
    retriable: true,
  });
}
