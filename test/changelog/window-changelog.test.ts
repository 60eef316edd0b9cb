/**
 * Window results as a changelog: the first firing is +I, a late update
 * -U previous / +U new (or +U in upsert mode); per (key, window) the
 * changes follow the plain window results one to one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  DiscardingSink,
  type JobClient,
  StreamEnvironment,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import { bounded, type CountSum, countSum, type Ev, env1, ev } from '../helpers/timeline.js';
import { materialize, materializeUpserts, perKey, render, withSavepoint } from './helpers.js';

const windowOf = (r: WindowResult<string, CountSum>) => `${r.key}@${r.window.start}`;

describe('window changelog', () => {
  it('a late update within the allowed lateness retracts the first result', async () => {
    //  t:   0    5    10   15
    //  a:   1 3  .    |   15      watermark 15 closes [0,10); a@5 arrives late
    const input = [ev('a', 1), ev('a', 3), ev('a', 15), ev('a', 5, 10)];
    const env = env1();
    const out = await env
      .fromArray(input)
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .allowedLateness(20)
      .aggregateChanges(countSum)
      .executeAndCollect();
    const first = (c: Change<WindowResult<string, CountSum>>) =>
      `${c.kind} ${windowOf(c.value)} ${c.value.value.count}/${c.value.value.sum} ${c.value.timing}`;
    expect(out.map(first)).toEqual([
      '+I a@0 2/2 on-time',
      '-U a@0 2/2 on-time',
      '+U a@0 3/12 late',
      '+I a@10 1/1 on-time',
    ]);
  });

  it('follows the plain window results one to one (shuffled, late input; retract and upsert; p=1 and 2)', async () => {
    const eventArb = fc.record({
      k: fc.constantFrom('a', 'b', 'c'),
      t: fc.integer({ min: 0, max: 200 }),
      v: fc.integer({ min: 1, max: 9 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(1, 2),
        fc.constantFrom<'retract' | 'upsert'>('retract', 'upsert'),
        async (events: Ev[], parallelism, mode) => {
          const job = () =>
            env1(parallelism)
              .fromArray(events)
              .assignTimestampsAndWatermarks(bounded(10))
              .keyBy((e) => e.k)
              .window(Windows.tumbling(20))
              .allowedLateness(40);
          const plain = await job().aggregate(countSum).executeAndCollect();
          const changes = await job().aggregateChanges(countSum, mode).executeAndCollect();
          // Oracle: per window, the sequence of plain results turned into changes.
          const expected: Change<WindowResult<string, CountSum>>[] = [];
          const last = new Map<string, WindowResult<string, CountSum>>();
          for (const r of plain) {
            const prev = last.get(windowOf(r));
            last.set(windowOf(r), r);
            if (prev === undefined) expected.push({ kind: '+I', value: r });
            else {
              if (mode === 'retract') expected.push({ kind: '-U', value: prev });
              expected.push({ kind: '+U', value: r });
            }
          }
          const byWindow = (cs: Change<WindowResult<string, CountSum>>[]) => {
            const m = new Map<string, string[]>();
            for (const c of cs)
              m.set(windowOf(c.value), [...(m.get(windowOf(c.value)) ?? []), ...render([c])]);
            return m;
          };
          expect(byWindow(changes)).toEqual(byWindow(expected));
          const finals = [...last.values()].map((r) => JSON.stringify(r)).sort();
          if (mode === 'retract') expect(materialize(changes)).toEqual(finals);
          else expect(materializeUpserts(changes, windowOf)).toEqual(finals);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('forgets a window once the watermark passes its end plus the allowed lateness', async () => {
    const N = 20_000;
    const samples: number[] = [];
    let job: JobClient | undefined;
    const env = new StreamEnvironment({ batchSize: 100 });
    env
      .fromGenerator({ count: N, generate: (i): Ev => ({ k: `k${i % 50}`, t: i, v: 1 }) })
      .map((e) => {
        if (e.t % 1_000 === 0 && job !== undefined) {
          samples.push(
            job.metrics
              .samples('weir_state_entries')
              .filter((s) => s.labels.operator === 'window-changes')
              .reduce((a, s) => a + s.value, 0),
          );
        }
        return e;
      })
      .assignTimestampsAndWatermarks(bounded(10))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(100))
      .allowedLateness(200)
      .aggregateChanges(countSum)
      .uid('window-changes')
      .sinkTo(new DiscardingSink());
    job = env.executeAsync('window state');
    await job.result;
    expect(samples.length).toBeGreaterThan(10);
    // 50 keys x (windows within end + lateness of the watermark, plus their timers): flat, not N / 100 x 50.
    expect(Math.max(...samples)).toBeLessThan(1_000);
    expect(Math.max(...samples.slice(samples.length / 2))).toBeLessThanOrEqual(
      Math.max(...samples.slice(0, samples.length / 2)) + 100,
    );
  });

  it('a run stopped with a savepoint and restored (p=1 -> 2) emits the same window changes', async () => {
    const N = 3_000;
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
      WindowResult<string, CountSum>
    >(
      (parallelism, rate) => {
        const env = new StreamEnvironment({ parallelism, batchSize: 20 });
        const changes = env
          .fromGenerator({
            count: N,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            // Every 10th record is 300 ms late: within the allowed lateness, an update.
            generate: (i): Ev => ({
              k: `k${i % 5}`,
              t: i * 10 - (i % 10 === 9 ? 300 : 0),
              v: i % 4,
            }),
          })
          .setParallelism(1)
          .uid('events')
          .assignTimestampsAndWatermarks(bounded(20))
          .uid('times')
          .keyBy((e) => e.k)
          .window(Windows.tumbling(200))
          .allowedLateness(1_000)
          .aggregateChanges(countSum)
          .uid('window-changes');
        return { env, changes };
      },
      { parallelism: 1, restoredParallelism: 2, rate: 6_000 },
    );
    expect(beforeSavepoint).toBeGreaterThan(0);
    expect(beforeSavepoint).toBeLessThan(uninterrupted.length);
    expect(uninterrupted.some((c) => c.kind === '-U')).toBe(true);
    const byWindow = (cs: Change<WindowResult<string, CountSum>>[]) => perKey(cs, windowOf);
    expect(byWindow(restored)).toEqual(byWindow(uninterrupted));
  });
});
