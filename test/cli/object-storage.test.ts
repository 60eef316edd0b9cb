/**
 * A job whose machine is lost restarts elsewhere from its checkpoints in
 * object storage: `weir run --checkpoint-dir s3://...` on two worker
 * threads with the disk state backend is killed (SIGKILL), every local file
 * it had (its state directory) is deleted, and `weir run --from latest`
 * started from another directory restores from the S3 test server. The
 * committed output must be exactly that of an uninterrupted run.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshS3Location, keyOf, S3_ENV, testBucket, useTestS3 } from '../helpers/s3.js';
import { startBundledWeir } from './run-cli.js';

useTestS3();

const JOB = join(import.meta.dirname, 'fixtures/running-counts.ts');
const COUNT = 3000;
const HARD_TIMEOUT_MS = 120_000;

const root = mkdtempSync(join(tmpdir(), 'weir-cli-s3-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function committedLines(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0)
    .sort();
}

/** What an uninterrupted run commits: for each of the seven users, one line per count up to its total. */
function uninterrupted(): string[] {
  const lines: string[] = [];
  for (let user = 0; user < 7; user++) {
    const total = Math.ceil((COUNT - user) / 7);
    for (let n = 1; n <= total; n++) lines.push(`u${user} ${n}`);
  }
  return lines.sort();
}

describe('weir run with checkpoints in S3', () => {
  it('killed, its local files deleted, restores on "another machine" from s3:// with --from latest', async () => {
    const checkpoints = freshS3Location('cli');
    // The sink's output stands for an external system: it survives the machine.
    const out = join(root, 'out');
    const machineA = join(root, 'machine-a');
    mkdirSync(machineA);
    const first = startBundledWeir(
      [
        'run',
        JOB,
        '--workers',
        '2',
        '-p',
        '2',
        '--state-backend',
        'disk',
        '--state-dir',
        join(machineA, 'state'),
        '--checkpoint-dir',
        checkpoints,
        '--checkpoint-interval',
        '0.3',
        '--',
        out,
        String(COUNT),
        '300',
      ],
      HARD_TIMEOUT_MS,
      { cwd: machineA, env: S3_ENV },
    );
    await expect
      .poll(() => committedLines(out).length, { timeout: 90_000, interval: 50 })
      .toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const partial = committedLines(out).length;
    expect(partial).toBeLessThan(COUNT);
    expect(readdirSync(join(machineA, 'state')).length).toBeGreaterThan(0);
    rmSync(machineA, { recursive: true, force: true });

    const { keys } = await testBucket().list(`${keyOf(checkpoints)}/`, false);
    expect(keys.some((k) => k.endsWith('/_metadata.json'))).toBe(true);

    const machineB = join(root, 'machine-b');
    mkdirSync(machineB);
    const resumed = await startBundledWeir(
      [
        'run',
        JOB,
        '--workers',
        '2',
        '-p',
        '2',
        '--state-backend',
        'disk',
        '--state-dir',
        join(machineB, 'state'),
        '--from',
        'latest',
        '--checkpoint-dir',
        checkpoints,
        '--',
        out,
        String(COUNT),
        'max',
      ],
      HARD_TIMEOUT_MS,
      { cwd: machineB, env: S3_ENV },
    ).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `restoring 'running-counts' from checkpoint \\d+ \\(${checkpoints}/chk-\\d{10}\\)`,
      ),
    );
    expect(resumed.stderr).toMatch(new RegExp(`last checkpoint: \\d+ \\(${checkpoints}/chk-`));
    // No credential reaches the output.
    expect(resumed.stderr).not.toContain(S3_ENV.AWS_SECRET_ACCESS_KEY);
    expect(committedLines(out)).toEqual(uninterrupted());
  }, 180_000);
});
