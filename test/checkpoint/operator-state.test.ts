import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CollectSink,
  type KeyedBroadcastProcessFunction,
  type ListState,
  type ProcessFunction,
  StreamEnvironment,
} from '../../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-opstate-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Order {
  readonly user: string;
  readonly amount: number;
}
interface Rule {
  readonly user: string;
  readonly limit: number;
}

describe('broadcast state', () => {
  it('rules pushed to every subtask are applied to keyed records, at parallelism 1 and 3', async () => {
    const run = async (parallelism: number) => {
      const env = new StreamEnvironment({ parallelism, batchSize: 4 });
      // Rules arrive at once; orders are rate-limited, so their first batch comes
      // tens of milliseconds later: every subtask has the rules before any order.
      const rules = env.fromArray<Rule>([
        { user: 'a', limit: 10 },
        { user: 'b', limit: 100 },
      ]);
      const orders = env
        .fromGenerator({
          count: 60,
          ratePerSecond: 2000,
          generate: (i) => ({ user: ['a', 'b', 'c'][i % 3]!, amount: i }),
        })
        .setParallelism(1)
        .map((o) => o)
        .filter(() => true);
      const checker: KeyedBroadcastProcessFunction<string, Order, Rule, string, string, number> = {
        processElement(order, ctx, out) {
          const limit = ctx.broadcastState.get(order.user);
          if (limit !== undefined && order.amount > limit)
            out.collect(`${order.user}:${order.amount}`);
        },
        processBroadcastElement(rule, ctx) {
          ctx.broadcastState.put(rule.user, rule.limit);
        },
      };
      const out = await orders
        .keyBy((o) => o.user)
        .connectBroadcast(rules, checker)
        .executeAndCollect();
      return out.sort();
    };
    const one = await run(1);
    // Orders of 'a' above 10 (not 'b': amounts stay below 100; 'c' has no rule).
    expect(one).toEqual(
      Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => i % 3 === 0 && i > 10)
        .map((i) => `a:${i}`)
        .sort(),
    );
    expect(await run(3)).toEqual(one);
  });
});

describe('operator list state', () => {
  it('is redistributed on rescale (list) or given whole to every subtask (union)', async () => {
    const seen: { subtask: number; list: number[]; union: number[] }[] = [];
    const fn = (
      record: boolean,
    ): ProcessFunction<number, number> & {
      list?: ListState<number>;
      union?: ListState<number>;
      index?: number;
    } => ({
      open(ctx) {
        this.list = ctx.operatorState.getListState<number>('offsets');
        this.union = ctx.operatorState.getUnionListState<number>('all');
        this.index = ctx.subtaskIndex;
        if (!record)
          seen.push({
            subtask: ctx.subtaskIndex,
            list: [...this.list.get()],
            union: [...this.union.get()],
          });
      },
      processElement(value, _ctx, out) {
        if (record) {
          this.list!.add(value);
          this.union!.add(value * 10);
        }
        out.collect(value);
      },
    });
    const first = new StreamEnvironment({ parallelism: 2 });
    first
      .fromGenerator({ count: 1_000_000, ratePerSecond: 200, generate: (i) => i })
      .uid('numbers')
      .process(fn(true))
      .uid('stateful')
      .sinkTo(new CollectSink());
    const job = first.executeAsync('first');
    await sleep(300);
    const savepoint = await job.stopWithSavepoint(join(dir, 'sp'));

    const second = new StreamEnvironment({ parallelism: 3 });
    second
      .fromGenerator({ count: 0, generate: (i) => i })
      .setParallelism(2)
      .uid('numbers')
      .process(fn(false))
      .setParallelism(3)
      .uid('stateful')
      .sinkTo(new CollectSink());
    await second.execute('second', { restoreFrom: savepoint });

    expect(seen).toHaveLength(3);
    const lists = seen.flatMap((s) => s.list).sort((a, b) => a - b);
    const unions = seen.map((s) => s.union.slice().sort((a, b) => a - b));
    expect(lists.length).toBeGreaterThan(0);
    // Every list entry went to exactly one subtask; every subtask got the whole union.
    expect(unions[0]).toEqual(lists.map((v) => v * 10));
    expect(unions[1]).toEqual(unions[0]);
    expect(unions[2]).toEqual(unions[0]);
  });
});
