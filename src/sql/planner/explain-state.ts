/**
 * What EXPLAIN adds for SQL: under each stateful operator of the logical plan, the state it
 * keeps and for how long, beside the changelog mode every changing operator already shows.
 */

const STATE: Readonly<Record<string, string>> = {
  'regular-join': 'state: every row of both inputs by join key, kept until retracted',
  'updating-aggregate':
    'state: one accumulator per group (over a changelog input also the rows of the group), kept forever',
  'top-n': 'state: the first N rows per partition',
  deduplicate: 'state: one row per key',
  window:
    'state: per key and window, an accumulator (sessions: per session; a SESSION without PARTITION BY grouped by keys: per group within the session), dropped when the window fires',
  'window-top-n':
    'state: per partition and window, the first N rows, dropped when the window fires',
  'window-deduplicate':
    'state: per partition and window, the kept row, dropped when the window fires',
  'window-join':
    'state: per join key and window, the rows of both inputs, dropped when the window fires',
  'interval-join': 'state: each input row until the watermark passes its interval',
  'time-interval-join':
    'state: each input row until the watermark passes its interval (a row of an outer side that met nothing leaves then, padded)',
  // OVER aggregations, unless the operator's name says otherwise (below).
  'keyed-process':
    'state: each row until the watermark passes its rowtime (event time); per partition the running accumulator or the rows a later frame reaches (ordered by a non-time column: every row), kept forever',
};

/** The state of the other keyed process functions the planner builds, by their names. */
function keyedProcessState(name: string): string | undefined {
  if (name.startsWith('INTERSECT') || name.startsWith('EXCEPT'))
    return 'state: per row, how many times each side holds it, kept until both are 0';
  if (name.endsWith('(retract)'))
    return 'state: every current row per partition, sorted (rows past the last rank replace retracted ones), kept until retracted';
  if (name.startsWith('top-n (ranks') || name.startsWith('ORDER BY ... LIMIT'))
    return 'state: per partition the first rows, up to the last rank kept';
  if (name.startsWith('LIMIT')) return 'state: how many rows have arrived';
  if (name === 'window changes')
    return "state: per group and window, the row it emitted last, until the watermark passes the window's end and its allowed lateness";
  if (name === 'ORDER BY rowtime') return 'state: each row until the watermark passes its rowtime';
  if (name === 'ORDER BY (at the end of input)')
    return 'state: every current row, until the end of the input';
  return undefined;
}

/** A semi or anti join (EXISTS / IN subqueries), a keyed two-input process function by its name. */
function semiJoinState(name: string): string | undefined {
  return name.startsWith('SEMI JOIN') || name.startsWith('ANTI JOIN')
    ? 'state: per join key, every left row with how many right rows match it, and every right row, kept until retracted'
    : undefined;
}

/** A regular join whose rows of a side the watermark drops (`retainUntil`): its detail line says which. */
function regularJoinState(detail: string): string | undefined {
  const sides = / (left and right|left|right) rows until the watermark$/.exec(detail)?.[1];
  if (sides === undefined) return undefined;
  return `state: every row of both inputs by join key; the ${sides} rows only until the watermark shows that no later row of the other input can match them`;
}

/** An interval join by processing time (its detail line says so): its rows expire by the clock. */
function intervalJoinState(detail: string): string | undefined {
  return detail.includes(', processing time, ')
    ? 'state: each input row until the processing-time clock passes its interval (a row of an outer side that met nothing leaves then, padded)'
    : undefined;
}

/** The plan text with a state line under each stateful node of its logical plan. */
export function withStateLines(plan: string): string {
  const out: string[] = [];
  let logical = false;
  const lines = plan.split('\n');
  for (const [i, line] of lines.entries()) {
    out.push(line);
    if (line.startsWith('Logical plan')) logical = true;
    else if (line.startsWith('Physical plan')) logical = false;
    const node = logical ? /^ {2}#\d+ (\S+) "([^"]*)"/.exec(line) : null;
    const kind = node?.[1];
    const state =
      kind === undefined
        ? undefined
        : ((kind === 'keyed-process' ? keyedProcessState(node?.[2] ?? '') : undefined) ??
          (kind === 'keyed-co-process' ? semiJoinState(node?.[2] ?? '') : undefined) ??
          (kind === 'regular-join' ? regularJoinState(lines[i + 1] ?? '') : undefined) ??
          (kind === 'time-interval-join' ? intervalJoinState(lines[i + 1] ?? '') : undefined) ??
          STATE[kind]);
    if (state !== undefined) out.push(`      ${state}`);
  }
  return out.join('\n');
}
