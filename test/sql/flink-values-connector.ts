/**
 * A SQL connector for the ported Flink ITCases, after Flink's `values` test connector: a table
 * reads rows registered in this process under its `data-id`, as inserts (`changelog-mode` I),
 * as a retract changelog (`I,UA,UB,D`) or as an upsert one (`UA,D`), and can be looked up by
 * any of its columns (several rows per key; with a PRIMARY KEY the last row of a key wins, as
 * Flink's values table keeps it). `async` = `true` answers lookups only asynchronously (the
 * join then runs through async I/O), otherwise synchronously as well. `flink-values-no-lookup`
 * is the same without lookups (Flink's `'disable-lookup' = 'true'`).
 */
import type { Change, ChangeKind } from '../../src/core/changelog.js';
import type { Key } from '../../src/core/key-groups.js';
import type { LookupTable } from '../../src/core/lookup.js';
import type { Row } from '../../src/index.js';
import type { CatalogTable } from '../../src/sql/catalog/catalog.js';
import type { SqlConnector } from '../../src/sql/connectors/connector.js';
import { lookupCache } from '../../src/sql/connectors/lookup-options.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { valuesKey } from '../../src/sql/planner/row-key.js';

/** A change as Flink's tests write it: its kind, then the row's values. */
export type ValuesChange = readonly [ChangeKind, ...unknown[]];

const DATA = new Map<string, readonly Change<Row>[]>();
let ids = 0;

/** Registers rows (inserts) or changes; returns the `data-id` a table names them by. */
export function registerValues(rows: readonly (ValuesChange | readonly unknown[])[]): string {
  const id = `values-${ids++}`;
  DATA.set(
    id,
    rows.map((r): Change<Row> => {
      const kind = r[0];
      return kind === '+I' || kind === '-U' || kind === '+U' || kind === '-D'
        ? { kind, value: r.slice(1) }
        : { kind: '+I', value: [...r] };
    }),
  );
  return id;
}

/** `2020-08-15T00:01:00` as the epoch milliseconds a TIMESTAMP(3) holds. */
export const ts = (text: string): number => Date.parse(`${text}Z`);

function changesOf(table: CatalogTable): readonly Change<Row>[] {
  const id = table.options.get('data-id')?.value ?? '';
  const data = DATA.get(id);
  if (data === undefined) throw new Error(`table '${table.name}': no data registered as '${id}'`);
  return data;
}

const option = (table: CatalogTable, key: string) => table.options.get(key)?.value;

/** The table's rows after its changes, the last row of a PRIMARY KEY replacing earlier ones. */
function currentRows(table: CatalogTable): Row[] {
  const stored = table.columns.filter((c) => c.computed === undefined).map((c) => c.name);
  const pk = (table.primaryKey ?? []).map((k) => stored.indexOf(k));
  const rows = new Map<string, Row>();
  let n = 0;
  for (const { kind, value } of changesOf(table)) {
    const key = pk.length === 0 ? String(n++) : valuesKey(pk.map((i) => value[i]));
    if (kind === '-U' || kind === '-D') rows.delete(key);
    else rows.set(key, value);
  }
  return [...rows.values()];
}

export function registerValuesConnector(): void {
  const values: SqlConnector = {
    name: 'flink-values',
    options: [
      { key: 'data-id', description: 'the registered rows', required: true },
      { key: 'changelog-mode', description: 'I, I,UA,UB,D or UA,D' },
      { key: 'async', description: 'lookups only asynchronously', value: 'boolean' },
      { key: 'lookup.cache', description: 'NONE or PARTIAL', allowed: ['NONE', 'PARTIAL'] },
      { key: 'lookup.partial-cache.max-rows', description: 'cache size', value: 'number' },
    ],
    source: (table, env) =>
      env.fromArray(
        changesOf(table).map((c) => [...c.value]),
        `values ${table.name}`,
      ),
    changelogSource(table, env) {
      const mode = option(table, 'changelog-mode') ?? 'I';
      if (mode === 'I') return undefined;
      const changes = changesOf(table).map((c) => ({ kind: c.kind, value: [...c.value] }));
      return {
        changes: env.fromArray(changes, `values ${table.name}`),
        mode: mode === 'UA,D' ? 'upsert' : 'retract',
      };
    },
    lookupRows(table, keyColumns) {
      const stored = table.columns.filter((c) => c.computed === undefined).map((c) => c.name);
      const at = keyColumns.map((k) => stored.indexOf(k));
      const index = new Map<Key, Row[]>();
      for (const row of currentRows(table)) {
        const values = at.map((i) => row[i]);
        if (values.includes(null)) continue;
        const key = valuesKey(values);
        index.set(key, [...(index.get(key) ?? []), row]);
      }
      const get = (key: Key): readonly Row[] | undefined => index.get(key);
      const lookupTable: LookupTable<Key, readonly Row[]> = {
        name: table.name,
        lookup: async (keys) => {
          const found = new Map<Key, readonly Row[]>();
          for (const key of keys) {
            const rows = get(key);
            if (rows !== undefined) found.set(key, rows);
          }
          return found;
        },
        ...(option(table, 'async') === 'true' ? {} : { get }),
      };
      const maxRows = option(table, 'lookup.partial-cache.max-rows');
      const cache = lookupCache(
        {
          'lookup.cache': option(table, 'lookup.cache') === 'PARTIAL' ? 'PARTIAL' : 'NONE',
          ...(maxRows === undefined ? {} : { 'lookup.partial-cache.max-rows': maxRows }),
        },
        table,
      );
      return { table: lookupTable, ...(cache === undefined ? {} : { cache }) };
    },
  };
  const { lookupRows: _, ...withoutLookup } = values;
  registerSqlConnectors([values, { ...withoutLookup, name: 'flink-values-no-lookup' }]);
}
