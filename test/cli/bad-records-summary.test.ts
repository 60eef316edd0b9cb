/**
 * A job whose source skips bad records says so in its summary: under
 * 'skip' or a dead letter the run succeeds, and without the count it would
 * look clean. A job that a bad record failed (onError 'fail') does not say
 * the record was skipped.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundledWeir } from './run-cli.js';

const JOB = 'test/cli/fixtures/bad-lines.ts';
let dir = '';
let input = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-bad-summary-'));
  input = join(dir, 'in.jsonl');
  await writeFile(input, '{"a":1}\n{"a":\n{"a":3}\nnot json\n{"a":5}\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bad records in the summary of weir run', () => {
  it('counts the skipped records after the records read', async () => {
    const result = await startBundledWeir(['run', JOB, '--workers', '0', '--', input], 120_000)
      .done;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/✓ job 'bad-lines' finished in .* · 3 records read/);
    expect(result.stderr).toContain('  bad records: 2 (skipped or sent to the dead letter');
  }, 120_000);

  it('has badRecords in the JSON log, and no line for a clean run', async () => {
    const json = await startBundledWeir(
      ['run', JOB, '--workers', '0', '--log-format', 'json', '--', input],
      120_000,
    ).done;
    expect(json.code).toBe(0);
    const finished = json.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event?: string; badRecords?: number })
      .find((e) => e.event === 'job_finished');
    expect(finished?.badRecords).toBe(2);

    const clean = join(dir, 'clean.jsonl');
    await writeFile(clean, '{"a":1}\n');
    const ok = await startBundledWeir(['run', JOB, '--workers', '0', '--', clean], 120_000).done;
    expect(ok.code).toBe(0);
    expect(ok.stderr).not.toContain('bad records');
  }, 120_000);

  it('does not call the record that failed the job skipped', async () => {
    const result = await startBundledWeir(
      ['run', 'test/cli/fixtures/bad-lines-fail.ts', '--workers', '0', '--', input],
      120_000,
    ).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("✗ job 'bad-lines-fail' failed");
    expect(result.stderr).toContain('bad record in');
    expect(result.stderr).toMatch(/ {2}bad records: \d+ \(including any that failed the job/);
    expect(result.stderr).not.toContain('skipped or sent to the dead letter');
  }, 120_000);
});
