/**
 * The sink conformance checks (weir/testing) for the PostgreSQL sinks,
 * against the test server on 127.0.0.1:54329.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  PostgresTransactionalSink,
  PostgresUpsertSink,
} from '../../../src/connectors/postgres/index.js';
import type { SinkWriter } from '../../../src/index.js';
import { sinkChecks } from '../../../src/testing/index.js';
import { cleanup, freshSchema, PG_URL, sql } from '../../postgres/helpers.js';
import { conformance } from './register.js';

const SCHEMA = 'weir_sink_conformance';

interface Row {
  readonly id: number;
  readonly text: string;
}

const rows: Row[] = Array.from({ length: 17 }, (_, i) => ({ id: i, text: `r${i}` }));
let tables = 0;
/** Writers left behind as if their process had died; closed at the end. */
const abandoned: SinkWriter<Row>[] = [];

beforeAll(async () => {
  await freshSchema(SCHEMA);
});
afterAll(async () => {
  // A writer whose successor took over may not close cleanly: give it a moment, then go on.
  const pause = new Promise((resolve) => setTimeout(resolve, 5_000));
  await Promise.race([Promise.allSettled(abandoned.map((w) => w.close())), pause]);
  await cleanup(SCHEMA, []);
});

/** A new empty table. */
async function table(): Promise<string> {
  const name = `${SCHEMA}.t${tables++}`;
  await sql(`CREATE TABLE ${name} (id int PRIMARY KEY, text text NOT NULL)`);
  return name;
}

const contents = (name: string) => sql<Row>(`SELECT id, text FROM ${name} ORDER BY id`);

conformance(
  'PostgresUpsertSink',
  sinkChecks({
    create: async () => {
      const name = await table();
      return Object.assign(new PostgresUpsertSink<Row>({ connection: PG_URL, table: name }), {
        table: name,
      });
    },
    records: rows,
    visible: (s) => contents(s.table),
    createFailing: () =>
      new PostgresUpsertSink<Row>({ connection: PG_URL, table: `${SCHEMA}.missing` }),
  }),
  120_000,
);

conformance(
  'PostgresTransactionalSink',
  sinkChecks({
    create: async () => {
      const name = await table();
      return Object.assign(
        new PostgresTransactionalSink<Row>({ connection: PG_URL, table: name }),
        { table: name },
      );
    },
    records: rows,
    twoPhaseCommit: true,
    visible: (s) => contents(s.table),
    abandon: (w) => {
      abandoned.push(w);
    },
    createFailing: () =>
      new PostgresTransactionalSink<Row>({ connection: PG_URL, table: `${SCHEMA}.missing` }),
  }),
  120_000,
);
