import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import { StreamEnvironment } from '../../src/index.js';

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
});
