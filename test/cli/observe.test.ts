/**
 * The CLI's observability: JSON logs, the Prometheus endpoint, the web UI of
 * `weir run`, and the live status line's text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusLineText } from '../../src/cli/job-status.js';
import { startBundledWeir } from './run-cli.js';

interface LogRecord {
  readonly time: string;
  readonly level: string;
  readonly event: string;
  readonly msg: string;
  readonly job: string;
  readonly [field: string]: unknown;
}

function records(stderr: string): LogRecord[] {
  return stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LogRecord);
}

describe.concurrent('weir run observability', { timeout: 120_000 }, () => {
  it('writes structured JSON logs with --log-format json', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'));
    try {
      const result = await startBundledWeir([
        'run',
        'test/cli/fixtures/steady.ts',
        '--log-format',
        'json',
        '--status-interval',
        '0.5',
        '--checkpoint-dir',
        dir,
        '--checkpoint-interval',
        '0.3',
        '--',
        '2',
      ]).done;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      // Every line of stderr is one JSON object.
      const logs = records(result.stderr);
      const events = logs.map((r) => r.event);
      expect(events[0]).toBe('job_started');
      expect(events.at(-1)).toBe('job_finished');
      expect(events).toContain('status');
      expect(events).toContain('checkpoint_completed');
      for (const r of logs) {
        expect(r).toMatchObject({ level: 'info', job: 'steady' });
        expect(typeof r.jobId).toBe('string');
        expect(Number.isNaN(Date.parse(r.time))).toBe(false);
      }
      // A status record while the job ran (at the very end, event time has jumped to +infinity).
      const status = logs.find((r) => r.event === 'status' && r.watermark !== null)!;
      // The source is paced at 2,000 records/s; a busy machine may deliver fewer.
      expect(status.eventsPerSecond).toBeGreaterThan(0);
      expect(status.watermarkLagMs).toBeGreaterThan(0);
      expect(status.watermark).toMatch(/^\d{4}-\d\d-\d\dT/);
      const checkpoint = logs.find((r) => r.event === 'checkpoint_completed')!.checkpoint;
      expect(checkpoint).toMatchObject({ kind: 'checkpoint' });
      expect(logs.at(-1)).toMatchObject({ recordsRead: 4000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports failures as JSON too', async ({ expect }) => {
    const [failed, missing] = await Promise.all([
      startBundledWeir(['run', 'test/cli/fixtures/throwing-map.ts', '--log-format', 'json']).done,
      startBundledWeir(['run', 'missing.ts', '--log-format', 'json']).done,
    ]);
    expect(failed.code).toBe(1);
    const last = records(failed.stderr).at(-1)!;
    expect(last).toMatchObject({
      level: 'error',
      event: 'job_failed',
      error: { code: 'USER_FUNCTION_FAILED', operatorId: 'double', record: '3' },
    });
    expect(missing.code).toBe(1);
    expect(records(missing.stderr)).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'run_failed',
        msg: expect.stringContaining('missing.ts'),
      }),
    ]);
  });

  it('serves Prometheus metrics with --metrics-port', async ({ expect }) => {
    const cli = startBundledWeir([
      'run',
      'test/cli/fixtures/steady.ts',
      '--metrics-port',
      '0',
      '--',
      '4',
    ]);
    const [, url] = (await cli.waitFor(
      'stderr',
      /Prometheus metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/,
    )) as [string, string];
    // Worker threads (one per core by default) start and report their metrics after a moment.
    await expect
      .poll(
        async () =>
          (await (await fetch(url)).text()).match(/weir_source_records_total\{[^}]*\} (\d+)/)?.[1],
        { timeout: 60_000 },
      )
      .toMatch(/^[1-9]/);
    const text = await (await fetch(url)).text();
    for (const name of [
      'weir_operator_records_in_total',
      'weir_operator_records_out_total',
      'weir_operator_busy_ratio',
      'weir_operator_backpressured_ratio',
      'weir_operator_input_watermark_timestamp_seconds',
      'weir_operator_watermark_lag_seconds',
      'weir_window_late_records_total',
      'weir_state_entries',
      'weir_job_uptime_seconds',
      'weir_job_restarts_total',
      'weir_checkpoints_completed_total',
      'weir_end_to_end_latency_seconds',
    ]) {
      expect(text, name).toContain(`# TYPE ${name} `);
    }
    expect(text).toMatch(/job_name="steady",job_id="[0-9a-f]{16}",operator="counts",subtask="0"/);
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(0);
  });

  // One job serves the UI and holds its port against a second one: a start-up less. It
  // runs until stopped, so that its port stays taken however slowly the second starts.
  it('serves the web UI and its API with --ui-port, and fails clearly when the port is taken', async ({
    expect,
  }) => {
    const cli = startBundledWeir([
      'run',
      'test/cli/fixtures/steady.ts',
      '--ui-port',
      '0',
      '--',
      '600',
    ]);
    const [, url, port] = (await cli.waitFor(
      'stderr',
      /web UI at (http:\/\/127\.0\.0\.1:(\d+)\/)/,
    )) as [string, string, string];
    const second = startBundledWeir(['run', 'test/cli/fixtures/steady.ts', '--ui-port', port]).done;
    const { jobs } = (await (await fetch(`${url}jobs`)).json()) as {
      jobs: { id: string; name: string }[];
    };
    expect(jobs.map((j) => j.name)).toEqual(['steady']);
    const details = (await (await fetch(`${url}jobs/${jobs[0]!.id}`)).json()) as {
      graph: { edges: { partitioning: string }[] };
    };
    // generator -> watermarks -> window's local half -> (keyed) window -> sink
    expect(details.graph.edges.map((e) => e.partitioning)).toEqual([
      'forward',
      'forward',
      'keyed',
      'forward',
    ]);
    expect(await (await fetch(url)).text()).toContain('<title>Weir</title>');
    const refused = await second;
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(0);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`cannot serve the web UI on port ${port}: the port is in use`);
  });
});

describe('status line', () => {
  it('shows throughput, watermark with lag, and the last checkpoint', () => {
    const now = Date.UTC(2025, 0, 1, 12, 0, 10);
    const text = statusLineText(
      'clicks',
      {
        elapsedMs: 12_000,
        recordsRead: 60_000,
        eventsPerSecond: 5012.4,
        watermark: now - 600,
        watermarkLagMs: 600,
        lastCheckpoint: {
          id: 4,
          kind: 'checkpoint',
          status: 'completed',
          triggeredAt: now - 2100,
          completedAt: now - 2000,
          acknowledged: 2,
          tasks: 2,
          alignmentMs: 0,
        },
      },
      now,
    );
    expect(text).toMatch(
      /^● clicks · 12 s · 5,012 events\/s · watermark \d\d:\d\d:09\.4 \(lag 600 ms\) · checkpoint #4 2 s ago · Ctrl-C to stop$/,
    );
    expect(
      statusLineText('clicks', {
        elapsedMs: 500,
        recordsRead: 0,
        eventsPerSecond: 0,
        watermark: Number.NEGATIVE_INFINITY,
        watermarkLagMs: undefined,
        lastCheckpoint: undefined,
      }),
    ).toBe('● clicks · 500 ms · 0 events/s · no watermark · no checkpoint · Ctrl-C to stop');
  });
});
