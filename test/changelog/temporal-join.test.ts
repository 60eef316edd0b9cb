/**
 * Event-time temporal joins (FOR SYSTEM_TIME AS OF probe.time) against a
 * plain-loop lookup of the version valid at each probe's time: a time-line,
 * a property over out-of-order input at parallelism 1 and 2 (inner and
 * left), bounded state, a savepoint, refusals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  DiscardingSink,
  type JobClient,
  StreamEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';
import { withSavepoint } from './helpers.js';

interface Rate {
  readonly cur: string;
  readonly rate: number;
  readonly t: number;
}

interface Order {
  readonly id: number;
  readonly cur: string;
  readonly t: number;
}

const byTime = <T extends { t: number }>(bound: number) =>
  WatermarkStrategy.forBoundedOutOfOrderness<T>(bound).withTimestampAssigner((x) => x.t);

function job(
  parallelism: number,
  rates: readonly Change<Rate>[],
  orders: readonly Order[],
  bound: number,
) {
  const env = new StreamEnvironment({ parallelism, batchSize: 3 });
  const table = env
    .fromArray(rates)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Change<Rate>>(bound).withTimestampAssigner(
        (c) => c.value.t,
      ),
    )
    .asChangelog('retract')
    .materialize((r) => r.cur);
  const probes = env.fromArray(orders).assignTimestampsAndWatermarks(byTime<Order>(bound));
  return { env, table, probes };
}

/** The version of each probe's key valid at its time, by plain loops. */
function oracle(rates: readonly Change<Rate>[], orders: readonly Order[], left: boolean): string[] {
  const out: string[] = [];
  for (const o of orders) {
    let best: Change<Rate> | undefined;
    for (const c of rates) {
      if (c.value.cur !== o.cur || c.value.t > o.t) continue;
      if (best === undefined || c.value.t > best.value.t) best = c;
    }
    const row = best === undefined || best.kind === '-D' ? null : best.value;
    if (row !== null || left) out.push(JSON.stringify([o, row]));
  }
  return out.sort();
}

describe('temporal join', () => {
  it('joins each order with the rate valid at its time', async () => {
    //  USD:  1.0@0 ----- 1.1@10 ----- deleted@20
    //  EUR:        0.9@5
    //  orders: USD@3 EUR@4 USD@10 USD@15 EUR@30 USD@25
    const rates: Change<Rate>[] = [
      { kind: '+I', value: { cur: 'USD', rate: 1.0, t: 0 } },
      { kind: '+I', value: { cur: 'EUR', rate: 0.9, t: 5 } },
      { kind: '-U', value: { cur: 'USD', rate: 1.0, t: 10 } },
      { kind: '+U', value: { cur: 'USD', rate: 1.1, t: 10 } },
      { kind: '-D', value: { cur: 'USD', rate: 1.1, t: 20 } },
    ];
    const orders: Order[] = [
      { id: 1, cur: 'USD', t: 3 },
      { id: 2, cur: 'EUR', t: 4 },
      { id: 3, cur: 'USD', t: 10 },
      { id: 4, cur: 'USD', t: 15 },
      { id: 5, cur: 'EUR', t: 30 },
      { id: 6, cur: 'USD', t: 25 },
    ];
    const render = (rows: readonly (readonly [Order, Rate | null])[]) =>
      rows.map(([o, r]) => `${o.id}:${r === null ? '-' : r.rate}`).sort();
    const inner = job(1, rates, orders, 0);
    const joined = await inner.probes
      .temporalJoin(inner.table, { probeKey: (o) => o.cur })
      .executeAndCollect();
    expect(render(joined)).toEqual(['1:1', '3:1.1', '4:1.1', '5:0.9']);
    const left = job(2, rates, orders, 0);
    const all = await left.probes
      .temporalJoin(left.table, { probeKey: (o) => o.cur, type: 'left' })
      .executeAndCollect();
    expect(render(all)).toEqual(['1:1', '2:-', '3:1.1', '4:1.1', '5:0.9', '6:-']);
  });

  it('a late probe finds the version valid at its time only while that version is kept', async () => {
    //  one timeline:  USD 1@0  2@10  3@20   order@25 (watermark 24)   late orders @15 @22
    //  at watermark 24 only the version from 20 is kept: @15 finds none, @22 finds 3
    type Tagged = { rate: Rate } | { order: Order };
    const script: Tagged[] = [
      { rate: { cur: 'USD', rate: 1, t: 0 } },
      { rate: { cur: 'USD', rate: 2, t: 10 } },
      { rate: { cur: 'USD', rate: 3, t: 20 } },
      { order: { id: 1, cur: 'USD', t: 25 } },
      { order: { id: 2, cur: 'USD', t: 15 } },
      { order: { id: 3, cur: 'USD', t: 22 } },
    ];
    const env = new StreamEnvironment({ batchSize: 1 });
    const timeline = env
      .fromArray(script)
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Tagged>(0).withTimestampAssigner((x) =>
          'rate' in x ? x.rate.t : x.order.t,
        ),
      );
    const table = timeline
      .filter((x) => 'rate' in x)
      .map((x): Change<Rate> => ({ kind: '+I', value: (x as { rate: Rate }).rate }))
      .asChangelog('insert-only')
      .materialize((r) => r.cur);
    const out = await timeline
      .filter((x) => 'order' in x)
      .map((x) => (x as { order: Order }).order)
      .temporalJoin(table, { probeKey: (o) => o.cur, type: 'left' })
      .executeAndCollect();
    expect(out.map(([o, r]) => `${o.id}@${o.t}:${r === null ? '-' : r.rate}`).sort()).toEqual([
      '1@25:3',
      '2@15:-',
      '3@22:3',
    ]);
  });

  it('equals the plain-loop lookup over out-of-order input (inner and left, p=1 and 2)', async () => {
    const BOUND = 8;
    const arb = fc.record({
      // Versions: distinct times per currency; a few are deletions.
      versions: fc.uniqueArray(
        fc.record({
          cur: fc.constantFrom('USD', 'EUR', 'GBP'),
          t: fc.integer({ min: 0, max: 100 }),
          rate: fc.integer({ min: 1, max: 9 }),
          del: fc.boolean(),
          jitter: fc.integer({ min: 0, max: BOUND - 1 }),
        }),
        { selector: (v) => `${v.cur}@${v.t}`, maxLength: 25 },
      ),
      orders: fc.array(
        fc.record({
          cur: fc.constantFrom('USD', 'EUR', 'GBP'),
          t: fc.integer({ min: 0, max: 110 }),
          jitter: fc.integer({ min: 0, max: BOUND - 1 }),
        }),
        { maxLength: 30 },
      ),
      parallelism: fc.constantFrom(1, 2),
      left: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ versions, orders, parallelism, left }) => {
        // Arrival order: by time plus a jitter below the bound, so nothing is late.
        const rates: Change<Rate>[] = [...versions]
          .sort((a, b) => a.t + a.jitter - (b.t + b.jitter))
          .map((v) => ({
            kind: v.del ? '-D' : '+I',
            value: { cur: v.cur, rate: v.rate, t: v.t },
          }));
        const probes: Order[] = orders
          .map((o, id) => ({ ...o, id }))
          .sort((a, b) => a.t + a.jitter - (b.t + b.jitter))
          .map(({ id, cur, t }) => ({ id, cur, t }));
        const j = job(parallelism, rates, probes, BOUND);
        const out = await j.probes
          .temporalJoin(j.table, { probeKey: (o) => o.cur, type: left ? 'left' : 'inner' })
          .executeAndCollect();
        expect(out.map((r) => JSON.stringify(r)).sort()).toEqual(oracle(rates, probes, left));
      }),
      { numRuns: 40 },
    );
  });

  it('keeps state bounded by the watermark: old versions and joined probes leave', async () => {
    const N = 20_000;
    const samples: number[] = [];
    let client: JobClient | undefined;
    const env = new StreamEnvironment({ batchSize: 100 });
    const rates = env
      .fromGenerator({
        count: N,
        generate: (i): Change<Rate> => ({
          kind: '+U',
          value: { cur: `c${i % 10}`, rate: i, t: i },
        }),
      })
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Change<Rate>>(5).withTimestampAssigner(
          (c) => c.value.t,
        ),
      )
      .asChangelog('upsert', (r) => r.cur)
      .materialize((r) => r.cur);
    env
      .fromGenerator({ count: N, generate: (i): Order => ({ id: i, cur: `c${i % 10}`, t: i }) })
      .map((o) => {
        if (o.id % 1_000 === 0 && client !== undefined) {
          samples.push(
            client.metrics
              .samples('weir_state_entries')
              .filter((s) => s.labels.operator === 'rates-join')
              .reduce((a, s) => a + s.value, 0),
          );
        }
        return o;
      })
      .assignTimestampsAndWatermarks(byTime<Order>(5))
      .temporalJoin(rates, { probeKey: (o) => o.cur })
      .uid('rates-join')
      .sinkTo(new DiscardingSink());
    client = env.executeAsync('bounded');
    await client.result;
    expect(samples.length).toBeGreaterThan(10);
    // Per key: a few versions and probes within the watermark lag, plus pending timers.
    expect(Math.max(...samples)).toBeLessThan(2_000);
  });

  it('a run stopped with a savepoint and restored (p=2 -> 1) joins the same rows', async () => {
    const N = 2_000;
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
      readonly [Order, Rate]
    >(
      (parallelism, rate) => {
        const env = new StreamEnvironment({ parallelism, batchSize: 20 });
        const limit = rate === undefined ? {} : { ratePerSecond: rate };
        const table = env
          .fromGenerator({
            count: N,
            ...limit,
            generate: (i): Change<Rate> => ({
              kind: '+U',
              value: { cur: `c${i % 7}`, rate: i, t: i * 2 },
            }),
          })
          .setParallelism(1)
          .uid('rates')
          .assignTimestampsAndWatermarks(
            WatermarkStrategy.forBoundedOutOfOrderness<Change<Rate>>(3).withTimestampAssigner(
              (c) => c.value.t,
            ),
          )
          .uid('rate-times')
          .asChangelog('upsert', (r) => r.cur)
          .materialize((r) => r.cur);
        const changes = env
          .fromGenerator({
            count: N,
            ...limit,
            generate: (i): Order => ({ id: i, cur: `c${(i * 3) % 7}`, t: i * 2 + 1 }),
          })
          .setParallelism(1)
          .uid('orders')
          .assignTimestampsAndWatermarks(byTime<Order>(3))
          .uid('order-times')
          .temporalJoin(table, { probeKey: (o) => o.cur })
          .uid('join')
          .toChangelog();
        return { env, changes };
      },
      { parallelism: 2, restoredParallelism: 1, rate: 4_000 },
    );
    expect(beforeSavepoint).toBeGreaterThan(0);
    expect(beforeSavepoint).toBeLessThan(uninterrupted.length);
    const rows = (cs: typeof restored) => cs.map((c) => JSON.stringify(c.value)).sort();
    expect(rows(restored)).toEqual(rows(uninterrupted));
  });

  it('refuses records without event time and bad options, with clear messages', async () => {
    const env = new StreamEnvironment();
    const table = env
      .fromArray<Change<Rate>>([{ kind: '+I', value: { cur: 'USD', rate: 1, t: 0 } }])
      .asChangelog('retract')
      .materialize((r) => r.cur);
    await expect(
      env
        .fromArray<Order>([{ id: 1, cur: 'USD', t: 0 }])
        .temporalJoin(table, { probeKey: (o) => o.cur })
        .executeAndCollect(),
    ).rejects.toThrow(
      /a temporal join needs event time on both inputs, but a (probe|table) record has none/,
    );
    const probes = new StreamEnvironment().fromArray<Order>([]);
    expect(() => probes.temporalJoin(table, {} as never)).toThrow(
      /temporalJoin\(\) needs probeKey/,
    );
    expect(() =>
      probes.temporalJoin(table, { probeKey: (o) => o.cur, type: 'full' as 'left' }),
    ).toThrow(/type must be 'inner' or 'left', got "full"/);
  });
});
