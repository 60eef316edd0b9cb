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
import type { ConnectorOption, RecordScan, RecordVariant, SqlConnector } from './connector.js';

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

/** Checks the declared physical columns: `event_type` and ROW columns named after event kinds. */
function checkColumns(table: CatalogTable): void {
  for (const column of table.columns) {
    if (column.computed !== undefined || column.name === 'event_type') continue;
    if (!KINDS.some((k) => k === column.name) || column.type.kind !== 'ROW') {
      sqlError(
        `the nexmark connector provides the columns event_type INT, person ROW<...>, auction ROW<...> and bid ROW<...>; '${column.name}' is not one of them`,
        table.at,
      );
    }
  }
}

/**
 * The events as records for generated readers: one variant per event kind, each reading its
 * own ROW's fields by direct property access and null for the other kinds' ROWs (a list of
 * closures and a `map` over field names cost more than the rest of a simple query's work).
 */
function eventScan(table: CatalogTable, events: DataStream<NexmarkEvent>): RecordScan {
  const typeIndex = table.columns.findIndex((c) => c.name === 'event_type');
  const variants = KINDS.map((kind): RecordVariant => {
    const code = EVENT_TYPE[kind];
    return {
      tag: JSON.stringify(kind),
      prelude: `const x = r[${JSON.stringify(kind)}];`,
      value: (column, field) => {
        const c = table.columns[column];
        if (c === undefined) return 'null';
        if (c.name === 'event_type') return String(code);
        if (c.name !== kind || c.type.kind !== 'ROW') return 'null';
        // Names are quoted as JSON strings: a field name is any SQL identifier.
        const read = (f: { name: string }) => `(x[${JSON.stringify(f.name)}] ?? null)`;
        const fields = c.type.fields;
        if (field === undefined) return `[${fields.map(read).join(', ')}]`;
        const f = fields[field];
        return f === undefined ? 'null' : read(f);
      },
      matches: (filter) => filter.get(typeIndex)?.has(code) ?? true,
    };
  });
  return {
    // Only the generated code (typed by the variants above) looks into the records.
    records: events as unknown as DataStream<unknown>,
    tag: 'r.type',
    variants,
    unknown: "throw new Error('unknown Nexmark event type ' + r.type);",
    filterColumns: ['event_type'],
  };
}

export const nexmarkConnector = (name: string): SqlConnector => ({
  name,
  options: OPTIONS,
  scan(table: CatalogTable, env: StreamEnvironment): RecordScan {
    checkColumns(table);
    const events = env.fromSource(
      new NexmarkSource({ config: generatorConfig(table), name: table.name }),
    );
    return eventScan(table, events);
  },
});
