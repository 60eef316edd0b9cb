/**
 * The changelog operators keep their state in whichever keyed backend the
 * job uses: on the embedded disk store they give what they give on the heap.
 */
import { describe, expect, it } from 'vitest';
import {
  type Change,
  type EnvironmentOptions,
  type RetractableAggregateFunction,
  StreamEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { materialize, type TableOp, tableHistory } from './helpers.js';

interface Item {
  readonly id: number;
  readonly group: number;
  readonly n: number;
  readonly t: number;
}

function ops(seed: number, count: number): TableOp<Item>[] {
  const random = new DeterministicRandom(seed);
  const out: TableOp<Item>[] = [];
  for (let i = 0; i < count; i++) {
    const id = Math.floor(random.next() * 40);
    if (random.next() < 0.25) out.push({ op: 'delete', id });
    else
      out.push({
        op: 'upsert',
        row: { id, group: Math.floor(random.next() * 6), n: Math.floor(random.next() * 9), t: i },
      });
  }
  return out;
}

const maxN: RetractableAggregateFunction<Item, number, number> = {
  createAccumulator: () => -1,
  add: (item, acc) => Math.max(acc, item.n),
  getResult: (acc) => acc,
};

async function runAll(options: EnvironmentOptions) {
  const left = tableHistory(ops(1, 300), (r) => r.id).changes;
  const right = tableHistory(ops(2, 200), (r) => r.id).changes;
  const env = new StreamEnvironment({ batchSize: 16, parallelism: 2, ...options });
  const l = env.fromArray(left).asChangelog('retract');
  const r = env.fromArray(right).asChangelog('retract');
  const joined = l
    .regularJoin(r, {
      type: 'full',
      leftKey: (x) => x.group,
      rightKey: (x) => x.group,
      where: (a, b) => a.n >= b.n,
      ttl: 3_600_000,
    })
    .executeAndCollect();
  // Insert-only inputs (rows appended, duplicates included) take the other storage path.
  const envA = new StreamEnvironment({ batchSize: 16, parallelism: 2, ...options });
  const inserted = (changes: Change<Item>[]) =>
    envA.fromArray(changes.filter((c) => c.kind === '+I')).asChangelog('insert-only');
  const appended = inserted(left)
    .regularJoin(inserted(right), {
      type: 'left',
      leftKey: (x) => x.group,
      rightKey: (x) => x.group,
      where: (a, b) => a.n >= b.n,
      ttl: 3_600_000,
    })
    .executeAndCollect();
  const env2 = new StreamEnvironment({ batchSize: 16, parallelism: 2, ...options });
  const maxes = env2
    .fromArray(left)
    .asChangelog('retract')
    .groupBy((x) => x.group)
    .updatingAggregate(maxN)
    .executeAndCollect();
  const env3 = new StreamEnvironment({ batchSize: 16, parallelism: 2, ...options });
  const stamp = (c: Change<Item>) => c.value.t;
  const table = env3
    .fromArray(right)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Change<Item>>(0).withTimestampAssigner(stamp),
    )
    .asChangelog('retract')
    .materialize((x) => x.id);
  const temporal = env3
    .fromArray(left.filter((c) => c.kind === '+I').map((c) => c.value))
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Item>(0).withTimestampAssigner((x) => x.t),
    )
    .temporalJoin(table, { probeKey: (x) => x.id, type: 'left' })
    .executeAndCollect();
  return {
    joined: materialize(await joined),
    appended: materialize(await appended),
    maxes: materialize(await maxes),
    temporal: (await temporal).map((x) => JSON.stringify(x)).sort(),
  };
}

describe('changelog operators on the disk backend', () => {
  it('give the same results as on the heap', async () => {
    const heap = await runAll({});
    const disk = await runAll({ stateBackend: { kind: 'disk' } });
    expect(heap.joined.length).toBeGreaterThan(10);
    expect(heap.appended.length).toBeGreaterThan(100);
    expect(heap.maxes.length).toBeGreaterThan(0);
    expect(heap.temporal.length).toBeGreaterThan(10);
    expect(disk).toEqual(heap);
  });
});
