/** `weir replay` and `weir reconcile` from the command line: files written, exit codes, reports and metrics. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliResult, startBundledWeir } from './run-cli.js';

const runWeir = (args: readonly string[], timeoutMs: number): Promise<CliResult> =>
  startBundledWeir(args, timeoutMs).done;

const JOB = 'test/replay/fixtures/clicks-job.ts';
let dir = '';
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe('weir replay / reconcile', () => {
  it('replays into a directory, and reconciles with exit 0, then 3 after a row is changed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-replay-cli-'));
    const sink = join(dir, 'counts.jsonl');
    const late = join(dir, 'late.jsonl');
    const ran = await runWeir(['run', JOB, '--workers', '0', '--', sink, late], 120_000);
    expect(ran.code).toBe(0);

    const out = join(dir, 'replayed');
    const replay = await runWeir(['replay', JOB, '-p', '2', '-o', out, '--', sink, late], 120_000);
    expect(replay.stderr).toMatch(/replayed clicks-job \(replay\): 2,000 records read/);
    expect(replay.code).toBe(0);
    const files = (await readdir(out, { recursive: true })).sort();
    expect(files).toContain('replay.json');
    expect(files.filter((f) => f.endsWith('.jsonl')).length).toBe(3);

    const report = join(dir, 'report.json');
    const metrics = join(dir, 'reconcile.prom');
    const ok = await runWeir(
      [
        'reconcile',
        JOB,
        '--against',
        'counts',
        '--report',
        report,
        '--metrics-file',
        metrics,
        '--',
        sink,
        late,
      ],
      120_000,
    );
    expect(ok.stdout).toMatch(/^OK: outputs agree/);
    expect(ok.code).toBe(0);
    expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ divergent: false });
    expect(await readFile(metrics, 'utf8')).toMatch(/^weir_reconcile_divergent\{.*\} 0$/m);

    const lines = (await readFile(sink, 'utf8')).trimEnd().split('\n');
    const row = JSON.parse(lines[3]!) as { v: { value: number } };
    row.v.value += 1;
    lines[3] = JSON.stringify(row);
    await writeFile(sink, `${lines.join('\n')}\n`);
    const diverged = await runWeir(
      ['reconcile', JOB, '--metrics-file', metrics, '--', sink, late],
      120_000,
    );
    expect(diverged.stdout).toMatch(/^DIVERGED: 1 rows differ/);
    expect(diverged.stdout).toContain(`${sink}:4`);
    expect(diverged.code).toBe(3);
    expect(await readFile(metrics, 'utf8')).toMatch(/^weir_reconcile_divergent\{.*\} 1$/m);
  }, 400_000);

  it('rejects bad ranges with status 2', async () => {
    const bad = await runWeir(['replay', JOB, '--range', 'yesterday'], 60_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--range takes FROM\.\.TO/);
    const offsets = await runWeir(['reconcile', JOB, '--offsets', 'orders:0=5'], 60_000);
    expect(offsets.code).toBe(2);
    expect(offsets.stderr).toMatch(/--offsets takes TOPIC:PARTITION=FIRST-END/);
  }, 120_000);
});
