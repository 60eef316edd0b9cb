/**
 * A job turns V8's allocation-site pretenuring off for its process (runtime/job/heap-tuning.ts)
 * unless `allocationSitePretenuring: true` keeps it. V8's own trace shows it: with
 * `--trace-pretenuring-statistics` it prints its allocation-site feedback at every
 * young-generation collection while the heuristic is on, and nothing once it is off.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const JOB = 'test/runtime/fixtures/pretenuring-job.ts';

async function feedbackLines(
  mode: 'default' | 'keep',
): Promise<{ before: number; during: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--no-opt', '--trace-pretenuring-statistics', JOB, mode],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const [before = '', during = ''] = stdout.split('--- job starts\n');
  expect(during).toMatch(/--- job done 200000\n/);
  const count = (text: string) => text.split('\n').filter((l) => l.includes('pretenuring:')).length;
  return { before: count(before), during: count(during) };
}

describe('allocation-site pretenuring', () => {
  it('is off from the moment a job starts', async () => {
    const lines = await feedbackLines('default');
    expect(lines.before).toBeGreaterThan(0);
    expect(lines.during).toBe(0);
  }, 120_000);

  it('stays on with allocationSitePretenuring: true', async () => {
    const lines = await feedbackLines('keep');
    expect(lines.before).toBeGreaterThan(0);
    expect(lines.during).toBeGreaterThan(0);
  }, 120_000);
});
