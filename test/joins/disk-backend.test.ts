/**
 * The joins, deduplication and top-N keep their state in whichever keyed
 * backend the job uses: on the embedded disk store they give what they give
 * on the heap.
 */
import { describe, expect, it } from 'vitest';
import {
  type EnvironmentOptions,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';
import type { Side } from './helpers.js';

function events(count: number): Side[] {
  const random = new DeterministicRandom(11);
  return Array.from({ length: count }, (_, id) => ({
    side: random.next() < 0.5 ? 'L' : 'R',
    k: `k${random.int(7)}`,
    t: id * 3 - random.int(40),
    id,
  }));
}

async function runAll(options: EnvironmentOptions): Promise<Record<string, string[]>> {
  const env = new StreamEnvironment({ batchSize: 16, parallelism: 2, ...options });
  const all = env
    .fromArray(events(600))
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Side>(40).withTimestampAssigner((e) => e.t),
    );
  const left = all.filter((e) => e.side === 'L');
  const right = all.filter((e) => e.side === 'R');
  const windowJoin = left
    .join(right)
    .where((l) => l.k)
    .equalTo((r) => r.k)
    .window(Windows.sliding(60, 20))
    .apply((l, r) => `${l.id}-${r.id}`);
  const sessionJoin = left
    .join(right)
    .where((l) => l.k)
    .equalTo((r) => r.k)
    .window(Windows.session(25))
    .apply((l, r) => `${l.id}-${r.id}`);
  const intervalJoin = left
    .keyBy((l) => l.k)
    .intervalJoin(right.keyBy((r) => r.k))
    .between(-15, 30)
    .join((l, r) => `${l.id}-${r.id}`);
  const dedup = all
    .keyBy((e) => e.k)
    .deduplicate({ keep: 'last', order: 'event-time' })
    .map((c) => `${c.kind} ${c.value.id}`);
  const windowDedup = all
    .keyBy((e) => e.k)
    .windowDeduplicate(Windows.tumbling(50), { keep: 'first' })
    .map((r) => `${r.key} ${r.window.start} ${r.value.id}`);
  const topN = all
    .keyBy((e) => e.k)
    .topN({ n: 3, compare: (a, b) => (b.id % 13) - (a.id % 13), rankNumber: true })
    .map((c) => `${c.kind} #${c.value.rank} ${c.value.row.id}`);
  const windowTopN = all
    .keyBy((e) => e.k)
    .windowTopN(Windows.tumbling(50), { n: 2, compare: (a, b) => b.t - a.t })
    .map((r) => `${r.key} ${r.window.start} #${r.rank} ${r.row.id}`);
  // One job: every operator writes to its own collecting sink.
  const results = [
    ['windowJoin', windowJoin],
    ['sessionJoin', sessionJoin],
    ['intervalJoin', intervalJoin],
    ['dedup', dedup],
    ['windowDedup', windowDedup],
    ['topN', topN],
    ['windowTopN', windowTopN],
  ] as const;
  const sinks = results.map(([name, stream]) => {
    const values: string[] = [];
    stream.sinkTo({
      name,
      accepts: 'retract',
      createWriter: () => ({
        write: (b) => {
          values.push(...b.values);
        },
        close() {},
      }),
    });
    return [name, values] as const;
  });
  await env.execute('joins on a backend');
  return Object.fromEntries(sinks.map(([name, values]) => [name, values.sort()]));
}

describe('joins, deduplication and top-N on the disk backend', () => {
  it('give the same results as on the heap', async () => {
    const heap = await runAll({});
    const disk = await runAll({ stateBackend: { kind: 'disk' } });
    for (const name of Object.keys(heap)) expect(heap[name]!.length, name).toBeGreaterThan(10);
    expect(disk).toEqual(heap);
  });
});
