/**
 * A connector's METADATA keys (`col TYPE METADATA FROM 'key'`) and the check of a table's
 * METADATA columns against them: an unknown key names the allowed ones, a column of another
 * type names the key's.
 */
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import { formatType, type LogicalType } from '../types/logical-type.js';

/** A METADATA key's SQL type, as Flink documents it, and the column types it can fill. */
export interface MetadataType {
  readonly type: string;
  readonly accepts: (t: LogicalType) => boolean;
}

/** A METADATA key a connector fills from `S` (its record, event or file). */
export interface MetadataKey<S> extends MetadataType {
  readonly value: (source: S) => string | number;
}

/** CHAR, VARCHAR and STRING. */
export const isString = (t: LogicalType): boolean => t.kind === 'VARCHAR' || t.kind === 'CHAR';
export const isStringArray = (t: LogicalType): boolean => t.kind === 'ARRAY' && isString(t.element);
/** A time in milliseconds: TIMESTAMP_LTZ or TIMESTAMP of precision 3 or less. */
export const isMillisTimestamp = (t: LogicalType): boolean =>
  (t.kind === 'TIMESTAMP_LTZ' || t.kind === 'TIMESTAMP') && t.precision <= 3;

/** Refuses a METADATA column of `table` whose key `connector` does not have, or of another type. */
export function checkMetadataColumns(
  table: CatalogTable,
  connector: string,
  keys: Readonly<Record<string, MetadataType>>,
): void {
  for (const c of table.columns) {
    if (c.metadata === undefined) continue;
    const spec = keys[c.metadata.key];
    if (spec === undefined)
      sqlError(
        `column '${c.name}': connector '${connector}' has no metadata key '${c.metadata.key}'; allowed: ${Object.keys(keys).join(', ')}`,
        table.at,
      );
    if (!spec.accepts(c.type))
      sqlError(
        `column '${c.name}': metadata '${c.metadata.key}' is ${spec.type}, not ${formatType(c.type)}`,
        table.at,
      );
  }
}
