/**
 * `'connector' = 'nexmark'` (also `'weir-nexmark'`, the name the Flink peer's table factory
 * uses): the Nexmark generator as a table. Options are the generator's parameters
 * ({@link NexmarkConfig} keys; `events` is `maxEvents`). The physical columns are those of the
 * reference DDL: `event_type` (0 person, 1 auction, 2 bid) and one nested ROW per event kind,
 * whose fields are read by name from the generated events.
 */
import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { DataStream } from '../../api/streams.js';
import {
  DEFAULT_NEXMARK_CONFIG,
  type NexmarkConfig,
  type NexmarkEvent,
  NexmarkSource,
} from '../../connectors/nexmark/index.js';
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import type { ConnectorOption, Row, SqlConnector } from './connector.js';

const EVENT_TYPE: Readonly<Record<NexmarkEvent['type'], number>> = {
  person: 0,
  auction: 1,
  bid: 2,
};
const KINDS = ['person', 'auction', 'bid'] as const;

const OPTIONS: ConnectorOption[] = [
  { key: 'events', description: 'number of events; unbounded when absent', value: 'number' },
  ...Object.keys(DEFAULT_NEXMARK_CONFIG)
    .filter((k) => k !== 'maxEvents')
    .map((key): ConnectorOption => ({ key, description: `generator parameter ${key}` })),
];

function generatorConfig(table: CatalogTable): Partial<NexmarkConfig> {
  const config: Record<string, number | null> = {};
  for (const [key, option] of table.options) {
    if (key === 'connector') continue;
    const value = option.value === 'null' ? null : Number(option.value);
    if (value !== null && !Number.isFinite(value))
      sqlError(`option '${key}' must be a number, got '${option.value}'`, option.at);
    config[key === 'events' ? 'maxEvents' : key] = value;
  }
  return config as Partial<NexmarkConfig>;
}

/**
 * Builds `event -> row` for the declared physical columns (checked when the table is created)
 * as generated code: one branch per event kind that builds the row as a literal, reading each
 * declared field by a direct property access. Reading the fields through a list of closures
 * and a `map` over field names cost more than the rest of a simple query's work.
 */
function rowConverter(table: CatalogTable): (event: NexmarkEvent) => Row {
  const columns = table.columns.filter((c) => c.computed === undefined);
  for (const column of columns) {
    if (column.name === 'event_type') continue;
    if (!KINDS.some((k) => k === column.name) || column.type.kind !== 'ROW') {
      sqlError(
        `the nexmark connector provides the columns event_type INT, person ROW<...>, auction ROW<...> and bid ROW<...>; '${column.name}' is not one of them`,
        table.at,
      );
    }
  }
  const branches = KINDS.map((kind) => {
    const values = columns.map((column) => {
      if (column.name === 'event_type') return String(EVENT_TYPE[kind]);
      if (column.name !== kind || column.type.kind !== 'ROW') return 'null';
      // Names are quoted as JSON strings: a field name is any SQL identifier.
      const fields = column.type.fields.map((f) => `x[${JSON.stringify(f.name)}] ?? null`);
      return `[${fields.join(', ')}]`;
    });
    // A null slot for each computed column (filled in place by the source planner).
    for (let i = columns.length; i < table.columns.length; i++) values.push('null');
    return `case ${JSON.stringify(kind)}: { const x = e[${JSON.stringify(kind)}]; return [${values.join(', ')}]; }`;
  });
  // Built once per table when the job is planned, never per event.
  return new Function(
    'e',
    `"use strict"; switch (e.type) { ${branches.join(' ')} } throw new Error('unknown Nexmark event type ' + e.type);`,
  ) as (event: NexmarkEvent) => Row;
}

export const nexmarkConnector = (name: string): SqlConnector => ({
  name,
  options: OPTIONS,
  slotsForComputed: true,
  source(
    table: CatalogTable,
    env: StreamEnvironment,
    computed?: (row: Row) => Row,
  ): DataStream<Row> {
    const toRow = rowConverter(table);
    const convert =
      computed === undefined ? toRow : (event: NexmarkEvent) => computed(toRow(event));
    return env
      .fromSource(new NexmarkSource({ config: generatorConfig(table), name: table.name }))
      .map(convert)
      .name(
        computed === undefined ? `${table.name}: rows` : `${table.name}: rows, computed columns`,
      );
  },
});
