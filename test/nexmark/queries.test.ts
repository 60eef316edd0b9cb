/**
 * Weir's Nexmark queries against plain-loop oracles (test/nexmark/oracle.ts), at several
 * parallelisms: runs without Java (the Flink comparison is flink-equivalence.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { BlackholeSink } from '../../bench/nexmark/blackhole-sink.js';
import {
  NEXMARK_QUERIES,
  nexmarkQuery,
  PENDING_QUERIES,
} from '../../bench/nexmark/queries/index.js';
import { collectOnWeir, runOnWeir } from '../../bench/nexmark/weir-job.js';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { CollectSink } from '../../src/index.js';
import { multisetDiff } from './multiset.js';
import { allBids, allEvents, ORACLES, withoutTiedGroups } from './oracle.js';

const CONFIGS: Readonly<Record<string, Partial<NexmarkConfig>>> = {
  // One event per second across midnight (two days, every hour class of q14).
  sparse: { maxEvents: 8_000, eventsPerSecond: 1, baseTime: Date.UTC(2015, 6, 15, 22, 0) },
  // The reference rate (10,000 events/s): many bids per millisecond.
  dense: { maxEvents: 30_000, seed: 5 },
};

const IMPLEMENTED = new Set(NEXMARK_QUERIES.map((q) => q.name));

describe('Nexmark queries on Weir equal plain-loop oracles', () => {
  for (const [configName, config] of Object.entries(CONFIGS)) {
    const input = allEvents(config);
    for (const [name, oracle] of Object.entries(ORACLES)) {
      if (!IMPLEMENTED.has(name)) continue;
      it(`${name} (${configName})`, async () => {
        const all = oracle(input).map((row) => JSON.stringify(row));
        // One source subtask delivers events in order, so ties resolve as the oracle's; with
        // more, rows of groups whose result depends on arrival order are left out.
        const untied = withoutTiedGroups(name, input);
        for (const parallelism of [1, 2, 3]) {
          const expected = parallelism === 1 ? all : untied(all);
          const rows = await collectOnWeir(nexmarkQuery(name), { config, parallelism });
          const actual = parallelism === 1 ? rows : untied(rows);
          expect({ parallelism, ...multisetDiff(expected, actual) }).toEqual({
            parallelism,
            expectedRows: expected.length,
            actualRows: expected.length,
            missing: [],
            unexpected: [],
          });
        }
      });
    }
  }

  it('q12 (processing time) runs to the end and counts every bid once', async () => {
    const config = CONFIGS.dense!;
    const sink = new CollectSink();
    await runOnWeir(nexmarkQuery('q12'), { config, parallelism: 2 }, sink);
    const total = sink.values.reduce(
      (n: number, r) => n + (nexmarkQuery('q12').toRow(r)[1] as number),
      0,
    );
    expect(total).toBe(allBids(config).length);
  });

  it('the blackhole sink consumes every result', async () => {
    const sink = new BlackholeSink();
    await runOnWeir(nexmarkQuery('q0'), { config: { maxEvents: 5_000 } }, sink);
    expect(sink.records).toBe(4_600);
  });

  it('names unknown and pending queries', () => {
    expect(() => nexmarkQuery('q6')).toThrow(/not implemented yet/);
    expect(() => nexmarkQuery('q99')).toThrow(/known: q0, q1/);
    expect(PENDING_QUERIES).toContain('q10');
  });
});
