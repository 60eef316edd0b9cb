/**
 * The differential suite's input tables, from a seeded generator: `t` has a column of every
 * type the suite covers (each nullable one NULL in some rows), `u` is the other side of the
 * joins. Rowtimes are out of order by less than the watermark delay, so no row is late on
 * either engine and the results do not depend on when watermarks are emitted.
 */
import { DeterministicRandom } from '../../../src/util/random.js';

export type ColumnType =
  | 'STRING'
  | 'INT'
  | 'BIGINT'
  | 'DOUBLE'
  | 'BOOLEAN'
  | 'DATE'
  | 'DECIMAL(10, 2)'
  | 'TIMESTAMP(3)'
  | 'TIMESTAMP_LTZ(3)';

/**
 * A JSON cell: DECIMAL as plain text, DATE as days since 1970-01-01, TIMESTAMP(3) as epoch ms
 * of its fields in UTC, TIMESTAMP_LTZ(3) as the epoch ms of its instant.
 */
export type Cell = string | number | boolean | null;

export interface SuiteTable {
  readonly name: string;
  readonly columns: readonly (readonly [string, ColumnType])[];
  /** A WATERMARK expression whose first word is the rowtime column. */
  readonly watermark: string;
  readonly rows: readonly (readonly Cell[])[];
}

const START = Date.UTC(2026, 2, 28, 23, 59, 0);
const DAY = 86_400_000;
const STRINGS = [
  'abc',
  'Hello World',
  '',
  ' pad ',
  '42',
  '-7',
  '3.5',
  'true',
  '2024-02-29',
  'x_y%z',
  'ümlaut',
  'a,b,c',
  'ABC',
];

/** Rowtime of row `i`: about one second apart, each up to 1.5 s before its slot. */
function rowtime(rnd: DeterministicRandom, i: number): number {
  return START + i * 1000 - rnd.int(1500);
}

function orNull<T>(rnd: DeterministicRandom, p: number, value: () => T): T | null {
  return rnd.chance(p) ? null : value();
}

function decimal(rnd: DeterministicRandom, maxUnits: number): string {
  const cents = rnd.between(-maxUnits * 100, maxUnits * 100);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The main table: one column of every type, NULLs in every column but `id` and `ts`. */
export function mainTable(seed: number, size: number): SuiteTable {
  const rnd = new DeterministicRandom(seed);
  const rows: Cell[][] = [];
  for (let i = 0; i < size; i++) {
    rows.push([
      i,
      orNull(rnd, 0.1, () => rnd.pick(['a', 'b', 'c', 'd'])),
      orNull(rnd, 0.2, () => rnd.chance(0.5)),
      orNull(rnd, 0.15, () =>
        rnd.chance(0.1) ? rnd.between(-100_000, 100_000) : rnd.between(-50, 50),
      ),
      orNull(
        rnd,
        0.15,
        () => rnd.between(-1_000_000, 1_000_000) * (rnd.chance(0.1) ? 1_000_000 : 1),
      ),
      // Multiples of 1/4: sums and averages are exact in binary floating point.
      orNull(rnd, 0.15, () => rnd.between(-400, 400) / 4),
      orNull(rnd, 0.15, () => decimal(rnd, 1000)),
      orNull(rnd, 0.15, () => rnd.pick(STRINGS)),
      orNull(rnd, 0.15, () => Math.floor(START / DAY) + rnd.between(-800, 800)),
      rowtime(rnd, i),
    ]);
  }
  return {
    name: 't',
    columns: [
      ['id', 'INT'],
      ['k', 'STRING'],
      ['b', 'BOOLEAN'],
      ['i', 'INT'],
      ['l', 'BIGINT'],
      ['d', 'DOUBLE'],
      ['m', 'DECIMAL(10, 2)'],
      ['s', 'STRING'],
      ['dt', 'DATE'],
      ['ts', 'TIMESTAMP(3)'],
    ],
    watermark: "ts - INTERVAL '2' SECOND",
    rows,
  };
}

/** The other side of the joins, on `k` (with NULL keys) over the same span of rowtimes. */
export function joinTable(seed: number, size: number, span: number): SuiteTable {
  const rnd = new DeterministicRandom(seed);
  const rows: Cell[][] = [];
  for (let i = 0; i < size; i++) {
    rows.push([
      i,
      orNull(rnd, 0.1, () => rnd.pick(['a', 'b', 'c', 'e'])),
      orNull(rnd, 0.15, () => rnd.between(-20, 20)),
      orNull(rnd, 0.15, () => decimal(rnd, 50)),
      rowtime(rnd, Math.round((i * span) / size)),
    ]);
  }
  return {
    name: 'u',
    columns: [
      ['uid', 'INT'],
      ['k', 'STRING'],
      ['v', 'INT'],
      ['p', 'DECIMAL(10, 2)'],
      ['uts', 'TIMESTAMP(3)'],
    ],
    watermark: "uts - INTERVAL '2' SECOND",
    rows,
  };
}

/**
 * Spans of instants across changes of offset: Los Angeles springs forward at 2026-03-08
 * 10:00 UTC and falls back at 2026-11-01 09:00 UTC, Berlin springs forward at 2026-03-29
 * 01:00 UTC (Shanghai keeps +08:00 throughout).
 */
const ZONED_SPANS: readonly (readonly [number, number])[] = [
  [Date.UTC(2026, 2, 7, 18), Date.UTC(2026, 2, 8, 16)],
  [Date.UTC(2026, 2, 28, 20), Date.UTC(2026, 2, 29, 6)],
  [Date.UTC(2026, 9, 31, 20), Date.UTC(2026, 10, 1, 16)],
];

/**
 * Rows with a TIMESTAMP_LTZ rowtime `lt` across DST changes, for windows aligned on a session
 * zone's wall clock: 10 to 40 minutes apart within each span, each up to 50 s before its slot
 * (the watermark trails by a minute, so no row is late).
 */
export function zonedTable(seed: number): SuiteTable {
  const rnd = new DeterministicRandom(seed);
  const rows: Cell[][] = [];
  for (const [from, to] of ZONED_SPANS) {
    for (let slot = from; slot < to; slot += rnd.between(10, 40) * 60_000) {
      rows.push([
        rows.length,
        orNull(rnd, 0.1, () => rnd.pick(['a', 'b', 'c'])),
        orNull(rnd, 0.15, () => rnd.between(-50, 50)),
        slot - rnd.int(50_000),
      ]);
    }
  }
  return {
    name: 'zoned',
    columns: [
      ['zid', 'INT'],
      ['zk', 'STRING'],
      ['zv', 'INT'],
      ['lt', 'TIMESTAMP_LTZ(3)'],
    ],
    watermark: "lt - INTERVAL '1' MINUTE",
    rows,
  };
}
