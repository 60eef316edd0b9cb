import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  type KeyedProcessFunction,
  StreamEnvironment,
  type ValueState,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-rescale-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function committedLines(out: string): Promise<string[]> {
  const files = (await readdir(out)).filter((f) => !f.startsWith('.'));
  const lines: string[] = [];
  for (const f of files)
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  return lines.sort();
}

interface Order {
  readonly user: string;
  readonly amount: number;
  readonly time: number;
}

/** Counts orders per user in keyed state, emitting every fifth count. */
const milestones: KeyedProcessFunction<string, Order, string> & { count?: ValueState<number> } = {
  open(ctx) {
    this.count = ctx.state.getValueState<number>('count');
  },
  processElement(order, ctx, out) {
    const n = (this.count!.value() ?? 0) + 1;
    this.count!.update(n);
    if (n % 5 === 0) out.collect(`${ctx.key} #${n} at ${order.time}`);
  },
};

type Backend = 'heap' | 'disk';

/** Keyed reduce, keyed process state, sliding and session windows, all written exactly once. */
function job(
  parallelism: number,
  out: string,
  rate?: number,
  backend?: Backend,
): StreamEnvironment {
  const env = new StreamEnvironment({
    parallelism,
    batchSize: 50,
    ...(backend === undefined ? {} : { stateBackend: { kind: backend } }),
  });
  const orders = env
    .fromGenerator({
      count: 12_000,
      ...(rate === undefined ? {} : { ratePerSecond: rate }),
      generate: (i): Order => ({ user: `u${i % 37}`, amount: i % 11, time: i * 10 - (i % 7) * 30 }),
    })
    .setParallelism(1)
    .uid('orders')
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Order>(100).withTimestampAssigner((o) => o.time),
    )
    .uid('watermarks');
  orders
    .keyBy((o) => o.user)
    .reduce((a, b) => ({ user: a.user, amount: a.amount + b.amount, time: b.time }))
    .uid('totals')
    .map((t) => `total ${t.user} ${t.amount}`)
    .sinkTo(new ExactlyOnceFileSink({ directory: out, prefix: 'totals' }))
    .uid('sink');
  orders
    .keyBy((o) => o.user)
    .process(milestones)
    .uid('milestones')
    .sinkTo(new ExactlyOnceFileSink({ directory: out, prefix: 'milestones' }))
    .uid('milestones-sink');
  orders
    .keyBy((o) => o.user)
    .window(Windows.sliding(1000, 500))
    .aggregate({
      createAccumulator: () => 0,
      add: (o, sum) => sum + o.amount,
      getResult: (sum) => sum,
      merge: (a, b) => a + b,
    })
    .uid('window-sums')
    .map((r) => `window ${r.key} ${r.window.start} ${r.value} ${r.timing} ${r.isUpdate}`)
    .sinkTo(new ExactlyOnceFileSink({ directory: out, prefix: 'windows' }))
    .uid('windows-sink');
  orders
    .keyBy((o) => o.user)
    .window(Windows.session(380))
    .reduce((a, b) => ({ user: a.user, amount: a.amount + b.amount, time: b.time }))
    .uid('sessions')
    .map((r) => `session ${r.key} ${r.window.start} ${r.window.end} ${r.value.amount}`)
    .sinkTo(new ExactlyOnceFileSink({ directory: out, prefix: 'sessions' }))
    .uid('sessions-sink');
  return env;
}

describe('rescaling from savepoints', () => {
  it.each(['heap', 'disk'] as const)(
    '1 -> 4 -> 2 subtasks with the %s backend gives the same results as never rescaling',
    async (backend) => {
      const reference = join(dir, 'reference');
      await job(1, reference).execute('reference');
      const expected = await committedLines(reference);
      expect(expected.length).toBeGreaterThan(12_000);

      const out = join(dir, 'out');
      const first = job(1, out, 8_000, backend).executeAsync('p1');
      await sleep(120);
      const sp1 = await first.stopWithSavepoint(join(dir, 'sp1'));

      const second = job(4, out, 8_000, backend).executeAsync('p4', { restoreFrom: sp1 });
      await sleep(120);
      const sp2 = await second.stopWithSavepoint(join(dir, 'sp2'));

      const third = job(2, out, undefined, backend).executeAsync('p2', { restoreFrom: sp2 });
      const result = await third.result;
      expect(result.status).toBe('finished');
      const got = await committedLines(out);
      if (process.env.WEIR_DEBUG_RESCALE) {
        const count = (xs: string[]) => {
          const m = new Map<string, number>();
          for (const x of xs) m.set(x.split(' ')[0]!, (m.get(x.split(' ')[0]!) ?? 0) + 1);
          return m;
        };
        console.log('expected', count(expected), 'got', count(got));
      }
      expect(got).toEqual(expected);
    },
  );

  it('explains a checkpoint that does not fit the job', async () => {
    const out = join(dir, 'o');
    const running = job(1, out, 20_000).executeAsync('p1');
    await sleep(80);
    const sp = await running.stopWithSavepoint(join(dir, 'sp'));
    const renamed = new StreamEnvironment();
    renamed
      .fromGenerator({ count: 10, generate: (i) => i })
      .uid('orders')
      .keyBy((x) => x)
      .reduce((a, b) => a + b)
      .uid('renamed-totals');
    renamed.fromGenerator({ count: 1, generate: (i) => i }).uid('watermarks');
    await expect(renamed.execute('x', { restoreFrom: sp })).rejects.toThrow(
      /state for operator ids the job does not have: 'totals'/,
    );
    const otherMax = new StreamEnvironment({ maxParallelism: 64 });
    otherMax.fromGenerator({ count: 1, generate: (i) => i }).uid('orders');
    await expect(otherMax.execute('x', { restoreFrom: sp })).rejects.toThrow(/maxParallelism 128/);
  });
});
