/**
 * A recursive-descent parser for Flink's SQL dialect (the subset Weir runs, plus enough of the
 * rest to refuse it by name). Keywords are case-insensitive; identifiers keep their case, as in
 * Flink. Every error names the line and column of the token it stopped at.
 */
import { type SourcePosition, SqlError, sqlError } from '../sql-error.js';
import { type LogicalType, MAX_LENGTH, type RowField } from '../types/logical-type.js';
import type {
  BinaryOp,
  ColumnAliases,
  ColumnDefinition,
  ColumnPosition,
  Expr,
  FromItem,
  IntervalUnit,
  JoinType,
  LikeFeature,
  OrderItem,
  OverWindow,
  Query,
  SchemaChange,
  Select,
  SelectItem,
  ShowLike,
  ShowWhat,
  Statement,
  StaticPartitionValue,
  TableLike,
  TableOption,
} from './ast.js';
import { plainCall } from './calls.js';
import {
  JSON_AGGREGATES,
  JSON_SYNTAX_FUNCTIONS,
  type JsonClauseParser,
  parseJsonArguments,
  parseJsonKind,
} from './json-syntax.js';
import { type Token, tokenize } from './lexer.js';
import { type ClauseParser, parseMatchRecognize } from './match-recognize.js';
import { quantifiedComparison } from './quantified.js';

/** The details Flink's EXPLAIN takes before the statement. */
const EXPLAIN_DETAILS = ['CHANGELOG_MODE', 'ESTIMATED_COST', 'JSON_EXECUTION_PLAN', 'PLAN_ADVICE'];

/**
 * Words that start a clause after a query but may still name a column (a Kafka table's
 * `offset` metadata column): never an implicit alias, but an identifier elsewhere.
 */
const CLAUSE_WORDS = new Set(['OFFSET', 'FETCH']);

/** What a LIKE clause's options name (Flink's like options). */
const LIKE_FEATURES: readonly LikeFeature[] = [
  'ALL',
  'CONSTRAINTS',
  'DISTRIBUTION',
  'GENERATED',
  'METADATA',
  'OPTIONS',
  'PARTITIONS',
  'WATERMARKS',
];

/** Words that end an expression or a FROM item, so they are never taken for an implicit alias. */
const RESERVED = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'JOIN',
  'ON',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'OUTER',
  'AS',
  'AND',
  'OR',
  'NOT',
  'WITH',
  'WINDOW',
  'BY',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'CASE',
  'IS',
  'IN',
  'LIKE',
  'BETWEEN',
  'NULL',
  'TRUE',
  'FALSE',
  'DISTINCT',
  'ALL',
  'VALUES',
  'INSERT',
  'INTO',
  'CREATE',
  'TABLE',
  'FILTER',
  'OVER',
  'PARTITION',
  'LATERAL',
  'FOR',
  'MATCH_RECOGNIZE',
  'INTERVAL',
  'EXISTS',
]);

/** Functions of the standard written without parentheses: `CURRENT_DATE`, `LOCALTIME`, ... */
const NILADIC_FUNCTIONS = new Set<string>([
  'CURRENT_TIMESTAMP',
  'LOCALTIMESTAMP',
  'CURRENT_DATE',
  'CURRENT_TIME',
  'LOCALTIME',
]);

/** An interval unit's plural spelling (`SECONDS`, as Flink also accepts) as its singular one. */
function singularUnit(unit: string): string {
  return unit.endsWith('S') && INTERVAL_UNITS.has(unit.slice(0, -1)) ? unit.slice(0, -1) : unit;
}

const INTERVAL_UNITS = new Set<string>([
  'YEAR',
  'MONTH',
  'DAY',
  'HOUR',
  'MINUTE',
  'SECOND',
  'MILLISECOND',
]);

/** Parses a script of statements separated by `;`. */
export function parseScript(sql: string): Statement[] {
  return new Parser(sql).script();
}

/** Parses a SQL type (`DECIMAL(10, 2)`, `ROW<a INT>`), e.g. a user function's declared type. */
export function parseDataType(sql: string): LogicalType {
  const p = new Parser(sql);
  const t = p.dataType();
  p.expectEnd();
  return t;
}

/** Parses one expression (for tests and option values). */
export function parseExpression(sql: string): Expr {
  const p = new Parser(sql);
  const e = p.expression();
  p.expectEnd();
  return e;
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;
  /** The tests of `x op ALL|SOME (query)`, each to the test of its negation (for NOT). */
  private readonly quantifiedNegations = new WeakMap<Expr, Expr>();

  constructor(private readonly sql: string) {
    this.tokens = tokenize(sql);
  }

  // ---- token helpers ----

  private get token(): Token {
    return this.tokens[this.i] as Token;
  }

  private peek(ahead = 1): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)] as Token;
  }

  private get at(): SourcePosition {
    return this.token.position;
  }

  private isWord(word: string, token: Token = this.token): boolean {
    return token.kind === 'word' && token.text.toUpperCase() === word;
  }

  private isSymbol(symbol: string, token: Token = this.token): boolean {
    return token.kind === 'symbol' && token.text === symbol;
  }

  private acceptWord(...words: string[]): boolean {
    for (let k = 0; k < words.length; k++) {
      if (!this.isWord(words[k] as string, this.peek(k))) return false;
    }
    this.i += words.length;
    return true;
  }

  private acceptSymbol(symbol: string): boolean {
    if (!this.isSymbol(symbol)) return false;
    this.i++;
    return true;
  }

  private describe(token: Token): string {
    switch (token.kind) {
      case 'end':
        return 'end of input';
      case 'string':
        return `'${token.text}'`;
      case 'quoted':
        return `\`${token.text}\``;
      default:
        return `'${token.text}'`;
    }
  }

  private fail(expected: string): never {
    sqlError(`expected ${expected} but found ${this.describe(this.token)}`, this.at);
  }

  /**
   * Flink's `EXPLAIN CHANGELOG_MODE[, ...]`: Weir's EXPLAIN always shows each operator's
   * changelog mode; the other details Flink offers are refused by name.
   */
  private explainDetails(): void {
    if (!EXPLAIN_DETAILS.some((d) => this.isWord(d))) return;
    do {
      const at = this.at;
      if (this.acceptWord('CHANGELOG_MODE')) continue;
      const detail = EXPLAIN_DETAILS.find((d) => this.isWord(d));
      if (detail === undefined) this.fail('CHANGELOG_MODE');
      sqlError(`EXPLAIN ${detail} is not supported by Weir SQL yet`, at);
    } while (this.acceptSymbol(','));
  }

  private expectWord(word: string): void {
    if (!this.acceptWord(word)) this.fail(word);
  }

  private expectSymbol(symbol: string): void {
    if (!this.acceptSymbol(symbol)) this.fail(`'${symbol}'`);
  }

  private atEnd(): boolean {
    return this.token.kind === 'end';
  }

  expectEnd(): void {
    if (this.token.kind !== 'end') this.fail('end of input');
  }

  private identifier(what = 'an identifier'): string {
    const t = this.token;
    if (t.kind === 'quoted' || (t.kind === 'word' && !RESERVED.has(t.text.toUpperCase()))) {
      this.i++;
      return t.text;
    }
    return this.fail(what);
  }

  /** `a.b.c` as one dotted name (catalog and database parts are kept in the name). */
  private qualifiedName(): string {
    const parts = [this.identifier('a table name')];
    while (this.acceptSymbol('.')) parts.push(this.identifier());
    return parts.join('.');
  }

  private unsupported(what: string, at: SourcePosition = this.at): never {
    sqlError(`${what} is not supported by Weir SQL yet`, at);
  }

  // ---- statements ----

  script(): Statement[] {
    const statements: Statement[] = [];
    for (;;) {
      while (this.acceptSymbol(';')) {}
      if (this.atEnd()) return statements;
      statements.push(this.statement());
      if (!this.atEnd() && !this.isSymbol(';')) this.fail("';' or end of input");
    }
  }

  private statement(): Statement {
    const at = this.at;
    if (this.acceptWord('CREATE')) return this.create(at);
    if (this.isWord('INSERT')) return this.insert();
    if (this.acceptWord('EXPLAIN')) {
      if (!this.acceptWord('PLAN', 'FOR')) this.explainDetails();
      return { kind: 'explain', statement: this.statement(), at };
    }
    if (this.acceptWord('SET')) return this.set(at);
    if (
      this.acceptWord('EXECUTE', 'STATEMENT', 'SET') ||
      this.acceptWord('BEGIN', 'STATEMENT', 'SET')
    ) {
      return this.statementSet(at);
    }
    if (
      this.isWord('SELECT') ||
      this.isWord('WITH') ||
      this.isWord('VALUES') ||
      this.isSymbol('(')
    ) {
      return { kind: 'query', query: this.query(), at };
    }
    if (this.acceptWord('REPLACE', 'TABLE')) return this.replaceTable(at, 'replace');
    if (this.acceptWord('DROP')) return this.drop(at);
    if (this.acceptWord('SHOW')) return this.show(at);
    if (this.acceptWord('DESCRIBE') || this.acceptWord('DESC')) {
      if (this.acceptWord('CATALOG')) {
        const extended = this.acceptWord('EXTENDED');
        return {
          kind: 'show',
          what: 'CATALOG',
          name: this.identifier('a catalog name'),
          extended,
          at,
        };
      }
      return { kind: 'describe', name: this.qualifiedName(), at };
    }
    if (this.acceptWord('USE')) {
      const catalog = this.acceptWord('CATALOG');
      if (!catalog && this.isWord('MODULES')) this.unsupported('USE MODULES');
      return { kind: 'use', catalog, name: this.qualifiedName(), at };
    }
    if (this.acceptWord('RESET')) {
      const key = this.token.kind === 'string' ? this.stringLiteral() : undefined;
      return { kind: 'reset', key, at };
    }
    if (this.acceptWord('ALTER')) return this.alter(at);
    if (this.token.kind === 'word') {
      const word = this.token.text.toUpperCase();
      if (['LOAD', 'UNLOAD', 'ANALYZE'].includes(word)) this.unsupported(`the ${word} statement`);
    }
    return this.fail(
      'a statement (CREATE, INSERT, SELECT, EXPLAIN, SET, RESET, DROP, ALTER, SHOW, DESCRIBE, USE)',
    );
  }

  private statementSet(at: SourcePosition): Statement {
    const inserts: Statement[] = [];
    if (this.acceptWord('BEGIN')) {
      // EXECUTE STATEMENT SET BEGIN ... END;
    }
    for (;;) {
      while (this.acceptSymbol(';')) {}
      if (this.acceptWord('END')) break;
      const at = this.at;
      if (this.acceptWord('CREATE')) {
        // CREATE TABLE ... AS SELECT is an INSERT with its table made first.
        const create = this.create(at);
        if (create.kind !== 'create-table' || create.asQuery === undefined)
          sqlError('a statement set holds INSERT INTO and CREATE TABLE ... AS SELECT only', at);
        inserts.push(create);
        continue;
      }
      if (!this.isWord('INSERT')) this.fail('INSERT INTO, CREATE TABLE ... AS SELECT or END');
      inserts.push(this.insert());
    }
    return { kind: 'statement-set', inserts, at };
  }

  private drop(at: SourcePosition): Statement {
    const temporary = this.acceptWord('TEMPORARY');
    this.acceptWord('SYSTEM');
    const object = (['TABLE', 'VIEW', 'FUNCTION', 'DATABASE', 'CATALOG'] as const).find((o) =>
      this.acceptWord(o),
    );
    if (object === undefined) return this.fail('TABLE, VIEW, FUNCTION, DATABASE or CATALOG');
    const ifExists = this.acceptWord('IF', 'EXISTS');
    const name = this.qualifiedName();
    if (object !== 'DATABASE')
      return { kind: 'drop', object, ...(temporary ? { temporary } : {}), ifExists, name, at };
    const cascade = this.acceptWord('CASCADE');
    if (!cascade) this.acceptWord('RESTRICT');
    return { kind: 'drop', object, ifExists, name, cascade, at };
  }

  private show(at: SourcePosition): Statement {
    const withLike = (what: ShowWhat, extra: { name?: string } = {}): Statement => {
      let from: string | undefined;
      if (this.acceptWord('FROM') || this.acceptWord('IN')) from = this.qualifiedName();
      let like: ShowLike | undefined;
      const not = this.acceptWord('NOT');
      if (this.isWord('LIKE') || this.isWord('ILIKE')) {
        const caseInsensitive = this.isWord('ILIKE');
        this.i++;
        like = { pattern: this.stringLiteral(), not, caseInsensitive };
      } else if (not) this.fail('LIKE or ILIKE');
      return {
        kind: 'show',
        what,
        ...extra,
        ...(from === undefined ? {} : { from }),
        ...(like === undefined ? {} : { like }),
        at,
      };
    };
    if (this.acceptWord('TABLES')) return withLike('TABLES');
    if (this.acceptWord('VIEWS')) return withLike('VIEWS');
    if (this.acceptWord('FUNCTIONS')) return withLike('FUNCTIONS');
    if (this.acceptWord('USER', 'FUNCTIONS')) return withLike('USER FUNCTIONS');
    if (this.acceptWord('CATALOGS')) return withLike('CATALOGS');
    if (this.acceptWord('DATABASES')) return withLike('DATABASES');
    if (this.acceptWord('CURRENT', 'CATALOG')) return { kind: 'show', what: 'CURRENT CATALOG', at };
    if (this.acceptWord('CURRENT', 'DATABASE'))
      return { kind: 'show', what: 'CURRENT DATABASE', at };
    if (this.acceptWord('COLUMNS')) {
      if (!this.acceptWord('FROM') && !this.acceptWord('IN')) this.fail('FROM or IN');
      const name = this.qualifiedName();
      const not = this.acceptWord('NOT');
      let like: ShowLike | undefined;
      if (this.isWord('LIKE') || this.isWord('ILIKE')) {
        const caseInsensitive = this.isWord('ILIKE');
        this.i++;
        like = { pattern: this.stringLiteral(), not, caseInsensitive };
      } else if (not) this.fail('LIKE or ILIKE');
      return { kind: 'show', what: 'COLUMNS', name, ...(like === undefined ? {} : { like }), at };
    }
    if (this.acceptWord('CREATE', 'TABLE'))
      return { kind: 'show', what: 'CREATE TABLE', name: this.qualifiedName(), at };
    if (this.acceptWord('CREATE', 'VIEW'))
      return { kind: 'show', what: 'CREATE VIEW', name: this.qualifiedName(), at };
    if (this.token.kind === 'word') this.unsupported(`SHOW ${this.token.text.toUpperCase()}`);
    return this.fail(
      'TABLES, VIEWS, FUNCTIONS, USER FUNCTIONS, CATALOGS, DATABASES, CURRENT CATALOG, CURRENT DATABASE, COLUMNS or CREATE TABLE / VIEW',
    );
  }

  private alter(at: SourcePosition): Statement {
    if (this.acceptWord('TABLE')) {
      const ifExists = this.acceptWord('IF', 'EXISTS');
      const name = this.qualifiedName();
      if (this.acceptWord('SET'))
        return {
          kind: 'alter-table',
          name,
          ifExists,
          action: { kind: 'set', options: this.options() },
          at,
        };
      if (this.acceptWord('RESET')) {
        const keys = this.keyList();
        if (keys.length === 0) this.fail('an option key');
        return { kind: 'alter-table', name, ifExists, action: { kind: 'reset', keys }, at };
      }
      if (this.acceptWord('RENAME', 'TO'))
        return {
          kind: 'alter-table',
          name,
          ifExists,
          action: { kind: 'rename', to: this.qualifiedName() },
          at,
        };
      const action = this.schemaChange();
      if (action !== undefined) return { kind: 'alter-table', name, ifExists, action, at };
      if (this.token.kind === 'word')
        this.unsupported(`ALTER TABLE ... ${this.token.text.toUpperCase()}`);
      return this.fail('SET, RESET, RENAME, ADD, MODIFY or DROP');
    }
    if (this.acceptWord('VIEW')) {
      const name = this.qualifiedName();
      if (this.acceptWord('RENAME', 'TO'))
        return {
          kind: 'alter-view',
          name,
          action: { kind: 'rename', to: this.qualifiedName() },
          at,
        };
      this.expectWord('AS');
      const start = this.token.offset;
      const query = this.query();
      const text = this.sql.slice(start, this.token.offset).trim();
      return { kind: 'alter-view', name, action: { kind: 'as', query, text }, at };
    }
    if (this.acceptWord('CATALOG')) {
      const name = this.identifier('a catalog name');
      if (this.acceptWord('SET'))
        return {
          kind: 'alter-catalog',
          name,
          change: { kind: 'set', options: this.options() },
          at,
        };
      if (this.acceptWord('RESET'))
        return { kind: 'alter-catalog', name, change: { kind: 'reset', keys: this.keyList() }, at };
      this.expectWord('COMMENT');
      return {
        kind: 'alter-catalog',
        name,
        change: { kind: 'comment', comment: this.stringLiteral() },
        at,
      };
    }
    if (this.acceptWord('DATABASE')) {
      const name = this.qualifiedName();
      this.expectWord('SET');
      return { kind: 'alter-database', name, options: this.options(), at };
    }
    if (this.token.kind === 'word') this.unsupported(`ALTER ${this.token.text.toUpperCase()}`);
    return this.fail('TABLE, VIEW, CATALOG or DATABASE');
  }

  /** `('key', ...)` after RESET: the quoted keys, perhaps none. */
  private keyList(): string[] {
    this.expectSymbol('(');
    const keys: string[] = [];
    if (this.acceptSymbol(')')) return keys;
    do keys.push(this.stringLiteral());
    while (this.acceptSymbol(','));
    this.expectSymbol(')');
    return keys;
  }

  /** `FOR col AS expr` after WATERMARK, with the expression's text. */
  private watermarkFor(at: SourcePosition): {
    column: string;
    expr: Expr;
    text: string;
    at: SourcePosition;
  } {
    this.expectWord('FOR');
    const column = this.identifier('the rowtime column');
    this.expectWord('AS');
    const start = this.token.offset;
    const expr = this.expression();
    return { column, expr, text: this.sql.slice(start, this.token.offset).trim(), at };
  }

  /** `(cols) NOT ENFORCED` after PRIMARY KEY. */
  private primaryKeyColumns(): string[] {
    const columns = this.columnList();
    this.expectWord('NOT');
    this.expectWord('ENFORCED');
    return columns;
  }

  /** ALTER TABLE's ADD / MODIFY (one item or a parenthesized list), DROP and RENAME of a column. */
  private schemaChange(): SchemaChange | undefined {
    if (this.acceptWord('RENAME')) {
      const from = this.identifier('a column name');
      this.expectWord('TO');
      return { kind: 'rename-column', from, to: this.identifier('a column name') };
    }
    if (this.acceptWord('DROP')) {
      if (this.acceptWord('WATERMARK')) return { kind: 'drop-watermark' };
      if (this.acceptWord('PRIMARY', 'KEY')) return { kind: 'drop-primary-key' };
      if (this.acceptWord('CONSTRAINT')) {
        this.identifier('a constraint name');
        return { kind: 'drop-primary-key' };
      }
      if (this.isSymbol('(')) return { kind: 'drop-columns', columns: this.columnList() };
      return { kind: 'drop-columns', columns: [this.identifier('a column name')] };
    }
    const kind = this.acceptWord('ADD') ? 'add' : this.acceptWord('MODIFY') ? 'modify' : undefined;
    if (kind === undefined) return undefined;
    const columns: { definition: ColumnDefinition; position: ColumnPosition | undefined }[] = [];
    let watermark: { column: string; expr: Expr; text: string; at: SourcePosition } | undefined;
    let primaryKey: string[] | undefined;
    const item = (): void => {
      const itemAt = this.at;
      if (this.acceptWord('WATERMARK')) {
        watermark = this.watermarkFor(itemAt);
      } else if (this.acceptWord('PRIMARY', 'KEY') || this.constraintPrimaryKey()) {
        primaryKey = this.primaryKeyColumns();
      } else {
        const definition = this.columnDefinition((column) => {
          primaryKey = [column];
        });
        const position: ColumnPosition | undefined = this.acceptWord('FIRST')
          ? { first: true }
          : this.acceptWord('AFTER')
            ? { after: this.identifier('a column name') }
            : undefined;
        columns.push({ definition, position });
      }
    };
    if (this.acceptSymbol('(')) {
      do item();
      while (this.acceptSymbol(','));
      this.expectSymbol(')');
    } else item();
    return {
      kind,
      columns,
      ...(watermark === undefined ? {} : { watermark }),
      ...(primaryKey === undefined ? {} : { primaryKey }),
    };
  }

  private set(at: SourcePosition): Statement {
    if (this.atEnd() || this.isSymbol(';')) return { kind: 'show', what: 'OPTIONS', at };
    const keyToken = this.token;
    if (keyToken.kind !== 'string') return this.unquotedSet(at);
    this.i++;
    this.expectSymbol('=');
    const valueToken = this.token;
    if (valueToken.kind !== 'string') this.fail('a quoted option value');
    this.i++;
    return { kind: 'set', key: keyToken.text, value: valueToken.text, at };
  }

  /**
   * `SET key = value` without quotes, the older form Flink's client still takes: the key is
   * the text before `=`, the value the text after it up to the statement's end.
   */
  private unquotedSet(at: SourcePosition): Statement {
    const start = this.token.offset;
    while (!this.atEnd() && !this.isSymbol('=') && !this.isSymbol(';')) this.i++;
    if (!this.isSymbol('=')) this.fail("'=' (SET 'key' = 'value')");
    const key = this.sql.slice(start, this.token.offset).trim();
    const valueStart = this.token.offset + 1;
    this.i++;
    while (!this.atEnd() && !this.isSymbol(';')) this.i++;
    const value = this.sql.slice(valueStart, this.token.offset).trim();
    if (key === '' || /\s/.test(key)) this.fail("an option key ('key' = 'value')");
    return { kind: 'set', key, value, at };
  }

  private create(at: SourcePosition): Statement {
    if (this.acceptWord('OR', 'REPLACE')) {
      this.expectWord('TABLE');
      return this.replaceTable(at, 'or-replace');
    }
    const temporary = this.acceptWord('TEMPORARY');
    this.acceptWord('SYSTEM');
    if (this.acceptWord('TABLE')) return this.createTable(at, temporary);
    if (this.acceptWord('VIEW')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.qualifiedName();
      // `CREATE VIEW v (a, b) AS query`: the query's columns renamed, as a subquery's alias list.
      const listAt = this.at;
      const columns = this.isSymbol('(') ? this.columnList() : undefined;
      if (this.acceptWord('COMMENT')) this.stringLiteral();
      this.expectWord('AS');
      const start = this.token.offset;
      const body = this.query();
      const text = this.sql.slice(start, this.token.offset).trim();
      const query: Query =
        columns === undefined
          ? body
          : {
              kind: 'select',
              distinct: false,
              items: [{ kind: 'star', qualifier: undefined, at: listAt }],
              from: {
                kind: 'subquery',
                query: body,
                alias: '$view',
                columns: { names: columns, at: listAt },
                at: listAt,
              },
              where: undefined,
              groupBy: [],
              having: undefined,
              at: listAt,
            };
      return {
        kind: 'create-view',
        name,
        temporary,
        ifNotExists,
        query,
        text,
        ...(columns === undefined ? {} : { columns }),
        at,
      };
    }
    if (this.acceptWord('FUNCTION')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.qualifiedName();
      this.expectWord('AS');
      const t = this.token;
      if (t.kind !== 'string') this.fail('the function implementation as a string');
      this.i++;
      const language = this.acceptWord('LANGUAGE') ? this.identifier().toUpperCase() : undefined;
      return {
        kind: 'create-function',
        name,
        ifNotExists,
        className: t.text,
        ...(language === undefined ? {} : { language }),
        at,
      };
    }
    if (this.acceptWord('CATALOG')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.identifier('a catalog name');
      const comment = this.acceptWord('COMMENT') ? this.stringLiteral() : undefined;
      const options = this.acceptWord('WITH') ? this.options() : [];
      return {
        kind: 'create-catalog',
        name,
        ifNotExists,
        ...(comment === undefined ? {} : { comment }),
        options,
        at,
      };
    }
    if (this.acceptWord('DATABASE')) {
      const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
      const name = this.qualifiedName();
      const comment = this.acceptWord('COMMENT') ? this.stringLiteral() : undefined;
      const options = this.acceptWord('WITH') ? this.options() : [];
      return {
        kind: 'create-database',
        name,
        ifNotExists,
        ...(comment === undefined ? {} : { comment }),
        options,
        at,
      };
    }
    return this.fail('TABLE, VIEW, FUNCTION, CATALOG or DATABASE');
  }

  /** `[CREATE OR] REPLACE TABLE ... AS query`: only with a query, as in Flink. */
  private replaceTable(at: SourcePosition, replace: 'or-replace' | 'replace'): Statement {
    const statement = this.createTable(at, false);
    if (statement.kind !== 'create-table' || statement.asQuery === undefined)
      return sqlError(
        `${replace === 'replace' ? 'REPLACE TABLE' : 'CREATE OR REPLACE TABLE'} needs AS SELECT (a table from a query)`,
        at,
      );
    if (statement.ifNotExists)
      sqlError('IF NOT EXISTS cannot go with OR REPLACE (the table is replaced if it exists)', at);
    return { ...statement, replace };
  }

  private createTable(at: SourcePosition, temporary: boolean): Statement {
    const ifNotExists = this.acceptWord('IF', 'NOT', 'EXISTS');
    const name = this.qualifiedName();
    const columns: ColumnDefinition[] = [];
    let watermark: { column: string; expr: Expr; text: string; at: SourcePosition } | undefined;
    let primaryKey: string[] | undefined;
    // The column list is optional: a LIKE or AS clause can give the columns.
    if (this.acceptSymbol('(')) {
      do {
        const itemAt = this.at;
        if (this.acceptWord('WATERMARK')) {
          watermark = this.watermarkFor(itemAt);
        } else if (this.acceptWord('PRIMARY', 'KEY') || this.constraintPrimaryKey()) {
          primaryKey = this.primaryKeyColumns();
        } else if (this.isWord('LIKE')) {
          this.fail('a column (LIKE goes after WITH (...))');
        } else {
          columns.push(
            this.columnDefinition((column) => {
              if (primaryKey !== undefined) this.fail('a single PRIMARY KEY');
              primaryKey = [column];
            }),
          );
        }
      } while (this.acceptSymbol(','));
      this.expectSymbol(')');
    }
    const comment = this.acceptWord('COMMENT') ? this.stringLiteral() : undefined;
    const partitionedBy = this.acceptWord('PARTITIONED', 'BY') ? this.columnList() : undefined;
    let options: TableOption[] = [];
    if (this.acceptWord('WITH')) options = this.options();
    const like = this.isWord('LIKE') ? this.tableLike() : undefined;
    let asQuery: Query | undefined;
    if (like === undefined && this.acceptWord('AS')) asQuery = this.query();
    return {
      kind: 'create-table',
      name,
      temporary,
      ifNotExists,
      columns,
      watermark,
      primaryKey,
      options,
      ...(partitionedBy === undefined ? {} : { partitionedBy }),
      ...(comment === undefined ? {} : { comment }),
      ...(like === undefined ? {} : { like }),
      ...(asQuery === undefined ? {} : { asQuery }),
      at,
    };
  }

  /** `LIKE source [(INCLUDING ALL | EXCLUDING feature | OVERWRITING feature, ...)]`. */
  private tableLike(): TableLike {
    const at = this.at;
    this.expectWord('LIKE');
    const table = this.qualifiedName();
    const options: TableLike['options'][number][] = [];
    if (this.acceptSymbol('(')) {
      do {
        const optionAt = this.at;
        const strategy = (['INCLUDING', 'EXCLUDING', 'OVERWRITING'] as const).find((w) =>
          this.acceptWord(w),
        );
        if (strategy === undefined) this.fail('INCLUDING, EXCLUDING or OVERWRITING');
        const feature = LIKE_FEATURES.find((w) => this.acceptWord(w));
        if (feature === undefined) this.fail(`one of ${LIKE_FEATURES.join(', ')}`);
        options.push({ strategy, feature, at: optionAt });
      } while (this.acceptSymbol(','));
      this.expectSymbol(')');
    }
    return { table, options, at };
  }

  private constraintPrimaryKey(): boolean {
    if (!this.acceptWord('CONSTRAINT')) return false;
    this.identifier('a constraint name');
    this.expectWord('PRIMARY');
    this.expectWord('KEY');
    return true;
  }

  private stringLiteral(): string {
    const t = this.token;
    if (t.kind !== 'string') this.fail('a string literal');
    this.i++;
    return t.text;
  }

  private columnList(): string[] {
    this.expectSymbol('(');
    const names = [this.identifier('a column name')];
    while (this.acceptSymbol(',')) names.push(this.identifier('a column name'));
    this.expectSymbol(')');
    return names;
  }

  /** A column; `inlineKey` is told of a column declared `PRIMARY KEY NOT ENFORCED` itself. */
  private columnDefinition(inlineKey: (column: string) => void): ColumnDefinition {
    const at = this.at;
    const name = this.identifier('a column name');
    if (this.isSymbol(',') || this.isSymbol(')')) return { kind: 'name-only', name, at };
    if (this.acceptWord('AS')) {
      const start = this.token.offset;
      const expr = this.expression();
      const text = this.sql.slice(start, this.token.offset).trim();
      return { kind: 'computed', name, expr, text, ...this.columnComment(), at };
    }
    const type = this.dataType();
    if (this.acceptWord('METADATA')) {
      let key: string | undefined;
      if (this.acceptWord('FROM')) key = this.stringLiteral();
      const virtual = this.acceptWord('VIRTUAL');
      return { kind: 'metadata', name, type, key, virtual, ...this.columnComment(), at };
    }
    if (this.acceptWord('PRIMARY', 'KEY')) {
      this.expectWord('NOT');
      this.expectWord('ENFORCED');
      inlineKey(name);
    }
    return { kind: 'physical', name, type, ...this.columnComment(), at };
  }

  /** A column's `COMMENT '...'`, kept for SHOW CREATE TABLE (as Flink shows it). */
  private columnComment(): { comment?: string } {
    return this.acceptWord('COMMENT') ? { comment: this.stringLiteral() } : {};
  }

  private options(): TableOption[] {
    this.expectSymbol('(');
    const options: TableOption[] = [];
    if (this.acceptSymbol(')')) return options;
    do {
      const at = this.at;
      const key = this.stringLiteral();
      this.expectSymbol('=');
      const value = this.stringLiteral();
      options.push({ key, value, at });
    } while (this.acceptSymbol(','));
    this.expectSymbol(')');
    return options;
  }

  private insert(): Statement {
    const at = this.at;
    this.expectWord('INSERT');
    if (this.acceptWord('OVERWRITE')) this.unsupported('INSERT OVERWRITE', at);
    this.expectWord('INTO');
    const table = this.qualifiedName();
    const options = this.tableHint();
    const partition = this.acceptWord('PARTITION') ? this.staticPartition() : undefined;
    let columns: string[] | undefined;
    if (
      this.isSymbol('(') &&
      !this.isWord('SELECT', this.peek()) &&
      !this.isWord('WITH', this.peek())
    ) {
      columns = this.columnList();
    }
    const query = this.query();
    return {
      kind: 'insert',
      table,
      ...(options === undefined ? {} : { options }),
      ...(partition === undefined ? {} : { partition }),
      columns,
      query,
      at,
    };
  }

  /**
   * The static partition spec of an INSERT, after PARTITION: `(a = '1', b = 2)`, each value a
   * string or number literal (Flink's partition spec), kept as text for the column's type.
   */
  private staticPartition(): StaticPartitionValue[] {
    this.expectSymbol('(');
    const values: StaticPartitionValue[] = [];
    do {
      const at = this.at;
      const column = this.identifier('a partition column');
      this.expectSymbol('=');
      const negative = this.acceptSymbol('-');
      const t = this.token;
      if (t.kind !== 'string' && t.kind !== 'number') this.fail('a string or number literal');
      this.i++;
      values.push({ column, value: negative ? `-${t.text}` : t.text, at });
    } while (this.acceptSymbol(','));
    this.expectSymbol(')');
    return values;
  }

  /**
   * The options of a table hint right after a table's name (`t /*+ OPTIONS('k' = 'v') *\/`),
   * Flink's dynamic table options. Another hint there is refused: ignored, it would read or
   * write the table otherwise than asked.
   */
  private tableHint(): TableOption[] | undefined {
    const hint = this.token.hint;
    if (hint === undefined) return undefined;
    try {
      const p = new Parser(hint.text);
      return p.hintOptions();
    } catch (error) {
      if (!(error instanceof SqlError) || error.position === undefined) throw error;
      // Positions in the hint's text, as positions in the script.
      const inner = error.position;
      return sqlError(`in the table hint: ${error.reason}`, {
        line: hint.position.line + inner.line - 1,
        column: inner.line === 1 ? hint.position.column + inner.column - 1 : inner.column,
      });
    }
  }

  private hintOptions(): TableOption[] {
    const options: TableOption[] = [];
    do {
      const at = this.at;
      const name = this.identifier('a hint name').toUpperCase();
      if (name !== 'OPTIONS')
        sqlError(`unknown table hint '${name}': a table takes OPTIONS('key' = 'value', ...)`, at);
      options.push(...this.options());
    } while (this.acceptSymbol(','));
    this.expectEnd();
    return options;
  }

  // ---- queries ----

  query(): Query {
    const at = this.at;
    if (this.acceptWord('WITH')) {
      const ctes: { name: string; query: Query }[] = [];
      do {
        const name = this.identifier('a name for the WITH query');
        if (this.isSymbol('(')) this.unsupported('a column list in WITH');
        this.expectWord('AS');
        this.expectSymbol('(');
        const query = this.query();
        this.expectSymbol(')');
        ctes.push({ name, query });
      } while (this.acceptSymbol(','));
      return { kind: 'with', ctes, body: this.query(), at };
    }
    let query = this.setOperand();
    for (;;) {
      const opAt = this.at;
      const op = this.acceptWord('UNION')
        ? 'UNION'
        : this.acceptWord('INTERSECT')
          ? 'INTERSECT'
          : this.acceptWord('EXCEPT')
            ? 'EXCEPT'
            : undefined;
      if (op === undefined) break;
      const all = this.acceptWord('ALL');
      if (!all) this.acceptWord('DISTINCT');
      query = { kind: 'set-operation', op, all, left: query, right: this.setOperand(), at: opAt };
    }
    if (['ORDER', 'LIMIT', 'OFFSET', 'FETCH'].some((w) => this.isWord(w))) {
      let orderBy: OrderItem[] = [];
      if (this.acceptWord('ORDER')) {
        this.expectWord('BY');
        orderBy = this.orderItems();
      }
      const { limit, offset } = this.limitClauses();
      query = { kind: 'ordered', query, orderBy, limit, offset, at };
    }
    return query;
  }

  /**
   * `LIMIT n [OFFSET m]`, or `[OFFSET m {ROW | ROWS}] [FETCH {FIRST | NEXT} n {ROW | ROWS}
   * ONLY]`, as Flink's parser takes them.
   */
  private limitClauses(): { limit: Expr | undefined; offset: Expr | undefined } {
    let limit: Expr | undefined;
    let offset: Expr | undefined;
    if (this.acceptWord('LIMIT')) limit = this.expression();
    if (this.acceptWord('OFFSET')) {
      offset = this.expression();
      if (!this.acceptWord('ROWS')) this.acceptWord('ROW');
    }
    if (limit === undefined && this.acceptWord('FETCH')) {
      if (!this.acceptWord('FIRST')) this.expectWord('NEXT');
      limit = this.expression();
      if (!this.acceptWord('ROWS')) this.expectWord('ROW');
      this.expectWord('ONLY');
    }
    return { limit, offset };
  }

  private orderItems(): OrderItem[] {
    const items: OrderItem[] = [];
    do {
      const expr = this.expression();
      const descending = this.acceptWord('DESC');
      if (!descending) this.acceptWord('ASC');
      items.push({ expr, descending });
    } while (this.acceptSymbol(','));
    return items;
  }

  private setOperand(): Query {
    const at = this.at;
    if (this.acceptSymbol('(')) {
      const q = this.query();
      this.expectSymbol(')');
      return q;
    }
    if (this.acceptWord('VALUES')) {
      const rows: Expr[][] = [];
      do {
        this.expectSymbol('(');
        rows.push(this.expressionList());
        this.expectSymbol(')');
      } while (this.acceptSymbol(','));
      return { kind: 'values', rows, at };
    }
    return this.select();
  }

  private select(): Select {
    const at = this.at;
    this.expectWord('SELECT');
    const distinct = this.acceptWord('DISTINCT');
    if (!distinct) this.acceptWord('ALL');
    const items: SelectItem[] = [];
    do items.push(this.selectItem());
    while (this.acceptSymbol(','));
    const from = this.acceptWord('FROM') ? this.fromClause() : undefined;
    const where = this.acceptWord('WHERE') ? this.expression() : undefined;
    let groupBy: Expr[] = [];
    let groupingSets: Expr[][] | undefined;
    if (this.acceptWord('GROUP')) {
      this.expectWord('BY');
      ({ groupBy, groupingSets } = this.groupByClause());
    }
    const having = this.acceptWord('HAVING') ? this.expression() : undefined;
    const sets = groupingSets === undefined ? {} : { groupingSets };
    if (!this.acceptWord('WINDOW'))
      return { kind: 'select', distinct, items, from, where, groupBy, ...sets, having, at };
    const windows = new Map<string, OverWindow>();
    do {
      const name = this.identifier('a window name');
      this.expectWord('AS');
      this.expectSymbol('(');
      windows.set(name.toUpperCase(), this.overWindow());
    } while (this.acceptSymbol(','));
    return { kind: 'select', distinct, items, from, where, groupBy, ...sets, having, windows, at };
  }

  /**
   * The GROUP BY list. Plain expressions give `groupBy` alone; with GROUPING SETS, ROLLUP, CUBE
   * or `()` among its elements, `groupingSets` is the cross product of the elements' sets and
   * `groupBy` every expression named in them.
   */
  private groupByClause(): { groupBy: Expr[]; groupingSets: Expr[][] | undefined } {
    const elements: Expr[][][] = [];
    let plain = true;
    do {
      const sets = this.groupingElement(true);
      if (sets === undefined) elements.push([[this.expression()]]);
      else {
        plain = false;
        elements.push(sets);
      }
    } while (this.acceptSymbol(','));
    if (plain)
      return { groupBy: elements.map((e) => (e[0] as Expr[])[0] as Expr), groupingSets: undefined };
    let product: Expr[][] = [[]];
    for (const sets of elements) product = product.flatMap((p) => sets.map((s) => [...p, ...s]));
    return { groupBy: product.flat(), groupingSets: product };
  }

  /**
   * The sets of one grouping element: GROUPING SETS (...), ROLLUP (...), CUBE (...), `()`, and
   * (inside those) a parenthesized list; undefined for a plain expression, left to the caller.
   */
  private groupingElement(top: boolean): Expr[][] | undefined {
    if (this.isWord('GROUPING') && this.isWord('SETS', this.peek())) {
      this.i += 2;
      this.expectSymbol('(');
      const sets: Expr[][] = [];
      do sets.push(...(this.groupingElement(false) ?? [[this.expression()]]));
      while (this.acceptSymbol(','));
      this.expectSymbol(')');
      return sets;
    }
    if ((this.isWord('ROLLUP') || this.isWord('CUBE')) && this.isSymbol('(', this.peek())) {
      const cube = this.isWord('CUBE');
      this.i += 2;
      const items: Expr[][] = [];
      do items.push(this.groupingTuple());
      while (this.acceptSymbol(','));
      this.expectSymbol(')');
      if (!cube) return items.map((_, n) => items.slice(0, items.length - n).flat()).concat([[]]);
      // Every subset, the fullest first (bit set = item left out).
      return Array.from({ length: 2 ** items.length }, (_, mask) =>
        items.filter((_, k) => (mask & (1 << (items.length - 1 - k))) === 0).flat(),
      );
    }
    if (this.isSymbol('(') && this.isSymbol(')', this.peek())) {
      this.i += 2;
      return [[]];
    }
    return top || !this.isSymbol('(') ? undefined : [this.groupingTuple()];
  }

  /** `(a, b)` as one set of expressions, or one expression (parenthesized or not). */
  private groupingTuple(): Expr[] {
    if (!this.isSymbol('(')) return [this.expression()];
    const start = this.i;
    this.i++;
    if (this.acceptSymbol(')')) return [];
    const list = this.expressionList();
    if (this.acceptSymbol(')') && (this.isSymbol(',') || this.isSymbol(')'))) return list;
    // `(a) + 1`: an expression that starts with a parenthesis.
    this.i = start;
    return [this.expression()];
  }

  private selectItem(): SelectItem {
    const at = this.at;
    if (this.acceptSymbol('*')) return { kind: 'star', qualifier: undefined, at };
    if (
      (this.token.kind === 'word' || this.token.kind === 'quoted') &&
      this.isSymbol('.', this.peek()) &&
      this.isSymbol('*', this.peek(2))
    ) {
      const qualifier = this.identifier();
      this.i += 2;
      return { kind: 'star', qualifier, at };
    }
    const expr = this.expression();
    return { kind: 'expr', expr, alias: this.alias() };
  }

  private alias(): string | undefined {
    if (this.acceptWord('AS')) return this.identifier('an alias');
    const t = this.token;
    const word = t.text.toUpperCase();
    if (
      t.kind === 'quoted' ||
      (t.kind === 'word' && !RESERVED.has(word) && !CLAUSE_WORDS.has(word))
    ) {
      this.i++;
      return t.text;
    }
    return undefined;
  }

  private fromClause(): FromItem {
    let left = this.fromItem();
    for (;;) {
      const at = this.at;
      if (this.acceptSymbol(',')) {
        left = { kind: 'join', type: 'CROSS', left, right: this.fromItem(), on: undefined, at };
        continue;
      }
      let type: JoinType | undefined;
      if (this.acceptWord('JOIN') || this.acceptWord('INNER', 'JOIN')) type = 'INNER';
      else if (this.acceptWord('LEFT', 'JOIN') || this.acceptWord('LEFT', 'OUTER', 'JOIN'))
        type = 'LEFT';
      else if (this.acceptWord('RIGHT', 'JOIN') || this.acceptWord('RIGHT', 'OUTER', 'JOIN'))
        type = 'RIGHT';
      else if (this.acceptWord('FULL', 'JOIN') || this.acceptWord('FULL', 'OUTER', 'JOIN'))
        type = 'FULL';
      else if (this.acceptWord('CROSS', 'JOIN')) type = 'CROSS';
      if (type === undefined) return left;
      const right = this.fromItem();
      let on: Expr | undefined;
      if (type !== 'CROSS') {
        if (this.isWord('USING')) this.unsupported('JOIN ... USING');
        this.expectWord('ON');
        on = this.expression();
      }
      left = { kind: 'join', type, left, right, on, at };
    }
  }

  private fromItem(): FromItem {
    const at = this.at;
    if (this.acceptSymbol('(')) {
      const query = this.query();
      this.expectSymbol(')');
      if (this.isWord('MATCH_RECOGNIZE')) {
        const input: FromItem = { kind: 'subquery', query, alias: undefined, at };
        return this.matchRecognize(input);
      }
      const alias = this.alias();
      const columns = this.columnAliases(alias);
      return { kind: 'subquery', query, alias, ...(columns === undefined ? {} : { columns }), at };
    }
    if (this.acceptWord('LATERAL')) {
      if (this.isSymbol('('))
        this.unsupported('LATERAL (SELECT ...), a correlated subquery in FROM,');
      this.expectWord('TABLE');
      this.expectSymbol('(');
      const fnAt = this.at;
      const name = this.identifier('a table function').toUpperCase();
      this.expectSymbol('(');
      const args = this.isSymbol(')') ? [] : this.expressionList();
      this.expectSymbol(')');
      this.expectSymbol(')');
      const alias = this.alias();
      return { kind: 'lateral', name, args, alias, columns: this.columnNames(alias), at: fnAt };
    }
    if (this.acceptWord('UNNEST')) {
      this.expectSymbol('(');
      const arg = this.expression();
      this.expectSymbol(')');
      const ordinality = this.acceptWord('WITH', 'ORDINALITY');
      const alias = this.alias();
      return { kind: 'unnest', arg, ordinality, alias, columns: this.columnNames(alias), at };
    }
    if (this.isWord('TABLE') && this.isSymbol('(', this.peek())) {
      this.i += 2;
      const fnAt = this.at;
      const name = this.identifier('a table function').toUpperCase();
      this.expectSymbol('(');
      const args: Expr[] = [];
      if (!this.isSymbol(')')) {
        do args.push(this.tableFunctionArgument());
        while (this.acceptSymbol(','));
      }
      this.expectSymbol(')');
      this.expectSymbol(')');
      const alias = this.alias();
      const columns = this.columnNames(alias);
      return {
        kind: 'table-function',
        name,
        args,
        alias,
        ...(columns === undefined ? {} : { columns }),
        at: fnAt,
      };
    }
    const name = this.qualifiedName();
    const options = this.tableHint();
    const hinted = options === undefined ? {} : { options };
    let asOf: Expr | undefined;
    if (this.acceptWord('FOR', 'SYSTEM_TIME', 'AS', 'OF')) asOf = this.additive();
    if (asOf === undefined && this.isWord('MATCH_RECOGNIZE'))
      return this.matchRecognize({ kind: 'table', name, ...hinted, asOf, alias: undefined, at });
    const alias = this.alias();
    const columns = this.columnAliases(alias);
    return {
      kind: 'table',
      name,
      ...hinted,
      asOf,
      alias,
      ...(columns === undefined ? {} : { columns }),
      at,
    };
  }

  /** `input MATCH_RECOGNIZE (...) [AS alias]`, at the word MATCH_RECOGNIZE. */
  private matchRecognize(input: FromItem): FromItem {
    const mrAt = this.at;
    this.i++;
    const clause = parseMatchRecognize(this.clauseParser(), mrAt);
    return { kind: 'match-recognize', input, clause, alias: this.alias(), at: mrAt };
  }

  /** `(a, b)` after the alias of a table or subquery, with where it starts. */
  private columnAliases(alias: string | undefined): ColumnAliases | undefined {
    const at = this.at;
    const names = this.columnNames(alias);
    return names === undefined ? undefined : { names, at };
  }

  /** `(a, b)` after a table alias: new names of its columns, in order. */
  private columnNames(alias: string | undefined): string[] | undefined {
    if (alias === undefined || !this.acceptSymbol('(')) return undefined;
    const columns = [this.identifier('a column name')];
    while (this.acceptSymbol(',')) columns.push(this.identifier('a column name'));
    this.expectSymbol(')');
    return columns;
  }

  /** This parser's cursor, for the clause parsers in their own modules. */
  private clauseParser(): ClauseParser {
    const self = this;
    return {
      get token() {
        return self.token;
      },
      get at() {
        return self.at;
      },
      isWord: (word) => self.isWord(word),
      isSymbol: (symbol) => self.isSymbol(symbol),
      acceptWord: (...words) => self.acceptWord(...words),
      acceptSymbol: (symbol) => self.acceptSymbol(symbol),
      expectWord: (word) => self.expectWord(word),
      expectSymbol: (symbol) => self.expectSymbol(symbol),
      identifier: (what) => self.identifier(what),
      expression: () => self.expression(),
      orderItems: () => self.orderItems(),
      fail: (expected) => self.fail(expected),
      advance: () => {
        self.i++;
      },
    };
  }

  private tableFunctionArgument(): Expr {
    const at = this.at;
    if (this.isWord('DATA') && this.isWord('=>', this.peek())) this.unsupported('named arguments');
    if (this.acceptWord('TABLE')) {
      const name = this.qualifiedName();
      if (!this.acceptWord('PARTITION', 'BY')) return { kind: 'table-arg', name, at };
      // Flink's form: one column bare, several in parentheses.
      const partitionBy: string[] = [];
      if (this.acceptSymbol('(')) {
        do partitionBy.push(this.identifier('a column name'));
        while (this.acceptSymbol(','));
        this.expectSymbol(')');
      } else {
        partitionBy.push(this.identifier('a column name'));
      }
      return { kind: 'table-arg', name, partitionBy, at };
    }
    if (this.acceptWord('DESCRIPTOR')) {
      this.expectSymbol('(');
      const columns = [this.identifier('a column name')];
      while (this.acceptSymbol(',')) columns.push(this.identifier('a column name'));
      this.expectSymbol(')');
      return { kind: 'descriptor', columns, at };
    }
    return this.expression();
  }

  // ---- expressions ----

  expressionList(): Expr[] {
    const list = [this.expression()];
    while (this.acceptSymbol(',')) list.push(this.expression());
    return list;
  }

  expression(): Expr {
    return this.or();
  }

  private or(): Expr {
    let left = this.and();
    for (;;) {
      const at = this.at;
      if (!this.acceptWord('OR')) return left;
      left = { kind: 'binary', op: 'OR', left, right: this.and(), at };
    }
  }

  private and(): Expr {
    let left = this.not();
    for (;;) {
      const at = this.at;
      if (!this.acceptWord('AND')) return left;
      left = { kind: 'binary', op: 'AND', left, right: this.not(), at };
    }
  }

  private not(): Expr {
    const at = this.at;
    if (this.acceptWord('NOT')) {
      const arg = this.not();
      return this.quantifiedNegations.get(arg) ?? { kind: 'unary', op: 'NOT', arg, at };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.additive();
    const at = this.at;
    for (const op of ['=', '<>', '!=', '<=', '>=', '<', '>'] as const) {
      if (this.acceptSymbol(op)) {
        const quantified = this.quantified(left, op === '!=' ? '<>' : op, at);
        if (quantified !== undefined) return quantified;
        const right = this.additive();
        return { kind: 'binary', op: op === '!=' ? '<>' : op, left, right, at };
      }
    }
    if (this.acceptWord('IS')) {
      const negated = this.acceptWord('NOT');
      if (this.acceptWord('DISTINCT', 'FROM')) {
        const name = negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM';
        return plainCall(name, [left, this.additive()], at);
      }
      if (this.acceptWord('JSON')) {
        const kind: Expr = { kind: 'string', value: parseJsonKind(this.clauseParser()), at };
        const test = plainCall('IS JSON', [left, kind], at);
        return negated ? { kind: 'unary', op: 'NOT', arg: test, at } : test;
      }
      const test = this.acceptWord('NULL')
        ? 'NULL'
        : this.acceptWord('TRUE')
          ? 'TRUE'
          : this.acceptWord('FALSE')
            ? 'FALSE'
            : this.acceptWord('UNKNOWN')
              ? 'UNKNOWN'
              : this.fail('NULL, TRUE, FALSE or UNKNOWN');
      return { kind: 'is', arg: left, test, negated, at };
    }
    const negated = this.acceptWord('NOT');
    if (this.acceptWord('BETWEEN')) {
      const symmetric = this.acceptWord('SYMMETRIC');
      if (!symmetric) this.acceptWord('ASYMMETRIC');
      const low = this.additive();
      this.expectWord('AND');
      const high = this.additive();
      if (!symmetric) return { kind: 'between', arg: left, low, high, negated, at };
      // SYMMETRIC: between the bounds in either order.
      const either: Expr = {
        kind: 'binary',
        op: 'OR',
        left: { kind: 'between', arg: left, low, high, negated: false, at },
        right: { kind: 'between', arg: left, low: high, high: low, negated: false, at },
        at,
      };
      return negated ? { kind: 'unary', op: 'NOT', arg: either, at } : either;
    }
    if (this.acceptWord('IN')) {
      this.expectSymbol('(');
      if (this.isWord('SELECT') || this.isWord('WITH')) {
        const query = this.query();
        this.expectSymbol(')');
        // `(a, b) IN (SELECT x, y ...)`: the row's fields against the query's columns.
        const values = left.kind === 'call' && left.name === 'ROW' ? left.args : [left];
        return { kind: 'subquery-test', test: 'IN', values, query, negated, at };
      }
      const list = this.expressionList();
      this.expectSymbol(')');
      return { kind: 'in', arg: left, list, negated, at };
    }
    if (this.acceptWord('LIKE')) {
      const pattern = this.additive();
      const escapeChar = this.acceptWord('ESCAPE') ? this.additive() : undefined;
      return { kind: 'like', arg: left, pattern, escape: escapeChar, negated, at };
    }
    if (this.acceptWord('SIMILAR')) {
      this.expectWord('TO');
      const pattern = this.additive();
      const escapeChar = this.acceptWord('ESCAPE') ? this.additive() : undefined;
      return { kind: 'like', similar: true, arg: left, pattern, escape: escapeChar, negated, at };
    }
    if (negated) this.fail('BETWEEN, IN, LIKE or SIMILAR TO after NOT');
    return left;
  }

  /** `ALL (query)`, `SOME (query)` or `ANY (query)` after a comparison (quantified.ts). */
  private quantified(
    left: Expr,
    op: '=' | '<>' | '<=' | '>=' | '<' | '>',
    at: SourcePosition,
  ): Expr | undefined {
    const word = this.token.kind === 'word' ? this.token.text.toUpperCase() : '';
    if (word !== 'ALL' && word !== 'SOME' && word !== 'ANY') return undefined;
    if (!this.isSymbol('(', this.peek())) return undefined;
    if (!['SELECT', 'WITH', 'VALUES'].some((w) => this.isWord(w, this.peek(2))))
      this.unsupported(`${op} ${word} (a list of values)`, at);
    if (left.kind === 'call' && left.name === 'ROW') this.unsupported(`a row ${op} ${word}`, at);
    this.i += 2;
    const query = this.query();
    this.expectSymbol(')');
    const quantifier = word === 'ALL' ? 'ALL' : 'SOME';
    const { test, negation } = quantifiedComparison(left, op, quantifier, query, at);
    this.quantifiedNegations.set(test, negation);
    this.quantifiedNegations.set(negation, test);
    return test;
  }

  private additive(): Expr {
    let left = this.multiplicative();
    for (;;) {
      const at = this.at;
      const op = this.acceptSymbol('+')
        ? '+'
        : this.acceptSymbol('-')
          ? '-'
          : this.acceptSymbol('||')
            ? '||'
            : undefined;
      if (op === undefined) return left;
      left = { kind: 'binary', op, left, right: this.multiplicative(), at };
    }
  }

  private multiplicative(): Expr {
    let left = this.unary();
    for (;;) {
      const at = this.at;
      const op: BinaryOp | undefined = this.acceptSymbol('*')
        ? '*'
        : this.acceptSymbol('/')
          ? '/'
          : this.acceptSymbol('%')
            ? '%'
            : undefined;
      if (op === undefined) return left;
      left = { kind: 'binary', op, left, right: this.unary(), at };
    }
  }

  private unary(): Expr {
    const at = this.at;
    if (this.acceptSymbol('-')) {
      const arg = this.unary();
      if (arg.kind === 'number') {
        // `- - 3` is 3: the sign folds into the literal's text.
        const text = arg.text.startsWith('-') ? arg.text.slice(1) : `-${arg.text}`;
        return { kind: 'number', text, at };
      }
      if (arg.kind === 'interval') return { ...arg, negative: !arg.negative, at };
      return { kind: 'unary', op: '-', arg, at };
    }
    if (this.acceptSymbol('+')) return this.unary();
    return this.postfix(this.primary());
  }

  /** Element access after a primary: `a[1]`, `m['k']`, `a[1].f`, `(expr).f`, chained. */
  private postfix(base: Expr): Expr {
    let e = base;
    for (;;) {
      const at = this.at;
      if (this.acceptSymbol('[')) {
        const index = this.expression();
        this.expectSymbol(']');
        e = { kind: 'item', base: e, index, at };
      } else if (
        this.isSymbol('.') &&
        (this.peek().kind === 'word' || this.peek().kind === 'quoted')
      ) {
        this.i++;
        e = { kind: 'field', base: e, name: this.identifier(), at };
      } else return e;
    }
  }

  private primary(): Expr {
    const t = this.token;
    const at = t.position;
    if (t.kind === 'number') {
      this.i++;
      return { kind: 'number', text: t.text, at };
    }
    if (t.kind === 'string') {
      this.i++;
      return { kind: 'string', value: t.text, at };
    }
    if (this.acceptSymbol('(')) {
      if (this.isWord('SELECT') || this.isWord('WITH')) {
        const query = this.query();
        this.expectSymbol(')');
        return { kind: 'scalar-subquery', query, at };
      }
      const e = this.expression();
      // `(a, b, ...)`: a ROW constructor without its keyword, or a period before OVERLAPS.
      if (this.acceptSymbol(',')) {
        const fields = [e, ...this.expressionList()];
        this.expectSymbol(')');
        if (this.acceptWord('OVERLAPS')) return this.overlaps(fields, at);
        return plainCall('ROW', fields, at);
      }
      this.expectSymbol(')');
      return e;
    }
    if (t.kind === 'quoted') return this.columnOrCall();
    if (t.kind !== 'word') return this.fail('an expression');
    const word = t.text.toUpperCase();
    switch (word) {
      case 'NULL':
        this.i++;
        return { kind: 'null', at };
      case 'TRUE':
      case 'FALSE':
        this.i++;
        return { kind: 'boolean', value: word === 'TRUE', at };
      case 'CASE':
        this.i++;
        return this.caseExpression(at);
      case 'CAST':
      case 'TRY_CAST': {
        this.i++;
        this.expectSymbol('(');
        const arg = this.expression();
        this.expectWord('AS');
        const type = this.dataType();
        this.expectSymbol(')');
        return { kind: 'cast', arg, type, tryCast: word === 'TRY_CAST', at };
      }
      case 'INTERVAL':
        this.i++;
        return this.interval(at);
      case 'DATE':
      case 'TIME':
      case 'TIMESTAMP':
        if (this.peek().kind === 'string') {
          this.i++;
          const value = this.stringLiteral();
          return { kind: 'typed-literal', type: word, value, at };
        }
        break;
      case 'EXTRACT': {
        if (!this.isSymbol('(', this.peek())) break;
        this.i += 2;
        const unit = this.identifier('a time unit').toUpperCase();
        this.expectWord('FROM');
        const arg = this.expression();
        this.expectSymbol(')');
        return { kind: 'extract', unit, arg, at };
      }
      case 'EXISTS': {
        if (!this.isSymbol('(', this.peek())) break;
        this.i += 2;
        const query = this.query();
        this.expectSymbol(')');
        return { kind: 'subquery-test', test: 'EXISTS', values: [], query, negated: false, at };
      }
      case 'ARRAY':
      case 'MAP':
        // ARRAY[a, b] and MAP[k1, v1, k2, v2]: calls the compiler types as a whole.
        if (this.isSymbol('[', this.peek())) {
          this.i += 2;
          const args = this.isSymbol(']') ? [] : this.expressionList();
          this.expectSymbol(']');
          return plainCall(`${word}[]`, args, at);
        }
        if (this.isSymbol('(', this.peek())) this.unsupported(`${word}(subquery)`, at);
        break;
      case 'ROW':
        if (this.isSymbol('(', this.peek())) {
          this.i += 2;
          const fields = this.expressionList();
          this.expectSymbol(')');
          return plainCall('ROW', fields, at);
        }
        break;
      case 'LEFT':
      case 'RIGHT':
        // The string functions LEFT(s, n) and RIGHT(s, n), whose names are also join keywords.
        if (this.isSymbol('(', this.peek())) {
          this.i++;
          return this.call(word, at);
        }
        break;
      case 'X': {
        // X'0AFF': a BINARY literal, the quote right after the X.
        const next = this.peek();
        if (next.kind === 'string' && next.offset === t.offset + 1) {
          this.i += 2;
          return plainCall("X''", [{ kind: 'string', value: next.text, at }], at);
        }
        break;
      }
      default:
        break;
    }
    if (RESERVED.has(word)) return this.fail('an expression');
    return this.columnOrCall();
  }

  /** `(start, end) OVERLAPS (start, end)`, after the first start: a call of OVERLAPS. */
  /** `(start, end) OVERLAPS (start, end)`, after the first period and the word OVERLAPS. */
  private overlaps(period: readonly Expr[], at: SourcePosition): Expr {
    if (period.length !== 2) return this.fail('a period (start, end) before OVERLAPS');
    this.expectSymbol('(');
    const args = [...period, ...this.expressionList()];
    this.expectSymbol(')');
    if (args.length !== 4) return this.fail('a period (start, end) after OVERLAPS');
    return plainCall('OVERLAPS', args, at);
  }

  private columnOrCall(): Expr {
    const at = this.at;
    const first = this.identifier();
    if (this.isSymbol('(') && this.tokens[this.i - 1]?.kind === 'word')
      return this.call(first.toUpperCase(), at);
    // Niladic functions of the standard, written without parentheses.
    const upper = first.toUpperCase();
    if (NILADIC_FUNCTIONS.has(upper) && this.tokens[this.i - 1]?.kind === 'word')
      return plainCall(upper, [], at);
    const path = [first];
    while (this.isSymbol('.') && (this.peek().kind === 'word' || this.peek().kind === 'quoted')) {
      this.i++;
      path.push(this.identifier());
    }
    if (this.isSymbol('(')) return this.qualifiedCall(path, at);
    return { kind: 'column', path, at };
  }

  /**
   * A function called by its catalog path, `default_catalog.default_database.f(...)` or
   * `default_database.f(...)`, as Flink resolves a catalog function (CatalogTableITCase's
   * testUdfWith*). Weir's user functions are one namespace in the default database of the
   * default catalog (user-functions.ts), so the path must name those; another catalog or
   * database is refused naming it, as Flink refuses one that does not hold the function.
   */
  private qualifiedCall(path: readonly string[], at: SourcePosition): Expr {
    if (path.length > 3) this.unsupported('function names of more than three parts', at);
    const [catalog, database] = path.length === 3 ? path : ['default_catalog', path[0]];
    const name = path.join('.');
    if (catalog !== 'default_catalog')
      sqlError(`function '${name}': catalog '${catalog}' does not exist`, at);
    if (database !== 'default_database')
      sqlError(
        `function '${name}': database '${database}' does not exist in catalog '${catalog}'`,
        at,
      );
    return this.call((path[path.length - 1] as string).toUpperCase(), at);
  }

  private call(called: string, at: SourcePosition): Expr {
    let name = called;
    this.expectSymbol('(');
    let star = false;
    let distinct = false;
    let args: Expr[] = [];
    let nullTreatment: 'IGNORE' | 'RESPECT' | undefined;
    if (this.acceptSymbol('*')) star = true;
    else if (!this.isSymbol(')')) {
      distinct = this.acceptWord('DISTINCT');
      if (!distinct) this.acceptWord('ALL');
      if (name === 'TRIM') args = this.trimArguments();
      else if (name === 'SUBSTRING' && this.wordBeforeClose('FROM'))
        args = this.substringArguments();
      else if (name === 'POSITION' && this.wordBeforeClose('IN')) args = this.positionArguments();
      else if (name === 'OVERLAY' && this.wordBeforeClose('PLACING'))
        args = this.overlayArguments();
      else if (JSON_SYNTAX_FUNCTIONS.has(name))
        args = parseJsonArguments(this.jsonClauseParser(), name);
      else if (/^(FLOOR|CEIL|CEILING)$/.test(name) && this.wordBeforeClose('TO')) {
        // `FLOOR(ts TO HOUR)`: a function of its own, under a name no SQL text can call.
        name = `${name === 'FLOOR' ? 'FLOOR' : 'CEIL'} TO`;
        args = this.timeUnitArguments();
      } else if (name === 'TIMESTAMPADD' || name === 'TIMESTAMPDIFF') {
        // The unit is a word, not a column: passed on as its name.
        const unitAt = this.at;
        const unit = this.identifier('a time unit').toUpperCase();
        args = [{ kind: 'string', value: unit, at: unitAt }];
        while (this.acceptSymbol(',')) args.push(this.expression());
      } else args = this.expressionList();
      if (name === 'ARRAY_AGG') nullTreatment = this.nullTreatment();
    } else if (JSON_SYNTAX_FUNCTIONS.has(name))
      args = parseJsonArguments(this.jsonClauseParser(), name);
    this.expectSymbol(')');
    let filter: Expr | undefined;
    if (this.acceptWord('FILTER')) {
      this.expectSymbol('(');
      this.expectWord('WHERE');
      filter = this.expression();
      this.expectSymbol(')');
    }
    if (filter !== undefined && (nullTreatment !== undefined || JSON_AGGREGATES.has(name)))
      sqlError(
        `FILTER does not apply to ${name}${nullTreatment === undefined ? '' : ` with ${nullTreatment} NULLS`} (as in Flink SQL)`,
        at,
      );
    if (nullTreatment === 'IGNORE') filter = withoutNulls(args, at);
    if (this.isWord('WITHIN')) this.unsupported('WITHIN GROUP');
    let over = false;
    let overWindow: OverWindow | undefined;
    let overName: string | undefined;
    if (this.isWord('OVER')) {
      if (JSON_AGGREGATES.has(name))
        sqlError(`${name} is not supported in OVER windows (as in Flink SQL)`, this.at);
      this.i++;
      over = true;
      if (this.acceptSymbol('(')) overWindow = this.overWindow();
      else overName = this.identifier('a window name').toUpperCase();
    }
    if (overWindow !== undefined)
      return { kind: 'call', name, args, star, distinct, filter, over, overWindow, at };
    return overName === undefined
      ? { kind: 'call', name, args, star, distinct, filter, over, at }
      : { kind: 'call', name, args, star, distinct, filter, over, overName, at };
  }

  /** ARRAY_AGG's `IGNORE NULLS` or `RESPECT NULLS` (the default), after its argument, if written. */
  private nullTreatment(): 'IGNORE' | 'RESPECT' | undefined {
    if (this.acceptWord('IGNORE', 'NULLS')) return 'IGNORE';
    if (this.acceptWord('RESPECT', 'NULLS')) return 'RESPECT';
    return undefined;
  }

  /** The inside of `OVER (...)`, after its '('; the frame clause is kept as text. */
  private overWindow(): OverWindow {
    let partitionBy: Expr[] = [];
    let orderBy: OrderItem[] = [];
    if (this.acceptWord('PARTITION')) {
      this.expectWord('BY');
      partitionBy = this.expressionList();
    }
    if (this.acceptWord('ORDER')) {
      this.expectWord('BY');
      orderBy = this.orderItems();
    }
    const words: string[] = [];
    let depth = 1;
    for (;;) {
      if (this.token.kind === 'end') this.fail("')'");
      if (this.isSymbol('(')) depth++;
      if (this.isSymbol(')') && --depth === 0) break;
      words.push(this.token.text);
      this.i++;
    }
    this.i++;
    return { partitionBy, orderBy, frame: words.length === 0 ? undefined : words.join(' ') };
  }

  /**
   * Whether the call's arguments hold `word` outside parentheses: SUBSTRING's `FROM ... FOR
   * ...` form, POSITION's `needle IN haystack`.
   */
  private wordBeforeClose(word: string): boolean {
    let depth = 0;
    for (let k = this.i; k < this.tokens.length; k++) {
      const t = this.tokens[k] as Token;
      if (this.isSymbol('(', t)) depth++;
      else if (this.isSymbol(')', t)) {
        if (depth === 0) return false;
        depth--;
      } else if (depth === 0 && this.isWord(word, t)) return true;
      else if (t.kind === 'end') return false;
    }
    return false;
  }

  private substringArguments(): Expr[] {
    const args = [this.expression()];
    this.expectWord('FROM');
    args.push(this.expression());
    if (this.acceptWord('FOR')) args.push(this.expression());
    return args;
  }

  /** `ts TO unit` as (ts, the unit's name as a string). */
  private timeUnitArguments(): Expr[] {
    const arg = this.expression();
    this.expectWord('TO');
    const at = this.at;
    return [arg, { kind: 'string', value: this.identifier('a time unit').toUpperCase(), at }];
  }

  /** `OVERLAY(s PLACING r FROM start [FOR length])` as (s, r, start[, length]). */
  private overlayArguments(): Expr[] {
    const args = [this.expression()];
    this.expectWord('PLACING');
    args.push(this.expression());
    this.expectWord('FROM');
    args.push(this.expression());
    if (this.acceptWord('FOR')) args.push(this.expression());
    return args;
  }

  /** This parser's cursor with its data types, for the SQL/JSON clauses. */
  private jsonClauseParser(): JsonClauseParser {
    return Object.assign(this.clauseParser(), { dataType: () => this.dataType() });
  }

  /** `POSITION(needle IN haystack)`: the needle stops before IN (no `x IN (list)` there). */
  private positionArguments(): Expr[] {
    const needle = this.additive();
    this.expectWord('IN');
    return [needle, this.additive()];
  }

  /** `TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)` as (mode, chars, s). */
  private trimArguments(): Expr[] {
    const at = this.at;
    let mode = 'BOTH';
    if (this.acceptWord('BOTH')) mode = 'BOTH';
    else if (this.acceptWord('LEADING')) mode = 'LEADING';
    else if (this.acceptWord('TRAILING')) mode = 'TRAILING';
    let chars: Expr = { kind: 'string', value: ' ', at };
    if (!this.acceptWord('FROM')) {
      const first = this.expression();
      if (!this.acceptWord('FROM')) return [{ kind: 'string', value: mode, at }, chars, first];
      chars = first;
    }
    return [{ kind: 'string', value: mode, at }, chars, this.expression()];
  }

  private caseExpression(at: SourcePosition): Expr {
    const operand = this.isWord('WHEN') ? undefined : this.expression();
    const whens: { when: Expr; result: Expr }[] = [];
    while (this.acceptWord('WHEN')) {
      const when = this.expression();
      this.expectWord('THEN');
      whens.push({ when, result: this.expression() });
    }
    if (whens.length === 0) this.fail('WHEN');
    const otherwise = this.acceptWord('ELSE') ? this.expression() : undefined;
    this.expectWord('END');
    return { kind: 'case', operand, whens, otherwise, at };
  }

  private interval(at: SourcePosition): Expr {
    let negative = false;
    if (this.acceptSymbol('-')) negative = true;
    else this.acceptSymbol('+');
    const t = this.token;
    let value: string;
    if (t.kind === 'string' || t.kind === 'number') {
      value = t.text;
      this.i++;
    } else return this.fail("an interval value such as '4'");
    const unitToken = this.token;
    const unit = singularUnit(unitToken.kind === 'word' ? unitToken.text.toUpperCase() : '');
    if (!INTERVAL_UNITS.has(unit)) this.fail('an interval unit (DAY, HOUR, MINUTE, SECOND, ...)');
    this.i++;
    this.skipPrecision();
    if (this.acceptWord('TO')) {
      const last = singularUnit(this.token.kind === 'word' ? this.token.text.toUpperCase() : '');
      if (!INTERVAL_UNITS.has(last)) this.fail('an interval unit (MONTH, HOUR, MINUTE, SECOND)');
      this.i++;
      this.skipPrecision();
      const to = last as IntervalUnit;
      return { kind: 'interval', value, unit: unit as IntervalUnit, to, negative, at };
    }
    return { kind: 'interval', value, unit: unit as IntervalUnit, negative, at };
  }

  /** INTERVAL '1' SECOND(3): the precision of an interval's unit does not change its value. */
  private skipPrecision(): void {
    if (!this.acceptSymbol('(')) return;
    while (!this.acceptSymbol(')')) {
      if (this.token.kind === 'end') this.fail("')'");
      this.i++;
    }
  }

  // ---- data types ----

  private parenthesizedNumbers(): number[] {
    const numbers: number[] = [];
    if (!this.acceptSymbol('(')) return numbers;
    do {
      const t = this.token;
      if (t.kind !== 'number' || !/^\d+$/.test(t.text)) this.fail('a whole number');
      numbers.push(Number(t.text));
      this.i++;
    } while (this.acceptSymbol(','));
    this.expectSymbol(')');
    return numbers;
  }

  dataType(): LogicalType {
    const at = this.at;
    let t = this.nullability(this.baseType(at));
    // Flink's `t MULTISET`, the SQL standard's spelling of MULTISET<t>.
    while (this.acceptWord('MULTISET'))
      t = this.nullability({ kind: 'MULTISET', nullable: true, element: t });
    return t;
  }

  private nullability(t: LogicalType): LogicalType {
    if (this.acceptWord('NOT', 'NULL')) return { ...t, nullable: false } as LogicalType;
    this.acceptWord('NULL');
    return t;
  }

  private baseType(at: SourcePosition): LogicalType {
    const t = this.token;
    if (t.kind !== 'word') return this.fail('a data type');
    const word = t.text.toUpperCase();
    this.i++;
    const nullable = true;
    switch (word) {
      case 'BOOLEAN':
        return { kind: 'BOOLEAN', nullable };
      case 'TINYINT':
      case 'SMALLINT':
      case 'BIGINT':
        return { kind: word, nullable };
      case 'INT':
      case 'INTEGER':
        return { kind: 'INTEGER', nullable };
      case 'FLOAT':
      case 'REAL':
        this.parenthesizedNumbers();
        return { kind: 'FLOAT', nullable };
      case 'DOUBLE':
        this.acceptWord('PRECISION');
        return { kind: 'DOUBLE', nullable };
      case 'DECIMAL':
      case 'DEC':
      case 'NUMERIC': {
        const [precision = 10, scale = 0] = this.parenthesizedNumbers();
        if (precision < 1 || precision > 38)
          sqlError(`DECIMAL precision must be between 1 and 38, got ${precision}`, at);
        if (scale > precision)
          sqlError(`DECIMAL scale ${scale} exceeds its precision ${precision}`, at);
        return { kind: 'DECIMAL', nullable, precision, scale };
      }
      case 'CHAR':
      case 'CHARACTER': {
        if (this.acceptWord('VARYING'))
          return {
            kind: 'VARCHAR',
            nullable,
            length: this.parenthesizedNumbers()[0] ?? MAX_LENGTH,
          };
        return { kind: 'CHAR', nullable, length: this.parenthesizedNumbers()[0] ?? 1 };
      }
      case 'VARCHAR':
        return { kind: 'VARCHAR', nullable, length: this.parenthesizedNumbers()[0] ?? MAX_LENGTH };
      case 'STRING':
        return { kind: 'VARCHAR', nullable, length: MAX_LENGTH };
      case 'BINARY':
        return { kind: 'BINARY', nullable, length: this.parenthesizedNumbers()[0] ?? 1 };
      case 'VARBINARY':
        return {
          kind: 'VARBINARY',
          nullable,
          length: this.parenthesizedNumbers()[0] ?? MAX_LENGTH,
        };
      case 'BYTES':
        return { kind: 'VARBINARY', nullable, length: MAX_LENGTH };
      case 'DATE':
        return { kind: 'DATE', nullable };
      case 'TIME': {
        const precision = this.parenthesizedNumbers()[0] ?? 0;
        this.acceptWord('WITHOUT', 'TIME', 'ZONE');
        return { kind: 'TIME', nullable, precision };
      }
      case 'TIMESTAMP': {
        const precision = this.parenthesizedNumbers()[0] ?? 6;
        if (precision > 9)
          sqlError(`TIMESTAMP precision must be between 0 and 9, got ${precision}`, at);
        if (this.acceptWord('WITH', 'LOCAL', 'TIME', 'ZONE'))
          return { kind: 'TIMESTAMP_LTZ', nullable, precision };
        if (this.acceptWord('WITH', 'TIME', 'ZONE'))
          this.unsupported('TIMESTAMP WITH TIME ZONE', at);
        this.acceptWord('WITHOUT', 'TIME', 'ZONE');
        return { kind: 'TIMESTAMP', nullable, precision };
      }
      case 'TIMESTAMP_LTZ':
        return { kind: 'TIMESTAMP_LTZ', nullable, precision: this.parenthesizedNumbers()[0] ?? 6 };
      case 'INTERVAL': {
        const unit = this.identifier('an interval unit').toUpperCase();
        this.parenthesizedNumbers();
        if (this.acceptWord('TO')) {
          this.identifier('an interval unit');
          this.parenthesizedNumbers();
        }
        return {
          kind: unit === 'YEAR' || unit === 'MONTH' ? 'INTERVAL_YEAR_MONTH' : 'INTERVAL_DAY_TIME',
          nullable,
        };
      }
      case 'ROW':
        return { kind: 'ROW', nullable, fields: this.rowFields() };
      case 'ARRAY':
      case 'MULTISET': {
        this.expectSymbol('<');
        const element = this.dataType();
        this.expectSymbol('>');
        return { kind: word, nullable, element };
      }
      case 'MAP': {
        this.expectSymbol('<');
        const key = this.dataType();
        this.expectSymbol(',');
        const value = this.dataType();
        this.expectSymbol('>');
        return { kind: 'MAP', nullable, key, value };
      }
      default:
        if (['RAW', 'VARIANT', 'STRUCTURED'].includes(word))
          this.unsupported(`the ${word} type`, at);
        this.i--;
        return this.fail('a data type');
    }
  }

  private rowFields(): RowField[] {
    let close = '>';
    if (!this.acceptSymbol('<')) {
      this.expectSymbol('(');
      close = ')';
    }
    const fields: RowField[] = [];
    if (this.acceptSymbol(close)) return fields;
    do {
      const name = this.identifier('a field name');
      fields.push({ name, type: this.dataType() });
      if (this.token.kind === 'string') this.i++; // a field comment
    } while (this.acceptSymbol(','));
    this.expectSymbol(close);
    return fields;
  }
}

/**
 * `ARRAY_AGG(x IGNORE NULLS)` as `ARRAY_AGG(x) FILTER (WHERE x IS NOT NULL)`: the same rows
 * reach the accumulator, and a group of NULLs alone gives NULL, as in Flink.
 */
function withoutNulls(args: readonly Expr[], at: SourcePosition): Expr {
  const [arg] = args;
  if (arg === undefined) return { kind: 'boolean', value: true, at };
  return { kind: 'is', arg, test: 'NULL', negated: true, at };
}
