import { createWriteStream, mkdirSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { describeRecord, invalidArgument, WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReconcilableSink, ReconcileTarget } from '../../../core/replay.js';
import type { SinkContext, SinkWriter } from '../../../core/sink.js';
import { bytesWrittenCounter } from '../../../metrics/connector-metrics.js';
import { reasonOf } from '../../shared/bad-records.js';
import { parseOptions } from '../../shared/config.js';
import { type JsonLinesSinkOptions, jsonLinesSinkSchema } from '../config.js';
import { filesNamed, lineFilesTarget } from './line-files-target.js';

export type { JsonLinesSinkOptions } from '../config.js';

/**
 * Writes records to a file as JSON Lines: one JSON value per line, UTF-8,
 * each line ended by `\n`, in the order the subtask receives them.
 *
 * ```ts
 * stream.sinkTo(new JsonLinesSink('out/results.jsonl'))
 * ```
 *
 * With parallelism 1 the file is `path` itself. With parallelism P > 1 each
 * subtask i (0-based) writes its own file, named by inserting `-i` before
 * the extension: `out/results-0.jsonl`, `out/results-1.jsonl`, ... (see
 * {@link JsonLinesSink.subtaskPath}); nothing is written to `path` itself.
 * Missing parent directories are created; existing files are replaced unless
 * `append` is set.
 *
 * Writes are asynchronous and buffered; while more than `bufferBytes` wait to
 * be written, `blocked()` holds the task (backpressure). `close()`, called at
 * the end of the job and when it is cancelled, writes everything buffered and
 * closes the file, so after the job's result resolves the file holds exactly
 * the records written. There is no transaction: if the job fails, the file
 * holds what was written up to then, possibly ending in a partial line. Files
 * are not fsynced. A write error fails the job with code `SINK_FAILED`.
 */
export class JsonLinesSink<T> implements ReconcilableSink<T> {
  readonly name: string;

  constructor(
    readonly path: string,
    private readonly options: JsonLinesSinkOptions<T> = {},
  ) {
    if (typeof path !== 'string' || path.length === 0) {
      throw invalidArgument('JsonLinesSink needs a file path');
    }
    this.name = parseOptions('JsonLinesSink', jsonLinesSinkSchema, options).name ?? 'jsonl file';
  }

  /**
   * The file subtask `subtaskIndex` of `parallelism` writes to: `path` when
   * `parallelism` is 1, else `path` with `-<subtaskIndex>` inserted before its
   * extension (`out.jsonl` → `out-0.jsonl`; `out` → `out-0`).
   */
  static subtaskPath(path: string, subtaskIndex: number, parallelism: number): string {
    if (parallelism <= 1) return path;
    const ext = extname(path);
    return `${path.slice(0, path.length - ext.length)}-${subtaskIndex}${ext}`;
  }

  /**
   * What the sink wrote, for `weir reconcile`: the lines of `path` and of
   * every subtask file beside it (`out-0.jsonl`, `out-1.jsonl`, ...), in name
   * order, each decoded as JSON (see `lineFilesTarget`), compared with
   * replayed values rendered by this sink's `serialize`. The sink has no
   * transactions: read it once the job has ended. Files of an earlier run
   * at another parallelism are read too, so remove them first.
   */
  reconcileTarget(): ReconcileTarget<T> {
    const { serialize, custom } = this.serializer();
    const path = this.path;
    return lineFilesTarget<T>({
      description: `JSON Lines file ${path}`,
      files: () => subtaskFiles(path),
      render: (value) => renderJsonLine(value, serialize, custom, this.name),
    });
  }

  private serializer(): { serialize: (value: T) => string | undefined; custom: boolean } {
    const custom = this.options.serialize;
    return {
      serialize: custom ?? ((value: T) => JSON.stringify(value) as string | undefined),
      custom: custom !== undefined,
    };
  }

  createWriter(context: SinkContext): SinkWriter<T> {
    const file = JsonLinesSink.subtaskPath(this.path, context.subtaskIndex, context.parallelism);
    const { serialize, custom } = this.serializer();
    const operatorId = context.operatorId;
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (cause) {
      throw writeFailed(file, cause, operatorId);
    }
    const stream = createWriteStream(file, {
      flags: this.options.append ? 'a' : 'w',
      encoding: 'utf8',
      highWaterMark: this.options.bufferBytes ?? 1024 * 1024,
    });
    let failure: WeirError | undefined;
    let failed: Promise<void> | undefined;
    let drained: Promise<void> | undefined;
    stream.on('error', (cause) => {
      failure ??= writeFailed(file, cause, operatorId);
    });
    const bytes = bytesWrittenCounter(context.metrics);

    const render = (value: T): string => renderJsonLine(value, serialize, custom, operatorId);

    return {
      write(batch: RecordBatch<T>): void {
        if (failure !== undefined) throw failure;
        const values = batch.values;
        let text = '';
        for (let i = 0; i < values.length; i++) text += `${render(values[i] as T)}\n`;
        if (text.length === 0) return;
        // Counted when handed to the file stream: UTF-8 bytes of the batch's lines.
        bytes.inc(Buffer.byteLength(text, 'utf8'));
        if (!stream.write(text) && drained === undefined) {
          drained = new Promise<void>((resolve) => {
            const done = () => {
              stream.off('drain', done);
              stream.off('close', done);
              stream.off('error', done);
              drained = undefined;
              resolve();
            };
            stream.on('drain', done);
            stream.on('close', done);
            stream.on('error', done);
          });
        }
      },
      blocked(): Promise<void> | undefined {
        if (failure !== undefined) {
          if (failed === undefined) {
            failed = Promise.reject(failure);
            // Handled by whoever awaits it; never an unhandled rejection.
            failed.catch(() => {});
          }
          return failed;
        }
        return drained;
      },
      async close(): Promise<void> {
        if (failure === undefined && !stream.destroyed) {
          await new Promise<void>((resolve) => {
            stream.once('close', resolve);
            stream.end();
          });
        } else {
          stream.destroy();
        }
        if (failure !== undefined) throw failure;
      },
    };
  }
}

/**
 * Renders `value` as its JSON line (without the newline), or throws
 * `SINK_FAILED` for a value that has none: the one rendering of the sink's
 * writers and of its reconcile target.
 */
function renderJsonLine<T>(
  value: T,
  serialize: (value: T) => string | undefined,
  custom: boolean,
  operatorId: string,
): string {
  let line: unknown;
  try {
    line = serialize(value);
  } catch (cause) {
    throw unwritable(value, reasonOf(cause), operatorId, cause);
  }
  if (typeof line !== 'string') {
    throw unwritable(value, `serializer returned ${describeRecord(line)}`, operatorId);
  }
  if (custom && (line.includes('\n') || line.includes('\r'))) {
    throw unwritable(value, 'serializer returned a line break', operatorId);
  }
  return line;
}

/** `path` and the subtask files of `path` that exist, in name order (see `subtaskPath`). */
async function subtaskFiles(path: string): Promise<string[]> {
  const directory = dirname(path);
  const ext = extname(path);
  const base = basename(path).slice(0, basename(path).length - ext.length);
  const ours = (name: string) => {
    if (name === basename(path)) return true;
    if (!name.startsWith(`${base}-`) || !name.endsWith(ext)) return false;
    return /^\d+$/.test(name.slice(base.length + 1, name.length - ext.length));
  };
  return filesNamed(directory, ours);
}

function writeFailed(file: string, cause: unknown, operatorId: string): WeirError {
  return new WeirError('SINK_FAILED', `cannot write to file '${file}': ${reasonOf(cause)}`, {
    cause,
    operatorId,
    domain: 'external',
    retriable: true,
  });
}

function unwritable(
  value: unknown,
  reason: string,
  operatorId: string,
  cause?: unknown,
): WeirError {
  const shown = describeRecord(value);
  return new WeirError(
    'SINK_FAILED',
    `record ${shown} cannot be written as a JSON line: ${reason}`,
    { operatorId, record: shown, domain: 'user', ...(cause === undefined ? {} : { cause }) },
  );
}
