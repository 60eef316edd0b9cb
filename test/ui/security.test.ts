/**
 * The REST API against untrusted callers: the savepoint endpoint needs the
 * token and a target inside an allowed directory, state files are private,
 * binding beyond loopback needs TLS and a token, no request path can make
 * the server fail, and the token is never shown.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscardingSink, type JobClient, StreamEnvironment } from '../../src/index.js';
import {
  authorizes,
  generateToken,
  readTokenFile,
  writeTokenFile,
} from '../../src/ui/rest-token.js';
import { startWebUi, type WebUi } from '../../src/ui/server.js';
import { type Answer, send, untilStarted } from './http.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('REST API security', () => {
  const token = generateToken();
  let dir: string;
  let allowed: string;
  let outside: string;
  let ui: WebUi;
  let client: JobClient;

  const savepoint = (directory: unknown, headers: Record<string, string> = {}) =>
    send(ui.url, {
      method: 'POST',
      path: `/jobs/${client.jobId}/savepoints`,
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify({ directory }),
    });

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'weir-security-')));
    allowed = join(dir, 'allowed');
    outside = join(dir, 'outside');
    mkdirSync(allowed);
    mkdirSync(outside);
    symlinkSync(outside, join(allowed, 'link'));
    ui = await startWebUi({ port: 0, token, savepointDirs: [allowed] });
    const env = new StreamEnvironment({
      parallelism: 1,
      checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 100 },
    });
    env
      .fromGenerator<number>({ ratePerSecond: 1_000, generate: (i) => i })
      .uid('numbers')
      .sinkTo(new DiscardingSink());
    client = env.executeAsync('numbers');
    ui.addJob(client);
    // Starting takes a moment (the checkpoint directory's lease is taken first).
    await untilStarted(client);
  });

  afterAll(async () => {
    await client?.cancel();
    await ui?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes savepoints only with the token', async () => {
    const target = join(allowed, 'sp');
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${token}`, `Bearer ${token}x`]) {
      const answer =
        authorization === undefined
          ? await send(ui.url, {
              method: 'POST',
              path: `/jobs/${client.jobId}/savepoints`,
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ directory: target }),
            })
          : await savepoint(target, { Authorization: authorization });
      expect(answer.status, authorization).toBe(401);
    }
    const ok = await savepoint(target);
    expect(ok.status, ok.body).toBe(200);
    const { path } = JSON.parse(ok.body) as { path: string };
    expect(path.startsWith(`${target}/savepoint-`)).toBe(true);
    // Private: the savepoint's directory and every file in it.
    expect(mode(target)).toBe(0o700);
    expect(mode(path)).toBe(0o700);
    for (const file of readdirSync(path)) expect(mode(join(path, file)), file).toBe(0o600);
  });

  it('confines savepoint targets to the allowed directories', async () => {
    for (const target of [
      `${allowed}/../outside`,
      `${allowed}/../../etc`,
      outside,
      join(allowed, 'link'),
      join(allowed, 'link', 'deeper'),
      '/',
    ]) {
      const answer = await savepoint(target);
      expect(answer.status, target).toBe(403);
      expect(answer.body).toContain('savepoints may only be written into');
    }
    expect(readdirSync(outside)).toEqual([]);
    expect((await savepoint('relative/dir')).status).toBe(400);
    expect((await savepoint(`${allowed}\0x`)).status).toBe(400);
    // Percent escapes in the body are names, not dots: the target stays inside.
    const encoded = await savepoint(`${allowed}/%2e%2e/%2e%2e`);
    expect(encoded.status, encoded.body).toBe(200);
    expect((JSON.parse(encoded.body) as { path: string }).path.startsWith(allowed)).toBe(true);
  });

  it('is read-only without a token or allowed directories', async () => {
    const readOnly = await startWebUi({ port: 0, savepointDirs: [allowed] });
    const noDirs = await startWebUi({ port: 0, token });
    try {
      readOnly.addJob(client);
      noDirs.addJob(client);
      const post = (server: WebUi) =>
        send(server.url, {
          method: 'POST',
          path: `/jobs/${client.jobId}/savepoints`,
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify({ directory: allowed }),
        });
      expect((await post(readOnly)).status).toBe(403);
      const off = await post(noDirs);
      expect(off.status).toBe(403);
      expect(off.body).toContain('--savepoint-dir');
      expect((await send(readOnly.url, { path: '/jobs' })).status).toBe(200);
    } finally {
      await Promise.all([readOnly.close(), noDirs.close()]);
    }
  });

  it('writes checkpoints readable by the job user only', async () => {
    const checkpoints = join(dir, 'checkpoints');
    await expect
      .poll(() => (existsSync(checkpoints) ? readdirSync(checkpoints) : []), { timeout: 60_000 })
      .toContainEqual(expect.stringMatching(/^chk-\d+$/));
    expect(mode(checkpoints)).toBe(0o700);
    const chk = readdirSync(checkpoints).find((name) => /^chk-\d+$/.test(name))!;
    // Pruning may remove it meanwhile; what is there is private.
    try {
      expect(mode(join(checkpoints, chk))).toBe(0o700);
      for (const file of readdirSync(join(checkpoints, chk))) {
        expect(mode(join(checkpoints, chk, file))).toBe(0o600);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  });

  it('keeps the token in a private file and compares it whole', async () => {
    const file = join(dir, 'tokens', 'rest-token');
    mkdirSync(join(dir, 'tokens'));
    writeFileSync(file, 'old', { mode: 0o644 });
    chmodSync(file, 0o644);
    await writeTokenFile(file, token);
    expect(mode(file)).toBe(0o600);
    expect(await readTokenFile(file)).toBe(token);
    const fresh = join(dir, 'new-dir', 'rest-token');
    await writeTokenFile(fresh, token);
    expect(mode(join(dir, 'new-dir'))).toBe(0o700);
    expect(mode(fresh)).toBe(0o600);
    expect(authorizes(`Bearer ${token}`, token)).toBe(true);
    expect(authorizes(`bearer ${token}`, token)).toBe(true);
    expect(authorizes(`Bearer ${token.slice(1)}`, token)).toBe(false);
    expect(authorizes(undefined, token)).toBe(false);
  });

  it('answers malformed paths with 400 and never fails on a path', async () => {
    for (const path of ['/jobs/%E0%A4%A', '/jobs/%', `/jobs/${client.jobId}/%zz`, '//evil/jobs']) {
      expect((await send(ui.url, { path })).status, path).toBe(400);
    }
    // Traversal in the URL reaches no file outside the assets.
    for (const path of ['/static/..%2fserver.ts', '/static/%2e%2e%2f%2e%2e%2fpackage.json']) {
      expect((await send(ui.url, { path })).status, path).toBe(404);
    }
    const valid = [
      '/',
      '/jobs',
      `/jobs/${client.jobId}`,
      `/jobs/${client.jobId}/metrics`,
      '/static/app.js',
      '/metrics',
    ];
    const mutated = fc
      .tuple(fc.constantFrom(...valid), fc.nat(), fc.string({ maxLength: 6 }))
      .map(([path, at, insert]) => {
        const i = at % (path.length + 1);
        return path.slice(0, i) + insert + path.slice(i);
      });
    const random = fc.string({ maxLength: 40 }).map((s) => `/${s}`);
    const percent = fc
      .array(fc.constantFrom('%', '%E0', '%A4', '%A', '%2e', '%2f', '%00', '%ff', 'a', '/', '?'))
      .map((parts) => `/jobs/${parts.join('')}`);
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated, random, percent), async (path) => {
        let answer: Answer;
        try {
          answer = await send(ui.url, { path });
        } catch (error) {
          // Paths node's client refuses to send (control characters) never reach the server.
          if ((error as NodeJS.ErrnoException).code === 'ERR_UNESCAPED_CHARACTERS') return;
          throw error;
        }
        expect(answer.status, path).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    // Still serving.
    expect((await send(ui.url, { path: '/jobs' })).status).toBe(200);
  });

  it('never shows the token', async () => {
    const paths = [
      '/',
      '/static/app.js',
      '/static/index.html',
      '/jobs',
      `/jobs/${client.jobId}`,
      `/jobs/${client.jobId}/metrics`,
      `/jobs/${client.jobId}/checkpoints`,
      `/jobs/${client.jobId}/exceptions`,
      '/metrics',
    ];
    for (const path of paths) {
      const answer = await send(ui.url, { path });
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).not.toContain(token);
    }
    const refused = await savepoint(allowed, { Authorization: 'Bearer wrong' });
    expect(refused.body).not.toContain(token);
  });

  it('binds beyond loopback only with TLS and a token', async () => {
    await expect(startWebUi({ port: 0, host: '0.0.0.0', token })).rejects.toThrow(
      /beyond loopback\) only with TLS and a token/,
    );
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          keyFile,
          '-out',
          certFile,
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost,IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
    } catch {
      return; // No openssl here: the refusals above are what matters most.
    }
    const tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
    await expect(startWebUi({ port: 0, host: '0.0.0.0', tls })).rejects.toThrow(/TLS and a token/);
    const secure = await startWebUi({
      port: 0,
      host: '0.0.0.0',
      tls,
      token,
      savepointDirs: [allowed],
    });
    try {
      expect(secure.url.startsWith('https://')).toBe(true);
      secure.addJob(client);
      const base = `https://127.0.0.1:${secure.port}`;
      expect((await send(base, { path: '/jobs', ca: tls.cert })).status).toBe(200);
      const post = (authorization: string) =>
        send(base, {
          method: 'POST',
          path: `/jobs/${client.jobId}/savepoints`,
          headers: { 'Content-Type': 'application/json', Authorization: authorization },
          body: JSON.stringify({ directory: join(allowed, 'tls') }),
          ca: tls.cert,
        });
      expect((await post('Bearer wrong')).status).toBe(401);
      const ok = await post(`Bearer ${token}`);
      expect(ok.status, ok.body).toBe(200);
    } finally {
      await secure.close();
    }
  });
});
