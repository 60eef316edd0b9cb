/**
 * The CDC source counts the bytes of the pgoutput messages it receives as
 * `weir_source_bytes_read_total`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink } from '../../src/connectors/collection/sink/collect-sink.js';
import { type ChangeRecord, postgresCdc } from '../../src/connectors/postgres/index.js';
import { StreamEnvironment } from '../../src/index.js';
import { BYTES_METRICS } from '../../src/metrics/connector-metrics.js';
import { cleanup, dropSlots, freshSchema, PG_URL, running, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_bytes';
const SLOTS = ['weir_bytes_main'];

beforeAll(async () => {
  await freshSchema(SCHEMA);
  await sql(`CREATE TABLE ${SCHEMA}.notes (id int PRIMARY KEY, body text NOT NULL)`);
});
afterEach(async () => dropSlots(SLOTS));
afterAll(async () => cleanup(SCHEMA, SLOTS));

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

describe('PostgreSQL CDC bytes read', () => {
  it('counts the pgoutput messages of a transaction: Relation, Begin, every Insert, Commit', async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => ({ id: i, body: 'ä€'.repeat(i % 40) }));
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord>();
    env
      .fromSource(
        postgresCdc({
          connection: PG_URL,
          name: 'bytes',
          tables: [`${SCHEMA}.notes`],
          slotName: SLOTS[0]!,
          snapshot: 'never',
        }),
      )
      .uid('cdc')
      .sinkTo(sink);
    const bytes = await running(env, 'cdc bytes', async (job) => {
      // Streaming has started once the slot exists and is active.
      await until(
        async () =>
          (
            await sql('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [
              SLOTS[0],
            ])
          ).length === 1,
        15_000,
        'the slot to be active',
      );
      await sql(
        `INSERT INTO ${SCHEMA}.notes SELECT * FROM json_populate_recordset(NULL::${SCHEMA}.notes, $1)`,
        [JSON.stringify(rows)],
      );
      await until(
        () => sink.values.length >= rows.length || job.failed() !== undefined,
        20_000,
        'the changes',
      );
      expect(job.failed()).toBeUndefined();
      return job.metrics.total(BYTES_METRICS.read, { operator: 'cdc' });
    });
    expect(sink.values).toHaveLength(rows.length);
    // pgoutput (protocol 1): Insert = 'I', relation id (4), 'N', column count (2), then per
    // column 't', length (4) and the value as text.
    const inserts = rows.reduce(
      (sum, r) => sum + 1 + 4 + 1 + 2 + (1 + 4 + utf8(String(r.id))) + (1 + 4 + utf8(r.body)),
      0,
    );
    // Relation: 'R', id (4), schema and table names (NUL-terminated), replica identity (1),
    // column count (2), per column flags (1), name (NUL-terminated), type (4), modifier (4).
    const relation =
      1 + 4 + utf8(SCHEMA) + 1 + utf8('notes') + 1 + 1 + 2 + (1 + 3 + 8) + (1 + 5 + 8);
    // Begin (21) and Commit (26) of the one transaction.
    const lower = inserts + relation + 21 + 26;
    expect(bytes).toBeGreaterThanOrEqual(lower);
    // Beyond that only logical messages (heartbeats of other jobs on the server) may arrive.
    expect(bytes).toBeLessThan(lower + 16 * 1024);
  });
});
