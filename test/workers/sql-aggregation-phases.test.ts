/**
 * Two-phase GROUP BY and the distinct-aggregate split on worker threads: the rows the
 * changelog leaves on two workers at parallelism 2 equal those on one thread and a batch
 * computation, for the one-phase, two-phase and split plans.
 */
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import { runJobModule } from '../../src/index.js';
import { ROWS, rowAt } from './fixtures/sql-aggregation-phases.js';
import { fixture } from './harness.js';

function batch(): string[] {
  const groups = new Map<number, [number, number, number][]>();
  for (let i = 0; i < ROWS; i++) {
    const row = rowAt(i);
    groups.set(row[0], [...(groups.get(row[0]) ?? []), row]);
  }
  return [...groups]
    .map(([k, rows]) =>
      JSON.stringify([
        k,
        rows.length,
        new Set(rows.map((r) => r[1])).size,
        new Set(rows.filter((r) => r[1] > 10).map((r) => r[2])).size,
        rows.reduce((s, r) => s + r[1], 0),
        Math.max(...rows.map((r) => r[2])),
        new Set(rows.filter((r) => r[2] > 5).map((r) => r[1])).size,
      ]),
    )
    .sort();
}

/** The rows the changelog leaves, and the records the local halves took in. */
async function rows(plan: string, workers: number): Promise<{ rows: string[]; local: number }> {
  const run = await runJobModule(fixture('sql-aggregation-phases.ts'), {
    args: [plan],
    parallelism: Math.max(workers, 1),
    ...(workers > 0 ? { workers } : {}),
    metrics: { instrumentation: true },
  });
  const changes = run.collected('groups') as Change<unknown[]>[];
  const local = run.result.metrics
    .filter(
      (m) =>
        m.name === 'weir_operator_records_in_total' && (m.labels.operator ?? '').endsWith('/local'),
    )
    .reduce((n, m) => n + m.value, 0);
  return { rows: materialize(changes, (row) => JSON.stringify(row)).sort(), local };
}

describe('SQL GROUP BY phases on worker threads', () => {
  it.each(['one-phase', 'two-phase', 'split'])(
    '%s on two workers leaves the rows of one thread and of a batch computation',
    async (plan) => {
      const expected = batch();
      const thread = await rows(plan, 0);
      const workers = await rows(plan, 2);
      expect(thread.rows).toEqual(expected);
      expect(workers.rows).toEqual(expected);
      // Every row passes a local half, unless the plan is one-phase (the split's expands it).
      const copies = plan === 'split' ? 2 : 1;
      expect(workers.local).toBe(plan === 'one-phase' ? 0 : ROWS * copies);
    },
    120_000,
  );
});

describe('SQL window aggregation with shared distinct counts on worker threads', () => {
  it('HOP windows on two workers leave the rows of one thread and of a batch computation', async () => {
    const windowed = await import('./fixtures/sql-window-distinct.js');
    // Each HOP window [s, s + 3 s) for s a whole second from -2 s, over the rows it holds.
    const expected: string[] = [];
    const last = windowed.rowAt(windowed.ROWS - 1)[2];
    for (let start = -2000; start <= last; start += 1000) {
      for (let k = 0; k < 4; k++) {
        const vs: number[] = [];
        for (let i = 0; i < windowed.ROWS; i++) {
          const [rk, v, ts] = windowed.rowAt(i);
          if (rk === k && ts >= start && ts < start + 3000) vs.push(v);
        }
        if (vs.length === 0) continue;
        const shared = vs.filter((v) => k > 1 || v > 20);
        expected.push(JSON.stringify([k, start, new Set(vs).size, new Set(shared).size]));
      }
    }
    expected.sort();
    const rowsOf = async (workers: number) => {
      const run = await runJobModule(fixture('sql-window-distinct.ts'), {
        parallelism: Math.max(workers, 1),
        ...(workers > 0 ? { workers } : {}),
      });
      return (run.collected('windows') as unknown[][])
        .map((r) => JSON.stringify([r[0], Number(r[1]), r[2], r[3]]))
        .sort();
    };
    expect(await rowsOf(0)).toEqual(expected);
    expect(await rowsOf(2)).toEqual(expected);
  }, 120_000);
});
