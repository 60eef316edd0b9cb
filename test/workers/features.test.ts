/**
 * More feature areas run both ways (one thread at parallelism 1, two workers at parallelism 2):
 * joins, changelog operators, async I/O and lookups, count and global windows, the two-phase
 * window aggregation and the file connectors.
 */
import { describe, expect, it } from 'vitest';
import { bothWays, fixture } from './harness.js';

type Both = Awaited<ReturnType<typeof bothWays>>;

/** Every sink got something, and worker mode produced exactly the single-thread output. */
function expectSame(r: Both, nonEmpty: readonly string[]) {
  for (const name of nonEmpty) expect(r.single[name]?.length, name).toBeGreaterThan(0);
  expect(r.workers).toEqual(r.single);
}

describe('worker mode gives the single-thread output', () => {
  it('window join, co-group (sliding and session), interval join, broadcast join, deduplication, top-N', async () => {
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
    ];
    expectSame(await bothWays(fixture('joins.ts'), sinks), sinks);
  });
});
