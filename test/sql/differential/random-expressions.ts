/**
 * Random typed expressions over the columns of table `t`, in the manner of SQLancer: a seeded
 * generator builds a tree of a wanted SQL type from columns, literals (NULL among them),
 * arithmetic, comparisons, three-valued logic, CASE, COALESCE, casts and functions, and a
 * query projects a few such expressions under a random WHERE. Arithmetic stays clear of
 * overflow (small factors over small columns) and division by zero (literal divisors), so
 * each engine's answer is a value, not an error.
 */
import { DeterministicRandom } from '../../../src/util/random.js';
import type { SuiteCase } from './families.js';

type Kind = 'BOOLEAN' | 'INT' | 'BIGINT' | 'DOUBLE' | 'DECIMAL' | 'STRING' | 'DATE' | 'TIMESTAMP';

const COLUMNS: Record<Kind, readonly string[]> = {
  BOOLEAN: ['b'],
  INT: ['i', 'id'],
  BIGINT: ['l'],
  DOUBLE: ['d'],
  DECIMAL: ['m'],
  STRING: ['s', 'k'],
  DATE: ['dt'],
  TIMESTAMP: ['ts'],
};

const KINDS = Object.keys(COLUMNS) as readonly Kind[];
const COMPARABLE = KINDS.filter((k) => k !== 'BOOLEAN');
const CAST_NAME: Record<Kind, string> = {
  BOOLEAN: 'BOOLEAN',
  INT: 'INT',
  BIGINT: 'BIGINT',
  DOUBLE: 'DOUBLE',
  DECIMAL: 'DECIMAL(12, 2)',
  STRING: 'STRING',
  DATE: 'DATE',
  TIMESTAMP: 'TIMESTAMP(3)',
};

class ExpressionGenerator {
  constructor(
    private readonly rnd: DeterministicRandom,
    private readonly columns: Record<Kind, readonly string[]> = COLUMNS,
  ) {}

  literal(kind: Kind): string {
    const r = this.rnd;
    if (r.chance(0.08)) return `CAST(NULL AS ${CAST_NAME[kind]})`;
    switch (kind) {
      case 'BOOLEAN':
        return r.pick(['TRUE', 'FALSE']);
      case 'INT':
        return String(r.between(-20, 20));
      case 'BIGINT':
        return `CAST(${r.between(-1000, 1000)} AS BIGINT)`;
      case 'DOUBLE':
        return `CAST(${r.between(-40, 40) / 4} AS DOUBLE)`;
      case 'DECIMAL':
        return `${r.between(-99, 99)}.${r.between(0, 9)}`;
      case 'STRING':
        // One length, so CASE over literals is VARCHAR on both engines (CHAR padding aside).
        return r.pick(["'abc'", "'xyz'", "'a_c'", "'42 '"]);
      case 'DATE':
        return `DATE '202${r.between(4, 7)}-0${r.between(1, 9)}-1${r.between(0, 9)}'`;
      case 'TIMESTAMP':
        return `TIMESTAMP '2026-03-2${r.between(8, 9)} ${r.pick(['00', '23'])}:${r.between(10, 59)}:00'`;
    }
  }

  expr(kind: Kind, depth: number): string {
    const r = this.rnd;
    if (depth <= 0 || r.chance(0.25)) {
      return r.chance(0.7) ? r.pick(this.columns[kind]) : this.literal(kind);
    }
    const d = depth - 1;
    if (r.chance(0.12)) return this.generic(kind, d);
    switch (kind) {
      case 'BOOLEAN':
        return this.bool(d);
      case 'INT':
        return r.pick([
          () => `(${this.expr('INT', d)} ${r.pick(['+', '-'])} ${this.expr('INT', d)})`,
          () => `(${this.expr('INT', d)} * ${r.between(-5, 5)})`,
          () => `(${this.expr('INT', d)} / ${r.pick([2, 3, -7])})`,
          () => `MOD(${this.expr('INT', d)}, ${r.pick([2, 5, -3])})`,
          () => `ABS(${this.expr('INT', d)})`,
          () => `CHAR_LENGTH(${this.expr('STRING', d)})`,
          () => `EXTRACT(${r.pick(['DAY', 'MONTH', 'YEAR'])} FROM ${this.expr('DATE', d)})`,
          () => `CAST(${this.expr(r.pick(['DOUBLE', 'DECIMAL', 'BIGINT'] as const), d)} AS INT)`,
          () => `TRY_CAST(${this.expr('STRING', d)} AS INT)`,
          () => `POSITION(${this.literal('STRING')} IN ${this.expr('STRING', d)})`,
        ])();
      case 'BIGINT':
        return r.pick([
          () => `(${this.expr('BIGINT', d)} + ${this.expr('INT', d)})`,
          () => `(${this.expr('BIGINT', d)} - ${this.expr('BIGINT', d)})`,
          () => `CAST(${this.expr('INT', d)} AS BIGINT)`,
          () => `ABS(${this.expr('BIGINT', d)})`,
          () => `(${this.expr('BIGINT', d)} / ${r.pick([3, 1000])})`,
        ])();
      case 'DOUBLE':
        return r.pick([
          () => `(${this.expr('DOUBLE', d)} ${r.pick(['+', '-'])} ${this.expr('DOUBLE', d)})`,
          () => `(${this.expr('DOUBLE', d)} * ${r.pick(['0.5', '2', '-1.5'])})`,
          () => `(${this.expr('DOUBLE', d)} + ${this.expr('INT', d)})`,
          () => `CAST(${this.expr(r.pick(['INT', 'DECIMAL'] as const), d)} AS DOUBLE)`,
          () => `ABS(${this.expr('DOUBLE', d)})`,
          () => `${r.pick(['FLOOR', 'CEIL'])}(${this.expr('DOUBLE', d)})`,
        ])();
      case 'DECIMAL':
        return r.pick([
          () => `(${this.expr('DECIMAL', d)} ${r.pick(['+', '-'])} ${this.expr('DECIMAL', d)})`,
          () => `(${this.expr('DECIMAL', d)} * ${r.pick(['2', '0.5', '-1.25'])})`,
          () => `(${this.expr('DECIMAL', d)} + ${this.expr('INT', d)})`,
          () => `CAST(${this.expr(r.pick(['INT', 'DOUBLE'] as const), d)} AS DECIMAL(12, 2))`,
          () => `ROUND(${this.expr('DECIMAL', d)}, ${r.between(0, 1)})`,
          () => `ABS(${this.expr('DECIMAL', d)})`,
          () => `(${this.expr('DECIMAL', d)} / ${r.pick(['4', '2.5'])})`,
        ])();
      case 'STRING':
        return r.pick([
          () =>
            `${r.pick(['UPPER', 'LOWER', 'TRIM', 'LTRIM', 'RTRIM'])}(${this.expr('STRING', d)})`,
          () => `SUBSTRING(${this.expr('STRING', d)}, ${r.between(1, 3)}, ${r.between(0, 3)})`,
          () => `(${this.expr('STRING', d)} || ${this.expr('STRING', d)})`,
          () => `CONCAT(${this.expr('STRING', d)}, ${this.expr('STRING', d)})`,
          () =>
            `REPLACE(${this.expr('STRING', d)}, ${r.pick(["'a'", "'b'", "' '"])}, ${r.pick(["'-'", "''"])})`,
          () =>
            `CAST(${this.expr(r.pick(['INT', 'BIGINT', 'DECIMAL', 'BOOLEAN', 'DATE', 'TIMESTAMP'] as const), d)} AS STRING)`,
          () =>
            `CONCAT_WS(${r.pick(["','", "'-'"])}, ${this.expr('STRING', d)}, ${this.expr('STRING', d)})`,
        ])();
      case 'DATE':
        return r.pick([
          () => `CAST(${this.expr('TIMESTAMP', d)} AS DATE)`,
          () => `TRY_CAST(${this.expr('STRING', d)} AS DATE)`,
        ])();
      case 'TIMESTAMP':
        return r.pick([
          () =>
            `(${this.expr('TIMESTAMP', d)} ${r.pick(['+', '-'])} INTERVAL '${r.between(1, 90)}' ${r.pick(['SECOND', 'MINUTE', 'HOUR', 'DAY'])})`,
          () => `CAST(${this.expr('DATE', d)} AS TIMESTAMP(3))`,
        ])();
    }
  }

  /** CASE, COALESCE, IF or NULLIF of any type. */
  private generic(kind: Kind, d: number): string {
    const r = this.rnd;
    return r.pick([
      () =>
        `CASE WHEN ${this.bool(d)} THEN ${this.expr(kind, d)} ${r.chance(0.7) ? `ELSE ${this.expr(kind, d)} ` : ''}END`,
      () => `COALESCE(${this.expr(kind, d)}, ${this.expr(kind, d)})`,
      () => `IF(${this.bool(d)}, ${this.expr(kind, d)}, ${this.expr(kind, d)})`,
      () => `NULLIF(${this.expr(kind, d)}, ${this.expr(kind, d)})`,
    ])();
  }

  bool(d: number): string {
    const r = this.rnd;
    const cmp = () => {
      const k = r.pick(COMPARABLE);
      return `${this.expr(k, d)} ${r.pick(['=', '<>', '<', '<=', '>', '>='])} ${this.expr(k, d)}`;
    };
    return r.pick([
      () => `(${cmp()})`,
      () => `(${cmp()})`,
      () => `(${this.expr('BOOLEAN', d)} ${r.pick(['AND', 'OR'])} ${this.expr('BOOLEAN', d)})`,
      () => `(NOT ${this.expr('BOOLEAN', d)})`,
      () => `(${this.expr(r.pick(COMPARABLE), d)} IS ${r.pick(['', 'NOT '])}NULL)`,
      () =>
        `(${this.expr('BOOLEAN', d)} IS ${r.pick(['', 'NOT '])}${r.pick(['TRUE', 'FALSE', 'UNKNOWN'])})`,
      () => {
        const k = r.pick(['INT', 'DECIMAL', 'DATE'] as const);
        return `(${this.expr(k, d)} ${r.pick(['', 'NOT '])}BETWEEN ${this.literal(k)} AND ${this.literal(k)})`;
      },
      () => {
        const k = r.pick(['INT', 'STRING'] as const);
        return `(${this.expr(k, d)} ${r.pick(['', 'NOT '])}IN (${this.literal(k)}, ${this.literal(k)}, ${this.expr(k, d)}))`;
      },
      () => `(${this.expr('STRING', d)} LIKE ${r.pick(["'%b%'", "'_b%'", "'a%'", "'%'"])})`,
    ])();
  }
}

/** `count` random queries `SELECT id, e1, e2, e3 FROM t WHERE p`, from `seed`. */
export function randomExpressionCases(seed: number, count: number): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (let n = 0; n < count; n++) {
    const gen = new ExpressionGenerator(new DeterministicRandom().reseed(seed, n));
    const rnd = new DeterministicRandom().reseed(seed + 1, n);
    const select = [0, 1, 2].map((c) => `${gen.expr(rnd.pick(KINDS), 3)} AS e${c}`);
    const where = rnd.chance(0.8) ? ` WHERE ${gen.bool(2)}` : '';
    cases.push({ name: `random-${n}`, sql: `SELECT id, ${select.join(', ')} FROM t${where}` });
  }
  return cases;
}

const NUMERIC: readonly Kind[] = ['INT', 'BIGINT', 'DOUBLE', 'DECIMAL'];

/** A random aggregate call over random expressions, with a FILTER now and then. */
function randomAggregate(gen: ExpressionGenerator, rnd: DeterministicRandom): string {
  const call = rnd.pick([
    () => `SUM(${gen.expr(rnd.pick(NUMERIC), 2)})`,
    () => `AVG(${gen.expr(rnd.pick(NUMERIC), 2)})`,
    () => `${rnd.pick(['MIN', 'MAX'])}(${gen.expr(rnd.pick(COMPARABLE), 2)})`,
    () => `COUNT(${gen.expr(rnd.pick(KINDS), 2)})`,
    () => `COUNT(DISTINCT ${gen.expr(rnd.pick(['INT', 'STRING', 'BOOLEAN'] as const), 2)})`,
    () => 'COUNT(*)',
  ])();
  return rnd.chance(0.25) ? `${call} FILTER (WHERE ${gen.bool(1)})` : call;
}

/**
 * `count` random aggregations: aggregates of random expressions under a random WHERE, grouped
 * by a key (an updating GROUP BY) or by a key and a TUMBLE window (insert-only).
 */
export function randomAggregateCases(seed: number, count: number): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (let n = 0; n < count; n++) {
    const gen = new ExpressionGenerator(new DeterministicRandom().reseed(seed + 2, n));
    const rnd = new DeterministicRandom().reseed(seed + 3, n);
    const key = rnd.pick(['k', 'b', 'MOD(id, 4)']);
    const aggregates = [0, 1, 2].map((c) => `${randomAggregate(gen, rnd)} AS a${c}`).join(', ');
    const where = rnd.chance(0.6) ? ` WHERE ${gen.bool(2)}` : '';
    const windowed = n % 3 === 2;
    cases.push({
      name: `random-aggregate-${n}`,
      sql: windowed
        ? `SELECT ${key} AS g, window_end, ${aggregates} FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))${where} GROUP BY ${key}, window_start, window_end`
        : `SELECT ${key} AS g, ${aggregates} FROM t${where} GROUP BY ${key}`,
    });
  }
  return cases;
}

/** The columns of `t JOIN u`, qualified (both tables have a `k`). */
const JOIN_COLUMNS: Record<Kind, readonly string[]> = {
  BOOLEAN: ['t.b'],
  INT: ['t.i', 't.id', 'u.v', 'u.uid'],
  BIGINT: ['t.l'],
  DOUBLE: ['t.d'],
  DECIMAL: ['t.m', 'u.p'],
  STRING: ['t.s', 't.k', 'u.k'],
  DATE: ['t.dt'],
  TIMESTAMP: ['t.ts', 'u.uts'],
};

/**
 * `count` random queries of the stateful operators over random expressions, in turn: a join
 * of every kind on `k` with a random further condition over both sides, a Top-N ordered by a
 * random expression (then `id`, so that ties do not depend on arrival), and an OVER aggregate
 * of a random expression over a random frame.
 */
export function randomOperatorCases(seed: number, count: number): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (let n = 0; n < count; n++) {
    const rnd = new DeterministicRandom().reseed(seed + 5, n);
    const where = (gen: ExpressionGenerator) => (rnd.chance(0.5) ? ` WHERE ${gen.bool(1)}` : '');
    let sql: string;
    if (n % 3 === 0) {
      const gen = new ExpressionGenerator(
        new DeterministicRandom().reseed(seed + 4, n),
        JOIN_COLUMNS,
      );
      const kind = rnd.pick(['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN']);
      const select = [0, 1].map((c) => `${gen.expr(rnd.pick(KINDS), 2)} AS e${c}`).join(', ');
      sql = `SELECT t.id, u.uid, ${select} FROM t ${kind} u ON t.k = u.k AND ${gen.bool(2)}`;
    } else if (n % 3 === 1) {
      const gen = new ExpressionGenerator(new DeterministicRandom().reseed(seed + 4, n));
      const order = `${gen.expr(rnd.pick(COMPARABLE), 2)}${rnd.pick(['', ' DESC'])}, id`;
      const partition = rnd.pick(['k', 'b', 'MOD(id, 3)']);
      sql = `SELECT * FROM (SELECT id, k, b, ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY ${order}) AS rn FROM t${where(gen)}) WHERE rn <= ${rnd.between(1, 3)}`;
    } else {
      const gen = new ExpressionGenerator(new DeterministicRandom().reseed(seed + 4, n));
      const aggregate = rnd.pick([
        () => `SUM(${gen.expr(rnd.pick(['INT', 'DECIMAL', 'DOUBLE'] as const), 2)})`,
        () => `${rnd.pick(['MIN', 'MAX'])}(${gen.expr(rnd.pick(COMPARABLE), 2)})`,
        () => `COUNT(${gen.expr(rnd.pick(KINDS), 2)})`,
        () => `AVG(${gen.expr(rnd.pick(['INT', 'DECIMAL'] as const), 2)})`,
      ])();
      const frame = rnd.pick([
        `ROWS BETWEEN ${rnd.between(0, 3)} PRECEDING AND CURRENT ROW`,
        `RANGE BETWEEN INTERVAL '${rnd.between(1, 5)}' SECOND PRECEDING AND CURRENT ROW`,
        'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
      ]);
      const partition = rnd.pick(['k', 'b', 'MOD(id, 3)']);
      sql = `SELECT id, ${aggregate} OVER (PARTITION BY ${partition} ORDER BY ts ${frame}) AS o FROM t${where(gen)}`;
    }
    cases.push({ name: `random-operator-${n}`, sql });
  }
  return cases;
}
