/**
 * The replay and reconcile engine on a job whose source and sink implement
 * the contracts in memory and in a file: replays are repeatable at any
 * parallelism, a faithful streaming run reconciles without divergence, a
 * tampered output is named row by row, and differences that late data
 * explains are not counted as divergence.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runJobModule } from '../../src/api/job-module/run-job-module.js';
import { renderReport } from '../../src/cli/replay-command.js';
import { renderPrometheus } from '../../src/metrics/prometheus.js';
import { reconcileJob, reconcileMetrics } from '../../src/replay/reconcile.js';
import { replayJob, writeReplayOutput } from '../../src/replay/run-replay.js';
import { clicks } from './fixtures/clicks-job.js';

const JOB = join(import.meta.dirname, 'fixtures/clicks-job.ts');
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'weir-replay-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Window counts per user and second, by a plain batch computation: no record is late in a batch. */
function batchCounts(): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of clicks()) {
    const k = `${c.user}|${Math.floor(c.time / 1000) * 1000}`;
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) out[name] = text;
  }
  return out;
}

describe('weir replay', () => {
  it('writes byte-identical output at parallelism 1 and 4', async () => {
    const [a, b] = [await tempDir(), await tempDir()];
    const sink = join(await tempDir(), 'never-written.jsonl');
    const one = await replayJob({ module: JOB, args: [sink, '-'], parallelism: 1 });
    await writeReplayOutput(one, a);
    const four = await replayJob({ module: JOB, args: [sink, '-'], parallelism: 4 });
    await writeReplayOutput(four, b);
    const [fa, fb] = [await filesOf(a), await filesOf(b)];
    expect(Object.keys(fa).length).toBeGreaterThanOrEqual(3);
    expect(fb).toEqual(fa);
    // The production sink was never written.
    await expect(readFile(sink)).rejects.toThrow();
    // On-time records give the batch counts; late ones are captured, not lost.
    const late = one.late[0]!;
    expect(late.values.length).toBeGreaterThan(0);
    const counted = (one.outputs[0]!.values as { value: number }[]).reduce(
      (n, r) => n + r.value,
      0,
    );
    expect(counted + late.values.length).toBe(clicks().length);
    const batch = batchCounts();
    const lateByWindow = new Map<string, number>();
    for (const [i, v] of (late.values as { user: string }[]).entries()) {
      const k = `${v.user}|${Math.floor(late.timestamps[i]! / 1000) * 1000}`;
      lateByWindow.set(k, (lateByWindow.get(k) ?? 0) + 1);
    }
    for (const r of one.outputs[0]!.values as {
      key: string;
      window: { start: number };
      value: number;
    }[]) {
      const k = `${r.key}|${r.window.start}`;
      expect(r.value + (lateByWindow.get(k) ?? 0)).toBe(batch.get(k));
    }
  }, 120_000);

  it('reads only the range it is given', async () => {
    const run = await replayJob({
      module: JOB,
      args: [join(await tempDir(), 'x'), '-'],
      range: { from: 5000, to: 10_000 },
    });
    const windows = (run.outputs[0]!.values as { window: { start: number } }[]).map(
      (r) => r.window.start,
    );
    expect(Math.min(...windows)).toBeGreaterThanOrEqual(5000);
    expect(Math.max(...windows)).toBeLessThan(10_000);
  }, 120_000);
});

describe('weir reconcile', () => {
  it('finds no divergence against a faithful streaming run, and names tampered rows', async () => {
    const dir = await tempDir();
    const sink = join(dir, 'counts.jsonl');
    const late = join(dir, 'late.jsonl');
    await runJobModule(JOB, { args: [sink, late] });
    const clean = await reconcileJob({ module: JOB, args: [sink, late] });
    expect(clean.divergent).toBe(false);
    expect(clean.comparison.matched).toBe(clean.comparison.expectedRows);
    expect(clean.comparison.writtenRows).toBe(clean.comparison.expectedRows);
    expect(clean.lateRecords[0]!.streaming).toBe(clean.lateRecords[0]!.replay);

    // Delete one row and change another.
    const lines = (await readFile(sink, 'utf8')).trimEnd().split('\n');
    const removed = JSON.parse(lines[10]!) as { v: { key: string; window: { start: number } } };
    const edited = JSON.parse(lines[20]!) as {
      t: number;
      v: { key: string; value: number; window: { start: number } };
    };
    edited.v.value += 1000;
    lines[20] = JSON.stringify(edited);
    lines.splice(10, 1);
    await writeFile(sink, `${lines.join('\n')}\n`);
    const report = await reconcileJob({ module: JOB, args: [sink, late] });
    expect(report.divergent).toBe(true);
    expect(report.comparison.missing).toBe(1);
    expect(report.comparison.differing).toBe(1);
    expect(report.comparison.extra).toBe(0);
    const missing = report.comparison.differences.find((d) => d.kind === 'missing')!;
    expect(missing.expected!.value).toMatchObject({
      key: removed.v.key,
      window: { start: removed.v.window.start },
    });
    const differing = report.comparison.differences.find((d) => d.kind === 'differing')!;
    expect(differing.fields).toEqual(['value']);
    expect(differing.written!.origin).toBe(`${sink}:20`);
    const text = renderReport(report);
    expect(text).toMatch(/^DIVERGED: 2 rows differ/);
    const metrics = renderPrometheus([reconcileMetrics(report)]);
    expect(metrics).toMatch(/weir_reconcile_divergent\{job_name="[^"]+",sink="counts"\} 1/);
    expect(metrics).toMatch(/weir_reconcile_difference_rows\{[^}]*kind="missing"[^}]*\} 1/);
  }, 180_000);

  it('explains differences caused by late data instead of calling them divergence', async () => {
    const dir = await tempDir();
    const sink = join(dir, 'counts.jsonl');
    const late = join(dir, 'late.jsonl');
    // The streaming run reads the clicks in another order, so other clicks come late.
    await runJobModule(JOB, { args: [sink, late, 'shuffled'] });
    const report = await reconcileJob({ module: JOB, args: [sink, late] });
    expect(
      report.comparison.differing + report.comparison.missing + report.comparison.extra,
    ).toBeGreaterThan(0);
    expect(report.comparison.explained).toBe(
      report.comparison.differing + report.comparison.missing + report.comparison.extra,
    );
    expect(report.divergent).toBe(false);
    expect(report.lateRecords[0]!.streaming).toBeGreaterThan(report.lateRecords[0]!.replay);
    expect(report.comparison.differences[0]!.explainedBy).toMatch(/late data/);
  }, 180_000);
});
