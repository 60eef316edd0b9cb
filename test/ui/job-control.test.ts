/**
 * Stopping and cancelling a job through the REST API: both need the token,
 * same-origin JSON and (stop) a savepoint directory inside an allowed one;
 * a refused request leaves the job running.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscardingSink, type JobClient, StreamEnvironment } from '../../src/index.js';
import { generateToken } from '../../src/ui/rest-token.js';
import { startWebUi, type WebUi } from '../../src/ui/server.js';
import { send } from './http.js';

describe('REST job control', () => {
  const token = generateToken();
  let dir: string;
  let allowed: string;
  let outside: string;
  let ui: WebUi;
  const clients: JobClient[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'weir-job-control-')));
    allowed = join(dir, 'allowed');
    outside = join(dir, 'outside');
    mkdirSync(allowed);
    mkdirSync(outside);
    ui = await startWebUi({ port: 0, token, savepointDirs: [allowed] });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.cancel().catch(() => undefined)));
    await ui?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A running job shown by `ui`, with checkpoints so that it can take savepoints. */
  async function runningJob(name: string): Promise<JobClient> {
    const env = new StreamEnvironment({
      parallelism: 1,
      checkpointing: { directory: join(dir, `${name}-checkpoints`), intervalMs: 200 },
    });
    env
      .fromGenerator<number>({ ratePerSecond: 1_000, generate: (i) => i })
      .uid('numbers')
      .sinkTo(new DiscardingSink());
    const client = env.executeAsync(name);
    clients.push(client);
    ui.addJob(client);
    await expect.poll(() => client.monitor.status, { timeout: 60_000 }).toBe('running');
    return client;
  }

  const post = (
    client: JobClient,
    action: string,
    body: unknown,
    headers: Record<string, string> = {},
    server: WebUi = ui,
  ) =>
    send(server.url, {
      method: 'POST',
      path: `/jobs/${client.jobId}/${action}`,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    });

  it('cancels a job only with the token', async () => {
    const client = await runningJob('cancel-me');
    for (const authorization of ['Bearer wrong', `Basic ${token}`, '']) {
      const refused = await post(client, 'cancel', {}, { Authorization: authorization });
      expect(refused.status, authorization).toBe(401);
      expect(refused.body).not.toContain(token);
    }
    const crossOrigin = await post(client, 'cancel', {}, { Origin: 'http://evil.example' });
    expect(crossOrigin.status).toBe(403);
    const form = await post(client, 'cancel', {}, { 'Content-Type': 'text/plain' });
    expect(form.status).toBe(415);
    const get = await send(ui.url, { path: `/jobs/${client.jobId}/cancel` });
    expect(get.status).toBe(405);
    expect(client.monitor.status).toBe('running');

    const cancelled = await post(client, 'cancel', {});
    expect(cancelled.status, cancelled.body).toBe(200);
    expect(JSON.parse(cancelled.body)).toEqual({ status: 'cancelled' });
    expect((await client.result).status).toBe('cancelled');
    const again = await post(client, 'cancel', {});
    expect(again.status).toBe(409);
    expect(again.body).toContain('job is cancelled');
  });

  it('stops a job with a savepoint only into an allowed directory', async () => {
    const client = await runningJob('stop-me');
    const unauthorized = await post(
      client,
      'stop',
      { directory: allowed },
      { Authorization: 'Bearer wrong' },
    );
    expect(unauthorized.status).toBe(401);
    for (const target of [`${allowed}/../outside`, outside, '/']) {
      const escaped = await post(client, 'stop', { directory: target });
      expect(escaped.status, target).toBe(403);
      expect(escaped.body).toContain('savepoints may only be written into');
    }
    expect((await post(client, 'stop', { directory: 'relative' })).status).toBe(400);
    expect((await post(client, 'stop', {})).status).toBe(400);
    expect(readdirSync(outside)).toEqual([]);
    expect(client.monitor.status).toBe('running');

    const stopped = await post(client, 'stop', { directory: join(allowed, 'sp') });
    expect(stopped.status, stopped.body).toBe(200);
    const { path } = JSON.parse(stopped.body) as { path: string };
    expect(path.startsWith(join(allowed, 'sp', 'savepoint-'))).toBe(true);
    expect(existsSync(join(path, '_metadata.json'))).toBe(true);
    expect((await client.result).status).toBe('cancelled');
    expect((await post(client, 'stop', { directory: allowed })).status).toBe(409);
  });

  it('refuses to stop or cancel on a read-only server', async () => {
    const client = await runningJob('read-only');
    const readOnly = await startWebUi({ port: 0, savepointDirs: [allowed] });
    try {
      readOnly.addJob(client);
      const stop = await post(client, 'stop', { directory: allowed }, {}, readOnly);
      expect(stop.status).toBe(403);
      expect(stop.body).toContain('read-only');
      expect((await post(client, 'cancel', {}, {}, readOnly)).status).toBe(403);
      expect(client.monitor.status).toBe('running');
    } finally {
      await readOnly.close();
    }
  });
});
