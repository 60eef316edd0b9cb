import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import type { FileFormat, FormatOutput, RecordPosition } from './format-types.js';

/** Options of `FileFormat.jsonLines`. */
export interface JsonLinesFormatOptions<T> {
  /**
   * Converts the parsed JSON of a line into a record, e.g. validates it or
   * picks fields. If it throws, the line is a bad record (see `onError` of the
   * source). Without it, parsed values are passed on as they are: `T` is then
   * an unchecked assertion, like the result of `JSON.parse`.
   */
  readonly parse?: (value: unknown, at: RecordPosition) => T;
}

/** Size of the chunks read from the file. */
const CHUNK_BYTES = 64 * 1024;

/**
 * JSON Lines (newline-delimited JSON): one JSON value per line, UTF-8, `\n`
 * or `\r\n` line ends, a leading byte order mark ignored. A line that is not
 * valid UTF-8 is a bad record (its bytes are never replaced). Lines that are empty
 * or only whitespace are skipped (they are not records, good or bad). A line
 * that is not valid JSON, or that `parse` rejects, is a bad record, reported
 * with its line number and text. Records come out in file order.
 */
export function jsonLinesFormat<T = unknown>(
  options: JsonLinesFormatOptions<T> = {},
): FileFormat<T> {
  const { parse } = options;
  return {
    name: 'jsonl',
    async read(file: string, output: FormatOutput<T>, signal: AbortSignal): Promise<void> {
      let lineNo = 0;
      const badBytes = (line: Buffer): void => {
        lineNo++;
        output.bad(lineNo, line.toString('utf8'), 'the line is not valid UTF-8');
      };
      const handle = (line: string): void => {
        lineNo++;
        let text = line;
        if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
        if (isBlank(text)) return;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (e) {
          output.bad(lineNo, text, e);
          return;
        }
        if (parse !== undefined) {
          try {
            value = parse(value, { file, line: lineNo });
          } catch (e) {
            output.bad(lineNo, text, e);
            return;
          }
        }
        output.record(value as T);
      };

      const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES, signal });
      // Bytes of a line not yet ended, kept as chunks: joined once its end arrives.
      let carry: Buffer[] = [];
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        output.bytesRead(chunk.length);
        const lastNl = chunk.lastIndexOf(10);
        if (lastNl === -1) {
          carry.push(chunk);
        } else {
          const head = chunk.subarray(0, lastNl + 1);
          const lines = carry.length === 0 ? head : Buffer.concat([...carry, head]);
          carry = lastNl + 1 < chunk.length ? [chunk.subarray(lastNl + 1)] : [];
          readLines(lines, handle, badBytes);
        }
        await output.proceed();
      }
      if (carry.length > 0) readLines(Buffer.concat(carry), handle, badBytes);
    },
  };
}

/**
 * Hands each line of `bytes` (complete lines, the last one maybe without its
 * `\n`) to `handle` as text. Bytes that are valid UTF-8 (checked in one pass
 * over the whole chunk, the usual case) are decoded at once; otherwise line
 * by line, and a line with invalid bytes goes to `badBytes` instead of being
 * decoded with replacement characters.
 */
function readLines(
  bytes: Buffer,
  handle: (line: string) => void,
  badBytes: (line: Buffer) => void,
): void {
  const end = bytes[bytes.length - 1] === 10 ? bytes.length - 1 : bytes.length;
  if (isUtf8(bytes)) {
    const text = bytes.toString('utf8', 0, end);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      handle(text.slice(start, nl));
      start = nl + 1;
    }
    handle(text.slice(start));
    return;
  }
  let start = 0;
  for (;;) {
    const found = bytes.indexOf(10, start);
    const nl = found === -1 || found > end ? end : found;
    const line = bytes.subarray(start, nl);
    if (isUtf8(line)) handle(line.toString('utf8'));
    else badBytes(line);
    if (nl >= end) return;
    start = nl + 1;
  }
}

function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  // Fast path: almost every line starts with a printable ASCII character, which is not white space.
  if (c > 32 && c < 127) return false;
  return text.trim().length === 0;
}
