/**
 * More feature areas run both ways (one thread at parallelism 1, two workers at parallelism 2):
 * joins, changelog operators, async I/O and lookups, count and global windows, the two-phase
 * window aggregation and the file connectors.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { type Change, runJobModule } from '../../src/index.js';
import { events } from './fixtures/events.js';
import { bothWays, fixture } from './harness.js';

type Both = Awaited<ReturnType<typeof bothWays>>;

/** Every sink got something, and worker mode produced exactly the single-thread output. */
function expectSame(r: Both, nonEmpty: readonly string[]) {
  for (const name of nonEmpty) expect(r.single[name]?.length, name).toBeGreaterThan(0);
  expect(r.workers).toEqual(r.single);
}

describe('worker mode gives the single-thread output', () => {
  it('window join (with late side outputs), co-group (sliding and session), interval join (with late side output), broadcast join, deduplication and top-N (plain and per window)', async () => {
    const sinks = [
      'window-join',
      'co-group',
      'session-co-group',
      'interval-join',
      'broadcast-join',
      'broadcast-left-join',
      'dedup-first',
      'dedup-last',
      'top-n',
      'window-join-late',
      'window-join-late-side',
      'interval-join-late',
      'interval-join-late-side',
      'window-dedup',
      'window-dedup-late',
      'window-top-n',
      'window-top-n-late',
    ];
    // Small batches: a watermark every 32 records (64 ms of event time).
    expectSame(await bothWays(fixture('joins.ts'), sinks, { batchSize: 32 }), sinks);
  });
});

/** The multiset of rows a changelog leaves (`+I`/`+U` add a row, `-U`/`-D` take one away). */
function table(changes: readonly string[] | undefined): string[] {
  const parsed = (changes ?? []).map((c) => JSON.parse(c) as Change<unknown>);
  return materialize(parsed, (row) => JSON.stringify(row)).sort();
}

describe('worker mode gives the single-thread changelogs', () => {
  it('updating aggregates, table views, window changes, regular and temporal joins', async () => {
    // Single-input operators see each key's records in source order on both: same changes.
    const exact = [
      'aggregate-retract',
      'aggregate-upsert',
      'view-retract',
      'view-upsert',
      'window-changes',
      'temporal-inner',
      'temporal-left',
    ];
    // Their intermediate changes follow how two inputs (or two upstream subtasks) interleave.
    const tables = ['aggregate-two-levels', 'join-inner', 'join-left', 'join-full'];
    const r = await bothWays(fixture('changelog.ts'), [...exact, ...tables]);
    for (const name of exact) {
      expect(r.single[name]?.length, name).toBeGreaterThan(0);
      expect(r.workers[name], name).toEqual(r.single[name]);
    }
    for (const name of tables) {
      const single = table(r.single[name]);
      expect(single.length, name).toBeGreaterThan(0);
      expect(table(r.workers[name]), name).toEqual(single);
    }
    expect(r.single['window-changes']?.some((c) => c.includes('"isUpdate":true'))).toBe(true);
    expect(table(r.single['join-full']).some((row) => row.startsWith('[null,'))).toBe(true);
  });
});

describe('worker mode gives the single-thread output of external calls', () => {
  it('flatMapAsync (ordered, unordered before a window) and lookup joins', async () => {
    const sinks = ['async-ordered', 'async-window', 'lookup-inner', 'lookup-left', 'lookup-sync'];
    expectSame(await bothWays(fixture('async-lookup.ts'), sinks), sinks);
  });
});

describe('worker mode gives the single-thread output of count and global windows', () => {
  it('count windows, global windows with triggers, the rolling reduce', async () => {
    const sinks = [
      'count-tumbling',
      'count-sliding',
      'global-count',
      'global-purging-count',
      'global-continuous',
      'tumbling-purging-continuous',
      'rolling-reduce',
    ];
    // Small batches: a watermark every 64 records, so continuous triggers fire often.
    expectSame(await bothWays(fixture('count-global.ts'), sinks, { batchSize: 64 }), sinks);
  });
});

describe('worker mode gives the single-thread output of two-phase windows', () => {
  it('reduce and aggregate with merge, allowed lateness and late side outputs, over a split generator', async () => {
    const sinks = ['reduce', 'reduce-late', 'aggregate', 'aggregate-late'];
    const r = await bothWays(fixture('two-phase.ts'), sinks);
    expectSame(r, sinks);
    for (const name of ['reduce', 'aggregate']) {
      expect(r.single[name]?.some((w) => w.includes('"isUpdate":true'))).toBe(true);
    }
    // The workers' run folded records before the exchange; the single thread has none to fold.
    expect(r.results.workers.metric('weir_window_local_folded_records_total')).toBeGreaterThan(0);
    expect(r.results.single.metric('weir_window_local_folded_records_total')).toBe(0);
  });
});

/** Every line of every visible file in `dir` (and its subdirectories), sorted. */
async function linesIn(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const text = await readFile(join(entry.parentPath, entry.name), 'utf8');
    lines.push(...text.split('\n').filter((line) => line !== ''));
  }
  return lines.sort();
}

describe('worker mode writes the single-thread files', () => {
  it('JSON Lines and CSV sources, JSON Lines and exactly-once file sinks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-workers-files-'));
    try {
      const input = join(dir, 'in');
      await mkdir(input);
      const evs = events(3000, 31);
      await writeFile(
        join(input, 'events.jsonl'),
        evs.map((e) => `${JSON.stringify(e)}\n`).join(''),
      );
      await writeFile(
        join(input, 'events.csv'),
        `k,t,v\n${evs.map((e) => `${e.k},${e.t},${e.v}\n`).join('')}`,
      );
      const outputs: Record<string, string[]>[] = [];
      for (const [i, options] of [{ parallelism: 1 }, { parallelism: 2, workers: 2 }].entries()) {
        const out = join(dir, `out${i}`);
        await runJobModule(fixture('files.ts'), { ...options, args: [input, out] });
        outputs.push({
          windows: await linesIn(join(out, 'windows')),
          reduced: await linesIn(join(out, 'exactly-once')),
        });
      }
      // Both subtasks wrote: a JSON Lines file each, and part files of each.
      expect((await readdir(join(dir, 'out1', 'windows'))).sort()).toEqual([
        'windows-0.jsonl',
        'windows-1.jsonl',
      ]);
      const parts = await readdir(join(dir, 'out1', 'exactly-once'));
      for (const subtask of [0, 1]) {
        expect(parts.some((f) => f.startsWith(`part-${subtask}-`))).toBe(true);
      }
      const [single, workers] = outputs as [Record<string, string[]>, Record<string, string[]>];
      expect(single.windows?.length).toBeGreaterThan(100);
      expect(single.reduced?.length).toBe(3000);
      expect(workers).toEqual(single);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
