import { createReadStream } from 'node:fs';
import type { FileFormat, FormatOutput, RecordPosition } from './format-types.js';

/** Options of {@link jsonLinesFormat}. */
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
 * or `\r\n` line ends, a leading byte order mark ignored. Lines that are empty
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

      const stream = createReadStream(file, {
        encoding: 'utf8',
        highWaterMark: CHUNK_BYTES,
        signal,
      });
      let carry = '';
      let counted = 0;
      for await (const chunk of stream as AsyncIterable<string>) {
        // Bytes as read from the file (the chunk itself is decoded text).
        output.bytesRead(stream.bytesRead - counted);
        counted = stream.bytesRead;
        let start = 0;
        let nl = chunk.indexOf('\n');
        if (nl === -1) {
          carry += chunk;
        } else {
          handle(carry + chunk.slice(0, nl));
          start = nl + 1;
          for (nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
            handle(chunk.slice(start, nl));
            start = nl + 1;
          }
          carry = chunk.slice(start);
        }
        await output.proceed();
      }
      if (carry.length > 0) handle(carry);
      if (stream.bytesRead > counted) output.bytesRead(stream.bytesRead - counted);
    },
  };
}

function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  // Fast path: almost every line starts with a non-space character.
  if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 0xa0 && c !== 0xfeff) return false;
  return text.trim().length === 0;
}
