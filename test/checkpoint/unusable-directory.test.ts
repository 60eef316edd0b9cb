/**
 * A checkpoint directory the job cannot write (a path under a regular file, a regular file,
 * a directory without write permission) fails the job's start with an error naming the
 * directory and the problem, never a bare ENOTDIR or EACCES, and without a restart; `weir run`
 * prints it as a CLI error, without a stack trace.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiscardingSink, StreamEnvironment, WeirError } from '../../src/index.js';
import { startWeir } from '../cli/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'weir-unusable-dir-'));
afterAll(() => {
  chmodSync(join(root, 'read-only'), 0o700);
  rmSync(root, { recursive: true, force: true });
});
const file = join(root, 'a-file');
writeFileSync(file, 'not a directory\n');
mkdirSync(join(root, 'read-only'), { mode: 0o500 });
chmodSync(join(root, 'read-only'), 0o500);

/** How an unbounded job checkpointing into `directory` fails (with restarts allowed). */
async function startFailure(directory: string): Promise<WeirError> {
  const env = new StreamEnvironment({
    parallelism: 1,
    checkpointing: { directory, intervalMs: 100 },
    restartStrategy: { kind: 'fixed-delay', attempts: 3, delayMs: 10 },
  });
  env
    .fromGenerator<number>({ ratePerSecond: 1_000, generate: (i) => i })
    .uid('numbers')
    .sinkTo(new DiscardingSink());
  const client = env.executeAsync('unusable');
  const error = await client.result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  expect(client.monitor.restarts()).toBe(0);
  return error as WeirError;
}

describe('a checkpoint directory the job cannot write', () => {
  it('under a regular file: names the directory and the file in its path', async () => {
    const directory = join(file, 'checkpoints');
    const error = await startFailure(directory);
    expect(error.code).toBe('CHECKPOINT_STORAGE_FAILED');
    expect(error.message).toBe(
      `cannot write checkpoints into '${directory}': '${file}' is a file, not a directory (ENOTDIR)`,
    );
  });

  it('a regular file itself', async () => {
    const error = await startFailure(file);
    expect(error.message).toBe(
      `cannot write checkpoints into '${file}': '${file}' is a file, not a directory (EEXIST)`,
    );
  });

  it.skipIf(process.getuid?.() === 0)(
    'without write permission (root ignores permission bits)',
    async () => {
      const inside = join(root, 'read-only');
      const nested = join(inside, 'checkpoints');
      expect((await startFailure(nested)).message).toBe(
        `cannot write checkpoints into '${nested}': permission denied: this process may not create '${nested}' (EACCES)`,
      );
      expect((await startFailure(inside)).message).toMatch(
        new RegExp(
          `^cannot write checkpoints into '${inside}': permission denied: this process may not create '${inside}/_owner\\.json\\.new-[^']+' \\(EACCES\\)$`,
        ),
      );
    },
  );

  it('weir run prints the error without a stack trace and exits with status 1', async () => {
    const directory = join(file, 'checkpoints');
    const result = await startWeir([
      'run',
      'test/cli/fixtures/steady.ts',
      '--workers',
      '0',
      '--checkpoint-dir',
      directory,
      '--from',
      'latest',
    ]).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`failed after`);
    expect(result.stderr).toContain(
      `: cannot write checkpoints into '${directory}': '${file}' is a file, not a directory (ENOTDIR)`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain('ENOTDIR: not a directory');
  }, 60_000);
});
