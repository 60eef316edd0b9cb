/**
 * A job that fails on worker threads reports what it read: the workers'
 * metrics are flushed before the summary (the periodic reports come only
 * twice a second, and this job fails sooner).
 */
import { describe, expect, it } from 'vitest';
import { startBundledWeir } from './run-cli.js';

const FAILING = 'test/cli/fixtures/throwing-map.ts';

describe('failure summary in worker mode', () => {
  it('says how many records were read', async () => {
    const result = await startBundledWeir(['run', FAILING, '--workers', '2'], 120_000).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/✗ job 'throwing-map' failed after .+: .*three is not allowed/);
    expect(result.stderr).toContain('  records read: 4\n');
  }, 150_000);

  it('puts the same count in the JSON log', async () => {
    const result = await startBundledWeir(
      ['run', FAILING, '--workers', '2', '--log-format', 'json'],
      120_000,
    ).done;
    expect(result.code).toBe(1);
    const failed = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((r) => r.event === 'job_failed');
    expect(failed).toMatchObject({ recordsRead: 4 });
  }, 150_000);
});
