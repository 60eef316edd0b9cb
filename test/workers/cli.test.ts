import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundledWeir } from '../cli/run-cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-cli-workers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function committed(out: string): Promise<string[]> {
  const lines: string[] = [];
  for (const f of (await readdir(out)).filter((f) => !f.startsWith('.')))
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  return lines.sort();
}

describe('weir run --workers', () => {
  it('runs the job module on worker threads with the output of a single-thread run', async () => {
    const job = 'test/cli/fixtures/running-counts.ts';
    const single = await startBundledWeir(['run', job, '--', join(dir, 'single'), '700', 'max'])
      .done;
    expect(single.code, single.stderr).toBe(0);
    const workers = await startBundledWeir([
      'run',
      job,
      '--workers',
      '2',
      '--',
      join(dir, 'workers'),
      '700',
      'max',
    ]).done;
    expect(workers.code, workers.stderr).toBe(0);
    const expected = await committed(join(dir, 'single'));
    expect(expected).toHaveLength(700);
    expect(await committed(join(dir, 'workers'))).toEqual(expected);
  });

  it('refuses a bad worker count', async () => {
    const r = await startBundledWeir(['run', 'test/cli/fixtures/steady.ts', '--workers', 'many'])
      .done;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--workers');
  });
});
