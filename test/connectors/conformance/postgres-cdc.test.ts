/**
 * The source conformance checks (weir/testing) for PostgreSQL CDC, against
 * the test server on 127.0.0.1:54329: an initial snapshot of a few rows, then
 * changes streamed from the replication slot, in the flattened form (no LSNs
 * or timestamps, so records compare exactly).
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  type ChangeRecord,
  type FlatRow,
  postgresCdc,
} from '../../../src/connectors/postgres/index.js';
import type { Source } from '../../../src/index.js';
import { sourceChecks } from '../../../src/testing/index.js';
import { cleanup, dropSlots, freshSchema, PG_URL, sql } from '../../postgres/helpers.js';
import { conformance } from './register.js';

const SCHEMA = 'weir_conf_cdc';
const TABLE = `${SCHEMA}.items`;
const SLOT = 'weir_conf_cdc';
const UNREACHABLE_SLOT = 'weir_conf_cdc_unreachable';
const SLOTS = [SLOT, UNREACHABLE_SLOT];

beforeAll(async () => {
  await freshSchema(SCHEMA);
  await sql(`CREATE TABLE ${TABLE} (id int PRIMARY KEY, text text NOT NULL)`);
});
// Each check's fresh reader makes the slot anew; the server has few to spare.
afterEach(async () => dropSlots(SLOTS));
afterAll(async () => cleanup(SCHEMA, SLOTS));

/** The rows the initial snapshot reads. */
const INITIAL_ROWS = 5;

/**
 * The changes after the snapshot, as committed: single statements, and one
 * transaction longer than a batch so that a position falls inside it.
 */
const CHANGES = [
  `INSERT INTO ${TABLE} VALUES (6, 'r6')`,
  `UPDATE ${TABLE} SET text = 'r2b' WHERE id = 2`,
  `DELETE FROM ${TABLE} WHERE id = 3`,
  `BEGIN;
   INSERT INTO ${TABLE} VALUES (7, 'r7'), (8, 'r8');
   UPDATE ${TABLE} SET text = 'r7b' WHERE id = 7;
   DELETE FROM ${TABLE} WHERE id = 1;
   COMMIT`,
  `INSERT INTO ${TABLE} VALUES (9, 'r9')`,
];

const topic = `weir.${TABLE}`;
const row = (id: number, text: string): ChangeRecord<FlatRow> => ({
  topic,
  key: { id },
  value: { id, text, __deleted: false },
});
// REPLICA IDENTITY DEFAULT: a delete carries the key columns only.
const deleted = (id: number): ChangeRecord<FlatRow> => ({
  topic,
  key: { id },
  value: { id, text: null, __deleted: true },
});

const expected: ChangeRecord<FlatRow>[] = [
  ...Array.from({ length: INITIAL_ROWS }, (_, i) => row(i + 1, `r${i + 1}`)),
  row(6, 'r6'),
  row(2, 'r2b'),
  deleted(3),
  row(7, 'r7'),
  row(8, 'r8'),
  row(7, 'r7b'),
  deleted(1),
  row(9, 'r9'),
];

/**
 * CDC of the table where every fresh reader sees the same history: the table
 * is reset before it opens (its open drops and recreates the slot, so the
 * reset is not streamed), and the changes are committed once its slot exists,
 * so they come after the snapshot, from the slot. A restored reader is left
 * as is: it resumes from its position in the slot the last fresh reader made.
 */
function replayedCdc(): Source<ChangeRecord<FlatRow>> {
  const cdc = postgresCdc({ connection: PG_URL, tables: [TABLE], slotName: SLOT, flatten: true });
  return {
    name: cdc.name,
    bounded: cdc.bounded,
    parallelizable: cdc.parallelizable,
    createReader: (context) => {
      const reader = cdc.createReader(context);
      if (context.restoredPosition !== undefined) return reader;
      // Only open() is replaced: snapshot() and canSnapshot() are checked as the connector has them.
      const open = reader.open.bind(reader);
      reader.open = async () => {
        await sql(
          `BEGIN; TRUNCATE ${TABLE}; INSERT INTO ${TABLE} SELECT g, 'r' || g FROM generate_series(1, ${INITIAL_ROWS}) g; COMMIT`,
        );
        await open();
        for (const change of CHANGES) await sql(change);
      };
      return reader;
    },
  };
}

conformance(
  'PostgresCdcSource',
  sourceChecks({
    create: replayedCdc,
    expected,
    // Nothing listens on port 1: the connection is refused at once.
    createFailing: () =>
      postgresCdc({
        connection: 'postgres://weir:weir@127.0.0.1:1/weir',
        // Unreachable for good: give up after a second rather than ride it out.
        reconnect: { maxOutageMs: 1_000 },
        tables: [TABLE],
        slotName: UNREACHABLE_SLOT,
        flatten: true,
      }),
  }),
  120_000,
);
