/**
 * The `filesystem` connector's METADATA columns, Flink's keys: which file a row was read
 * from. Read-only (a table that is written to declares them VIRTUAL).
 */
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { CatalogTable, TableColumn } from '../../catalog/catalog.js';
import { sqlError } from '../../sql-error.js';
import type { Row } from '../connector.js';
import {
  checkMetadataColumns,
  isMillisTimestamp,
  isString,
  type MetadataKey,
} from '../metadata-columns.js';

interface FileFacts {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly modified: number;
}

const FILE_METADATA: Readonly<Record<string, MetadataKey<FileFacts>>> = {
  'file.path': { accepts: isString, type: 'STRING', value: (f) => f.path },
  'file.name': { accepts: isString, type: 'STRING', value: (f) => f.name },
  'file.size': { accepts: (t) => t.kind === 'BIGINT', type: 'BIGINT', value: (f) => f.size },
  'file.modification-time': {
    accepts: isMillisTimestamp,
    type: 'TIMESTAMP_LTZ(3)',
    value: (f) => f.modified,
  },
};

/** Refuses a METADATA column whose key the connector does not have, or of another type. */
export function checkFileMetadata(table: CatalogTable): void {
  checkMetadataColumns(table, 'filesystem', FILE_METADATA);
  for (const c of table.columns)
    if (c.metadata !== undefined && (table.partitionKeys ?? []).includes(c.name))
      sqlError(`PARTITIONED BY '${c.name}': a METADATA column cannot be a partition`, table.at);
}

/**
 * Fills the METADATA columns among `columns` (positions in the row) from the file a row was
 * read from; undefined when there are none. The file is looked at once, on its first row.
 */
export function fileMetadataFiller(
  columns: readonly TableColumn[],
): ((file: string, row: Row) => void) | undefined {
  const filled = columns.flatMap((c, at) =>
    c.metadata === undefined ? [] : [{ at, value: FILE_METADATA[c.metadata.key]!.value }],
  );
  if (filled.length === 0) return undefined;
  let last: { readonly file: string; readonly facts: FileFacts } | undefined;
  return (file, row) => {
    if (last?.file !== file) {
      // In nanoseconds: `mtimeMs`, a float, may fall just short of the millisecond.
      const stat = statSync(file, { bigint: true });
      const path = resolve(file);
      last = {
        file,
        facts: {
          path,
          name: basename(path),
          size: Number(stat.size),
          modified: Number(stat.mtimeNs / 1_000_000n),
        },
      };
    }
    for (const m of filled) row[m.at] = m.value(last.facts);
  };
}
