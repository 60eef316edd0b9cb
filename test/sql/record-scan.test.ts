/**
 * A filter and projection fused into the nexmark scan (planner/record-scan.ts): the plan is one
 * step per reader after the timestamps, and random filters and projections over all kinds of
 * events give the rows the same query gives when it runs over materialized table rows (a
 * UNION ALL in between keeps the planner from fusing it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { nexmarkQueryRows, nexmarkSourceSql } from './nexmark-sql.js';

const CONFIG: Partial<NexmarkConfig> = { maxEvents: 1_200, eventsPerSecond: 200, seed: 11 };

function tableEnv(): TableEnvironment {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  tEnv.executeSql(nexmarkSourceSql(CONFIG));
  return tEnv;
}

/** Each query's rows as sorted JSON texts, all queries in one job. */
async function run(queries: readonly string[]): Promise<string[][]> {
  return (await nexmarkQueryRows(CONFIG, queries)).map((rows) => rows.sort());
}

// Over every kind: NULL fields of the other kinds, DECIMAL, CASE, the computed rowtime.
const PROJECTIONS = [
  'event_type',
  '`dateTime`',
  'bid.price',
  '0.908 * bid.price',
  'MOD(bid.auction, 7)',
  'bid.channel',
  'UPPER(person.name)',
  'auction.reserve - auction.initialBid',
  'bid.price IS NULL',
  "CASE WHEN bid.price > 1000 THEN 'high' WHEN bid.price IS NULL THEN 'none' ELSE 'low' END",
  'HOUR(`dateTime`)',
  'COALESCE(person.city, auction.itemName, bid.url)',
];
const CONDITIONS = [
  'event_type = 2',
  'event_type = 0',
  'bid.price > 5000',
  'MOD(bid.bidder, 3) = 0',
  'person.city IS NOT NULL',
  'event_type = 1 OR bid.price < 2000',
  '0.908 * bid.price > 1000',
  "`dateTime` > TIMESTAMP '2015-07-15 00:00:01'",
  'auction.category = 10',
];

/** The fields the expressions read, as flat columns of a materialized table (`bid_price`). */
const FIELDS = [
  'bid.price',
  'bid.auction',
  'bid.bidder',
  'bid.channel',
  'bid.url',
  'person.name',
  'person.city',
  'auction.reserve',
  'auction.initialBid',
  'auction.itemName',
  'auction.category',
];
const flat = (e: string): string => e.replace(/\b(bid|person|auction)\.(\w+)/g, '$1_$2');
const MATERIALIZED_COLUMNS = [
  'event_type',
  '`dateTime`',
  ...FIELDS.map((f) => `${f} AS ${flat(f)}`),
].join(', ');
/** The table as rows: a UNION ALL (with a side that keeps nothing) is no scan to fuse into. */
const MATERIALIZED = `(SELECT ${MATERIALIZED_COLUMNS} FROM datagen UNION ALL SELECT ${MATERIALIZED_COLUMNS} FROM datagen WHERE event_type = 9)`;

describe('filter and projection fused into the nexmark scan', () => {
  it('plans one step per reader after the timestamps, naming what it reads', () => {
    const plan = tableEnv().explainSql(
      'SELECT auction, 0.908 * price FROM bid WHERE MOD(auction, 123) = 0',
    );
    const steps = plan
      .split('\n')
      .filter((l) => /^\s+#\d+ /.test(l))
      .map((l) => l.trim().split(' ')[1]);
    expect(steps).toEqual(['source', 'timestamps-watermarks', 'flat-map', 'sink']);
    expect(plan).toContain(
      'datagen: scan, project=[event_type, bid.auction, bid.price], filter=[=(event_type, 2)], where, select',
    );
  });

  it('gives the rows of the same query over materialized rows (random filters and projections)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(PROJECTIONS, { minLength: 1, maxLength: 5 }),
        fc.subarray(CONDITIONS, { maxLength: 2 }),
        async (project, conditions) => {
          const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
          const list = project.map((e, i) => `${e} AS c${i}`).join(', ');
          const fused = `SELECT ${list} FROM datagen${where}`;
          const materialized = `SELECT ${flat(list)} FROM ${MATERIALIZED}${flat(where)}`;
          const [a, b] = await run([fused, materialized]);
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('the materialized oracle runs its filter over rows, not in a scan', () => {
    const plan = tableEnv().explainSql(
      `SELECT bid_price FROM ${MATERIALIZED} WHERE bid_price > 10`,
    );
    expect(plan).toContain('flat-map "where, select"');
  });
});
