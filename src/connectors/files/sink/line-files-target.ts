import { createReadStream, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WeirError } from '../../../core/errors.js';
import type { ReconcileTarget, ReplayedValue, WrittenRow } from '../../../core/replay.js';
import type { Json } from '../../../core/snapshot.js';
import { reasonOf } from '../../shared/bad-records.js';
import { compareNames } from '../file-names.js';

/** What a line-per-record file sink tells `weir reconcile` about its output. */
export interface LineFilesOutput<T> {
  /** For reports, e.g. "JSON Lines file out/totals.jsonl". */
  readonly description: string;
  /** The sink's finished files, in a fixed order; in-progress or pending ones are left out. */
  readonly files: () => Promise<readonly string[]>;
  /** The sink's own rendering of a record as its line (without the newline). */
  readonly render: (value: T) => string;
}

/**
 * The reconcile target of a sink that writes one line per record: `written()`
 * reads each finished file line by line, `expected()` renders replayed values
 * with the sink's own code; both decode every line the same way
 * ({@link decodeLine}). Rows have no key and are compared as a multiset
 * (`append`): the files keep every record written.
 */
export function lineFilesTarget<T>(output: LineFilesOutput<T>): ReconcileTarget<T> {
  return {
    description: output.description,
    mode: 'append',
    async *written(): AsyncIterable<WrittenRow> {
      for (const file of await output.files()) {
        for await (const { line, text } of linesOf(file)) {
          yield { key: undefined, value: decodeLine(text), origin: `${file}:${line}` };
        }
      }
    },
    async *expected(values: AsyncIterable<ReplayedValue<T>>): AsyncIterable<WrittenRow> {
      let n = 0;
      for await (const { value } of values) {
        n++;
        // Split as a reader of the file would, should a custom renderer return a line break.
        for (const text of output.render(value).split('\n')) {
          yield {
            key: undefined,
            value: decodeLine(withoutCr(text)),
            origin: `replayed value ${n}`,
          };
        }
      }
    },
    async close(): Promise<void> {},
  };
}

/**
 * A line as a JSON Lines reader sees it: its JSON value, or, when it is not
 * JSON (a custom renderer's text, or a line cut short by a failed job), the
 * line itself as a string, so that it is still compared rather than lost.
 */
export function decodeLine(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** Size of the chunks read from a file. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The lines of `file`, numbered from 1: the text between `\n`s, decoded as
 * UTF-8; the empty text after a final `\n` is no line. A `\r` before the
 * `\n` is dropped, as the file sources do.
 */
export async function* linesOf(file: string): AsyncIterable<{ line: number; text: string }> {
  let line = 0;
  let carry: Buffer[] = [];
  for await (const chunk of createReadStream(file, {
    highWaterMark: CHUNK_BYTES,
  }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
      carry = [];
      yield { line: ++line, text: withoutCr(bytes.toString('utf8')) };
      start = nl + 1;
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  if (carry.length > 0)
    yield { line: ++line, text: withoutCr(Buffer.concat(carry).toString('utf8')) };
}

function withoutCr(text: string): string {
  return text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
}

/**
 * The files of `directory` whose names `ours` accepts, as paths in name
 * order; none when the directory does not exist (nothing was written, so
 * every expected row shows up missing).
 */
export async function filesNamed(
  directory: string,
  ours: (name: string) => boolean,
): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new WeirError('SINK_FAILED', `cannot list directory '${directory}': ${reasonOf(cause)}`, {
      cause,
      domain: 'external',
    });
  }
  return entries
    .filter((entry) => entry.isFile() && ours(entry.name))
    .map((entry) => entry.name)
    .sort(compareNames)
    .map((name) => join(directory, name));
}
