/**
 * PostgreSQL over TLS, against a private server that accepts TCP sessions
 * only over TLS with a client certificate (scripts/postgres.sh with
 * WEIR_PG_TLS_DIR) and certificates made for the test: CDC into the upsert
 * sink, the transactional sink and a lookup table, all with
 * `sslmode=verify-full`; an unknown CA and a missing file fail clearly.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PostgresLookupTable,
  PostgresTransactionalSink,
  PostgresUpsertSink,
  postgresCdc,
} from '../../src/connectors/postgres/index.js';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import {
  encryptedClientKey,
  makeTestCertificates,
  type TestCertificates,
} from '../helpers/tls-certs.js';
import { running, until } from './helpers.js';
import { PrivatePostgres } from './private-server.js';

const PORT = 19140;

let certs: TestCertificates;
let server: PrivatePostgres | undefined;

/** The private server's URL with TLS parameters. */
function url(params: Record<string, string>): string {
  const u = new URL(`postgres://weir:weir@127.0.0.1:${PORT}/weir`);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

function verifyFull(): string {
  return url({
    sslmode: 'verify-full',
    sslrootcert: certs.caFile,
    sslcert: certs.clientCertFile,
    sslkey: certs.clientKeyFile,
  });
}

/** Runs SQL on the private server (over TLS, with the client certificate). */
async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string): Promise<R[]> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: PORT,
    user: 'weir',
    database: 'weir',
    ssl: {
      ca: readFileSync(certs.caFile, 'utf8'),
      cert: readFileSync(certs.clientCertFile, 'utf8'),
      key: readFileSync(certs.clientKeyFile, 'utf8'),
    },
  });
  c.on('error', () => {});
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  certs = await makeTestCertificates();
  server = new PrivatePostgres(PORT, undefined, { WEIR_PG_TLS_DIR: certs.dir });
  await server.reset();
  await server.up();
  await sql('CREATE TABLE src (id int PRIMARY KEY, name text NOT NULL)');
  await sql('CREATE TABLE mirror (id int PRIMARY KEY, name text NOT NULL)');
  await sql('CREATE TABLE totals (id int PRIMARY KEY, v int NOT NULL)');
}, 180_000);

afterAll(async () => {
  await server?.reset().catch(() => {});
  if (certs !== undefined) await rm(certs.dir, { recursive: true, force: true });
}, 120_000);

describe('PostgreSQL over TLS (verify-full, client certificate)', () => {
  it('streams changes (CDC) into the upsert sink', async () => {
    await sql("INSERT INTO src VALUES (1, 'one'), (2, 'two')");
    const env = new StreamEnvironment();
    env
      .fromSource(postgresCdc({ connection: verifyFull(), tables: ['src'], slotName: 'tls_slot' }))
      .map((r) =>
        r.value === null || r.value.op === 't'
          ? r
          : { ...r, value: { ...r.value, source: { ...r.value.source, table: 'mirror' } } },
      )
      .sinkTo(new PostgresUpsertSink({ connection: verifyFull(), table: 'mirror' }));
    const rows = async () =>
      (await sql<{ r: string }>('SELECT id || name AS r FROM mirror ORDER BY id')).map((x) => x.r);
    await running(env, 'tls cdc', async (job) => {
      await until(
        async () => (await rows()).length === 2 || job.failed() !== undefined,
        30_000,
        'snapshot',
      );
      await sql("INSERT INTO src VALUES (3, 'three')");
      await sql('DELETE FROM src WHERE id = 1');
      await until(
        async () => (await rows()).join() === '2two,3three' || job.failed() !== undefined,
        30_000,
        'changes',
      );
      expect(job.failed()).toBeUndefined();
      // Every session of the job is encrypted: the server refuses others, and says so.
      const sessions = await sql<{ ssl: boolean }>(
        "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name LIKE 'weir%'",
      );
      expect(sessions.length).toBeGreaterThan(0);
      expect(sessions.every((s) => s.ssl)).toBe(true);
    });
    await sql("SELECT pg_drop_replication_slot('tls_slot')").catch(() => {});
  }, 90_000);

  it('writes through the transactional sink and looks up, with the object form', async () => {
    const connection = {
      host: '127.0.0.1',
      port: PORT,
      user: 'weir',
      database: 'weir',
      sslMode: 'verify-full',
      sslRootCert: certs.caFile,
      sslCert: certs.clientCertFile,
      sslKey: certs.clientKeyFile,
    };
    const dir = await mkdtemp(join(tmpdir(), 'weir-tls-cp-'));
    const env = new StreamEnvironment({ checkpointing: { directory: dir, intervalMs: 200 } });
    env
      .fromArray([1, 2, 3].map((id) => ({ id, v: id * 10 })))
      .sinkTo(new PostgresTransactionalSink({ connection, table: 'totals' }));
    await env.execute('tls transactional');
    await rm(dir, { recursive: true, force: true });
    expect(await sql('SELECT id, v FROM totals ORDER BY id')).toEqual([
      { id: 1, v: 10 },
      { id: 2, v: 20 },
      { id: 3, v: 30 },
    ]);

    const looked = new CollectSink<string>();
    const env2 = new StreamEnvironment();
    env2
      .fromArray([1, 3])
      .lookupJoin(
        new PostgresLookupTable<number>({ connection, table: 'totals', keyColumn: 'id' }),
        {
          key: (id) => id,
          select: (id, row) => `${id}:${String(row.v)}`,
        },
      )
      .sinkTo(looked);
    await env2.execute('tls lookup');
    expect(looked.values.sort()).toEqual(['1:10', '3:30']);
  }, 90_000);

  it('fails clearly when the server certificate is from an unknown CA', async () => {
    const env = new StreamEnvironment();
    env.fromArray([{ id: 9, name: 'nine' }]).sinkTo(
      new PostgresUpsertSink({
        connection: url({
          sslmode: 'verify-full',
          sslrootcert: certs.otherCaFile,
          sslcert: certs.clientCertFile,
          sslkey: certs.clientKeyFile,
        }),
        table: 'mirror',
      }),
    );
    const started = Date.now();
    const error = await env.execute('unknown ca').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    const text = `${(error as Error).message} ${String((error as Error).cause ?? '')}`;
    expect(text).toContain(`PostgreSQL server 127.0.0.1:${PORT}: TLS handshake failed`);
    expect(text).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(text).toContain('check sslrootcert');
    // Not an outage: no waiting out the reconnect budget (60 s).
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it('names a missing certificate file, and checks sslmode when the connector is made', async () => {
    const env = new StreamEnvironment();
    env.fromArray([{ id: 9, name: 'nine' }]).sinkTo(
      new PostgresUpsertSink({
        connection: url({ sslmode: 'verify-full', sslrootcert: `${certs.dir}/missing.pem` }),
        table: 'mirror',
      }),
    );
    await expect(env.execute('missing file')).rejects.toThrow(
      `sslrootcert '${certs.dir}/missing.pem' cannot be read (ENOENT)`,
    );
    const env2 = new StreamEnvironment();
    env2.fromArray([{ id: 9, name: 'nine' }]).sinkTo(
      new PostgresUpsertSink({
        connection: url({
          sslmode: 'verify-full',
          sslrootcert: certs.caFile,
          sslcert: certs.clientCertFile,
          sslkey: await encryptedClientKey(certs, 'right-Key-pw'),
          sslpassword: 'wrong-Key-pw',
        }),
        table: 'mirror',
      }),
    );
    const wrongKey = await env2.execute('wrong key password').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(wrongKey?.message).toContain('the key cannot be decrypted with sslPassword');
    expect(wrongKey?.message).not.toContain('wrong-Key-pw');
    expect(
      () =>
        new PostgresUpsertSink({
          connection: 'postgres://weir:Hidden-pw@127.0.0.1/weir?sslmode=prefer',
          table: 'mirror',
        }),
    ).toThrow(
      /sslmode must be one of 'disable', 'require', 'verify-ca', 'verify-full', got 'prefer'/,
    );
    expect(
      () =>
        new PostgresUpsertSink({
          connection: 'postgres://weir:Hidden-pw@127.0.0.1/weir?sslmode=prefer',
          table: 'mirror',
        }),
    ).not.toThrow(/Hidden-pw/);
    expect(
      () =>
        new PostgresUpsertSink({
          connection: { host: '127.0.0.1', sslMode: 'verify-ca' },
          table: 'mirror',
        }),
    ).toThrow(/'verify-ca' needs sslrootcert/);
  });
});
