/** The REST API of the web UI, in-process, against running and finished jobs. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AggregateFunction,
  DiscardingSink,
  type JobClient,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import type {
  JobCheckpoints,
  JobDetails,
  JobExceptions,
  JobMetrics,
  JobSummary,
} from '../../src/ui/job-view.js';
import { startWebUi, type WebUi } from '../../src/ui/server.js';
import { untilStarted } from './http.js';

interface Click {
  readonly page: string;
  readonly time: number;
}

const count: AggregateFunction<Click, number, number> = {
  createAccumulator: () => 0,
  add: (_c, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

/** A raw request, for headers fetch will not let us set (Host). */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const TOKEN = 'rest-api-test-token';
const AUTHORIZED = { Authorization: `Bearer ${TOKEN}` };

describe('REST API', () => {
  let ui: WebUi;
  let client: JobClient;
  let dir: string;
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${ui.url}${path}`);
    expect(response.status, path).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-rest-'));
    ui = await startWebUi({ port: 0, sampleIntervalMs: 100, token: TOKEN, savepointDirs: [dir] });
    const env = new StreamEnvironment({
      parallelism: 2,
      checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 100 },
    });
    const start = Date.now();
    env
      .fromGenerator<Click>({
        ratePerSecond: 10_000,
        generate: (i) => ({ page: `/p${i % 4}`, time: start + Math.floor(i / 10) }),
      })
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Click>(50).withTimestampAssigner((c) => c.time),
      )
      .keyBy((c) => c.page, 'page')
      .window(Windows.tumbling(200))
      .aggregate(count)
      .uid('counts')
      .sinkTo(new DiscardingSink())
      .name('sink');
    client = env.executeAsync('clicks');
    ui.addJob(client);
    // Starting takes a moment (the checkpoint directory's lease is taken first).
    await untilStarted(client);
  });

  afterAll(async () => {
    await client?.cancel();
    await ui?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists jobs and describes the job graph', async () => {
    const { jobs } = await api<{ jobs: JobSummary[] }>('/jobs');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ id: client.jobId, name: 'clicks', status: 'running' });
    const details = await api<JobDetails>(`/jobs/${client.jobId}`);
    expect(details.graph.operators.map((o) => [o.id, o.kind, o.parallelism, o.task])).toEqual([
      ['generator-0', 'source', 2, 'generator-0'],
      ['timestamps-watermarks-1', 'operator', 2, 'generator-0'],
      // The window's local half: records are folded per key and slice before the exchange.
      ['counts/local', 'operator', 2, 'generator-0'],
      ['counts', 'operator', 2, 'counts'],
      ['sink-4', 'sink', 2, 'counts'],
    ]);
    expect(details.graph.edges).toEqual([
      {
        from: 'generator-0',
        to: 'timestamps-watermarks-1',
        partitioning: 'forward',
        chained: true,
      },
      {
        from: 'timestamps-watermarks-1',
        to: 'counts/local',
        partitioning: 'forward',
        chained: true,
      },
      {
        from: 'counts/local',
        to: 'counts',
        partitioning: 'keyed',
        key: 'page',
        chained: false,
      },
      { from: 'counts', to: 'sink-4', partitioning: 'forward', chained: true },
    ]);
    expect(details.graph.tasks.map((t) => t.operators)).toEqual([
      ['generator-0', 'timestamps-watermarks-1', 'counts/local'],
      ['counts', 'sink-4'],
    ]);
  });

  it('reports per-operator metrics with rates, watermarks and latency', async () => {
    await expect
      .poll(
        async () => (await api<JobMetrics>(`/jobs/${client.jobId}/metrics`)).recordsReadPerSecond,
      )
      .toBeGreaterThan(1000);
    const m = await api<JobMetrics>(`/jobs/${client.jobId}/metrics`);
    expect(m.status).toBe('running');
    expect(m.recordsRead).toBeGreaterThan(0);
    expect(m.watermark).toBeGreaterThan(Date.now() - 60_000);
    expect(m.watermarkLagMs).toBeGreaterThan(0);
    const byId = new Map(m.operators.map((o) => [o.id, o]));
    const source = byId.get('generator-0')!;
    expect(source.recordsIn).toBeNull();
    expect(source.recordsOutPerSecond).toBeGreaterThan(1000);
    expect(source.subtasks).toHaveLength(2);
    const window = byId.get('counts')!;
    expect(window.recordsIn).toBeGreaterThan(0);
    expect(window.inputWatermark).not.toBeNull();
    expect(window.lateRecords).toBe(0);
    expect(window.stateEntries).toBeGreaterThanOrEqual(0);
    expect(window.busyRatio).toBeGreaterThanOrEqual(0);
    expect(window.backpressure).toBe('ok');
    expect(byId.get('sink-4')!.lateRecords).toBeNull();
    await expect
      .poll(async () => (await api<JobMetrics>(`/jobs/${client.jobId}/metrics`)).latency.samples)
      .toBeGreaterThan(0);
    const later = await api<JobMetrics>(`/jobs/${client.jobId}/metrics`);
    expect(later.latency.p50Ms).toBeGreaterThan(0);
    expect(later.latency.p99Ms).toBeGreaterThanOrEqual(later.latency.p50Ms!);
  });

  it('shows checkpoints and takes savepoints on request', async () => {
    await expect
      .poll(
        async () =>
          (await api<JobCheckpoints>(`/jobs/${client.jobId}/checkpoints`)).counts.completed,
      )
      .toBeGreaterThan(1);
    const { history, latest } = await api<JobCheckpoints>(`/jobs/${client.jobId}/checkpoints`);
    expect(latest).toMatchObject({
      status: 'completed',
      kind: 'checkpoint',
      tasks: 4,
      acknowledged: 4,
    });
    expect(latest!.sizeBytes).toBeGreaterThan(0);
    expect(history[0]!.id).toBeGreaterThanOrEqual(latest!.id);

    const target = join(dir, 'savepoints');
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${ui.url}/jobs/${client.jobId}/savepoints`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...AUTHORIZED, ...headers },
        body,
      });
    const ok = await post(JSON.stringify({ directory: target }));
    expect(ok.status).toBe(200);
    const { path } = (await ok.json()) as { path: string };
    expect(path.startsWith(target)).toBe(true);
    expect(existsSync(path)).toBe(true);
    await expect
      .poll(async () =>
        (await api<JobCheckpoints>(`/jobs/${client.jobId}/checkpoints`)).history.some(
          (c) => c.kind === 'savepoint' && c.status === 'completed',
        ),
      )
      .toBe(true);

    expect((await post('{}')).status).toBe(400);
    expect((await post('not json')).status).toBe(400);
    expect(
      (await post(JSON.stringify({ directory: target }), { 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    expect(
      (await post(JSON.stringify({ directory: target }), { Origin: 'http://evil.example' })).status,
    ).toBe(403);
    expect((await fetch(`${ui.url}/jobs/${client.jobId}/savepoints`)).status).toBe(405);
  });

  it('serves Prometheus metrics, the UI assets, and clear errors', async () => {
    const metrics = await fetch(`${ui.url}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('version=0.0.4');
    expect(await metrics.text()).toContain(
      `weir_operator_records_in_total{job_name="clicks",job_id="${client.jobId}",operator="counts",subtask="0"}`,
    );
    const page = await fetch(`${ui.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<script type="module" src="/static/app.js">');
    for (const asset of ['app.js', 'graph.js', 'format.js', 'style.css']) {
      expect((await fetch(`${ui.url}/static/${asset}`)).status, asset).toBe(200);
    }
    expect((await fetch(`${ui.url}/static/..%2Fserver.ts`)).status).toBe(404);
    expect((await fetch(`${ui.url}/static/constructor`)).status).toBe(404);
    const missing = await fetch(`${ui.url}/jobs/nope/metrics`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "no job with id 'nope'" });
    // A page elsewhere pointing a DNS name at 127.0.0.1 does not get in.
    const rebound = await rawRequest(`${ui.url}/jobs`, { headers: { Host: 'evil.example:80' } });
    expect(rebound.status).toBe(403);
  });

  it('keeps finished and failed jobs, with their exceptions', async () => {
    const env = new StreamEnvironment();
    env
      .fromGenerator({ count: 100, generate: (i) => i })
      .map((x) => {
        if (x === 42) throw new Error('no 42 here');
        return x;
      })
      .name('picky')
      .sinkTo(new DiscardingSink());
    const failing = env.executeAsync('failing');
    ui.addJob(failing);
    await failing.result.catch(() => {});
    const { jobs } = await api<{ jobs: JobSummary[] }>('/jobs');
    expect(jobs.find((j) => j.id === failing.jobId)).toMatchObject({ status: 'failed' });
    const { exceptions } = await api<JobExceptions>(`/jobs/${failing.jobId}/exceptions`);
    expect(exceptions[0]).toMatchObject({
      fatal: true,
      name: 'WeirError',
      code: 'USER_FUNCTION_FAILED',
      operator: 'picky-1',
      record: '42',
    });
    const m = await api<JobMetrics>(`/jobs/${failing.jobId}/metrics`);
    expect(m.status).toBe('failed');
    expect(m.recordsReadPerSecond).toBe(0);
    const post = await fetch(`${ui.url}/jobs/${failing.jobId}/savepoints`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...AUTHORIZED },
      body: JSON.stringify({ directory: join(dir, 'never') }),
    });
    expect(post.status).toBe(409);
  });
});
