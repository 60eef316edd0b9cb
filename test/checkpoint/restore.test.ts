import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import { type JobClient, StreamEnvironment } from '../../src/index.js';
import { waitFor } from '../kafka/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-chk-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function committedLines(out: string): Promise<string[]> {
  const files = (await readdir(out)).filter((f) => !f.startsWith('.')).sort();
  const lines: string[] = [];
  for (const f of files)
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  return lines;
}

function buildJob(env: StreamEnvironment, out: string, failAt?: number) {
  let seen = 0;
  // One source subtask, so each reducer reads one channel: the running sums it emits depend on
  // the order its input arrives in, which two interleaved source subtasks would leave to timing.
  env
    .fromGenerator({ count: 20_000, ratePerSecond: 40_000, generate: (i) => ({ k: i % 7, v: i }) })
    .uid('gen')
    .setParallelism(1)
    .map((r) => {
      if (failAt !== undefined && ++seen === failAt) throw new Error('injected failure');
      return r;
    })
    .setParallelism(1)
    .keyBy((r) => r.k)
    .reduce((a, b) => ({ k: a.k, v: a.v + b.v }))
    .uid('sum')
    .sinkTo(new ExactlyOnceFileSink({ directory: out }))
    .uid('sink');
}

describe('checkpoint and restore', () => {
  it('a job that fails and is restored from its latest checkpoint commits exactly the output of an uninterrupted run', async () => {
    const clean = join(dir, 'clean');
    const env1 = new StreamEnvironment({
      batchSize: 100,
      parallelism: 2,
      checkpointing: { directory: join(dir, 'c1'), intervalMs: 1 },
    });
    buildJob(env1, clean);
    await env1.execute('clean');
    const expected = (await committedLines(clean)).sort();
    expect(expected).toHaveLength(20_000);

    const out = join(dir, 'out');
    const chk = join(dir, 'c2');
    const failing = new StreamEnvironment({
      batchSize: 100,
      parallelism: 2,
      checkpointing: { directory: chk, intervalMs: 1 },
    });
    buildJob(failing, out, 12_345);
    await expect(failing.execute('failing')).rejects.toThrow(/injected failure/);
    const partial = await committedLines(out);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(20_000);

    const resumed = new StreamEnvironment({
      batchSize: 100,
      parallelism: 2,
      checkpointing: { directory: chk, intervalMs: 1 },
    });
    buildJob(resumed, out);
    await resumed.execute('resumed', { restoreFrom: 'latest' });
    expect((await committedLines(out)).sort()).toEqual(expected);
  });

  it('after a restore, checkpoints follow each other at once for a moment instead of waiting the interval', async () => {
    const chk = join(dir, 'c');
    const completed = (client: JobClient) =>
      client.monitor.checkpoints.entries().filter((e) => e.status === 'completed');
    const env = (intervalMs: number) => {
      const e = new StreamEnvironment({ checkpointing: { directory: chk, intervalMs } });
      buildSlowJob(e, join(dir, 'out'));
      return e;
    };
    const first = env(20).executeAsync('first');
    await waitFor('a checkpoint of the first run', () => completed(first).length > 0, 60_000);
    await first.cancel();
    const restoredId = Math.max(...completed(first).map((e) => e.id));

    // A minute's interval: without the rule, nothing would complete for a minute.
    const second = env(60_000).executeAsync('second', { restoreFrom: 'latest' });
    try {
      await waitFor(
        'two checkpoints after the restore',
        () => completed(second).length >= 2,
        60_000,
      );
      const ids = completed(second).map((e) => e.id);
      expect(Math.min(...ids)).toBeGreaterThan(restoredId);
      // For a moment only (a second after the first completed): then the interval holds again.
      const firstDone = Math.min(...completed(second).map((e) => e.completedAt!));
      await new Promise((r) => setTimeout(r, Math.max(0, firstDone + 1_000 - Date.now())));
      const newest = () => second.monitor.checkpoints.entries()[0]?.id ?? 0;
      const settled = newest();
      await new Promise((r) => setTimeout(r, 2_000));
      // One triggered just before the moment ended may still be under way.
      expect(newest()).toBeLessThanOrEqual(settled + 1);
    } finally {
      await second.cancel();
    }
  });
});

/** A job that runs until cancelled, slowly, with exactly-once output. */
function buildSlowJob(env: StreamEnvironment, out: string) {
  env
    .fromGenerator({ count: 1_000_000, ratePerSecond: 500, generate: (i) => ({ k: i % 7, v: i }) })
    .uid('gen')
    .keyBy((r) => r.k)
    .reduce((a, b) => ({ k: a.k, v: a.v + b.v }))
    .uid('sum')
    .sinkTo(new ExactlyOnceFileSink({ directory: out }))
    .uid('sink');
}
