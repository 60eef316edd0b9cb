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
import type { Collector } from '../../core/functions.js';
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';
import type { ConnectorOption, Row, SourceReads, SqlConnector } from './connector.js';

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
 * Builds `event -> row` for the declared physical columns as generated code: one branch per
 * event kind that builds the row as a literal, reading each declared field by a direct property
 * access (a list of closures and a `map` over field names cost more than the rest of a simple
 * query's work). With `reads`, a field nothing reads is null and an event of a kind the pushed
 * filter on `event_type` excludes gives undefined (no row).
 */
function rowConverter(
  table: CatalogTable,
  reads: SourceReads | undefined,
): (event: NexmarkEvent) => Row | undefined {
  const columns = table.columns.filter((c) => c.computed === undefined);
  const typeIndex = columns.findIndex((c) => c.name === 'event_type');
  const keptTypes = reads?.filter.get(typeIndex);
  const branches = KINDS.map((kind) => {
    const body =
      keptTypes !== undefined && !keptTypes.has(EVENT_TYPE[kind])
        ? 'return undefined;'
        : `const x = e[${JSON.stringify(kind)}]; return [${rowValues(table, columns, kind, reads).join(', ')}];`;
    return `case ${JSON.stringify(kind)}: { ${body} }`;
  });
  // Built once per table when the job starts, never per event.
  return new Function(
    'e',
    `"use strict"; switch (e.type) { ${branches.join(' ')} } throw new Error('unknown Nexmark event type ' + e.type);`,
  ) as (event: NexmarkEvent) => Row | undefined;
}

/** The code of each value of a `kind` event's row (`x` is the event's record). */
function rowValues(
  table: CatalogTable,
  columns: CatalogTable['columns'],
  kind: (typeof KINDS)[number],
  reads: SourceReads | undefined,
): string[] {
  const values = columns.map((column, i) => {
    if (column.name === 'event_type') return String(EVENT_TYPE[kind]);
    const read = reads === undefined ? 'whole' : reads.columns[i];
    if (column.name !== kind || column.type.kind !== 'ROW' || read === undefined) return 'null';
    // Names are quoted as JSON strings: a field name is any SQL identifier.
    const fields = column.type.fields.map((f, j) =>
      read === 'whole' || read.has(j) ? `x[${JSON.stringify(f.name)}] ?? null` : 'null',
    );
    return `[${fields.join(', ')}]`;
  });
  // A null slot for each computed column (filled in place by the source planner).
  for (let i = columns.length; i < table.columns.length; i++) values.push('null');
  return values;
}

export const nexmarkConnector = (name: string): SqlConnector => ({
  name,
  options: OPTIONS,
  slotsForComputed: true,
  pushdown: { filterColumns: ['event_type'] },
  source(
    table: CatalogTable,
    env: StreamEnvironment,
    computed?: (row: Row) => Row,
    reads?: () => SourceReads,
  ): DataStream<Row> {
    checkColumns(table);
    // Compiled at the first event: what the query reads is known once the job is planned.
    let convert: ((event: NexmarkEvent) => Row | undefined) | undefined;
    const build = (): ((event: NexmarkEvent) => Row | undefined) => {
      const toRow = rowConverter(table, reads?.());
      return computed === undefined
        ? toRow
        : (event) => {
            const row = toRow(event);
            return row === undefined ? undefined : computed(row);
          };
    };
    const toRows = (event: NexmarkEvent, out: Collector<Row>): void => {
      convert ??= build();
      const row = convert(event);
      if (row !== undefined) out.collect(row);
    };
    return env
      .fromSource(new NexmarkSource({ config: generatorConfig(table), name: table.name }))
      .flatMap(toRows)
      .name(
        computed === undefined ? `${table.name}: rows` : `${table.name}: rows, computed columns`,
      );
  },
});
