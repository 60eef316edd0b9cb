/** The SQL connectors by their `'connector'` option value. */
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import { blackholeConnector, datagenConnector, printConnector } from './basic-connectors.js';
import type { SqlConnector } from './connector.js';
import { nexmarkConnector } from './nexmark-connector.js';

const CONNECTORS: ReadonlyMap<string, SqlConnector> = new Map(
  [
    nexmarkConnector('nexmark'),
    nexmarkConnector('weir-nexmark'),
    datagenConnector,
    printConnector,
    blackholeConnector,
  ].map((c) => [c.name, c]),
);

/** The connector a table names, or an error listing the connectors there are. */
export function connectorOf(table: CatalogTable): SqlConnector {
  const connector = CONNECTORS.get(table.connector);
  if (connector === undefined) {
    const option = table.options.get('connector');
    sqlError(
      `unknown connector '${table.connector}'; allowed values: ${[...CONNECTORS.keys()].join(', ')}`,
      option?.at ?? table.at,
    );
  }
  return connector;
}
