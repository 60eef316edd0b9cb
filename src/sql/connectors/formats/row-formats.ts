/**
 * The `format` option's formats for rows of some columns: `json` (an object per record, fields
 * by column name, as Flink's json format), `raw` (one STRING or BYTES column, the bytes as they
 * are) and `csv` (one line per record, fields in column order). Decoding throws an error
 * naming the field; the connector adds where the record came from.
 */

import { parseJsonExact } from '../../../util/exact-json.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import { formatType, type LogicalType } from '../../types/logical-type.js';
import type { Row } from '../connector.js';
import { avroRowFormat } from './avro-row-format.js';
import { FieldError, fromJson, parseText, toJsonText, toText } from './field-values.js';
import type { FormatColumn, RowFormat } from './format-types.js';

export type { FormatColumn, RowFormat } from './format-types.js';

export const ROW_FORMATS = ['json', 'raw', 'csv', 'avro'] as const;
export type RowFormatName = (typeof ROW_FORMATS)[number];

export interface RowFormatOptions {
  /** json: a field missing from a record is an error (default: it is null). */
  readonly failOnMissingField?: boolean;
  /** csv: the field separator (default `,`). */
  readonly fieldDelimiter?: string;
}

export function jsonRowFormat(
  columns: readonly FormatColumn[],
  options: RowFormatOptions = {},
): RowFormat {
  const names = columns.map((c) => JSON.stringify(c.name));
  const strict = options.failOnMissingField === true;
  return {
    name: 'json',
    decode(bytes) {
      if (bytes === undefined) return columns.map(() => null);
      let parsed: unknown;
      try {
        parsed = parseJsonExact(bytes.toString('utf8'));
      } catch (error) {
        throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('a json record must be an object');
      const object = parsed as Record<string, unknown>;
      return columns.map((c) => {
        if (strict && !(c.name in object)) throw new FieldError(c.name, 'is missing');
        return fromJson(object[c.name], c.type, c.name);
      });
    },
    encode(row) {
      let out = '{';
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i] as FormatColumn;
        if (i > 0) out += ',';
        out += `${names[i]}:${toJsonText(row[i], c.type)}`;
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

/** Splits one CSV line (RFC 4180 quoting) into its fields. */
export function splitCsvLine(line: string, delimiter: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quoted) {
      if (c === '"') {
        if (line.charAt(i + 1) === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

/** CSV fields in column order to a row: an empty unquoted field is null, as Flink's csv reads it. */
export function csvFieldsToRow(fields: readonly string[], columns: readonly FormatColumn[]): Row {
  if (fields.length !== columns.length)
    throw new Error(`a csv record must have ${columns.length} fields, got ${fields.length}`);
  return columns.map((c, i) => {
    const f = fields[i] as string;
    if (f === '') {
      if (!c.type.nullable)
        throw new FieldError(c.name, `is empty but the column is ${formatType(c.type)}`);
      return c.type.kind === 'VARCHAR' || c.type.kind === 'CHAR' ? '' : null;
    }
    return parseText(f, c.type, c.name);
  });
}

function csvField(value: unknown, type: LogicalType, delimiter: string): string {
  if (value === null || value === undefined) return '';
  const t = toText(value, type);
  return t.includes(delimiter) || t.includes('"') || t.includes('\n') || t.includes('\r')
    ? `"${t.replaceAll('"', '""')}"`
    : t;
}

/** A row as one CSV line (without the line break). */
export function csvLine(row: Row, columns: readonly FormatColumn[], delimiter: string): string {
  return columns.map((c, i) => csvField(row[i], c.type, delimiter)).join(delimiter);
}

export function csvRowFormat(
  columns: readonly FormatColumn[],
  options: RowFormatOptions = {},
): RowFormat {
  const delimiter = options.fieldDelimiter ?? ',';
  return {
    name: 'csv',
    decode: (b) =>
      b === undefined
        ? columns.map(() => null)
        : csvFieldsToRow(
            splitCsvLine(b.toString('utf8').replace(/\r?\n$/, ''), delimiter),
            columns,
          ),
    encode: (row) => Buffer.from(csvLine(row, columns, delimiter), 'utf8'),
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
