import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { ChangeKind } from '../../src/index.js';
import { allEvents, withoutTiedGroups } from '../nexmark/oracle.js';
import { bothWays, fixture } from './harness.js';

/** Every sink got something, and worker mode produced exactly the single-thread output. */
function expectSame(r: Awaited<ReturnType<typeof bothWays>>, nonEmpty: readonly string[]) {
  for (const name of nonEmpty) expect(r.single[name]?.length, name).toBeGreaterThan(0);
  expect(r.workers).toEqual(r.single);
}

describe('worker mode gives the single-thread output', () => {
  it('tumbling, sliding and session windows with late data on side outputs', async () => {
    const sinks = ['tumbling', 'tumbling-late', 'sliding', 'session', 'session-late'];
    expectSame(await bothWays(fixture('windows.ts'), sinks), sinks);
  });

  it('keyed process function with state and event-time timers', async () => {
    expectSame(await bothWays(fixture('keyed-process.ts')), ['out']);
  });

  it('union, rebalance, broadcast and a keyed count trigger', async () => {
    const r = await bothWays(fixture('exchanges.ts'), ['rebalanced', 'counted', 'broadcast']);
    // Broadcast: each of the 3 records once per subtask of the map, on whichever worker it runs.
    expect(r.single.broadcast).toEqual(['10', '20', '30']);
    expect(r.workers.broadcast).toEqual(['10', '10', '20', '20', '30', '30']);
    const { broadcast: _a, ...single } = r.single;
    const { broadcast: _b, ...workers } = r.workers;
    expect(single.counted?.length).toBeGreaterThan(0);
    expect(workers).toEqual(single);
  });

  it('connectBroadcast', async () => {
    expectSame(await bothWays(fixture('broadcast-state.ts')), ['out']);
  });

  it('keyed tumbling count over a generator', async () => {
    expectSame(await bothWays(fixture('keyed-window.ts')), ['out']);
  });

  // All Nexmark queries run as one job over one stream of events, once on one thread and once
  // on two workers: starting the workers once instead of once per query.
  const EVENTS = 20_000;
  const UPDATING = ['q4', 'q9', 'q18', 'q19'];
  const INSERT_ONLY = [
    'q0',
    'q1',
    'q2',
    'q3',
    'q5',
    'q7',
    'q8',
    'q11',
    'q13',
    'q14',
    'q15',
    'q16',
    'q17',
    'q20',
    'q21',
    'q22',
  ];
  const ALL = [...UPDATING, ...INSERT_ONLY];
  let nexmark: ReturnType<typeof bothWays> | undefined;
  const nexmarkRuns = () => {
    nexmark ??= bothWays(fixture('nexmark.ts'), ALL, { args: [ALL.join('+'), String(EVENTS)] });
    return nexmark;
  };

  // Updating queries: their changelogs' intermediate updates depend on the arrival order
  // across subtasks, so the tables the changes leave are compared, without the groups a tie
  // decides by arrival order (as in the Flink equivalence test).
  for (const q of UPDATING) {
    it(`Nexmark ${q} (the table its changelog leaves)`, async () => {
      const r = await nexmarkRuns();
      const untied = withoutTiedGroups(q, allEvents({ maxEvents: EVENTS }));
      const table = (changes: readonly string[] | undefined) =>
        untied(
          materialize(
            (changes ?? []).map((c) => {
              const text = JSON.parse(c) as string;
              return { kind: text.slice(0, 2) as ChangeKind, value: text.slice(2) };
            }),
            (row) => row,
          ),
        ).sort();
      const single = table(r.single[q]);
      expect(single.length).toBeGreaterThan(0);
      expect(table(r.workers[q])).toEqual(single);
    }, 300_000);
  }

  // Queries whose results are insert-only.
  for (const q of INSERT_ONLY) {
    it(`Nexmark ${q}`, async () => {
      const r = await nexmarkRuns();
      expect(r.single[q]?.length, q).toBeGreaterThan(0);
      expect(r.workers[q]).toEqual(r.single[q]);
    }, 300_000);
  }
});
