/** The SQL connectors by their `'connector'` option value. */
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import { blackholeConnector, datagenConnector, printConnector } from './basic-connectors.js';
import type { SqlConnector } from './connector.js';
import { filesystemConnector } from './filesystem/filesystem-connector.js';
import { nexmarkConnector } from './nexmark-connector.js';

const CONNECTORS = new Map<string, SqlConnector>(
  [
    nexmarkConnector('nexmark'),
    nexmarkConnector('weir-nexmark'),
    datagenConnector,
    printConnector,
    blackholeConnector,
    filesystemConnector,
  ].map((c) => [c.name, c]),
);

/**
 * The connectors that need a client library (`kafka`, `jdbc`, ...): not built in, so that the
 * `weir` entry point never loads Kafka or PostgreSQL code. `weir sql` adds them at start
 * (see external-connectors.ts) with `registerSqlConnectors`.
 */
const EXTERNAL = ['kafka', 'upsert-kafka', 'jdbc', 'postgres-cdc'];

/** Makes connectors available to every table environment of the process, by name. */
export function registerSqlConnectors(connectors: readonly SqlConnector[]): void {
  for (const c of connectors) CONNECTORS.set(c.name, c);
}

/** The connector a table names, or an error listing the connectors there are. */
export function connectorOf(table: CatalogTable): SqlConnector {
  const connector = CONNECTORS.get(table.connector);
  if (connector === undefined) {
    const option = table.options.get('connector');
    if (EXTERNAL.includes(table.connector))
      sqlError(
        `connector '${table.connector}' uses a client library that the \`weir\` entry point does not load: \`weir sql\` loads it (registerSqlConnectors)`,
        option?.at ?? table.at,
      );
    sqlError(
      `unknown connector '${table.connector}'; allowed values: ${[...new Set([...CONNECTORS.keys(), ...EXTERNAL])].join(', ')}`,
      option?.at ?? table.at,
    );
  }
  return connector;
}
