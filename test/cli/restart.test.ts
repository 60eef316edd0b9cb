/**
 * `weir run` outlives failures: with --checkpoint-dir and no restart flags,
 * a job restarts from its latest checkpoint (exponential-delay), logs each
 * restart, and commits exactly the output of a run that never failed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { startBundledWeir } from './run-cli.js';

const JOB = 'test/cli/fixtures/flaky-counts.ts';
const COUNT = 3000;
const USERS = 7;
const HARD_TIMEOUT_MS = 120_000;

const root = mkdtempSync(join(tmpdir(), 'weir-cli-restart-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The committed output of the sink: lines of its visible (non-dot) files, sorted. */
function committedLines(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0)
    .sort();
}

/** What a run that never failed commits: for each user, one line per count from 1 to its total. */
function expectedLines(): string[] {
  const lines: string[] = [];
  for (let u = 0; u < USERS; u++) {
    const total = Math.floor((COUNT - 1 - u) / USERS) + 1;
    for (let n = 1; n <= total; n++) lines.push(`u${u} ${n}`);
  }
  return lines.sort();
}

function failuresIn(file: string): number {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
}

describe.concurrent('weir run restarts', { timeout: 300_000 }, () => {
  it('restarts a checkpointed job by default and finishes with exact output', async ({
    expect,
  }) => {
    const out = join(root, 'out');
    const failures = join(root, 'failures');
    const result = await startBundledWeir(
      [
        'run',
        JOB,
        '--workers',
        '0',
        '--checkpoint-dir',
        join(root, 'ckpt'),
        '--checkpoint-interval',
        '0.1',
        '--',
        out,
        failures,
        '2',
      ],
      HARD_TIMEOUT_MS,
    ).done;
    expect(result.stderr).toMatch(/✓ job 'flaky-counts' finished/);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^weir: job 'flaky-counts' failed: .*flaky failure 1; restart 1 in \S+ m?s$/m,
    );
    expect(result.stderr).toMatch(
      /^weir: job 'flaky-counts' failed: .*flaky failure 2; restart 2 in \S+ m?s$/m,
    );
    expect(result.stderr).toContain('  restarts: 2');
    expect(failuresIn(failures)).toBe(2);
    expect(committedLines(out)).toEqual(expectedLines());
  });

  it('logs restarts as JSON and fails once an explicit strategy gives up', async ({ expect }) => {
    const failures = join(root, 'failures-json');
    const result = await startBundledWeir(
      [
        'run',
        JOB,
        '--workers',
        '0',
        '--log-format',
        'json',
        '--checkpoint-dir',
        join(root, 'ckpt-json'),
        '--restart-strategy',
        'fixed-delay',
        '--restart-attempts',
        '1',
        '--restart-delay',
        '0.05',
        '--',
        join(root, 'out-json'),
        failures,
        '5',
      ],
      HARD_TIMEOUT_MS,
    ).done;
    expect(result.code).toBe(1);
    const records = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const restarts = records.filter((r) => r.event === 'job_restarting');
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toMatchObject({
      level: 'warn',
      restart: 1,
      delayMs: 50,
      error: { message: expect.stringContaining('flaky failure 1') },
    });
    expect(records.at(-1)).toMatchObject({ event: 'job_failed', restarts: 1 });
    // One restart allowed: two attempts, two failures.
    expect(failuresIn(failures)).toBe(2);
  });
});
