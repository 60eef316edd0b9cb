/**
 * MAP values in keyed state survive a savepoint: a SQL LEFT JOIN of two tables with MAP
 * columns, a Top-N, a deduplication, a GROUP BY with MIN/MAX over that deduplication's
 * changes (the operator keeps the group's rows) and a table view of rows that differ only
 * inside a MAP, each stopped with a savepoint part-way and restored, commit the same final rows
 * as an uninterrupted run and as a plain computation over the input, on the heap and the disk
 * (lmdb) state backends.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  type Change,
  type DataStream,
  type Row,
  StreamEnvironment,
  TableEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';
import { ROW_SERIALIZER } from '../../src/sql/planner/row-serializer.js';
import { materialize } from '../changelog/helpers.js';

const ORDERS = 240;
/**
 * Records per second per source in the run that is stopped: its orders take 6 s, far longer
 * than the first checkpoint on a busy machine, and it is stopped as soon as output is
 * committed (so the wait costs little).
 */
const FIRST_RUN_RATE = 40;
const USERS = 30;

interface Order {
  readonly id: number;
  readonly uid: number;
  readonly attrs: Map<string, number>;
  readonly ts: number;
}
interface User {
  readonly uid: number;
  readonly prefs: Map<string, number[]>;
}

// Every third order has no user (uid >= USERS): it stays padded with NULL.
const orderAt = (i: number): Order => ({
  id: i,
  ts: Date.UTC(2026, 0, 1) + i * 1000,
  uid: (i * 7) % (USERS + USERS / 2),
  attrs: new Map([
    ['n', i],
    [`k${i % 3}`, i % 5],
  ]),
});
const userAt = (i: number): User => ({
  uid: i,
  prefs: new Map([[`p${i % 4}`, [i, i * 2]]]),
});

/** JSON text with Maps as their entries (rows with different maps differ), bigints and -0 tagged. */
const text = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) =>
    x instanceof Map
      ? { map: [...x] }
      : typeof x === 'bigint'
        ? { bigint: String(x) }
        : Object.is(x, -0)
          ? { minusZero: true }
          : x,
  );

const JOIN = `SELECT o.id, o.attrs, u.prefs, CARDINALITY(u.prefs)
  FROM orders o LEFT JOIN users u ON o.uid = u.uid`;

/** Top-2 orders (highest id) per user, their MAP column kept in the ranking's state. */
const TOP_N = `SELECT id, uid, attrs, rn FROM (
    SELECT id, uid, attrs, ROW_NUMBER() OVER (PARTITION BY uid ORDER BY id DESC) AS rn
    FROM orders)
  WHERE rn <= 2`;

/** The latest order (by event time) per user: a deduplication keeping its MAP column. */
const DEDUP = `SELECT id, uid, attrs FROM (
    SELECT id, uid, attrs, ROW_NUMBER() OVER (PARTITION BY uid ORDER BY ts DESC) AS rn
    FROM orders)
  WHERE rn = 1`;

/**
 * MIN and MAX of a MAP's value over the deduplication's changes: each update of a user's latest
 * order retracts the old row, and the GROUP BY recomputes from the rows it keeps.
 */
const GROUP_MIN_MAX = `SELECT uid % 4 AS g, MIN(attrs['n']) AS lo, MAX(attrs['n']) AS hi,
    MAX(CARDINALITY(attrs)) AS width, COUNT(*) AS c
  FROM (${DEDUP}) GROUP BY uid % 4`;

function latestPerUser(): Order[] {
  const latest = new Map<number, Order>();
  for (let i = 0; i < ORDERS; i++) {
    const o = orderAt(i);
    if ((latest.get(o.uid)?.ts ?? -1) < o.ts) latest.set(o.uid, o);
  }
  return [...latest.values()];
}

function expectedDedup(): string[] {
  return latestPerUser()
    .map((o) => text([o.id, o.uid, o.attrs]))
    .sort();
}

function expectedGroupMinMax(): string[] {
  const groups = new Map<number, number[]>();
  for (const o of latestPerUser()) groups.set(o.uid % 4, [...(groups.get(o.uid % 4) ?? []), o.id]);
  return [...groups]
    .map(([g, ids]) => text([g, Math.min(...ids), Math.max(...ids), 2, ids.length]))
    .sort();
}

/** Order `i` as changes of its user's row: `+I` the first time, then `-U` old and `+U` new. */
function viewChangesOf(i: number, out: { collect(c: Change<Row>): void }): void {
  const uid = orderAt(i).uid;
  const seen = Math.floor(i / (USERS + USERS / 2));
  const row = (n: number): Row => [uid, new Map([['orders', n]]), -0, 2n ** 60n + BigInt(n)];
  if (i < USERS + USERS / 2) out.collect({ kind: '+I', value: row(1) });
  else {
    out.collect({ kind: '-U', value: row(seen) });
    out.collect({ kind: '+U', value: row(seen + 1) });
  }
}

/**
 * A table view by user of rows that differ only inside their MAP: every order updates its
 * user's row to a map counting the user's orders so far (`-U` the old row, `+U` the new).
 */
function viewChanges(env: StreamEnvironment, rate: number | undefined): DataStream<Change<Row>> {
  return env
    .fromGenerator({
      count: ORDERS,
      ...(rate === undefined ? {} : { ratePerSecond: rate }),
      generate: (i: number) => i,
    })
    .setParallelism(1)
    .uid('orders')
    .flatMap(viewChangesOf)
    .setParallelism(1)
    .asChangelog<Row>('retract')
    .materialize((row) => row[0] as number, { serializer: ROW_SERIALIZER })
    .toRetractStream();
}

/**
 * A temporal join of orders with MAP columns against a versioned table of MAP rows: waiting
 * orders and the table's versions are both kept in state across the savepoint.
 */
function temporalJoinChanges(
  env: StreamEnvironment,
  rate: number | undefined,
): DataStream<Change<Row>> {
  const limit = rate === undefined ? {} : { ratePerSecond: rate };
  const byTime = WatermarkStrategy.forBoundedOutOfOrderness<Row>(1000).withTimestampAssigner(
    (row) => row[row.length - 1] as number,
  );
  const versions = env
    .fromGenerator({ count: ORDERS, ...limit, generate: versionAt })
    .setParallelism(1)
    .uid('versions')
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Change<Row>>(1000).withTimestampAssigner(
        (c) => c.value[2] as number,
      ),
    )
    .uid('version-times')
    .asChangelog<Row>('upsert', (row) => row[0] as number)
    .materialize((row) => row[0] as number, { serializer: ROW_SERIALIZER });
  return env
    .fromGenerator({ count: ORDERS, ...limit, generate: probeAt })
    .setParallelism(1)
    .uid('probes')
    .assignTimestampsAndWatermarks(byTime)
    .uid('probe-times')
    .temporalJoin(versions, {
      probeKey: (row: Row) => row[1] as number,
      type: 'left',
      probeSerializer: ROW_SERIALIZER,
    })
    .uid('temporal-join')
    .map(
      (pair): Change<Row> => ({
        kind: '+I',
        value: [...pair[0], ...(pair[1] ?? [null, null, null])],
      }),
    );
}

const versionAt = (j: number): Change<Row> => ({
  kind: '+U',
  value: [j % USERS, new Map([['v', j]]), Date.UTC(2026, 0, 1) + j * 1000],
});
const probeAt = (i: number): Row => {
  const o = orderAt(i);
  return [o.id, o.uid, o.attrs, 2n ** 60n + BigInt(i), o.ts + 500];
};

function expectedTemporalJoin(): string[] {
  const rows: Row[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const probe = probeAt(i);
    let version: Row | null = null;
    for (let j = i; j >= 0 && version === null; j--) {
      const v = versionAt(j).value;
      if (v[0] === probe[1]) version = v;
    }
    rows.push([...probe, ...(version ?? [null, null, null])]);
  }
  return rows.map(text).sort();
}

function expectedView(): string[] {
  const counts = new Map<number, number>();
  for (let i = 0; i < ORDERS; i++) {
    const uid = orderAt(i).uid;
    counts.set(uid, (counts.get(uid) ?? 0) + 1);
  }
  return [...counts]
    .map(([uid, n]) => text([uid, new Map([['orders', n]]), -0, 2n ** 60n + BigInt(n)]))
    .sort();
}

function expectedTopN(): string[] {
  const byUser = new Map<number, Order[]>();
  for (let i = 0; i < ORDERS; i++) {
    const o = orderAt(i);
    byUser.set(o.uid, [...(byUser.get(o.uid) ?? []), o]);
  }
  const rows: Row[] = [];
  for (const orders of byUser.values()) {
    const top = orders.sort((a, b) => b.id - a.id).slice(0, 2);
    for (const [i, o] of top.entries()) rows.push([o.id, o.uid, o.attrs, i + 1]);
  }
  return rows.map(text).sort();
}

function expectedJoin(): string[] {
  const users = Array.from({ length: USERS }, (_, i) => userAt(i));
  const rows: Row[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const o = orderAt(i);
    const u = users.find((x) => x.uid === o.uid);
    rows.push([o.id, o.attrs, u?.prefs ?? null, u === undefined ? null : u.prefs.size]);
  }
  return rows.map(text).sort();
}

type Backend = 'heap' | 'disk';

function build(
  query: string | typeof viewChanges,
  out: string,
  rate: number | undefined,
  checkpoints: string,
  backend: Backend,
) {
  const env = new StreamEnvironment({
    parallelism: 2,
    stateBackend:
      backend === 'heap'
        ? { kind: 'heap' }
        : { kind: 'disk', workingDirectory: `${checkpoints}-db` },
    batchSize: 10,
    checkpointing: { directory: checkpoints, intervalMs: 100 },
  });
  if (typeof query !== 'string') {
    sinkChanges(query(env, rate), out);
    return env;
  }
  const tEnv = TableEnvironment.create(env);
  const generated = <T>(name: string, count: number, generate: (i: number) => T) =>
    env
      .fromGenerator({ count, ...(rate === undefined ? {} : { ratePerSecond: rate }), generate })
      .setParallelism(1)
      .uid(name);
  tEnv.fromDataStream('orders', generated('orders', ORDERS, orderAt), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'uid', type: 'INT' },
      { name: 'attrs', type: 'MAP<STRING, INT>' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: "ts - INTERVAL '1' SECOND" },
  });
  tEnv.fromDataStream('users', generated('users', USERS, userAt), {
    columns: [
      { name: 'uid', type: 'INT' },
      { name: 'prefs', type: 'MAP<STRING, ARRAY<INT>>' },
    ],
  });
  sinkChanges(tEnv.sqlQuery(query).toChangelogStream(), out);
  return env;
}

function sinkChanges(changes: DataStream<Change<Row>>, out: string): void {
  changes
    .map((c: Change<Row>) => text(c))
    .sinkTo(new ExactlyOnceFileSink<string>({ directory: out, format: (line) => line }))
    .uid('changes-sink');
}

async function committed(dir: string): Promise<Change<unknown>[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const out: Change<unknown>[] = [];
  for (const f of files.filter((f) => !f.startsWith('.')).sort()) {
    for (const line of (await readFile(join(dir, f), 'utf8')).split('\n'))
      if (line) out.push(JSON.parse(line) as Change<unknown>);
  }
  return out;
}

describe('MAP values in checkpointed SQL state', () => {
  const cases = (['heap', 'disk'] as const).flatMap((backend) => [
    { what: 'a LEFT JOIN', query: JOIN, expected: expectedJoin, backend },
    { what: 'a Top-N', query: TOP_N, expected: expectedTopN, backend },
    { what: 'a deduplication', query: DEDUP, expected: expectedDedup, backend },
    {
      what: 'a GROUP BY with MIN/MAX over changes',
      query: GROUP_MIN_MAX,
      expected: expectedGroupMinMax,
      backend,
    },
    { what: 'a table view', query: viewChanges, expected: expectedView, backend },
    {
      what: 'a temporal join',
      query: temporalJoinChanges,
      expected: expectedTemporalJoin,
      backend,
    },
  ]);
  it.each(cases)(
    '$what of rows with MAP columns, restored from a savepoint, ends as an uninterrupted run ($backend backend)',
    async ({ query, expected, backend }) => {
      const dir = await mkdtemp(join(tmpdir(), 'weir-sql-map-state-'));
      try {
        await build(query, join(dir, 'clean'), undefined, join(dir, 'cp-clean'), backend).execute(
          'clean',
        );
        const clean = await committed(join(dir, 'clean'));
        const uninterruptedChanges = clean.length;
        const uninterrupted = materialize(clean);

        const first = build(
          query,
          join(dir, 'out'),
          FIRST_RUN_RATE,
          join(dir, 'cp-first'),
          backend,
        ).executeAsync('first');
        // Stop once some output is committed, so the savepoint holds rows of both sides.
        const deadline = Date.now() + 60_000;
        while ((await committed(join(dir, 'out'))).length === 0) {
          if (Date.now() > deadline) throw new Error('no output committed within 60 s');
          await pause(20);
        }
        const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
        const beforeSavepoint = (await committed(join(dir, 'out'))).length;
        await build(
          query,
          join(dir, 'out'),
          undefined,
          join(dir, 'cp-second'),
          backend,
        ).executeAsync('second', {
          restoreFrom: savepoint,
        }).result;
        const restored = materialize(await committed(join(dir, 'out')));

        expect(beforeSavepoint).toBeGreaterThan(0);
        expect(beforeSavepoint).toBeLessThan(uninterruptedChanges);
        const parsed = (rows: string[]) => rows.map((r) => text(JSON.parse(r))).sort();
        expect(parsed(uninterrupted)).toEqual(expected());
        expect(parsed(restored)).toEqual(expected());
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
