/**
 * CURRENT_WATERMARK in an aggregating query (its WHERE, GROUP BY, SELECT list or HAVING): as
 * Flink plans it, the watermark is read per row by a calc before the aggregation, here a
 * column appended to the FROM clause's rows (computed by an operator that sees watermarks,
 * calc.ts), and each call reads that column. The call's argument is checked first, over the
 * FROM clause's columns, so that a wrong one is refused as anywhere else.
 */
import { CodeGen } from '../expressions/code-gen.js';
import { compile } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, Select, SelectItem } from '../parser/ast.js';
import { CalcRelation, FusingRelation, positional } from './calc.js';
import { isUpdating } from './changelog-relation.js';
import { contains, mapChildren } from './expr-tools.js';
import type { Relation } from './relation.js';
import { SourceRelation } from './source-reads.js';

const isCurrentWatermark = (e: Expr): boolean =>
  e.kind === 'call' && e.name === 'CURRENT_WATERMARK';

/** The expressions of `select` that its aggregation reads (not its FROM clause). */
function parts(select: Select): Expr[] {
  return [
    ...select.items.flatMap((i) => (i.kind === 'expr' ? [i.expr] : [])),
    ...(select.where === undefined ? [] : [select.where]),
    ...(select.having === undefined ? [] : [select.having]),
    ...select.groupBy,
  ];
}

/**
 * `select` and `from` with each CURRENT_WATERMARK call of `select` read from a column appended
 * to `from`; the two as they are when `select` calls none, or when `from` is a window TVF or a
 * changelog (where the calls are refused as not supported yet, when compiled).
 */
export function watermarkColumns(
  select: Select,
  from: Relation,
): { select: Select; from: Relation } {
  if (!parts(select).some((e) => contains(e, isCurrentWatermark))) return { select, from };
  if (
    from.window !== undefined ||
    from.windowed !== undefined ||
    isUpdating(from) ||
    select.items.some((i) => i.kind === 'star')
  )
    return { select, from };
  const scope = new Scope(from.columns);
  const calls: Expr[] = [];
  const names = new Map<string, string>();
  const columns: ScopeColumn[] = [...from.columns];
  const rewrite = (e: Expr): Expr => {
    if (!isCurrentWatermark(e) || e.kind !== 'call') return mapChildren(e, rewrite);
    // Checks the argument (a rowtime attribute) and gives the type.
    const { type } = compile(e, { scope, g: new CodeGen() });
    const [arg] = e.args as [Expr];
    const { index } = scope.resolve((arg as Extract<Expr, { kind: 'column' }>).path, arg.at);
    let name = names.get(String(index));
    if (name === undefined) {
      name = `$current_watermark_${index}`;
      names.set(String(index), name);
      calls.push({ ...e, args: [positional(index, [], arg.at)] });
      columns.push({ name, type, qualifier: undefined, rowtime: false });
    }
    return { kind: 'column', path: [name], at: e.at };
  };
  const items = select.items.map(
    (i): SelectItem => (i.kind === 'expr' ? { ...i, expr: rewrite(i.expr) } : i),
  );
  const rewritten: Select = {
    ...select,
    items,
    where: select.where === undefined ? undefined : rewrite(select.where),
    having: select.having === undefined ? undefined : rewrite(select.having),
    groupBy: select.groupBy.map(rewrite),
  };
  const relation = new CalcRelation(
    {
      input: from instanceof SourceRelation || from instanceof FusingRelation ? from : from.stream,
      inputColumns: from.columns,
      where: [],
      project: [...from.columns.map((_, i) => positional(i, [], select.at)), ...calls],
    },
    columns,
  );
  return { select: rewritten, from: relation };
}
