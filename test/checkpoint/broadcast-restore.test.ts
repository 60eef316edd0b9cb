import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BroadcastElementContext,
  type Collector,
  CollectSink,
  type KeyedBroadcastContext,
  type KeyedBroadcastProcessFunction,
  type KeyedRuntimeContext,
  StreamEnvironment,
  type ValueState,
} from '../../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-broadcast-restore-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Order {
  readonly i: number;
  readonly user: string;
  readonly amount: number;
}
interface Rule {
  readonly user: string;
  readonly limit: number;
}

const USERS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
/** A limit for every user but the last (who is never flagged). */
const RULES: readonly Rule[] = USERS.slice(0, -1).map((user, i) => ({ user, limit: 100 * i + 10 }));
const ORDERS = 900;
/** The first orders are of a user without a rule: every subtask has the rules before they matter. */
const WARM_UP = 150;

function order(i: number): Order {
  return i < WARM_UP
    ? { i, user: 'z', amount: i }
    : { i, user: USERS[i % USERS.length]!, amount: i % 700 };
}

/** Flags orders above their user's limit (broadcast state), numbering each user's violations (keyed state). */
class LimitChecker
  implements KeyedBroadcastProcessFunction<string, Order, Rule, string, string, number>
{
  private violations!: ValueState<number>;
  open(ctx: KeyedRuntimeContext): void {
    this.violations = ctx.state.getValueState<number>('violations');
  }
  processElement(
    o: Order,
    ctx: KeyedBroadcastContext<string, string, number>,
    out: Collector<string>,
  ): void {
    const limit = ctx.broadcastState.get(o.user);
    if (limit === undefined || o.amount <= limit) return;
    const n = (this.violations.value() ?? 0) + 1;
    this.violations.update(n);
    out.collect(`${o.user} #${n}: order ${o.i} of ${o.amount} > ${limit}`);
  }
  processBroadcastElement(rule: Rule, ctx: BroadcastElementContext<string, number>): void {
    ctx.broadcastState.put(rule.user, rule.limit);
  }
}

function job(parallelism: number, sink: CollectSink<string>): StreamEnvironment {
  const env = new StreamEnvironment({ parallelism, batchSize: 10 });
  const rules = env.fromArray(RULES).setParallelism(1).uid('rules');
  env
    .fromGenerator({ count: ORDERS, ratePerSecond: 3_000, generate: order })
    .setParallelism(1)
    .uid('orders')
    .keyBy((o) => o.user)
    .connectBroadcast(rules, new LimitChecker())
    .uid('checker')
    .sinkTo(sink)
    .uid('out');
  return env;
}

/** The same rules and numbering as plain loops over the orders. */
function oracle(): string[] {
  const limits = new Map(RULES.map((r) => [r.user, r.limit]));
  const counts = new Map<string, number>();
  const out: string[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const o = order(i);
    const limit = limits.get(o.user);
    if (limit === undefined || o.amount <= limit) continue;
    const n = (counts.get(o.user) ?? 0) + 1;
    counts.set(o.user, n);
    out.push(`${o.user} #${n}: order ${o.i} of ${o.amount} > ${limit}`);
  }
  return out.sort();
}

describe('broadcast state across a restore', () => {
  it('a savepoint at parallelism 2 restored at 3 keeps applying the rules, as an uninterrupted run', async () => {
    const expected = oracle();
    expect(expected.length).toBeGreaterThan(100);
    const reference = new CollectSink<string>();
    await job(2, reference).execute('reference');
    expect([...reference.values].sort()).toEqual(expected);

    const first = new CollectSink<string>();
    const running = job(2, first).executeAsync('first');
    await sleep(150);
    const savepoint = await running.stopWithSavepoint(join(dir, 'savepoints'));
    const before = [...first.values];

    // The rules' source has ended: after the restore they come only from the broadcast state.
    const second = new CollectSink<string>();
    const restored = await job(3, second).execute('second', { restoreFrom: savepoint });
    expect(restored.status).toBe('finished');
    const after = [...second.values];
    expect(after.length).toBeGreaterThan(0);
    // Every user with a rule still gets flagged after the restore, on whichever of the 3 subtasks.
    for (const { user } of RULES) expect(after.some((l) => l.startsWith(`${user} `))).toBe(true);
    expect([...before, ...after].sort()).toEqual(expected);
  });
});
