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

/** Builds `event -> row` for the declared physical columns (checked when the table is created). */
function rowConverter(table: CatalogTable): (event: NexmarkEvent) => Row {
  const readers: ((event: NexmarkEvent) => unknown)[] = [];
  for (const column of table.columns) {
    if (column.computed !== undefined) continue;
    if (column.name === 'event_type') {
      readers.push((e) => EVENT_TYPE[e.type]);
      continue;
    }
    const kind = KINDS.find((k) => k === column.name);
    if (kind === undefined || column.type.kind !== 'ROW') {
      sqlError(
        `the nexmark connector provides the columns event_type INT, person ROW<...>, auction ROW<...> and bid ROW<...>; '${column.name}' is not one of them`,
        table.at,
      );
    }
    const fields = column.type.fields.map((f) => f.name);
    readers.push((e) => {
      if (e.type !== kind) return null;
      const record = (e as unknown as Record<string, Record<string, unknown>>)[kind] as Record<
        string,
        unknown
      >;
      return fields.map((f) => record[f] ?? null);
    });
  }
  const n = readers.length;
  return (event) => {
    const row = new Array<unknown>(n);
    for (let i = 0; i < n; i++) row[i] = (readers[i] as (e: NexmarkEvent) => unknown)(event);
    return row;
  };
}

export const nexmarkConnector = (name: string): SqlConnector => ({
  name,
  options: OPTIONS,
  source(table: CatalogTable, env: StreamEnvironment): DataStream<Row> {
    const toRow = rowConverter(table);
    return env
      .fromSource(new NexmarkSource({ config: generatorConfig(table), name: table.name }))
      .map(toRow)
      .name(`${table.name}: rows`);
  },
});
