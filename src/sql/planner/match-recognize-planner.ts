/**
 * Plans `MATCH_RECOGNIZE` onto Weir's CEP engine as Flink's planner plans it onto Flink CEP:
 * the rows are keyed by PARTITION BY (one key without it), matched in rowtime order as the
 * watermark passes them (late rows are dropped), or on arrival when ORDER BY starts with a
 * processing-time attribute, the PATTERN becomes a pattern of strictly
 * consecutive stages with the same quantifiers, DEFINE its conditions, and each match one row
 * of the partition columns and the MEASURES. The result is insert-only; in event time
 * MATCH_ROWTIME() is its time attribute.
 */

import { Pattern } from '../../api/cep/pattern.js';
import { CEP } from '../../api/cep/pattern-stream.js';
import type {
  CepConditionContext,
  EventComparator,
  MatchEvents,
  SkipStrategySpec,
} from '../../core/cep.js';
import type { Key } from '../../core/key-groups.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { compareNullsLow } from '../expressions/functions/value-order.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { AfterMatchSkip, FromItem, MatchRecognize, RowPattern } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { formatType, type LogicalType } from '../types/logical-type.js';
import { withEventTime } from './event-time.js';
import {
  ALL_ROWS,
  compileMatchCondition,
  compileMatchExpression,
  type MatchScope,
  type MatchView,
} from './match-expressions.js';
import type { Relation } from './relation.js';

/** One variable of the pattern with its quantifier. */
interface Stage {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly reluctant: boolean;
  readonly at: SourcePosition;
}

type AnyPattern = Pattern<Row, { readonly [stage: string]: Row }, string>;

/** The pattern as the stages Flink's CEP runs: a sequence of (quantified) variables. */
function stagesOf(pattern: RowPattern, out: Stage[] = []): Stage[] {
  switch (pattern.kind) {
    case 'variable':
      out.push({ name: pattern.name, min: 1, max: 1, reluctant: false, at: pattern.at });
      break;
    case 'sequence':
      for (const item of pattern.items) stagesOf(item, out);
      break;
    case 'alternation':
      sqlError(
        'alternation (|) in PATTERN is not supported (as in Flink SQL: its CEP has no branching patterns)',
        pattern.at,
      );
      break;
    case 'quantified': {
      if (pattern.pattern.kind !== 'variable')
        sqlError(
          'a quantifier on a group of variables is not supported (as in Flink SQL: group patterns)',
          pattern.at,
        );
      const { min, max, reluctant } = pattern;
      out.push({ name: pattern.pattern.name, min, max, reluctant, at: pattern.at });
      break;
    }
  }
  return out;
}

const isOptionalOnly = (s: Stage): boolean => s.min === 0 && s.max === 1;
/** Flink applies greedy() only where it changes something: not to `?` nor to `{n}`. */
const isGreedy = (s: Stage): boolean => !s.reluctant && !isOptionalOnly(s) && s.min !== s.max;

function checkStages(stages: readonly Stage[]): void {
  const seen = new Set<string>();
  for (const s of stages) {
    if (seen.has(s.name))
      sqlError(`pattern variable ${s.name} appears twice; Flink SQL needs unique variables`, s.at);
    seen.add(s.name);
    if (isOptionalOnly(s) && s.reluctant)
      sqlError(
        `${s.name}??: reluctant optional variables are not supported (as in Flink SQL)`,
        s.at,
      );
  }
  if (stages.every((s) => s.min === 0))
    sqlError(
      'the pattern can match no rows at all; at least one variable must not be optional (as in Flink SQL)',
      stages[0]?.at,
    );
  for (let i = 1; i < stages.length; i++) {
    const before = stages[i - 1] as Stage;
    const s = stages[i] as Stage;
    // Flink's check sits in Pattern.optional(), which `?` and `*` use and {0,n} does not.
    const optional = s.min === 0 && (s.max === 1 || s.max === Number.POSITIVE_INFINITY);
    if (optional && isGreedy(before))
      sqlError(
        `optional variable ${s.name} right after the greedy ${before.name} is not supported (as in Flink CEP: an optional pattern cannot be preceded by a greedy one); make ${before.name}'s quantifier reluctant`,
        s.at,
      );
  }
  const last = stages[stages.length - 1] as Stage;
  if (isGreedy(last))
    sqlError(
      `greedy quantifier on ${last.name}, the last variable of the pattern, is not supported (as in Flink SQL); end the pattern with a plain variable or a reluctant quantifier (${last.name}+? ...)`,
      last.at,
    );
}

/** Flink's translation of a quantifier onto the pattern API (all repetitions consecutive). */
function quantify(p: AnyPattern, s: Stage): AnyPattern {
  let q: AnyPattern;
  if (s.min === 1 && s.max === 1) return p;
  if (isOptionalOnly(s)) return p.optional();
  if (s.max === Number.POSITIVE_INFINITY) {
    q = s.min <= 1 ? p.oneOrMore() : p.timesOrMore(s.min);
    if (s.min === 0) q = q.optional();
  } else {
    q = p.times(Math.max(s.min, 1), s.max);
    if (s.min === 0) q = q.optional();
  }
  if (q.toSpec().stages.at(-1)?.quantifier.max !== 1) q = q.consecutive();
  return isGreedy(s) ? q.greedy() : q;
}

function skipStrategy(
  after: AfterMatchSkip | undefined,
  stages: readonly Stage[],
): SkipStrategySpec {
  if (after === undefined) return { kind: 'skip-to-next' };
  switch (after.kind) {
    case 'to-next-row':
      return { kind: 'skip-to-next' };
    case 'past-last-row':
      return { kind: 'skip-past-last-event' };
    default:
      if (!stages.some((s) => s.name === after.variable))
        sqlError(`AFTER MATCH SKIP: ${after.variable} is not a variable of the pattern`, after.at);
      return {
        kind: after.kind === 'to-first' ? 'skip-to-first' : 'skip-to-last',
        stage: after.variable,
        throwOnMiss: true,
      };
  }
}

function withinMs(clause: MatchRecognize): number | undefined {
  if (clause.within === undefined) return undefined;
  const c = compileScalar(clause.within, new Scope([]));
  if (c.type.kind !== 'INTERVAL_DAY_TIME')
    sqlError(
      `WITHIN needs an INTERVAL such as INTERVAL '1' HOUR, got ${formatType(c.type)}`,
      clause.within.at,
    );
  const ms = c.fn([]) as number;
  if (!(ms > 0)) sqlError('WITHIN must be a positive interval', clause.within.at);
  return ms;
}

function columnIndex(
  e: MatchRecognize['partitionBy'][number],
  columns: readonly ScopeColumn[],
  what: string,
): number {
  if (e.kind !== 'column') sqlError(`${what} takes column names, not expressions`, e.at);
  const resolved = new Scope(columns).resolve(e.path, e.at);
  if (resolved.fields.length > 0) sqlError(`${what} takes column names, not fields`, e.at);
  return resolved.index;
}

/** The time attribute MATCH_RECOGNIZE orders by: the first ORDER BY key. */
interface TimeOrder {
  readonly index: number;
  /** A processing-time attribute (`PROCTIME()`): rows are matched in arrival order. */
  readonly processingTime: boolean;
}

function timeOrder(clause: MatchRecognize, input: Relation): TimeOrder {
  const first = clause.orderBy[0];
  if (first === undefined)
    sqlError(
      'MATCH_RECOGNIZE needs ORDER BY a time attribute (a rowtime, or a PROCTIME() column)',
      clause.at,
    );
  const index = columnIndex(first.expr, input.columns, 'ORDER BY of MATCH_RECOGNIZE');
  const column = input.columns[index] as ScopeColumn;
  if (!column.rowtime && column.proctime !== true)
    sqlError(
      `ORDER BY of MATCH_RECOGNIZE must start with a time attribute; '${column.name}' is not one (declare WATERMARK FOR it, or order by a PROCTIME() column)`,
      first.expr.at,
    );
  if (first.descending)
    sqlError('ORDER BY of MATCH_RECOGNIZE must be ascending on time', first.expr.at);
  return { index, processingTime: !column.rowtime };
}

/**
 * The ORDER BY columns after the time attribute, as the order of rows of one timestamp (Flink
 * turns them into the CEP operator's event comparator); none: arrival order.
 */
function tieOrder(clause: MatchRecognize, input: Relation): EventComparator<Row> | undefined {
  const keys = clause.orderBy.slice(1).map((o) => ({
    index: columnIndex(o.expr, input.columns, 'ORDER BY of MATCH_RECOGNIZE'),
    sign: o.descending ? -1 : 1,
  }));
  if (keys.length === 0) return undefined;
  return (a, b) => {
    for (const k of keys) {
      const c = compareNullsLow(a[k.index], b[k.index]);
      if (c !== 0) return c * k.sign;
    }
    return 0;
  };
}

function partitionKey(indexes: readonly number[]): (row: Row) => Key {
  if (indexes.length === 0) return () => 0;
  return (row) => {
    let key = '';
    for (const i of indexes) {
      const v = row[i];
      key += v === null ? '\u0000' : `${typeof v === 'string' ? 's' : 'v'}${String(v)}\u0001`;
    }
    return key;
  };
}

/** Rows of several lists as one, by position (the universal variable over all of them). */
function concatenated(lists: readonly (readonly Row[])[], index: number): Row | undefined {
  let i = index;
  for (const list of lists) {
    if (i < list.length) return list[i];
    i -= list.length;
  }
  return undefined;
}

/** The rows of a partial match, as a DEFINE condition of `defining` sees them. */
function defineView(
  event: Row,
  ctx: CepConditionContext<Row>,
  defining: string,
  variables: readonly string[],
): MatchView {
  // The engine gathers a stage's events by walking the partial match: once per variable here.
  const gathered = new Map<string, readonly Row[]>();
  const eventsFor = (variable: string): readonly Row[] => {
    let rows = gathered.get(variable);
    if (rows === undefined) {
      rows = ctx.eventsFor(variable);
      gathered.set(variable, rows);
    }
    return rows;
  };
  // In DEFINE the row being tested is the last row of `defining` and of the whole match.
  return {
    count(variable) {
      if (variable !== ALL_ROWS)
        return eventsFor(variable).length + (variable === defining ? 1 : 0);
      let n = 1;
      for (const v of variables) n += eventsFor(v).length;
      return n;
    },
    row(variable, index) {
      if (variable !== ALL_ROWS) {
        const rows = eventsFor(variable);
        if (index < rows.length) return rows[index];
        return variable === defining && index === rows.length ? event : undefined;
      }
      let i = index;
      for (const v of variables) {
        const rows = eventsFor(v);
        if (i < rows.length) return rows[i];
        i -= rows.length;
      }
      return i === 0 ? event : undefined;
    },
    timestamp: ctx.timestamp,
    processingTime: () => Date.now(),
  };
}

/** The rows of a complete match, as MEASURES see them. */
function matchView(
  match: MatchEvents<Row>,
  variables: readonly string[],
  timestamp: number,
  processingTime: () => number,
): MatchView {
  const lists = (variable: string): readonly (readonly Row[])[] =>
    variable === ALL_ROWS ? variables.map((v) => match[v] ?? []) : [match[variable] ?? []];
  return {
    count: (variable) => lists(variable).reduce((n, l) => n + l.length, 0),
    row: (variable, index) => concatenated(lists(variable), index),
    timestamp,
    processingTime,
  };
}

/** Plans `input MATCH_RECOGNIZE (...)`. */
export function planMatchRecognize(
  item: Extract<FromItem, { kind: 'match-recognize' }>,
  input: Relation,
): Relation {
  const clause = item.clause;
  const time = timeOrder(clause, input);
  // The rows enter the pattern in the order of the time they carry: that of the ORDER BY column.
  if (!time.processingTime) input = withEventTime(input, time.index);
  const partition = clause.partitionBy.map((e) =>
    columnIndex(e, input.columns, 'PARTITION BY of MATCH_RECOGNIZE'),
  );
  const stages = stagesOf(clause.pattern);
  checkStages(stages);
  const variables = stages.map((s) => s.name);
  const scope = (defining: string | undefined): MatchScope => ({
    input: input.columns,
    variables,
    defining,
    // In processing time MATCH_ROWTIME() is the time the last row was matched at: no watermark
    // follows it, so it is no time attribute.
    rowtimeAttribute: !time.processingTime,
  });
  const conditions = new Map<string, (view: MatchView) => boolean>();
  for (const d of clause.define) {
    if (!variables.includes(d.variable))
      sqlError(`DEFINE ${d.variable}: no such variable in PATTERN (${variables.join(' ')})`, d.at);
    if (conditions.has(d.variable)) sqlError(`DEFINE ${d.variable} is given twice`, d.at);
    conditions.set(d.variable, compileMatchCondition(d.condition, scope(d.variable)));
  }
  const measures = clause.measures.map((m) => ({
    alias: m.alias,
    ...compileMatchExpression(m.expr, scope(undefined)),
  }));

  let pattern: AnyPattern | undefined;
  for (const stage of stages) {
    let p: AnyPattern =
      pattern === undefined
        ? Pattern.begin<Row>(stage.name, skipStrategy(clause.after, stages))
        : pattern.next(stage.name);
    const condition = conditions.get(stage.name);
    if (condition !== undefined) {
      const name = stage.name;
      p = p.where((event, ctx) =>
        condition(defineView(event, ctx as CepConditionContext<Row>, name, variables)),
      );
    }
    pattern = quantify(p, stage);
  }
  if (pattern === undefined) return sqlError('PATTERN is empty', clause.at);
  const within = withinMs(clause);
  if (within !== undefined) pattern = pattern.within(within);

  const keyOf = partitionKey(partition);
  const comparator = tieOrder(clause, input);
  const matched = CEP.pattern(
    input.stream.keyBy(keyOf, 'match partition'),
    pattern,
    comparator === undefined ? {} : { comparator },
  );
  // Processing time: rows are matched as they arrive (those of one millisecond sorted by the
  // further ORDER BY keys), and WITHIN is measured on the clock, as Flink's CEP operator does.
  const rows = (time.processingTime ? matched.inProcessingTime() : matched)
    .process<Row>({
      processMatch(match, ctx, out) {
        const events = match as MatchEvents<Row>;
        const view = matchView(events, variables, ctx.timestamp, () => ctx.currentProcessingTime());
        const any = variables.map((v) => events[v]?.[0]).find((r) => r !== undefined) as Row;
        const row: Row = partition.map((i) => any[i]);
        for (const m of measures) row.push(m.evaluate(view));
        out.collect(row);
      },
    })
    .name('MATCH_RECOGNIZE');
  const columns: ScopeColumn[] = [
    ...partition.map((i) => ({ ...(input.columns[i] as ScopeColumn), rowtime: false })),
    ...measures.map((m) => ({
      name: m.alias,
      type: m.type as LogicalType,
      qualifier: undefined,
      rowtime: m.rowtime,
    })),
  ];
  const names = new Set<string>();
  for (const c of columns) {
    if (names.has(c.name))
      sqlError(`MATCH_RECOGNIZE gives two columns named '${c.name}'`, clause.at);
    names.add(c.name);
  }
  return { stream: rows, columns };
}
