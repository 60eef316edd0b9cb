/**
 * No secret leaves the process: a connection password and the REST token
 * appear in no REST answer, no metric, no exception shown by the UI, no
 * logged warning and no error message, while a job runs and after it fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresUpsertSink } from '../../src/connectors/postgres/index.js';
import { type JobClient, StreamEnvironment } from '../../src/index.js';
import { generateToken } from '../../src/ui/rest-token.js';
import { startWebUi, type WebUi } from '../../src/ui/server.js';
import { freshSchema, PG_URL, sql } from '../postgres/helpers.js';
import { send } from './http.js';

const SCHEMA = 'weir_secrets_test';
/** The test server trusts loopback connections, so any password is accepted and none may leak. */
const PASSWORD = 'pw-Xy7Qz9-do-not-show';

/** PG_URL with the password replaced by {@link PASSWORD}, at `port`. */
function connectionWithPassword(port?: number): string {
  const url = new URL(PG_URL);
  url.password = PASSWORD;
  if (port !== undefined) url.port = String(port);
  return url.toString();
}

describe('secrets', () => {
  const token = generateToken();
  let ui: WebUi;
  let dir: string;
  const clients: JobClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-secrets-'));
    await freshSchema(SCHEMA);
    await sql(`CREATE TABLE ${SCHEMA}.items (id int PRIMARY KEY, v int NOT NULL)`);
    ui = await startWebUi({ port: 0, token, savepointDirs: [dir] });
  });

  afterAll(async () => {
    process.off('warning', onWarning);
    await Promise.all(clients.map((c) => c.cancel().catch(() => undefined)));
    await ui?.close();
    await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Warnings the connectors emit (reconnect attempts name their cause). */
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.message}\n${warning.stack ?? ''}`);
  process.on('warning', onWarning);

  function startJob(name: string, connection: string, maxOutageMs?: number): JobClient {
    const env = new StreamEnvironment({ parallelism: 1 });
    env
      .fromGenerator<{ id: number; v: number }>({
        ratePerSecond: 500,
        generate: (i) => ({ id: i % 50, v: i }),
      })
      .uid('numbers')
      .sinkTo(
        new PostgresUpsertSink({
          connection,
          table: `${SCHEMA}.items`,
          ...(maxOutageMs === undefined ? {} : { reconnect: { maxOutageMs } }),
        }),
      )
      .uid('items');
    const client = env.executeAsync(name);
    clients.push(client);
    ui.addJob(client);
    return client;
  }

  /** Every readable resource of the API for `client`, as text. */
  async function everythingShown(client: JobClient): Promise<string[]> {
    const paths = [
      '/jobs',
      `/jobs/${client.jobId}`,
      `/jobs/${client.jobId}/metrics`,
      `/jobs/${client.jobId}/checkpoints`,
      `/jobs/${client.jobId}/exceptions`,
      '/metrics',
    ];
    const answers = await Promise.all(paths.map((path) => send(ui.url, { path })));
    for (const [i, answer] of answers.entries()) expect(answer.status, paths[i]).toBe(200);
    return answers.map((a) => a.body);
  }

  it('shows no password or token while a job writes to PostgreSQL', async () => {
    const client = startJob('writes', connectionWithPassword());
    await expect
      .poll(async () => Number((await sql(`SELECT count(*) AS n FROM ${SCHEMA}.items`))[0]!.n), {
        timeout: 60_000,
      })
      .toBeGreaterThan(0);
    for (const body of await everythingShown(client)) {
      expect(body).not.toContain(PASSWORD);
      expect(body).not.toContain(token);
    }
  });

  it('shows no password in the failure of a job that cannot connect', async () => {
    // Nothing listens on port 1: the sink retries for a moment (logging each retry), then fails.
    const client = startJob('unreachable', connectionWithPassword(1), 2_000);
    const failure = await client.result.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    const error = failure as Error;
    const text = [error.message, error.stack ?? '', String(error.cause ?? '')].join('\n');
    expect(text).not.toContain(PASSWORD);
    const shown = await everythingShown(client);
    expect(shown.join('\n')).toContain('ECONNREFUSED');
    for (const body of shown) expect(body).not.toContain(PASSWORD);
    expect(warnings.join('\n')).toContain('ECONNREFUSED');
    expect(warnings.join('\n')).not.toContain(PASSWORD);
  });

  it('shows no password when the connection setting is malformed', () => {
    for (const connection of [
      `postgres://weir:${PASSWORD}@[not-a-host/weir`,
      `mysql://weir:${PASSWORD}@127.0.0.1/weir`,
    ]) {
      let message = '';
      try {
        new PostgresUpsertSink({ connection, table: `${SCHEMA}.items` });
      } catch (error) {
        message = error instanceof Error ? error.message : String(error);
      }
      expect(message, connection).not.toContain(PASSWORD);
    }
  });
});
