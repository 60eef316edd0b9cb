/**
 * The `format` option's formats for rows of some columns: `json` (an object per record, fields
 * by column name, as Flink's json format), `raw` (one STRING or BYTES column, the bytes as they
 * are) and `csv` (one line per record, fields in column order). Decoding throws an error
 * naming the field; the connector adds where the record came from.
 */

import { type SourcePosition, sqlError } from '../../sql-error.js';
import { formatType, type LogicalType } from '../../types/logical-type.js';
import type { Row } from '../connector.js';
import { avroRowFormat } from './avro-row-format.js';
import {
  FieldError,
  fromJson,
  type JsonReadOptions,
  type JsonWriteOptions,
  parseJsonBytes,
  parseText,
  timeText,
  toJsonText,
  toText,
  withWriteDefaults,
} from './field-values.js';
import type { FormatColumn, RowFormat } from './format-types.js';

export type { FormatColumn, RowFormat } from './format-types.js';

export const ROW_FORMATS = ['json', 'raw', 'csv', 'avro'] as const;
export type RowFormatName = (typeof ROW_FORMATS)[number];

export interface RowFormatOptions extends JsonReadOptions, JsonWriteOptions, CsvOptions {
  /** json: a field missing from a record is an error (default: it is null). */
  readonly failOnMissingField?: boolean;
}

/** Flink's csv options ('csv.field-delimiter', 'csv.null-literal', ...). */
export interface CsvOptions {
  /** The field separator (default `,`). */
  readonly fieldDelimiter?: string;
  /** 'csv.quote-character' (default `"`); 'csv.disable-quote-character' turns quoting off. */
  readonly quoteCharacter?: string;
  readonly disableQuoteCharacter?: boolean;
  /** 'csv.escape-character': the next character is taken as it is (default: none). */
  readonly escapeCharacter?: string;
  /** 'csv.array-element-delimiter': between the elements of an ARRAY or the fields of a ROW (default `;`). */
  readonly arrayElementDelimiter?: string;
  /** 'csv.null-literal': a field of exactly this text is null, and null is written as it. */
  readonly nullLiteral?: string;
  /** 'csv.allow-comments': a line starting with `#` is no record. */
  readonly allowComments?: boolean;
  /** 'csv.ignore-parse-errors': a field that does not fit is null; a line that does not fit, no record. */
  readonly ignoreParseErrors?: boolean;
}

/** Thrown by a format's decode for bytes that hold no record (a csv comment, a skipped bad line). */
export class NoRecord extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'NoRecord';
  }
}

/** Flink's `json.*` and `csv.*` options of a table (parsed, as text) as format options. */
export function rowFormatOptions(o: Readonly<Record<string, unknown>>): RowFormatOptions {
  const at = (key: string): string | undefined => {
    const v = o[key];
    return typeof v === 'string' ? v : undefined;
  };
  const out: Record<string, unknown> = {};
  const put = (name: keyof RowFormatOptions, value: unknown) => {
    if (value !== undefined) out[name] = value;
  };
  const flag = (key: string) => (at(key) === undefined ? undefined : at(key) === 'true');
  put('failOnMissingField', flag('json.fail-on-missing-field'));
  put('ignoreParseErrors', flag('json.ignore-parse-errors') ?? flag('csv.ignore-parse-errors'));
  put('timestampStandard', at('json.timestamp-format.standard'));
  put('mapNullKeyMode', at('json.map-null-key.mode'));
  put('mapNullKeyLiteral', at('json.map-null-key.literal'));
  put('decimalAsPlainNumber', flag('json.encode.decimal-as-plain-number'));
  put('fieldDelimiter', at('csv.field-delimiter'));
  put('quoteCharacter', at('csv.quote-character'));
  put('disableQuoteCharacter', flag('csv.disable-quote-character'));
  put('escapeCharacter', at('csv.escape-character'));
  put('arrayElementDelimiter', at('csv.array-element-delimiter'));
  put('nullLiteral', at('csv.null-literal'));
  put('allowComments', flag('csv.allow-comments'));
  return out as RowFormatOptions;
}

export function jsonRowFormat(
  columns: readonly FormatColumn[],
  options: RowFormatOptions = {},
): RowFormat {
  const names = columns.map((c) => JSON.stringify(c.name));
  const writing = withWriteDefaults(options);
  const strict = options.failOnMissingField === true;
  if (strict && options.ignoreParseErrors === true)
    throw new Error(
      "'json.fail-on-missing-field' and 'json.ignore-parse-errors' cannot both be 'true'",
    );
  return {
    name: 'json',
    decode(bytes) {
      if (bytes === undefined) return columns.map(() => null);
      // Flink reads empty bytes as no record.
      if (bytes.length === 0) throw new NoRecord('an empty json record');
      const parsed = parseJsonBytes(bytes);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('a json record must be an object');
      const object = parsed as Record<string, unknown>;
      return columns.map((c) => {
        if (strict && !(c.name in object)) throw new FieldError(c.name, 'is missing');
        return fromJson(object[c.name], c.type, c.name, options);
      });
    },
    encode(row) {
      let out = '{';
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i] as FormatColumn;
        if (i > 0) out += ',';
        out += `${names[i]}:${toJsonText(row[i], c.type, writing)}`;
      }
      return Buffer.from(`${out}}`, 'utf8');
    },
  };
}

export function rawRowFormat(columns: readonly FormatColumn[], at: SourcePosition): RowFormat {
  const only = columns[0];
  if (columns.length !== 1 || only === undefined)
    sqlError(`format 'raw' needs exactly one column, got ${columns.length}`, at);
  const kind = only.type.kind;
  const bytes = kind === 'BINARY' || kind === 'VARBINARY';
  if (!bytes && kind !== 'VARCHAR' && kind !== 'CHAR')
    sqlError(`format 'raw' needs a STRING or BYTES column, got ${formatType(only.type)}`, at);
  return {
    name: 'raw',
    decode: (b) => [b === undefined ? null : bytes ? new Uint8Array(b) : b.toString('utf8')],
    encode: (row) => {
      const v = row[0];
      if (v === null || v === undefined) return Buffer.alloc(0);
      return bytes ? Buffer.from(v as Uint8Array) : Buffer.from(v as string, 'utf8');
    },
  };
}

/**
 * Splits one CSV line (RFC 4180 quoting) into its fields. `quote` null: no quoting;
 * `escapeChar`: the character after it is taken as it is, quoted or not.
 */
export function splitCsvLine(
  line: string,
  delimiter: string,
  quote: string | null = '"',
  escapeChar?: string,
): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (escapeChar !== undefined && c === escapeChar && i + 1 < line.length) {
      field += line.charAt(++i);
    } else if (quoted) {
      if (c === quote) {
        if (line.charAt(i + 1) === quote) {
          field += quote;
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === quote && field === '') quoted = true;
    else if (c === delimiter) {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

/** One CSV field's text as a value of `type`: an ARRAY or ROW is split at `options.arrayElementDelimiter`. */
function csvValue(text: string, type: LogicalType, field: string, options: CsvOptions): unknown {
  if (options.nullLiteral !== undefined && text === options.nullLiteral) {
    if (!type.nullable)
      throw new FieldError(field, `is null but the column is ${formatType(type)}`);
    return null;
  }
  if (text === '') {
    if (!type.nullable)
      throw new FieldError(field, `is empty but the column is ${formatType(type)}`);
    return type.kind === 'VARCHAR' || type.kind === 'CHAR' ? '' : null;
  }
  const parts = (): string[] => text.split(options.arrayElementDelimiter ?? ';');
  if (type.kind === 'ARRAY') {
    if (type.element.kind === 'ARRAY' || type.element.kind === 'ROW')
      throw new FieldError(field, 'is a nested ARRAY or ROW, which csv cannot hold');
    return parts().map((p, i) => csvValue(p, type.element, `${field}[${i}]`, options));
  }
  if (type.kind === 'ROW') {
    const ps = parts();
    return type.fields.map((f, i) => {
      if (f.type.kind === 'ARRAY' || f.type.kind === 'ROW')
        throw new FieldError(field, 'is a nested ARRAY or ROW, which csv cannot hold');
      return csvValue(ps[i] ?? '', f.type, `${field}.${f.name}`, options);
    });
  }
  // Flink reads anything but `true` (any case) as false, as Boolean.parseBoolean.
  if (type.kind === 'BOOLEAN') return text.trim().toLowerCase() === 'true';
  // Flink's csv format trims numbers (`  12  ` is 12).
  const trimmed = type.kind === 'VARCHAR' || type.kind === 'CHAR' ? text : text.trim();
  return parseText(trimmed, type, field);
}

/**
 * CSV fields in column order to a row: an empty unquoted field is null, as Flink's csv reads it.
 * With `ignoreParseErrors` a field that does not fit is null and missing fields are null.
 */
export function csvFieldsToRow(
  fields: readonly string[],
  columns: readonly FormatColumn[],
  options: CsvOptions = {},
): Row {
  const lenient = options.ignoreParseErrors === true;
  if (fields.length > columns.length || (!lenient && fields.length !== columns.length))
    throw new Error(`a csv record must have ${columns.length} fields, got ${fields.length}`);
  return columns.map((c, i) => {
    const f = fields[i];
    if (f === undefined) return null;
    if (!lenient) return csvValue(f, c.type, c.name, options);
    try {
      return csvValue(f, c.type, c.name, options);
    } catch (error) {
      if (error instanceof FieldError) return null;
      throw error;
    }
  });
}

/** A non-null value as Flink's csv format writes it (times in SQL form, fractions trimmed). */
function csvText(value: unknown, type: LogicalType, options: CsvOptions): string {
  switch (type.kind) {
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return timeText(value, type);
    case 'ARRAY':
      return (value as unknown[])
        .map((e) => (e === null ? (options.nullLiteral ?? '') : csvText(e, type.element, options)))
        .join(options.arrayElementDelimiter ?? ';');
    case 'ROW':
      return type.fields
        .map((f, i) => {
          const e = (value as unknown[])[i];
          return e === null || e === undefined
            ? (options.nullLiteral ?? '')
            : csvText(e, f.type, options);
        })
        .join(options.arrayElementDelimiter ?? ';');
    default:
      return toText(value, type);
  }
}

// Numbers and booleans are written bare; text is quoted as Jackson's csv writer decides it.
const BARE_KINDS = new Set([
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
]);

function csvField(
  value: unknown,
  type: LogicalType,
  delimiter: string,
  options: CsvOptions,
): string {
  if (value === null || value === undefined) return options.nullLiteral ?? '';
  const t = csvText(value, type, options);
  const quote =
    options.disableQuoteCharacter === true ? undefined : (options.quoteCharacter ?? '"');
  if (quote === undefined || BARE_KINDS.has(type.kind) || t === '') return t;
  // Jackson quotes text longer than 24 characters, or holding a character below the largest
  // of the delimiter, the quote and a line feed, or the escape character.
  const safe = Math.max(delimiter.charCodeAt(0), quote.charCodeAt(0), 10) + 1;
  const escapeChar = options.escapeCharacter;
  let needs = t.length > 24;
  for (let i = 0; !needs && i < t.length; i++)
    needs = t.charCodeAt(i) < safe || t.charAt(i) === escapeChar;
  if (!needs) return t;
  let body = t.replaceAll(quote, quote + quote);
  if (escapeChar !== undefined && escapeChar !== quote)
    body = body.replaceAll(escapeChar, escapeChar + escapeChar);
  return `${quote}${body}${quote}`;
}

/** A row as one CSV line (without the line break). */
export function csvLine(
  row: Row,
  columns: readonly FormatColumn[],
  delimiter: string,
  options: CsvOptions = {},
): string {
  return columns.map((c, i) => csvField(row[i], c.type, delimiter, options)).join(delimiter);
}

/** One CSV line to a row, or undefined for a line that holds none (a comment, a bad line skipped). */
export function csvRecord(
  line: string,
  columns: readonly FormatColumn[],
  options: CsvOptions = {},
): Row | undefined {
  if (options.allowComments === true && line.startsWith('#')) return undefined;
  const quote = options.disableQuoteCharacter === true ? null : (options.quoteCharacter ?? '"');
  const fields = splitCsvLine(line, options.fieldDelimiter ?? ',', quote, options.escapeCharacter);
  try {
    return csvFieldsToRow(fields, columns, options);
  } catch (error) {
    if (options.ignoreParseErrors === true) return undefined;
    throw error;
  }
}

export function csvRowFormat(
  columns: readonly FormatColumn[],
  options: RowFormatOptions = {},
): RowFormat {
  const delimiter = options.fieldDelimiter ?? ',';
  return {
    name: 'csv',
    decode: (b) => {
      if (b === undefined) return columns.map(() => null);
      const row = csvRecord(b.toString('utf8').replace(/\r?\n$/, ''), columns, options);
      if (row === undefined) throw new NoRecord('a csv comment or a line skipped as bad');
      return row;
    },
    encode: (row) => Buffer.from(csvLine(row, columns, delimiter, options), 'utf8'),
  };
}

export function rowFormat(
  name: RowFormatName,
  columns: readonly FormatColumn[],
  options: RowFormatOptions,
  at: SourcePosition,
): RowFormat {
  switch (name) {
    case 'json':
      return jsonRowFormat(columns, options);
    case 'raw':
      return rawRowFormat(columns, at);
    case 'csv':
      return csvRowFormat(columns, options);
    case 'avro':
      return avroRowFormat(columns, at);
  }
}
