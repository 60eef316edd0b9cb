/**
 * `weir run --keep-ui`: a job that ended, failed or finished, stays on the web
 * UI and its REST API (status, exceptions) until SIGTERM or Ctrl-C; the exit
 * status is then the job's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundledWeir } from './run-cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-keep-ui-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface JobSummaryView {
  readonly id: string;
  readonly name: string;
  readonly status: string;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as T;
}

const KEPT = /the web UI stays at (http:\/\/127\.0\.0\.1:\d+)\/ until Ctrl-C or SIGTERM/;

describe('the web UI after the job ends', () => {
  it('keeps a failed job on the UI until SIGTERM, then exits with the failure status', async () => {
    const cli = startBundledWeir(
      [
        'run',
        'test/cli/fixtures/throwing-map.ts',
        '--workers',
        '0',
        '--ui-port',
        '0',
        '--keep-ui',
        '--token-file',
        join(dir, 'token-failed'),
      ],
      120_000,
    );
    const [, base] = await cli.waitFor('stderr', KEPT);
    // The failure was reported before the UI was kept.
    expect(cli.output('stderr')).toMatch(
      /✗ job 'throwing-map' failed after .*three is not allowed/,
    );
    const { jobs } = await getJson<{ jobs: JobSummaryView[] }>(`${base}/jobs`);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ name: 'throwing-map', status: 'failed' });
    const { exceptions } = await getJson<{
      exceptions: { message: string; fatal: boolean; operator?: string }[];
    }>(`${base}/jobs/${jobs[0]!.id}/exceptions`);
    expect(exceptions.some((e) => e.fatal && e.message.includes('three is not allowed'))).toBe(
      true,
    );
    expect(await getJson<{ status: string }>(`${base}/jobs/${jobs[0]!.id}`)).toMatchObject({
      status: 'failed',
    });
    expect((await fetch(`${base}/`)).status).toBe(200);
    // Still there a while later: nothing but a signal ends it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(cli.child.exitCode).toBeNull();
    expect((await fetch(`${base}/jobs`)).status).toBe(200);

    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(1);
    await expect(fetch(`${base}/jobs`)).rejects.toThrow();
  }, 150_000);

  it('keeps a finished job until Ctrl-C, then exits with 0', async () => {
    const cli = startBundledWeir(
      [
        'run',
        'test/cli/fixtures/steady.ts',
        '--workers',
        '0',
        '--ui',
        '--ui-port',
        '0',
        '--keep-ui',
        '--log-format',
        'json',
        '--token-file',
        join(dir, 'token-finished'),
        '--',
        '0.5',
      ],
      120_000,
    );
    const [, base] = await cli.waitFor('stderr', /"event":"ui_kept".*"url":"(http:\/\/[^"]+)\/"/);
    expect(cli.output('stderr')).toContain('"event":"job_finished"');
    const { jobs } = await getJson<{ jobs: JobSummaryView[] }>(`${base}/jobs`);
    expect(jobs[0]).toMatchObject({ status: 'finished' });
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
  }, 150_000);

  it('without --keep-ui and without a terminal, a failed job ends the process and the UI', async () => {
    const cli = startBundledWeir(
      [
        'run',
        'test/cli/fixtures/throwing-map.ts',
        '--workers',
        '0',
        '--ui-port',
        '0',
        '--token-file',
        join(dir, 'token-plain'),
      ],
      120_000,
    );
    const result = await cli.done;
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(KEPT);
  }, 150_000);

  it('--keep-ui needs a UI', async () => {
    const cli = startBundledWeir(['run', 'test/cli/fixtures/steady.ts', '--keep-ui']);
    const result = await cli.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--keep-ui needs --ui or --ui-port');
  }, 60_000);
});
