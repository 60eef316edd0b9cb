/**
 * Async I/O across a failure: the job fails while requests are in flight,
 * is restored from its latest checkpoint (which holds records whose results
 * had not left), and the committed output equals an uninterrupted run's,
 * with no result lost or repeated. Also restored at another parallelism.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AsyncOrder,
  ExactlyOnceFileSink,
  InMemoryLookupTable,
  LocalCheckpointStorage,
  StreamEnvironment,
} from '../../src/index.js';
import { readCheckpoint } from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { committedLines } from '../helpers/committed-lines.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-async-chk-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const COUNT = 4000;

interface Case {
  readonly order: AsyncOrder;
  /** Behind a shuffle the async operator runs in an input task; else in the source's task. */
  readonly shuffle: boolean;
  readonly restoreParallelism: number;
  /** A lookup join (in-memory table with latency) instead of a plain async function. */
  readonly lookup?: boolean;
}

/** Square of every key below 97 (the lookup join's table; other keys have no row). */
const squares = new InMemoryLookupTable(
  Array.from({ length: 97 }, (_, k) => [k, k * k] as const),
  { latencyMs: (keys) => keys.length % 3 },
);

function buildJob(env: StreamEnvironment, out: string, c: Case, failAt?: number) {
  let seen = 0;
  let source = env
    .fromGenerator({ count: COUNT, ratePerSecond: 30_000, generate: (i) => ({ id: i }) })
    .uid('gen')
    .setParallelism(2); // source positions do not rescale
  if (c.shuffle) source = source.rebalance().uid('shuffle');
  const enriched = c.lookup
    ? source.lookupJoin(squares, {
        key: (r) => r.id % 100,
        join: 'left',
        select: (r, sq) => ({ id: r.id, squared: sq }),
        order: c.order,
        capacity: 24,
        maxBatchSize: 8,
      })
    : source.flatMapAsync(
        async (r: { id: number }) => {
          // 0-2 ms, fixed per record: completions overtake each other.
          await new Promise((resolve) => setTimeout(resolve, r.id % 3));
          return [{ id: r.id, squared: (r.id * r.id) as number | null }];
        },
        { order: c.order, capacity: 24 },
      );
  enriched
    .uid('async')
    .map((r) => {
      if (failAt !== undefined && ++seen === failAt) throw new Error('injected failure');
      return r;
    })
    .uid('after')
    .sinkTo(new ExactlyOnceFileSink({ directory: out }))
    .uid('sink');
}

/** Records the async operator held in the checkpoint a restore would use. */
async function inFlightInLatest(checkpoints: string): Promise<number> {
  const latest = await new LocalCheckpointStorage(checkpoints).latest();
  return latest === undefined ? 0 : inFlightIn(latest);
}

async function inFlightIn(path: string): Promise<number> {
  const data = await readCheckpoint(path);
  const op = data.operators.find((o) => o.uid === 'async')!;
  let n = 0;
  for (const s of op.subtasks)
    for (const q of (s.list ?? []) as { items: { v?: unknown }[] }[])
      n += q.items.filter((i) => i.v !== undefined).length;
  return n;
}

describe('async I/O checkpoints', () => {
  const cases: Case[] = [
    { order: 'ordered', shuffle: false, restoreParallelism: 2 },
    { order: 'unordered', shuffle: false, restoreParallelism: 2 },
    { order: 'ordered', shuffle: true, restoreParallelism: 1 },
    { order: 'unordered', shuffle: true, restoreParallelism: 2 },
    { order: 'unordered', shuffle: true, restoreParallelism: 1 },
    { order: 'ordered', shuffle: true, restoreParallelism: 2, lookup: true },
  ];
  for (const c of cases) {
    {
      const { order, restoreParallelism } = c;
      it(`${c.lookup ? 'lookup join, ' : ''}${order}${c.shuffle ? ' behind a shuffle' : ''}: a failed job restored at parallelism ${restoreParallelism} with requests in flight commits exactly an uninterrupted run's output`, async () => {
        const clean = join(dir, 'clean');
        const env1 = new StreamEnvironment({
          batchSize: 50,
          parallelism: 2,
          checkpointing: { directory: join(dir, 'c1'), intervalMs: 30 },
        });
        buildJob(env1, clean, c);
        await env1.execute('clean');
        const expected = (await committedLines(clean)).sort();
        // Oracle: a plain loop.
        const squared = (id: number) =>
          !c.lookup ? id * id : id % 100 < 97 ? (id % 100) ** 2 : null;
        expect(expected).toEqual(
          Array.from({ length: COUNT }, (_, id) =>
            JSON.stringify({ id, squared: squared(id) }),
          ).sort(),
        );

        const out = join(dir, 'out');
        const chk = join(dir, 'c2');
        const failing = new StreamEnvironment({
          batchSize: 50,
          parallelism: 2,
          checkpointing: { directory: chk, intervalMs: 30 },
        });
        buildJob(failing, out, c, 2600);
        await expect(failing.execute('failing')).rejects.toThrow(/injected failure/);
        const partial = await committedLines(out);
        expect(partial.length).toBeGreaterThan(0);
        expect(partial.length).toBeLessThan(COUNT);
        expect(await inFlightInLatest(chk)).toBeGreaterThan(0);

        const resumed = new StreamEnvironment({
          batchSize: 50,
          parallelism: restoreParallelism,
          checkpointing: { directory: chk, intervalMs: 30 },
        });
        buildJob(resumed, out, c);
        await resumed.execute('resumed', { restoreFrom: 'latest' });
        expect((await committedLines(out)).sort()).toEqual(expected);
      });
    }
  }

  it('a job stopped with a savepoint while requests are in flight resumes to exactly the output of an uninterrupted run', async () => {
    const c: Case = { order: 'unordered', shuffle: true, restoreParallelism: 2 };
    const settings = (directory: string) => ({
      batchSize: 50,
      parallelism: 2,
      checkpointing: { directory, intervalMs: 60_000 },
    });
    const clean = join(dir, 'clean');
    const env1 = new StreamEnvironment(settings(join(dir, 'c1')));
    buildJob(env1, clean, c);
    await env1.execute('clean');
    const expected = (await committedLines(clean)).sort();
    expect(expected).toHaveLength(COUNT);

    const out = join(dir, 'out');
    const first = new StreamEnvironment(settings(join(dir, 'c2')));
    buildJob(first, out, c);
    const running = first.executeAsync('first');
    await new Promise((r) => setTimeout(r, 50));
    const savepoint = await running.stopWithSavepoint(join(dir, 'sp'));
    expect(await inFlightIn(savepoint)).toBeGreaterThan(0);
    expect((await committedLines(out)).length).toBeLessThan(COUNT);

    const resumed = new StreamEnvironment(settings(join(dir, 'c3')));
    buildJob(resumed, out, c);
    await resumed.execute('resumed', { restoreFrom: savepoint });
    expect((await committedLines(out)).sort()).toEqual(expected);
  });
});
