/**
 * MATCH_RECOGNIZE against the same pattern written with the Pattern API: the V shape of
 * Flink's documentation (a start row, falling prices, a rise; SKIP TO LAST PRICE_UP) over a
 * generated ticker (a random walk per symbol, one row per millisecond), each variant in its
 * own child process, on event time with heap state. Both must find the same matches.
 *
 *   npm run bench:match-recognize -- [--events N] [--keys SYMBOLS] [--reps R]
 */
import { fileURLToPath } from 'node:url';
import {
  AfterMatchSkipStrategy,
  CEP,
  type DataStream,
  DiscardingSink,
  Pattern,
  StreamEnvironment,
  WatermarkStrategy,
} from '../src/index.js';
import { Catalog } from '../src/sql/catalog/catalog.js';
import type { Row } from '../src/sql/connectors/connector.js';
import { parseExpression, parseScript } from '../src/sql/parser/parser.js';
import { planQuery } from '../src/sql/planner/query-planner.js';
import { T } from '../src/sql/types/logical-type.js';
import { benchArgs, type Measured, measureChild, median, runModes } from './shared/modes.js';

const MODES = ['sql', 'pattern-api'] as const;
type Mode = (typeof MODES)[number];

const V_SHAPE = `SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES START_ROW.rowtime AS start_tstamp, LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
    LAST(PRICE_UP.rowtime) AS end_tstamp
  AFTER MATCH SKIP TO LAST PRICE_UP
  PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
  DEFINE
    PRICE_DOWN AS (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
      OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
    PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1))`;

/** Rows [symbol, price, rowtime]: a random walk per symbol, one row per millisecond. */
function ticker(env: StreamEnvironment, events: number, symbols: number): DataStream<Row> {
  const prices = new Array<number>(symbols).fill(100);
  return env
    .fromGenerator({
      count: events,
      seed: 5,
      generate: (i, r): Row => {
        const s = r.int(symbols);
        prices[s] = Math.max(1, (prices[s] as number) + r.int(7) - 3);
        return [`S${s}`, prices[s], i];
      },
    })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Row>().withTimestampAssigner(
        (row) => row[2] as number,
      ),
    );
}

function viaSql(env: StreamEnvironment, rows: DataStream<Row>): DataStream<Row> {
  const at = { line: 1, column: 1 };
  const columns = [
    { name: 'symbol', type: T.string(), qualifier: 'Ticker', rowtime: false },
    { name: 'price', type: T.bigint(), qualifier: 'Ticker', rowtime: false },
    { name: 'rowtime', type: T.timestamp(3), qualifier: 'Ticker', rowtime: true },
  ];
  const catalog = new Catalog();
  catalog.register(
    {
      kind: 'table',
      name: 'Ticker',
      columns: columns.map((c) => ({ name: c.name, type: c.type, computed: undefined })),
      watermark: { column: 'rowtime', expr: parseExpression('rowtime') },
      primaryKey: undefined,
      options: new Map(),
      connector: 'generated',
      at,
    },
    false,
    at,
  );
  const statement = parseScript(V_SHAPE)[0];
  if (statement?.kind !== 'query') throw new Error('not a query');
  return planQuery(statement.query, {
    env,
    catalog,
    ctes: new Map(),
    sources: new Map([['Ticker', { stream: rows, columns }]]),
  }).stream;
}

/** The same pattern as Flink's planner builds it, with hand-written conditions. */
function viaPatternApi(rows: DataStream<Row>): DataStream<Row> {
  const price = (r: Row) => r[1] as number;
  const pattern = Pattern.begin<Row, 'START_ROW'>(
    'START_ROW',
    AfterMatchSkipStrategy.skipToLast('PRICE_UP', { throwOnMiss: true }),
  )
    .next('PRICE_DOWN')
    .where((e, ctx) => {
      const down = ctx.eventsFor('PRICE_DOWN');
      const before = down[down.length - 1];
      return before === undefined
        ? price(e) < price(ctx.eventsFor('START_ROW')[0] as Row)
        : price(e) < price(before);
    })
    .oneOrMore()
    .consecutive()
    .greedy()
    .next('PRICE_UP')
    .where((e, ctx) => {
      // LAST(PRICE_DOWN.price, 1) outside PRICE_DOWN's own DEFINE: its second-to-last row.
      const down = ctx.eventsFor('PRICE_DOWN');
      const before = down[down.length - 2];
      return before !== undefined && price(e) > price(before);
    });
  return CEP.pattern(
    rows.keyBy((r) => r[0] as string),
    pattern,
  ).select((m) => [
    (m.START_ROW[0] as Row)[0],
    (m.START_ROW[0] as Row)[2],
    (m.PRICE_DOWN[m.PRICE_DOWN.length - 1] as Row)[2],
    (m.PRICE_UP[0] as Row)[2],
  ]);
}

async function run(mode: Mode, events: number, symbols: number, parallelism: number) {
  const env = new StreamEnvironment({ parallelism });
  const rows = ticker(env, events, symbols);
  let matches = 0;
  let checksum = 0;
  const out = mode === 'sql' ? viaSql(env, rows) : viaPatternApi(rows);
  out
    .map((r) => {
      matches++;
      checksum = (checksum + (r[1] as number) * 3 + (r[3] as number)) % 1_000_000_007;
      return 0;
    })
    .sinkTo(new DiscardingSink());
  await env.execute(`match-recognize-${mode}`);
  return { matches, checksum };
}

interface Outcome extends Measured {
  readonly matches: number;
  readonly checksum: number;
}

const args = benchArgs({ events: 300_000, keys: 100 });

if (args.child !== undefined) {
  const mode = args.child as Mode;
  await measureChild(mode, args.events, () => run(mode, args.events, args.keys, args.parallelism));
} else {
  const runs = runModes<Outcome>(
    fileURLToPath(import.meta.url),
    MODES,
    args,
    (o) => `peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.matches} matches`,
  );
  console.log('');
  console.log(`rows ${args.events}, symbols ${args.keys}, parallelism ${args.parallelism}`);
  console.log(
    `| variant | rows/s (median of ${args.reps}) | rows per CPU-second | peak RSS MB | matches |`,
  );
  console.log('|---|---|---|---|---|');
  for (const mode of MODES) {
    const rs = runs.filter((r) => r.mode === mode);
    console.log(
      `| ${mode} | ${(median(rs.map((r) => r.eventsPerSec)) / 1e6).toFixed(3)} M | ${(median(rs.map((r) => r.eventsPerCpuSec)) / 1e6).toFixed(3)} M | ${median(rs.map((r) => r.peakRssMb)).toFixed(0)} | ${rs[0]?.matches} |`,
    );
  }
  const [a, b] = MODES.map((m) => runs.find((r) => r.mode === m));
  if (a?.matches !== b?.matches || a?.checksum !== b?.checksum) {
    console.log('the variants found different matches!');
    process.exitCode = 1;
  }
}
