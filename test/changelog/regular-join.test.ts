/**
 * Regular joins on changelog inputs against a nested-loop join of the final
 * tables: inner, left, right and full, with updates and deletes on both
 * sides, at parallelism 1 and 2; the outer-join retraction time-line; output
 * timestamps; build-time refusals; bounded state under a TTL; sides kept by a unique key
 * (a +U alone replaces its row, also of rows restored from before); savepoints.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  type Collector,
  CollectSink,
  DiscardingSink,
  type JobClient,
  type JoinType,
  StreamEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';
import { materialize, render, type TableOp, tableHistory, withSavepoint } from './helpers.js';

interface Order {
  readonly id: number;
  readonly user: number;
  readonly amount: number;
}

interface User {
  readonly uid: number;
  readonly name: string;
}

type Op<T> = TableOp<T>;

/** A generator source at parallelism 1 under a stable uid, limited to `rate` records/s if set. */
function generated<T>(
  env: StreamEnvironment,
  name: string,
  count: number,
  rate: number | undefined,
  generate: (i: number) => T,
) {
  return env
    .fromGenerator({ count, ...(rate === undefined ? {} : { ratePerSecond: rate }), generate })
    .setParallelism(1)
    .uid(name);
}

/** The join of two tables by nested loops, with null padding for outer joins. */
function nestedLoopJoin(
  orders: readonly Order[],
  users: readonly User[],
  type: JoinType,
  where: (o: Order, u: User) => boolean,
): string[] {
  const out: string[] = [];
  const matched = new Set<User>();
  for (const o of orders) {
    let any = false;
    for (const u of users) {
      if (o.user !== u.uid || !where(o, u)) continue;
      any = true;
      matched.add(u);
      out.push(JSON.stringify([o, u]));
    }
    if (!any && (type === 'left' || type === 'full')) out.push(JSON.stringify([o, null]));
  }
  if (type === 'right' || type === 'full') {
    for (const u of users) if (!matched.has(u)) out.push(JSON.stringify([null, u]));
  }
  return out.sort();
}

const orderOps: fc.Arbitrary<Op<Order>> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('upsert' as const),
      row: fc.record({
        id: fc.integer({ min: 0, max: 10 }),
        user: fc.integer({ min: 0, max: 4 }),
        amount: fc.integer({ min: 1, max: 5 }),
      }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      id: fc.integer({ min: 0, max: 10 }),
    }),
  },
);
const userOps: fc.Arbitrary<Op<User>> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('upsert' as const),
      row: fc.record({ uid: fc.integer({ min: 0, max: 4 }), name: fc.constantFrom('a', 'b', 'c') }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      id: fc.integer({ min: 0, max: 4 }),
    }),
  },
);

describe('regular join', () => {
  it('materializes to the nested-loop join of the final tables (every type, updates and deletes, p=1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderOps, { maxLength: 40 }),
        fc.array(userOps, { maxLength: 25 }),
        fc.constantFrom<JoinType>('inner', 'left', 'right', 'full'),
        fc.constantFrom(1, 2),
        fc.boolean(),
        fc.constantFrom<'retract' | 'upsert'>('retract', 'upsert'),
        async (oOps, uOps, type, parallelism, filtered, inputMode) => {
          const orders = tableHistory(oOps, (o) => o.id);
          const users = tableHistory(uOps, (u) => u.uid);
          const where = filtered
            ? (o: Order, u: User) => o.amount > 1 || u.name !== 'a'
            : () => true;
          const env = new StreamEnvironment({ parallelism, batchSize: 3 });
          // As upserts, an update is only its +U: the join must retract the row it replaces.
          const input = <T>(changes: Change<T>[], id: (row: T) => number) =>
            inputMode === 'retract'
              ? env.fromArray(changes).asChangelog('retract')
              : env.fromArray(changes.filter((c) => c.kind !== '-U')).asChangelog('upsert', id);
          const joined = input(orders.changes, (o) => o.id).regularJoin(
            input(users.changes, (u) => u.uid),
            {
              type,
              leftKey: (o) => o.user,
              rightKey: (u) => u.uid,
              ...(filtered ? { where } : {}),
              ttl: 3_600_000,
            },
          );
          expect(joined.mode).toBe('retract');
          const out = await joined.executeAndCollect();
          // materialize() also fails on any retraction of a row that was never emitted.
          expect(materialize(out)).toEqual(nestedLoopJoin(orders.final, users.final, type, where));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('sides kept by a unique key (users by the join key, without -U; orders by id) materialize to the nested-loop join', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderOps, { maxLength: 40 }),
        fc.array(userOps, { maxLength: 25 }),
        fc.constantFrom<JoinType>('inner', 'left', 'right', 'full'),
        fc.constantFrom(1, 2),
        async (oOps, uOps, type, parallelism) => {
          const orders = tableHistory(oOps, (o) => o.id);
          const users = tableHistory(uOps, (u) => u.uid);
          const env = new StreamEnvironment({ parallelism, batchSize: 3 });
          // A user's key is the join key: a +U alone must replace the user's row. An order may
          // move to another user, so it keeps its -U, which removes it by its id.
          const joined = env
            .fromArray(orders.changes)
            .asChangelog('retract')
            .regularJoin(
              env.fromArray(users.changes.filter((c) => c.kind !== '-U')).asChangelog('retract'),
              {
                type,
                leftKey: (o) => o.user,
                rightKey: (u) => u.uid,
                uniqueKeys: { left: (o) => o.id, right: (u) => u.uid },
                ttl: 3_600_000,
              },
            );
          const out = await joined.executeAndCollect();
          expect(materialize(out)).toEqual(
            nestedLoopJoin(orders.final, users.final, type, () => true),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('insert-only inputs (rows appended, duplicates kept) materialize to the nested-loop join, alone or with a changelog side', async () => {
    const order = fc.record({
      id: fc.integer({ min: 0, max: 3 }),
      user: fc.integer({ min: 0, max: 4 }),
      amount: fc.integer({ min: 1, max: 3 }),
    });
    const user = fc.record({
      uid: fc.integer({ min: 0, max: 4 }),
      name: fc.constantFrom<string>('a', 'b'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(order, { maxLength: 30 }),
        fc.array(userOps, { maxLength: 20 }),
        fc.array(user, { maxLength: 20 }),
        fc.constantFrom<JoinType>('inner', 'left', 'right', 'full'),
        fc.constantFrom(1, 2),
        fc.boolean(),
        fc.boolean(),
        async (orders, uOps, insertedUsers, type, parallelism, usersInsertOnly, withTtl) => {
          const env = new StreamEnvironment({ parallelism, batchSize: 3 });
          const history = tableHistory(uOps, (u) => u.uid);
          const users = usersInsertOnly
            ? env.fromArray(insertedUsers).toChangelog()
            : env.fromArray(history.changes).asChangelog('retract');
          const where = (o: Order, u: User) => o.amount > 1 || u.name !== 'a';
          const joined = env
            .fromArray(orders)
            .toChangelog()
            .regularJoin(users, {
              type,
              leftKey: (o) => o.user,
              rightKey: (u) => u.uid,
              where,
              ...(withTtl ? { ttl: 3_600_000 } : { unboundedState: true }),
            });
          expect(joined.mode).toBe(type === 'inner' && usersInsertOnly ? 'insert-only' : 'retract');
          const out = await joined.executeAndCollect();
          const finalUsers = usersInsertOnly ? insertedUsers : history.final;
          expect(materialize(out)).toEqual(nestedLoopJoin(orders, finalUsers, type, where));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('an insert-only side refuses a retraction with an error naming it', async () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    // Declared insert-only but carrying a delete: the declaration is checked before the join.
    const orders = env
      .fromArray<Change<Order>>([{ kind: '-D', value: { id: 1, user: 1, amount: 1 } }])
      .asChangelog('insert-only');
    const users = env.fromArray<User>([{ uid: 1, name: 'a' }]).toChangelog();
    const joined = orders.regularJoin(users, {
      leftKey: (o) => o.user,
      rightKey: (u) => u.uid,
      unboundedState: true,
    });
    await expect(joined.executeAndCollect()).rejects.toThrow(/insert-only changelog record/);
  });

  it('outer join time-line: padded row, retracted by the first match, restored when the last match goes', async () => {
    //  left:   l1(k=1)                     retract-free
    //  right:           r1(k=1)   r2(k=1)   -D r1   -D r2
    const l1 = { id: 1, user: 1, amount: 5 };
    const r1 = { uid: 1, name: 'a' };
    const r2 = { uid: 1, name: 'b' };
    const env = new StreamEnvironment({ batchSize: 1 });
    // One source of tagged changes split in two keeps the order of the time-line exact.
    type Tagged = { side: 'l'; c: Change<Order> } | { side: 'r'; c: Change<User> };
    const script: Tagged[] = [
      { side: 'l', c: { kind: '+I', value: l1 } },
      { side: 'r', c: { kind: '+I', value: r1 } },
      { side: 'r', c: { kind: '+I', value: r2 } },
      { side: 'r', c: { kind: '-D', value: r1 } },
      { side: 'r', c: { kind: '-D', value: r2 } },
    ];
    const source = env.fromArray(script);
    const left = source
      .filter((t) => t.side === 'l')
      .map((t) => t.c as Change<Order>)
      .asChangelog('retract');
    const right = source
      .filter((t) => t.side === 'r')
      .map((t) => t.c as Change<User>)
      .asChangelog('retract');
    const out = await left
      .regularJoin(right, {
        type: 'left',
        leftKey: (o) => o.user,
        rightKey: (u) => u.uid,
        unboundedState: true,
      })
      .executeAndCollect();
    expect(render(out)).toEqual([
      '+I [{"id":1,"user":1,"amount":5},null]',
      '-D [{"id":1,"user":1,"amount":5},null]',
      '+I [{"id":1,"user":1,"amount":5},{"uid":1,"name":"a"}]',
      '+I [{"id":1,"user":1,"amount":5},{"uid":1,"name":"b"}]',
      '-D [{"id":1,"user":1,"amount":5},{"uid":1,"name":"a"}]',
      '-D [{"id":1,"user":1,"amount":5},{"uid":1,"name":"b"}]',
      '+I [{"id":1,"user":1,"amount":5},null]',
    ]);
  });

  it('an inner join of insert-only inputs is insert-only, stamped with the later of the two times (out-of-order, late input)', async () => {
    interface Ev {
      readonly k: number;
      readonly t: number;
    }
    const lefts: Ev[] = [
      { k: 1, t: 50 },
      { k: 2, t: 5 },
      { k: 1, t: 3 },
    ];
    const rights: Ev[] = [
      { k: 1, t: 40 },
      { k: 2, t: 90 },
      { k: 1, t: 1 },
    ];
    const strategy = WatermarkStrategy.forBoundedOutOfOrderness<Ev>(0).withTimestampAssigner(
      (e) => e.t,
    );
    for (const parallelism of [1, 2]) {
      const env = new StreamEnvironment({ parallelism, batchSize: 1 });
      const joined = env
        .fromArray(lefts)
        .assignTimestampsAndWatermarks(strategy)
        .toChangelog()
        .regularJoin(env.fromArray(rights).assignTimestampsAndWatermarks(strategy).toChangelog(), {
          leftKey: (e) => e.k,
          rightKey: (e) => e.k,
          ttl: { left: 60_000, right: 60_000 },
        });
      expect(joined.mode).toBe('insert-only');
      const sink = new CollectSink<Change<readonly [Ev, Ev]>>();
      joined.sinkTo(sink);
      await env.execute('times');
      const got = sink.values
        .map((c, i) => `${c.kind} ${c.value[0].t}/${c.value[1].t} @${sink.timestamps[i]}`)
        .sort();
      expect(got).toEqual(
        ['+I 50/40 @50', '+I 50/1 @50', '+I 3/40 @40', '+I 3/1 @3', '+I 5/90 @90'].sort(),
      );
    }
  });

  it("passes on the minimum of its inputs' watermarks", async () => {
    // One source split in two; the right side's watermark lags 1,000 ms behind the left's.
    const N = 400;
    const env = new StreamEnvironment({ batchSize: 1 });
    const events = env.fromArray(Array.from({ length: N }, (_, i) => ({ k: i % 10, t: i * 10 })));
    const side = (bound: number) =>
      events
        .map((e) => ({ ...e }))
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forBoundedOutOfOrderness<{ k: number; t: number }>(
            bound,
          ).withTimestampAssigner((e) => e.t),
        )
        .toChangelog();
    const seen: number[] = [];
    await side(0)
      .regularJoin(side(1_000), {
        leftKey: (e) => e.k,
        rightKey: (e) => e.k,
        unboundedState: true,
      })
      .process<number>({
        processElement(_change, ctx) {
          seen.push(ctx.timerService.currentWatermark());
        },
      })
      .executeAndCollect();
    const maxTime = (N - 1) * 10;
    expect(Math.max(...seen)).toBeGreaterThan(maxTime / 2);
    expect(Math.max(...seen)).toBeLessThanOrEqual(maxTime - 1_000 - 1);
  });

  it('is refused without a state TTL or an explicit unbounded opt-in', () => {
    const env = new StreamEnvironment();
    const a = env.fromArray([{ k: 1 }]).toChangelog();
    const b = env.fromArray([{ k: 1 }]).toChangelog();
    const keys = { leftKey: (x: { k: number }) => x.k, rightKey: (x: { k: number }) => x.k };
    expect(() => a.regularJoin(b, keys)).toThrow(
      'regularJoin() keeps every row of its inputs in state, and no state TTL is set for both inputs: set ttl (e.g. { ttl: 3_600_000 } or { ttl: { left: ..., right: ... } }), or unboundedState: true to keep rows forever',
    );
    expect(() => a.regularJoin(b, { ...keys, ttl: { left: 1_000 } })).toThrow(
      /no state TTL is set for the right input/,
    );
    expect(() =>
      a.regularJoin(b, { ...keys, ttl: { left: 1_000 }, unboundedState: true }),
    ).not.toThrow();
    expect(() => a.regularJoin(b, { ...keys, ttl: 0 })).toThrow(
      /regularJoin\(\) left: ttl must be a positive number of milliseconds, got 0/,
    );
    expect(() =>
      a.regularJoin(b, { ...keys, ttl: 1, type: 'outer' as unknown as JoinType }),
    ).toThrow(/type must be 'inner', 'left', 'right' or 'full', got "outer"/);
  });
});

describe('regular join state', () => {
  it('with a TTL, keyed state stays flat over a long run of ever-new keys (without one it grows)', async () => {
    const N = 30_000;
    const run = async (ttl: boolean) => {
      let now = 0;
      const samples: { at: number; entries: number }[] = [];
      let job: JobClient | undefined;
      const env = new StreamEnvironment({ batchSize: 100, clock: { now: () => now } });
      const gen = (side: number) =>
        env
          .fromGenerator({ count: N, generate: (i) => ({ k: Math.floor(i / 4), side, i }) })
          .map((e) => {
            now = Math.max(now, e.i); // processing time advances 1 ms per record
            // Single-threaded runtime: the join's state gauge can be read right here.
            if (side === 0 && e.i % 500 === 0 && job !== undefined) {
              const entries = job.metrics
                .samples('weir_state_entries')
                .filter((s) => s.labels.operator === 'join')
                .reduce((a, s) => a + s.value, 0);
              samples.push({ at: e.i, entries });
            }
            return e;
          })
          .toChangelog();
      gen(0)
        .regularJoin(gen(1), {
          leftKey: (e) => e.k,
          rightKey: (e) => e.k,
          ...(ttl ? { ttl: 500 } : { unboundedState: true }),
        })
        .uid('join')
        .sinkTo(new DiscardingSink());
      job = env.executeAsync(ttl ? 'ttl' : 'unbounded');
      await job.result;
      return samples;
    };
    const bounded = await run(true);
    const unbounded = await run(false);
    const late = (s: { at: number; entries: number }[]) => s.filter((x) => x.at > N / 2);
    const early = (s: { at: number; entries: number }[]) => s.filter((x) => x.at <= N / 2);
    expect(late(bounded).length).toBeGreaterThan(3);
    expect(early(bounded).length).toBeGreaterThan(3);
    const maxLate = Math.max(...late(bounded).map((s) => s.entries));
    const maxEarly = Math.max(...early(bounded).map((s) => s.entries));
    // Flat: the second half holds no more than the first (rows live 500 ms, 2 rows per ms).
    expect(maxLate).toBeLessThanOrEqual(maxEarly * 1.2 + 200);
    expect(maxLate).toBeLessThan(5_000);
    // Without a TTL every key stays: 4 rows per key, one state entry per key and side on the
    // heap (its rows listed), so the 2 x 7,500 keys.
    expect(Math.max(...unbounded.map((s) => s.entries))).toBeGreaterThan(12_000);
  });

  it('an insert-only join stopped with a savepoint and restored at another parallelism (2 -> 1, 1 -> 2) equals the nested-loop join', async () => {
    const N = 2_000;
    // Orders repeat every 1,500 (identical rows, kept twice); users every 150.
    const orderAt = (i: number): Order => ({ id: i % 1_500, user: i % 97, amount: i % 7 });
    const userAt = (i: number): User => ({ uid: i % 150, name: `n${i % 150}` });
    const all = Array.from({ length: N }, (_, i) => i);
    for (const [parallelism, restoredParallelism] of [
      [2, 1],
      [1, 2],
    ] as const) {
      const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
        readonly [Order, User | null]
      >(
        (p, rate) => {
          const env = new StreamEnvironment({ parallelism: p, batchSize: 20 });
          const source = <T>(name: string, generate: (i: number) => T) =>
            generated(env, name, N, rate, generate).toChangelog();
          const changes = source('orders', orderAt)
            .regularJoin(source('users', userAt), {
              type: 'left',
              leftKey: (o) => o.user,
              rightKey: (u) => u.uid,
              where: (o, u) => o.amount !== u.uid % 7,
              unboundedState: true,
            })
            .uid('join');
          return { env, changes };
        },
        { parallelism, restoredParallelism, rate: 4_000 },
      );
      expect(beforeSavepoint).toBeGreaterThan(0);
      expect(beforeSavepoint).toBeLessThan(uninterrupted.length);
      const oracle = nestedLoopJoin(
        all.map(orderAt),
        all.map(userAt),
        'left',
        (o, u) => o.amount !== u.uid % 7,
      );
      expect(materialize(uninterrupted)).toEqual(oracle);
      expect(materialize(restored)).toEqual(oracle);
    }
  });

  it('a savepoint restores when an input changes between insert-only and changelog: rows stay joined and retractable', async () => {
    const N = 4_000;
    const orderAt = (i: number): Order => ({ id: i, user: i % 150, amount: i % 7 });
    // From event 3,000 on (after the savepoint), every third user change deletes an earlier user.
    const userAt =
      (deletes: boolean) =>
      (i: number): Change<User> =>
        deletes && i >= 3_000 && i % 3 === 0
          ? { kind: '-D', value: { uid: (i - 3_000) % 150, name: `n${i - 3_000}` } }
          : { kind: '+I', value: { uid: i % 150, name: `n${i}` } };
    for (const insertOnlyFirst of [true, false]) {
      // Deletes only where the restored run declares the users a changelog.
      const deletes = insertOnlyFirst;
      const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
        readonly [Order, User | null]
      >(
        (p, rate) => {
          const insertOnly = rate === undefined ? !insertOnlyFirst : insertOnlyFirst;
          const env = new StreamEnvironment({ parallelism: p, batchSize: 20 });
          const source = <T>(name: string, generate: (i: number) => T) =>
            generated(env, name, N, rate, generate);
          const changes = source('orders', orderAt)
            .toChangelog()
            .regularJoin(
              source('users', userAt(deletes)).asChangelog(insertOnly ? 'insert-only' : 'retract'),
              {
                type: 'left',
                leftKey: (o) => o.user,
                rightKey: (u) => u.uid,
                unboundedState: true,
              },
            )
            .uid('join');
          return { env, changes };
        },
        { parallelism: 1, restoredParallelism: 2, rate: 4_000 },
      );
      expect(beforeSavepoint).toBeGreaterThan(0);
      const users = new Map<string, User>();
      for (let i = 0; i < N; i++) {
        const c = userAt(deletes)(i);
        if (c.kind === '-D') users.delete(c.value.name);
        else users.set(c.value.name, c.value);
      }
      const oracle = nestedLoopJoin(
        Array.from({ length: N }, (_, i) => orderAt(i)),
        [...users.values()],
        'left',
        () => true,
      );
      expect(materialize(uninterrupted)).toEqual(oracle);
      expect(materialize(restored)).toEqual(oracle);
    }
  }, 120_000);

  it('a savepoint taken before a side was kept by its unique key restores: its +U alone replaces the restored row', async () => {
    const N = 3_000;
    const USERS = 60;
    const orderAt = (i: number): Order => ({ id: i, user: i % USERS, amount: i % 7 });
    // User i % USERS at version floor(i / USERS): inserted first, then updated (-U, +U).
    const name = (i: number) => `n${Math.floor(i / USERS)}`;
    const userChanges = (i: number): Change<User>[] => {
      const uid = i % USERS;
      if (i < USERS) return [{ kind: '+I', value: { uid, name: name(i) } }];
      return [
        { kind: '-U', value: { uid, name: name(i - USERS) } },
        { kind: '+U', value: { uid, name: name(i) } },
      ];
    };
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
      readonly [Order, User | null]
    >(
      (p, rate) => {
        // The first run keeps users as a multiset and needs their -U; the restored one keeps
        // them by uid and gets none.
        const keyed = rate === undefined;
        const env = new StreamEnvironment({ parallelism: p, batchSize: 20 });
        const emit = (i: number, out: Collector<Change<User>>): void => {
          for (const c of userChanges(i)) if (!keyed || c.kind !== '-U') out.collect(c);
        };
        const users = generated(env, 'users', N, rate, (i) => i)
          .flatMap(emit)
          .asChangelog('retract');
        const changes = generated(env, 'orders', N, rate, orderAt)
          .toChangelog()
          .regularJoin(users, {
            type: 'left',
            leftKey: (o) => o.user,
            rightKey: (u) => u.uid,
            ...(keyed ? { uniqueKeys: { right: (u: User) => u.uid } } : {}),
            unboundedState: true,
          })
          .uid('join');
        return { env, changes };
      },
      { parallelism: 1, restoredParallelism: 2, rate: 3_000 },
    );
    expect(beforeSavepoint).toBeGreaterThan(0);
    const users = new Map<number, User>();
    for (let i = 0; i < N; i++) users.set(i % USERS, { uid: i % USERS, name: name(i) });
    const oracle = nestedLoopJoin(
      Array.from({ length: N }, (_, i) => orderAt(i)),
      [...users.values()],
      'left',
      () => true,
    );
    expect(materialize(uninterrupted)).toEqual(oracle);
    expect(materialize(restored)).toEqual(oracle);
  });

  it('a run stopped with a savepoint and restored (p=1 -> 2) emits the same joined rows', async () => {
    const N = 2_000;
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
      readonly [Order | null, User | null]
    >(
      (parallelism, rate) => {
        const env = new StreamEnvironment({ parallelism, batchSize: 20 });
        const source = <T>(name: string, generate: (i: number) => Change<T>) =>
          generated(env, name, N, rate, generate).asChangelog('retract');
        // Orders are inserted once; users are inserted, and every third deleted again later.
        const orders = source<Order>('orders', (i) => ({
          kind: '+I',
          value: { id: i, user: i % 97, amount: i % 7 },
        }));
        const users = source<User>('users', (i) =>
          i % 2 === 0 || ((i - 1) / 2) % 3 !== 0
            ? { kind: '+I', value: { uid: i % 97, name: `n${i}` } }
            : { kind: '-D', value: { uid: (i - 1) % 97, name: `n${i - 1}` } },
        );
        const changes = orders
          .regularJoin(users, {
            type: 'full',
            leftKey: (o) => o.user,
            rightKey: (u) => u.uid,
            unboundedState: true,
          })
          .uid('join');
        return { env, changes };
      },
      { parallelism: 1, restoredParallelism: 2, rate: 4_000 },
    );
    expect(beforeSavepoint).toBeGreaterThan(0);
    expect(beforeSavepoint).toBeLessThan(uninterrupted.length);
    // Two sources interleave differently from run to run: compare the final result.
    expect(materialize(restored)).toEqual(materialize(uninterrupted));
  });
});
