/**
 * Parses the body of `MATCH_RECOGNIZE (...)` (Flink's dialect, from Calcite): PARTITION BY,
 * ORDER BY, MEASURES, ONE ROW PER MATCH, AFTER MATCH SKIP, PATTERN, WITHIN and DEFINE. The
 * main parser hands over its token cursor; what Flink does not run (ALL ROWS PER MATCH,
 * SUBSET, PERMUTE, exclusions) is refused here with its position.
 */
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { AfterMatchSkip, Expr, MatchRecognize, OrderItem, RowPattern } from './ast.js';
import type { Token } from './lexer.js';

/** The parts of the main parser this clause uses. */
export interface ClauseParser {
  readonly token: Token;
  readonly at: SourcePosition;
  isWord(word: string): boolean;
  isSymbol(symbol: string): boolean;
  acceptWord(...words: string[]): boolean;
  acceptSymbol(symbol: string): boolean;
  expectWord(word: string): void;
  expectSymbol(symbol: string): void;
  identifier(what: string): string;
  expression(): Expr;
  orderItems(): OrderItem[];
  fail(expected: string): never;
  /** Moves past the current token. */
  advance(): void;
}

function refuse(what: string, at: SourcePosition): never {
  return sqlError(`${what} is not supported in MATCH_RECOGNIZE (as in Flink SQL)`, at);
}

/** Parses `( ... )` after the MATCH_RECOGNIZE keyword (already consumed). */
export function parseMatchRecognize(p: ClauseParser, at: SourcePosition): MatchRecognize {
  p.expectSymbol('(');
  const partitionBy: Expr[] = [];
  if (p.acceptWord('PARTITION')) {
    p.expectWord('BY');
    do partitionBy.push(p.expression());
    while (p.acceptSymbol(','));
  }
  let orderBy: OrderItem[] = [];
  if (p.acceptWord('ORDER')) {
    p.expectWord('BY');
    orderBy = p.orderItems();
  }
  const measures: { expr: Expr; alias: string }[] = [];
  if (p.acceptWord('MEASURES')) {
    do {
      const expr = p.expression();
      p.expectWord('AS');
      measures.push({ expr, alias: p.identifier('a name for the measure') });
    } while (p.acceptSymbol(','));
  }
  if (p.isWord('ALL')) refuse('ALL ROWS PER MATCH', p.at);
  if (p.acceptWord('ONE')) {
    p.expectWord('ROW');
    p.expectWord('PER');
    p.expectWord('MATCH');
  }
  const after = p.acceptWord('AFTER') ? afterMatchSkip(p) : undefined;
  if (!p.isWord('PATTERN')) p.fail('PATTERN');
  p.advance();
  p.expectSymbol('(');
  const pattern = alternation(p);
  p.expectSymbol(')');
  let within: Expr | undefined;
  if (p.acceptWord('WITHIN')) within = p.expression();
  if (p.isWord('SUBSET')) refuse('SUBSET', p.at);
  p.expectWord('DEFINE');
  const define: { variable: string; condition: Expr; at: SourcePosition }[] = [];
  do {
    const defAt = p.at;
    const variable = p.identifier('a pattern variable');
    p.expectWord('AS');
    define.push({ variable, condition: p.expression(), at: defAt });
  } while (p.acceptSymbol(','));
  p.expectSymbol(')');
  return { partitionBy, orderBy, measures, after, pattern, within, define, at };
}

function afterMatchSkip(p: ClauseParser): AfterMatchSkip {
  p.expectWord('MATCH');
  p.expectWord('SKIP');
  if (p.acceptWord('PAST', 'LAST', 'ROW')) return { kind: 'past-last-row' };
  p.expectWord('TO');
  if (p.acceptWord('NEXT', 'ROW')) return { kind: 'to-next-row' };
  const at = p.at;
  if (p.acceptWord('FIRST'))
    return { kind: 'to-first', variable: p.identifier('a pattern variable'), at };
  // `SKIP TO var` is `SKIP TO LAST var`.
  p.acceptWord('LAST');
  return { kind: 'to-last', variable: p.identifier('a pattern variable'), at };
}

function alternation(p: ClauseParser): RowPattern {
  const at = p.at;
  const options = [sequence(p)];
  while (p.acceptSymbol('|')) options.push(sequence(p));
  return options.length === 1 ? (options[0] as RowPattern) : { kind: 'alternation', options, at };
}

function sequence(p: ClauseParser): RowPattern {
  const at = p.at;
  const items: RowPattern[] = [];
  // DEFINE and WITHIN are keywords, never variables: stopping there reports a missing ')'.
  const ends = () => p.isSymbol(')') || p.isSymbol('|') || p.isWord('DEFINE') || p.isWord('WITHIN');
  while (!ends() && p.token.kind !== 'end') items.push(quantified(p));
  if (items.length === 0) p.fail('a pattern variable');
  return items.length === 1 ? (items[0] as RowPattern) : { kind: 'sequence', items, at };
}

function quantified(p: ClauseParser): RowPattern {
  const at = p.at;
  let pattern: RowPattern;
  if (p.acceptSymbol('(')) {
    pattern = alternation(p);
    p.expectSymbol(')');
  } else if (p.isWord('PERMUTE')) {
    return refuse('PERMUTE', at);
  } else if (p.isSymbol('{')) {
    return refuse('an exclusion {- ... -}', at);
  } else {
    pattern = { kind: 'variable', name: p.identifier('a pattern variable'), at };
  }
  const bounds = quantifier(p);
  if (bounds === undefined) return pattern;
  const reluctant = p.acceptSymbol('?');
  return { kind: 'quantified', pattern, ...bounds, reluctant, at };
}

function quantifier(p: ClauseParser): { min: number; max: number } | undefined {
  if (p.acceptSymbol('*')) return { min: 0, max: Number.POSITIVE_INFINITY };
  if (p.acceptSymbol('+')) return { min: 1, max: Number.POSITIVE_INFINITY };
  if (p.acceptSymbol('?')) return { min: 0, max: 1 };
  if (!p.isSymbol('{')) return undefined;
  const at = p.at;
  p.advance();
  if (p.isSymbol('-')) refuse('an exclusion {- ... -}', at);
  const min = p.isSymbol(',') ? 0 : count(p);
  let max = min;
  if (p.acceptSymbol(',')) max = p.isSymbol('}') ? Number.POSITIVE_INFINITY : count(p);
  p.expectSymbol('}');
  if (max < min) sqlError(`quantifier {${min},${max}}: the upper bound is below the lower`, at);
  if (max === 0) sqlError('quantifier {0}: a variable must be allowed at least one row', at);
  return { min, max };
}

function count(p: ClauseParser): number {
  const t = p.token;
  if (t.kind !== 'number' || !/^\d+$/.test(t.text)) p.fail('a whole number');
  p.advance();
  return Number(t.text);
}
