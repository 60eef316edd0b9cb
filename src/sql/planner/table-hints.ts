/**
 * Table hints: `t /*+ OPTIONS('k' = 'v') *\/` changes a table's options for one read or write
 * (Flink's dynamic table options), checked against its connector as CREATE TABLE checks them.
 */
import type { CatalogObject, CatalogTable } from '../catalog/catalog.js';
import { withOptions } from '../catalog/catalog-statements.js';
import { validateOptions } from '../connectors/connector.js';
import { connectorOf } from '../connectors/registry.js';
import type { TableOption } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';

/** `object` with the hint's options over its own; a view takes none, as in Flink. */
export function withHintOptions(
  object: CatalogObject,
  name: string,
  options: readonly TableOption[] | undefined,
  at: SourcePosition,
): CatalogObject {
  if (options === undefined) return object;
  if (object.kind === 'view')
    return sqlError(
      `view '${name}' cannot be enriched with new options: OPTIONS hints apply to tables only`,
      at,
    );
  if (object.dataStream !== undefined)
    return sqlError(
      `'${name}' is a DataStream registered as a table: it has no options to change`,
      at,
    );
  const hinted: CatalogTable = withOptions(object, options, [], at);
  validateOptions(connectorOf(hinted), hinted);
  return hinted;
}

/** What tells one hinted read of a table from another (and from the unhinted one). */
export function hintKey(options: readonly TableOption[] | undefined): string {
  return options === undefined ? '' : JSON.stringify(options.map((o) => [o.key, o.value]));
}
