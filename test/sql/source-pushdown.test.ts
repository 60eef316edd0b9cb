/**
 * Projection and filter pushdown into the nexmark source: which columns, ROW fields and
 * `event_type` values reach the converter (EXPLAIN shows them on the source), and that a query's
 * rows are the same with and without pushdown, and equal to the generated events themselves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NEXMARK_CONFIG,
  type NexmarkConfig,
  nexmarkEvent,
} from '../../src/connectors/nexmark/index.js';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { nexmarkQueryRows, nexmarkSourceSql } from './nexmark-sql.js';

const CONFIG: Partial<NexmarkConfig> = { maxEvents: 1_500, eventsPerSecond: 200, seed: 7 };

function tableEnv(): TableEnvironment {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  tEnv.executeSql(nexmarkSourceSql(CONFIG));
  return tEnv;
}

/** The `project=[...]` and `filter=[...]` of each scan EXPLAIN shows for `sql`, in plan order. */
function scans(sql: string): { project: string; filter: string | undefined }[] {
  return tableEnv()
    .explainSql(sql)
    .split('\n')
    .filter((l) => l.includes('project=[') && l.trimStart().startsWith('#'))
    .map((line) => {
      const match = /project=\[([^\]]*)\](?:, filter=\[([^\]]*)\])?/.exec(line);
      if (match === null) throw new Error(`no pushdown in ${line}`);
      return { project: match[1] as string, filter: match[2] };
    });
}

/** The one scan of `sql`. */
function pushed(sql: string): { project: string; filter: string | undefined } {
  const all = scans(sql);
  if (all.length !== 1)
    throw new Error(`expected one scan in the plan of ${sql}, got ${all.length}`);
  return all[0] as { project: string; filter: string | undefined };
}

/** Bids per bidder and 10 s window: a window TVF over the `bid` view. */
const TUMBLE_COUNTS = `SELECT bidder, window_start, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '10' SECOND))
  GROUP BY bidder, window_start, window_end`;

// What the computed `dateTime` reads: each kind's dateTime.
const DATE_TIMES = 'event_type, person.dateTime, auction.dateTime, bid.dateTime';

describe('projection and filter pushdown into the nexmark scan', () => {
  it('reads only the fields a query reads through a view, and only bids', () => {
    expect(pushed('SELECT auction, price FROM bid')).toEqual({
      project: 'event_type, bid.auction, bid.price',
      filter: '=(event_type, 2)',
    });
  });

  it('gives each reader of one table its own scan, with its own fields and kinds', () => {
    expect(
      scans(
        'SELECT P.name, A.itemName FROM (SELECT id, name FROM person) AS P JOIN (SELECT seller, itemName FROM auction) AS A ON P.id = A.seller',
      ),
    ).toEqual([
      { project: 'event_type, person.id, person.name', filter: '=(event_type, 0)' },
      { project: 'event_type, auction.itemName, auction.seller', filter: '=(event_type, 1)' },
    ]);
  });

  it('a query reading no stored field reads only what its filter names', () => {
    expect(pushed('SELECT 1 FROM datagen WHERE event_type = 1')).toEqual({
      project: 'event_type',
      filter: '=(event_type, 1)',
    });
  });

  it('a computed column read by the query reads what its expression names', () => {
    expect(pushed('SELECT `dateTime` FROM datagen')).toEqual({
      project: DATE_TIMES,
      filter: undefined,
    });
  });

  it('a reader without an event_type equality keeps every kind', () => {
    expect(
      pushed('SELECT bid.price FROM datagen WHERE event_type = 2 OR bid.price > 10').filter,
    ).toBeUndefined();
    expect(
      scans('SELECT price FROM bid UNION ALL SELECT bid.price FROM datagen WHERE bid.price > 10'),
    ).toEqual([
      { project: 'event_type, bid.price', filter: '=(event_type, 2)' },
      { project: 'bid.price', filter: undefined },
    ]);
  });

  it('an operator the planner does not look into reads every column and kind', () => {
    expect(pushed('SELECT COUNT(*) FROM datagen')).toEqual({
      project: 'event_type, person, auction, bid',
      filter: undefined,
    });
  });

  it('a window TVF reads only the columns the SELECT over it names, and its time column', () => {
    expect(pushed(TUMBLE_COUNTS)).toEqual({
      project: 'event_type, person.dateTime, auction.dateTime, bid.bidder, bid.dateTime',
      filter: '=(event_type, 2)',
    });
  });

  it('a row a pushed filter excludes is one no reader keeps (equalities on both sides)', () => {
    expect(pushed('SELECT price FROM bid WHERE 2 = 2').filter).toBe('=(event_type, 2)');
    // Contradictory equalities keep no row at all.
    expect(
      pushed('SELECT bid.price FROM datagen WHERE event_type = 2 AND event_type = 1').filter,
    ).toBe('IN(event_type, )');
  });
});

const BID_FIELDS = ['auction', 'bidder', 'price', 'channel', 'url', 'extra'] as const;

/** Runs `queries` as one job; each query's rows as JSON texts, in order. */
const run = (queries: readonly string[]): Promise<string[][]> => nexmarkQueryRows(CONFIG, queries);

describe('pushdown oracle', () => {
  it('a query over the scan gives the generated bids', async () => {
    const config = { ...DEFAULT_NEXMARK_CONFIG, ...CONFIG } as NexmarkConfig;
    const events = Array.from({ length: config.maxEvents as number }, (_, i) =>
      nexmarkEvent(i, config),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...BID_FIELDS], { minLength: 1 }),
        fc.constantFrom<'view' | 'table'>('view', 'table'),
        async (fields, from) => {
          const sql =
            from === 'view'
              ? `SELECT ${fields.join(', ')} FROM bid`
              : `SELECT ${fields.map((f) => `bid.${f}`).join(', ')} FROM datagen WHERE event_type = 2`;
          const [withPushdown] = await run([sql]);
          const expected = events.flatMap((e) =>
            e.type === 'bid' ? [JSON.stringify(fields.map((f) => e.bid[f] as unknown))] : [],
          );
          expect(withPushdown).toEqual(expected);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('a window TVF over pruned columns counts what a batch computation of the bids counts', async () => {
    const config = { ...DEFAULT_NEXMARK_CONFIG, ...CONFIG } as NexmarkConfig;
    const counts = new Map<string, number>();
    for (let i = 0; i < (config.maxEvents as number); i++) {
      const e = nexmarkEvent(i, config);
      if (e.type !== 'bid') continue;
      const start = e.bid.dateTime - (e.bid.dateTime % 10_000);
      const key = `${e.bid.bidder}@${start}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const [rows] = await run([TUMBLE_COUNTS]);
    const actual = (rows ?? []).map((text) => {
      const [bidder, start, n] = JSON.parse(text) as [number, unknown, number];
      return `${bidder}@${String(start)}=${n}`;
    });
    expect(actual.sort()).toEqual([...counts].map(([k, n]) => `${k}=${n}`).sort());
  });
});
