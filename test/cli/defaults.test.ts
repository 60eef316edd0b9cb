/**
 * The defaults the CLI states are the ones it uses: `weir run` runs one
 * worker per core and, unless told otherwise, that many subtasks per
 * operator; --help and docs/cli.md say so.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP_TEXT } from '../../src/cli/args.js';
import { ROOT, startBundledWeir } from './run-cli.js';

function started(stderr: string): Record<string, unknown> | undefined {
  return stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((r) => r.event === 'job_started');
}

describe('default parallelism', () => {
  it('is stated as the number of workers in --help and docs/cli.md', () => {
    const help = HELP_TEXT.split('\n--')[0]!;
    expect(help).toMatch(
      /--parallelism N +default parallelism of operators \(default: the number of\s+workers, so one per core; 1 with --workers 0\)/,
    );
    const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(docs).toContain(
      'default parallelism of operators (default: the number of workers, so one per core; 1 with `--workers 0`)',
    );
    expect(docs).not.toMatch(
      /`--parallelism N` +\| default parallelism of operators \(default 1\)/,
    );
    const gettingStarted = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');
    expect(gettingStarted.replace(/\s+/g, ' ')).toContain(
      '`weir run` runs a job on one worker thread per core, and its default parallelism is the number of workers',
    );
  });

  it('is the core count with default flags, and 1 with --workers 0', async () => {
    const job = ['run', 'test/cli/fixtures/steady.ts', '--log-format', 'json'];
    const byDefault = await startBundledWeir([...job, '--', '0.1'], 120_000).done;
    expect(byDefault.code).toBe(0);
    expect(started(byDefault.stderr)).toMatchObject({
      parallelism: availableParallelism(),
      workers: availableParallelism(),
    });
    const oneThread = await startBundledWeir([...job, '--workers', '0', '--', '0.1'], 120_000).done;
    expect(oneThread.code).toBe(0);
    expect(started(oneThread.stderr)).toMatchObject({ parallelism: 1, workers: 0 });
  }, 150_000);

  it('starts no more workers than the parallelism asked for (a worker beyond it would hold nothing)', async () => {
    const job = ['run', 'test/cli/fixtures/steady.ts', '--log-format', 'json'];
    const one = await startBundledWeir([...job, '-p', '1', '--', '0.1'], 120_000).done;
    expect(one.code).toBe(0);
    expect(started(one.stderr)).toMatchObject({ parallelism: 1, workers: 1 });
    // Asked for, they start: two workers for one subtask.
    const asked = await startBundledWeir(
      [...job, '-p', '1', '--workers', '2', '--', '0.1'],
      120_000,
    ).done;
    expect(asked.code).toBe(0);
    expect(started(asked.stderr)).toMatchObject({ parallelism: 1, workers: 2 });
  }, 150_000);
});
