import { csvFormat } from './csv.js';
import type { FileFormat as FileFormatContract } from './format-types.js';
import { jsonLinesFormat } from './json-lines.js';

export type { FormatOutput, RecordPosition } from './format-types.js';

/** How the bytes of a file become records (see `format-types.ts`); built-in ones are listed by the value of the same name. */
export type FileFormat<T> = FileFormatContract<T>;

/**
 * The built-in file formats:
 *
 * ```ts
 * FileFormat.jsonLines<Click>()                       // records as parsed, unchecked
 * FileFormat.jsonLines({ parse: (v) => toClick(v) })  // converted/validated; a throw makes a bad record
 * FileFormat.csv({ header: true })                    // rows as { column: value } objects
 * FileFormat.csv({ header: true, parse: (r) => ({ id: r.id, price: Number(r.price) }) })
 * FileFormat.csv({ delimiter: ';' })                  // rows as string[]
 * ```
 */
export const FileFormat = {
  jsonLines: jsonLinesFormat,
  csv: csvFormat,
} as const;
