import { createReadStream } from 'node:fs';
import { type CsvError, type Options as CsvParseOptions, type Parser, parse } from 'csv-parse';
import { invalidArgument } from '../../../core/errors.js';
import { reasonOf } from '../../shared/bad-records.js';
import type { FileFormat, FormatOutput, RecordPosition } from './format-types.js';
import { InvalidUtf8Lines } from './invalid-utf8-lines.js';

/** A CSV row read with a header: field values keyed by column name. */
export type CsvRecord = Record<string, string>;

/** Dialect options shared by every form of `FileFormat.csv`. */
export interface CsvDialectOptions {
  /** Field separator; default `','`. */
  readonly delimiter?: string;
  /** Quote character; default `'"'`. A quote inside a quoted field is written twice. */
  readonly quote?: string;
  /** Remove whitespace around unquoted fields. Default false. */
  readonly trim?: boolean;
  /**
   * Accept rows whose number of fields differs from the header (or, without
   * a header, from the first row). Default false: such a row is a bad record.
   */
  readonly relaxColumnCount?: boolean;
}

/** CSV whose rows become objects keyed by column name. */
export interface CsvHeaderOptions extends CsvDialectOptions {
  /**
   * `true`: the first row of each file holds the column names (it is not a
   * record). An array: the column names, and every row of the file is data.
   */
  readonly header: true | readonly string[];
}

/** CSV whose rows become arrays of field values. */
export interface CsvNoHeaderOptions extends CsvDialectOptions {
  /** No header: every row is a record, an array of strings. */
  readonly header?: false;
}

/** Size of the chunks read from the file. */
const CHUNK_BYTES = 64 * 1024;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * CSV (RFC 4180 and common variants), parsed by `csv-parse`: UTF-8, a leading
 * byte order mark ignored, `\n` or `\r\n` row ends, quoted fields may hold
 * delimiters, quotes (doubled) and line breaks. Empty lines are skipped. A row
 * with bytes that are not valid UTF-8 is a bad record (its bytes are never
 * replaced); with `header: true`, so is every row under a header that is not.
 *
 * With `header`, rows are {@link CsvRecord} objects, else `string[]`; pass
 * `parse` to convert a row into your record type (e.g. numbers). A row that
 * cannot be parsed (unclosed quote, wrong number of fields) or that `parse`
 * rejects by throwing is a bad record, reported with the line where it starts
 * and its text. Records come out in file order.
 */
export function csvFormat<T>(
  options: CsvHeaderOptions & { readonly parse: (row: CsvRecord, at: RecordPosition) => T },
): FileFormat<T>;
export function csvFormat(options: CsvHeaderOptions): FileFormat<CsvRecord>;
export function csvFormat<T>(
  options: CsvNoHeaderOptions & { readonly parse: (row: string[], at: RecordPosition) => T },
): FileFormat<T>;
export function csvFormat(options?: CsvNoHeaderOptions): FileFormat<string[]>;
export function csvFormat(
  options: (CsvHeaderOptions | CsvNoHeaderOptions) & {
    readonly parse?: (row: never, at: RecordPosition) => unknown;
  } = {},
): FileFormat<unknown> {
  const parseRow = options.parse as ((row: unknown, at: RecordPosition) => unknown) | undefined;
  const header = options.header;
  const parserOptions: CsvParseOptions = {
    // A UTF-8 BOM is dropped by `read`; csv-parse's own detection would also switch to UTF-16.
    bom: false,
    columns: header === true ? true : Array.isArray(header) ? [...header] : false,
    delimiter: options.delimiter ?? ',',
    quote: options.quote ?? '"',
    trim: options.trim ?? false,
    relax_column_count: options.relaxColumnCount ?? false,
    record_delimiter: ['\r\n', '\n'],
    skip_empty_lines: true,
    skip_records_with_error: true,
    raw: true,
  };
  try {
    parse({ ...parserOptions }).destroy();
  } catch (e) {
    throw invalidArgument(`invalid CSV options: ${reasonOf(e)}`);
  }

  return {
    name: 'csv',
    async read(file: string, output: FormatOutput<unknown>, signal: AbortSignal): Promise<void> {
      // csv-parse counts a `\r\n` inside a quoted field as two lines; we count it as one.
      let overcount = 0;
      const locate = (lines: unknown, raw: string | undefined): RecordText => {
        const text = trimLineBreaks(raw ?? '');
        overcount += countCrLf(text);
        const end = (typeof lines === 'number' ? lines : 1) - overcount;
        const line = Math.max(1, end - countLineBreaks(text));
        return { line, last: line + countLineBreaks(text), text };
      };
      // Invalid bytes are found ahead of the parser, which decodes them to U+FFFD.
      const invalid = new InvalidUtf8Lines();
      // With a header, whether it is valid is known at the first record: csv-parse has
      // decoded its names by then, and an invalid line before that record left U+FFFD in one.
      let headerInvalid = header === true ? undefined : false;
      const notUtf8 = (at: RecordText, columns?: unknown): string | undefined => {
        if (headerInvalid === undefined && columns !== undefined) {
          headerInvalid = hasReplacement(columns) && invalid.within(1, at.line - 1).length > 0;
        }
        if (headerInvalid === true) return 'the header row is not valid UTF-8';
        const bad = invalid.within(at.line, at.last).length > 0;
        if (headerInvalid === false) invalid.forget(at.line);
        return bad ? 'the record is not valid UTF-8' : undefined;
      };
      const parser: Parser = parse({
        ...parserOptions,
        on_record: (wrapped: unknown, context) => {
          const { record, raw } = unwrapRaw(wrapped);
          const at = locate(context.lines, raw);
          const { line, text } = at;
          // The column names, as csv-parse decoded them (absent from its typings).
          const encodingError = notUtf8(at, Reflect.get(context, 'columns') ?? []);
          if (encodingError !== undefined) {
            output.bad(line, text, encodingError);
            return null;
          }
          if (parseRow === undefined) {
            output.record(record);
            return null;
          }
          let value: unknown;
          try {
            value = parseRow(record, { file, line });
          } catch (e) {
            output.bad(line, text, e);
            return null;
          }
          output.record(value);
          return null;
        },
        on_skip: (error: CsvError | undefined, raw: string | undefined) => {
          const at = locate(error?.lines, raw);
          output.bad(at.line, at.text, notUtf8(at) ?? error ?? 'malformed CSV');
          return undefined;
        },
      });
      let failure: unknown;
      parser.on('error', (e: unknown) => {
        failure ??= e;
      });
      parser.resume();
      const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES, signal });
      let first = true;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        output.bytesRead(chunk.length);
        invalid.push(chunk);
        const bom = first && chunk.subarray(0, 3).equals(UTF8_BOM);
        first = false;
        // Records and bad records are reported synchronously, in file order, from within write.
        parser.write(bom ? chunk.subarray(3) : chunk);
        if (failure !== undefined) throw failure;
        await output.proceed();
      }
      invalid.end();
      await new Promise<void>((resolve, reject) => {
        parser.once('error', reject);
        parser.end(() => resolve());
      });
      if (failure !== undefined) throw failure;
    },
  };
}

/** Whether csv-parse's column descriptions hold a name with U+FFFD. */
function hasReplacement(columns: unknown): boolean {
  if (!Array.isArray(columns)) return false;
  return columns.some((c: unknown) => {
    const name: unknown = typeof c === 'object' && c !== null ? Reflect.get(c, 'name') : c;
    return typeof name === 'string' && name.includes('\uFFFD');
  });
}

/** Where a record is (first and last line) and its text. */
interface RecordText {
  readonly line: number;
  readonly last: number;
  readonly text: string;
}

/** With option `raw`, csv-parse hands `on_record` the row wrapped as `{ record, raw }`. */
function unwrapRaw(wrapped: unknown): { record: unknown; raw: string | undefined } {
  if (typeof wrapped === 'object' && wrapped !== null && 'record' in wrapped) {
    const raw = 'raw' in wrapped && typeof wrapped.raw === 'string' ? wrapped.raw : undefined;
    return { record: wrapped.record, raw };
  }
  return { record: wrapped, raw: undefined };
}

/** Drops line breaks before and after a record's text (csv-parse's raw text includes them). */
function trimLineBreaks(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isBreak(text.charCodeAt(start))) start++;
  while (end > start && isBreak(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function isBreak(c: number): boolean {
  return c === 10 || c === 13;
}

function countCrLf(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\r\n'); i !== -1; i = text.indexOf('\r\n', i + 2)) n++;
  return n;
}

/** Counts line breaks in `text`; `\r\n` is one break, as are a lone `\r` or `\n`. */
function countLineBreaks(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13) {
      n++;
      if (text.charCodeAt(i + 1) === 10) i++;
    }
  }
  return n;
}
