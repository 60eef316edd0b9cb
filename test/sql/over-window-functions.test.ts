/**
 * LAG, ROW_NUMBER, RANK and DENSE_RANK in OVER windows against a batch computation over the
 * same rows: rows arrive shuffled, but never behind the watermark, so every row is emitted
 * once, with the functions computed over its partition's rows sorted by rowtime (rows of one
 * rowtime in arrival order, sharing LAG, RANK and DENSE_RANK as Flink's RANGE frame has them);
 * also the forms Flink refuses, and processing time.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { runScenario } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

interface Event {
  id: number;
  k: string;
  v: number | null;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);
/** The watermark trails the largest rowtime by this much; no row arrives later than that. */
const DELAY = 1_000;

/** The events in arrival order: each arrives within DELAY after its rowtime, so none is late. */
function arrivals(
  drawn: readonly { k: string; v: number | null; ts: number; lag: number }[],
): Event[] {
  return drawn
    .map((e, id) => ({ id, k: e.k, v: e.v, ts: e.ts, at: e.ts + e.lag }))
    .sort((a, b) => a.at - b.at || a.id - b.id)
    .map(({ id, k, v, ts }) => ({ id, k, v, ts }));
}

/** Each partition's rows by rowtime, ties in arrival order. */
function partitions(events: readonly Event[], partitioned: boolean): Event[][] {
  const byKey = new Map<string, Event[]>();
  for (const e of events) {
    const key = partitioned ? e.k : '';
    byKey.set(key, [...(byKey.get(key) ?? []), e]);
  }
  return [...byKey.values()].map((rows) => [...rows].sort((a, b) => a.ts - b.ts));
}

/** LAG(v), LAG(v, 2), LAG(v, 3, -1), RANK, DENSE_RANK and COUNT(*) over RANGE, per row. */
function rangeOracle(events: readonly Event[], partitioned: boolean): string[] {
  const out: string[] = [];
  for (const rows of partitions(events, partitioned)) {
    let dense = 0;
    rows.forEach((e, i) => {
      const first = rows.findIndex((r) => r.ts === e.ts);
      if (first === i) dense++;
      // The frame ends at the last peer: LAG counts back from there.
      let last = i;
      while (rows[last + 1]?.ts === e.ts) last++;
      const lag = (offset: number, dflt: number | null) =>
        last - offset >= 0 ? (rows[last - offset] as Event).v : dflt;
      out.push(
        JSON.stringify([e.id, lag(1, null), lag(2, null), lag(3, -1), first + 1, dense, last + 1]),
      );
    });
  }
  return out.sort();
}

/** ROW_NUMBER and a running SUM over ROWS, per row. */
function rowsOracle(events: readonly Event[], partitioned: boolean): string[] {
  const out: string[] = [];
  for (const rows of partitions(events, partitioned)) {
    let sum: number | null = null;
    rows.forEach((e, i) => {
      if (e.v !== null) sum = (sum ?? 0) + e.v;
      out.push(JSON.stringify([e.id, i + 1, sum]));
    });
  }
  return out.sort();
}

async function run(events: readonly Event[], sql: string, parallelism: number): Promise<string[]> {
  // One row per batch from one source subtask: the watermark follows each row on every channel.
  const env = new StreamEnvironment({ parallelism, batchSize: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('events', env.fromArray([...events]), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'INT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: `ts - INTERVAL '${DELAY / 1000}' SECOND` },
  });
  const sink = new CollectSink<Change<Row>>();
  tEnv.sqlQuery(sql).toChangelogStream().sinkTo(sink);
  await env.execute('over window functions');
  expect(sink.values.every((c) => c.kind === '+I')).toBe(true);
  return sink.values
    .map((c) => JSON.stringify(c.value.map((v) => (v === null ? null : Number(v)))))
    .sort();
}

const drawnArb = fc.array(
  fc.record({
    k: fc.constantFrom('a', 'b', 'c'),
    v: fc.option(fc.integer({ min: -5, max: 9 }), { freq: 6 }),
    // Coarse rowtimes, so that rows share them.
    ts: fc.integer({ min: 0, max: 40 }).map((i) => BASE + i * 100),
    lag: fc.integer({ min: 0, max: DELAY - 1 }),
  }),
  { minLength: 1, maxLength: 60 },
);

describe('LAG, ROW_NUMBER, RANK and DENSE_RANK OVER a rowtime', () => {
  it('LAG with offsets and defaults, RANK and DENSE_RANK match a batch computation', async () => {
    await fc.assert(
      fc.asyncProperty(
        drawnArb,
        fc.boolean(),
        fc.constantFrom(1, 2),
        async (drawn, partitioned, parallelism) => {
          const events = arrivals(drawn);
          const w = `(${partitioned ? 'PARTITION BY k ' : ''}ORDER BY ts)`;
          const got = await run(
            events,
            `SELECT id, LAG(v) OVER ${w}, LAG(v, 2) OVER ${w}, LAG(v, 3, -1) OVER ${w},
               RANK() OVER ${w}, DENSE_RANK() OVER ${w}, COUNT(*) OVER ${w} FROM events`,
            parallelism,
          );
          expect(got).toEqual(rangeOracle(events, partitioned));
        },
      ),
      { seed: 41, numRuns: 40 },
    );
  }, 60_000);

  it('ROW_NUMBER numbers rows of one rowtime in arrival order, beside a ROWS aggregate', async () => {
    await fc.assert(
      fc.asyncProperty(
        drawnArb,
        fc.boolean(),
        fc.constantFrom(1, 2),
        async (drawn, partitioned, parallelism) => {
          const events = arrivals(drawn);
          const spec = `${partitioned ? 'PARTITION BY k ' : ''}ORDER BY ts`;
          const got = await run(
            events,
            `SELECT id, ROW_NUMBER() OVER w,
               SUM(v) OVER (${spec} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
             FROM events WINDOW w AS (${spec})`,
            parallelism,
          );
          expect(got).toEqual(rowsOracle(events, partitioned));
        },
      ),
      { seed: 42, numRuns: 40 },
    );
  }, 60_000);
});

/** `SELECT ...` over T (a INT, c BIGINT) in arrival order, without a processing-time column. */
async function procRows(sql: string, rows: readonly (readonly unknown[])[]): Promise<string[]> {
  const [result] = await runScenario('', [sql], {
    parallelism: 1,
    batchSize: 1,
    tables: (_env, tEnv) => {
      tEnv.executeSql(`CREATE TABLE T (a INT, c BIGINT, s STRING)
        WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(rows)}')`);
    },
  });
  return result?.changes ?? [];
}

describe('window functions OVER processing time', () => {
  it('LAG and RANK over ORDER BY PROCTIME(): every row its own peer', async () => {
    const w = 'PARTITION BY a ORDER BY PROCTIME()';
    const changes = await procRows(
      `SELECT a, c, LAG(c) OVER (${w}), LAG(c, 2, CAST(-1 AS BIGINT)) OVER (${w}),
        RANK() OVER (${w}), DENSE_RANK() OVER (${w}) FROM T`,
      [
        [1, 10, 'x'],
        [2, 20, 'x'],
        [1, 11, 'x'],
        [1, 12, 'x'],
        [2, 21, 'x'],
      ],
    );
    expect(changes).toEqual([
      '+I(1,10,null,-1,1,1)',
      '+I(2,20,null,-1,1,1)',
      '+I(1,11,10,-1,2,2)',
      '+I(1,12,11,10,3,3)',
      '+I(2,21,20,-1,2,2)',
    ]);
  });

  it('LAG keeps NULL values and takes a CHAR default for a STRING', async () => {
    const changes = await procRows(
      "SELECT s, LAG(s, 1, 'none') OVER (ORDER BY PROCTIME()) FROM T",
      [
        [1, 1, null],
        [1, 2, 'b'],
        [1, 3, 'c'],
      ],
    );
    expect(changes).toEqual(['+I(null,none)', '+I(b,null)', '+I(c,b)']);
  });
});

describe('window functions across a savepoint', () => {
  const ROWS = 200;
  const eventAt = (i: number) => ({ k: ['a', 'b', 'c'][(i * 7) % 3] as string, v: (i * 13) % 10 });

  /** A generated source (one subtask), LAG and ranks over PROCTIME(), rows committed to files. */
  function build(out: string, checkpoints: string, rate: number | undefined): StreamEnvironment {
    const env = new StreamEnvironment({
      parallelism: 2,
      batchSize: 5,
      checkpointing: { directory: checkpoints, intervalMs: 100 },
    });
    const tEnv = TableEnvironment.create(env);
    const source = env
      .fromGenerator({
        count: ROWS,
        ...(rate === undefined ? {} : { ratePerSecond: rate }),
        generate: (i: number) => [i, eventAt(i).k, eventAt(i).v],
      })
      .setParallelism(1)
      .uid('events');
    tEnv.fromDataStream('raw', source, {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'INT' },
      ],
    });
    tEnv
      .sqlQuery(
        `SELECT id, LAG(v) OVER w, LAG(v, 3, -1) OVER w, RANK() OVER w, DENSE_RANK() OVER w
         FROM raw WINDOW w AS (PARTITION BY k ORDER BY PROCTIME())`,
      )
      .toDataStream()
      .map((r: Row) => JSON.stringify(r.map((v) => (v === null ? null : Number(v)))))
      .sinkTo(new ExactlyOnceFileSink<string>({ directory: out, format: (line) => line }))
      .uid('rows');
    return env;
  }

  async function committed(dir: string): Promise<string[]> {
    const files = await readdir(dir).catch(() => [] as string[]);
    const lines: string[] = [];
    for (const f of files.filter((f) => !f.startsWith('.')))
      lines.push(...(await readFile(join(dir, f), 'utf8')).split('\n').filter((l) => l !== ''));
    return lines.sort();
  }

  it('a job stopped with a savepoint and restored emits the rows of an uninterrupted run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-over-window-functions-'));
    try {
      const seen = new Map<string, number[]>();
      const expected = Array.from({ length: ROWS }, (_, id) => {
        const e = eventAt(id);
        const vs = [...(seen.get(e.k) ?? []), e.v];
        seen.set(e.k, vs);
        const n = vs.length;
        return JSON.stringify([id, vs[n - 2] ?? null, vs[n - 4] ?? -1, n, n]);
      });
      const first = build(join(dir, 'out'), join(dir, 'cp-first'), 50).executeAsync('first');
      const deadline = Date.now() + 60_000;
      while ((await committed(join(dir, 'out'))).length === 0) {
        if (Date.now() > deadline) throw new Error('no output committed within 60 s');
        await pause(20);
      }
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      const before = (await committed(join(dir, 'out'))).length;
      await build(join(dir, 'out'), join(dir, 'cp-second'), undefined).executeAsync('second', {
        restoreFrom: savepoint,
      }).result;
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThan(ROWS);
      expect(await committed(join(dir, 'out'))).toEqual([...expected].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('window functions Flink refuses in a streaming OVER', () => {
  const tEnv = TableEnvironment.create(new StreamEnvironment());
  tEnv.executeSql(`CREATE TABLE e (k STRING, v INT, n BIGINT, ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')`);
  const refuse = (sql: string) => expect(() => tEnv.sqlQuery(sql));

  it('LEAD', () => {
    refuse('SELECT LEAD(v) OVER (PARTITION BY k ORDER BY ts) FROM e').toThrow(
      'LEAD Function is not supported in stream mode',
    );
  });

  it('a frame clause', () => {
    for (const fn of ['LAG(v)', 'ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])
      refuse(
        `SELECT ${fn} OVER (ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM e`,
      ).toThrow('ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions');
  });

  it('ROW_NUMBER (over ROWS) beside an aggregate or a function over RANGE', () => {
    refuse('SELECT ROW_NUMBER() OVER (ORDER BY ts), SUM(v) OVER (ORDER BY ts) FROM e').toThrow(
      'must use the same window',
    );
    refuse('SELECT ROW_NUMBER() OVER (ORDER BY ts), RANK() OVER (ORDER BY ts) FROM e').toThrow(
      'must use the same window',
    );
  });

  it('a window ordered by a column that is not a time attribute', () => {
    refuse('SELECT RANK() OVER (PARTITION BY k ORDER BY v) FROM e').toThrow(
      'RANK(...) OVER a window ordered by a column that is not a time attribute is not supported by Weir SQL yet',
    );
    refuse('SELECT ROW_NUMBER() OVER (PARTITION BY k) FROM e').toThrow(
      'ROW_NUMBER(...) OVER (...) needs an ORDER BY',
    );
  });

  it("a LAG default of another type, an offset that is not a literal, a ranking's arguments", () => {
    refuse('SELECT LAG(n, 1, 0) OVER (ORDER BY ts) FROM e').toThrow(
      'LAG: Please explicitly cast default value INT NOT NULL to BIGINT',
    );
    refuse('SELECT LAG(v, v) OVER (ORDER BY ts) FROM e').toThrow(
      'LAG: the offset must be a non-negative integer literal',
    );
    refuse('SELECT RANK(v) OVER (ORDER BY ts) FROM e').toThrow('RANK() takes no arguments');
  });

  it('types LAG as Flink does: NOT NULL only for a NOT NULL value with a NOT NULL default', () => {
    const plan =
      tEnv.explainSql(`SELECT LAG(v) OVER w AS l1, LAG(CAST(1 AS INT), 1, 0) OVER w AS l2,
      LAG(CAST(1 AS INT)) OVER w AS l3, RANK() OVER w AS r FROM e WINDOW w AS (ORDER BY ts)`);
    expect(plan).toContain('(l1 INT, l2 INT NOT NULL, l3 INT, r BIGINT NOT NULL)');
  });
});
