/**
 * The syntax tree of Weir SQL (Flink's dialect) as plain data. Every node keeps the position
 * of its first token, so later errors (unknown column, type mismatch) name a place.
 */
import type { SourcePosition } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';

export type IntervalUnit = 'YEAR' | 'MONTH' | 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND' | 'MILLISECOND';

export type Expr =
  | { readonly kind: 'number'; readonly text: string; readonly at: SourcePosition }
  | { readonly kind: 'string'; readonly value: string; readonly at: SourcePosition }
  | { readonly kind: 'boolean'; readonly value: boolean; readonly at: SourcePosition }
  | { readonly kind: 'null'; readonly at: SourcePosition }
  | {
      readonly kind: 'interval';
      readonly value: string;
      readonly unit: IntervalUnit;
      /** The last unit of a range (`INTERVAL '1-2' YEAR TO MONTH`), if the literal has one. */
      readonly to?: IntervalUnit;
      readonly negative: boolean;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'typed-literal';
      readonly type: 'DATE' | 'TIME' | 'TIMESTAMP';
      readonly value: string;
      readonly at: SourcePosition;
    }
  /** `a`, `t.a`, `person.id`, `t.person.id`: resolved against the scope later. */
  | { readonly kind: 'column'; readonly path: readonly string[]; readonly at: SourcePosition }
  | {
      readonly kind: 'unary';
      readonly op: '-' | '+' | 'NOT';
      readonly arg: Expr;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'binary';
      readonly op: BinaryOp;
      readonly left: Expr;
      readonly right: Expr;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'is';
      readonly arg: Expr;
      readonly test: 'NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN';
      readonly negated: boolean;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'between';
      readonly arg: Expr;
      readonly low: Expr;
      readonly high: Expr;
      readonly negated: boolean;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'in';
      readonly arg: Expr;
      readonly list: readonly Expr[];
      readonly negated: boolean;
      readonly at: SourcePosition;
    }
  /** `arg [NOT] LIKE pattern [ESCAPE c]`, or with `similar` `arg [NOT] SIMILAR TO pattern ...`. */
  | {
      readonly kind: 'like';
      readonly similar?: boolean;
      readonly arg: Expr;
      readonly pattern: Expr;
      readonly escape: Expr | undefined;
      readonly negated: boolean;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'case';
      readonly operand: Expr | undefined;
      readonly whens: readonly { readonly when: Expr; readonly result: Expr }[];
      readonly otherwise: Expr | undefined;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'cast';
      readonly arg: Expr;
      readonly type: LogicalType;
      readonly tryCast: boolean;
      readonly at: SourcePosition;
    }
  /** `base[index]`: an ARRAY element (1-based) or a MAP value by key. */
  | {
      readonly kind: 'item';
      readonly base: Expr;
      readonly index: Expr;
      readonly at: SourcePosition;
    }
  /** `base.name` where `base` is not a column name (`a[1].f`, `(expr).f`): a ROW's field. */
  | {
      readonly kind: 'field';
      readonly base: Expr;
      readonly name: string;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'extract';
      readonly unit: string;
      readonly arg: Expr;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly args: readonly Expr[];
      /** `COUNT(*)`. */
      readonly star: boolean;
      readonly distinct: boolean;
      /** `agg(...) FILTER (WHERE cond)`. */
      readonly filter: Expr | undefined;
      /** `fn(...) OVER (...)`. */
      readonly over: boolean;
      /** The `OVER (...)` window's PARTITION BY and ORDER BY (undefined for a named window). */
      readonly overWindow?: OverWindow;
      /** `OVER w`: the name of a window of the SELECT's WINDOW clause. */
      readonly overName?: string;
      readonly at: SourcePosition;
    }
  /**
   * `EXISTS (query)`, `v IN (query)`, `(a, b) IN (query)` (`values` holds the left side; none
   * for EXISTS); `negated` for `NOT IN`. Planned as a semi or anti join (semi-join-planner.ts).
   */
  | {
      readonly kind: 'subquery-test';
      readonly test: 'EXISTS' | 'IN';
      readonly values: readonly Expr[];
      readonly query: Query;
      readonly negated: boolean;
      readonly at: SourcePosition;
    }
  /**
   * `(SELECT ...)` as a value: an uncorrelated scalar subquery, planned as a join with the
   * query's row (scalar-subquery.ts).
   */
  | {
      readonly kind: 'scalar-subquery';
      readonly query: Query;
      readonly at: SourcePosition;
    }
  /** `DESCRIPTOR(col)` inside a window TVF. */
  | {
      readonly kind: 'descriptor';
      readonly columns: readonly string[];
      readonly at: SourcePosition;
    }
  /** `TABLE name [PARTITION BY col | (col, ...)]` inside a table function call. */
  | {
      readonly kind: 'table-arg';
      readonly name: string;
      readonly partitionBy?: readonly string[];
      readonly at: SourcePosition;
    };

export type BinaryOp =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||'
  | '='
  | '<>'
  | '<'
  | '<='
  | '>'
  | '>='
  | 'AND'
  | 'OR';

export type SelectItem =
  | { readonly kind: 'expr'; readonly expr: Expr; readonly alias: string | undefined }
  | { readonly kind: 'star'; readonly qualifier: string | undefined; readonly at: SourcePosition };

export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS';

/** The column list of `alias(column, ...)` after a table or subquery in FROM. */
export interface ColumnAliases {
  readonly names: readonly string[];
  /** Where the list starts (its `(`). */
  readonly at: SourcePosition;
}

export type FromItem =
  | {
      readonly kind: 'table';
      readonly name: string;
      /** `/*+ OPTIONS(...) *\/` after the name: options for this read of the table only. */
      readonly options?: readonly TableOption[];
      /** `FOR SYSTEM_TIME AS OF expr` (a temporal join's versioned side). */
      readonly asOf: Expr | undefined;
      readonly alias: string | undefined;
      /** `[AS] alias(column, ...)`: new names of the table's columns, in order. */
      readonly columns?: ColumnAliases;
      readonly at: SourcePosition;
    }
  /** `(query) [AS] alias[(column, ...)]`, VALUES among them. */
  | {
      readonly kind: 'subquery';
      readonly query: Query;
      readonly alias: string | undefined;
      /** New names of the query's columns, in order. */
      readonly columns?: ColumnAliases;
      readonly at: SourcePosition;
    }
  /**
   * `TABLE(fn(args...)) [AS] alias[(column, ...)]`: the window TVFs TUMBLE, HOP, CUMULATE,
   * SESSION, or a user table function (its rows, as `LATERAL TABLE` alone gives them).
   */
  | {
      readonly kind: 'table-function';
      readonly name: string;
      readonly args: readonly Expr[];
      readonly alias: string | undefined;
      /** New names of a user table function's columns, in order. */
      readonly columns?: readonly string[];
      readonly at: SourcePosition;
    }
  /** `LATERAL TABLE(fn(args...)) [AS] alias[(column, ...)]`: a user table function per row. */
  | {
      readonly kind: 'lateral';
      readonly name: string;
      readonly args: readonly Expr[];
      readonly alias: string | undefined;
      /** New names of the function's columns, in order. */
      readonly columns: readonly string[] | undefined;
      readonly at: SourcePosition;
    }
  /**
   * `UNNEST(array_or_map) [WITH ORDINALITY] [AS] alias[(column, ...)]`: the elements of an
   * ARRAY (or the entries of a MAP) of each row, joined to it.
   */
  | {
      readonly kind: 'unnest';
      readonly arg: Expr;
      readonly ordinality: boolean;
      readonly alias: string | undefined;
      readonly columns: readonly string[] | undefined;
      readonly at: SourcePosition;
    }
  /** `table MATCH_RECOGNIZE (...) [AS alias]`, or `(query) MATCH_RECOGNIZE (...) [AS alias]`. */
  | {
      readonly kind: 'match-recognize';
      readonly input: FromItem;
      readonly clause: MatchRecognize;
      readonly alias: string | undefined;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'join';
      readonly type: JoinType;
      readonly left: FromItem;
      readonly right: FromItem;
      readonly on: Expr | undefined;
      readonly at: SourcePosition;
    };

/** A PATTERN of MATCH_RECOGNIZE, as its regular expression over pattern variables. */
export type RowPattern =
  | { readonly kind: 'variable'; readonly name: string; readonly at: SourcePosition }
  | {
      readonly kind: 'sequence';
      readonly items: readonly RowPattern[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'alternation';
      readonly options: readonly RowPattern[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'quantified';
      readonly pattern: RowPattern;
      readonly min: number;
      /** `Infinity` for `*`, `+` and `{n,}`. */
      readonly max: number;
      readonly reluctant: boolean;
      readonly at: SourcePosition;
    };

/** What follows a match: the row the next match may start at. */
export type AfterMatchSkip =
  | { readonly kind: 'past-last-row' }
  | { readonly kind: 'to-next-row' }
  | {
      readonly kind: 'to-first' | 'to-last';
      readonly variable: string;
      readonly at: SourcePosition;
    };

/** The body of `MATCH_RECOGNIZE (...)`. */
export interface MatchRecognize {
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderItem[];
  readonly measures: readonly { readonly expr: Expr; readonly alias: string }[];
  /** Absent: Flink's default, SKIP TO NEXT ROW. */
  readonly after: AfterMatchSkip | undefined;
  readonly pattern: RowPattern;
  readonly within: Expr | undefined;
  readonly define: readonly {
    readonly variable: string;
    readonly condition: Expr;
    readonly at: SourcePosition;
  }[];
  readonly at: SourcePosition;
}

export interface Select {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  readonly from: FromItem | undefined;
  readonly where: Expr | undefined;
  readonly groupBy: readonly Expr[];
  /**
   * GROUP BY GROUPING SETS, ROLLUP or CUBE: the grouping sets, each a list of expressions of
   * `groupBy` (which then holds every expression named in them).
   */
  readonly groupingSets?: readonly (readonly Expr[])[];
  readonly having: Expr | undefined;
  /** `WINDOW w AS (...)`: the named OVER windows. */
  readonly windows?: ReadonlyMap<string, OverWindow>;
  readonly at: SourcePosition;
}

/** `OVER (PARTITION BY ... ORDER BY ... [frame])`. */
export interface OverWindow {
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderItem[];
  /** The frame clause's text (`ROWS BETWEEN 2 PRECEDING AND CURRENT ROW`), if any. */
  readonly frame: string | undefined;
}

export interface OrderItem {
  readonly expr: Expr;
  readonly descending: boolean;
}

export type Query =
  | Select
  | {
      readonly kind: 'set-operation';
      readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT';
      readonly all: boolean;
      readonly left: Query;
      readonly right: Query;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'with';
      readonly ctes: readonly { readonly name: string; readonly query: Query }[];
      readonly body: Query;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'values';
      readonly rows: readonly (readonly Expr[])[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'ordered';
      readonly query: Query;
      readonly orderBy: readonly OrderItem[];
      readonly limit: Expr | undefined;
      /** `OFFSET m`: rows skipped before the first one kept. */
      readonly offset?: Expr;
      readonly at: SourcePosition;
    };

/** A column of CREATE TABLE. */
export type ColumnDefinition =
  /** A column named without a type: only in CREATE TABLE ... AS SELECT, where the query types it. */
  | { readonly kind: 'name-only'; readonly name: string; readonly at: SourcePosition }
  | {
      readonly kind: 'physical';
      readonly name: string;
      readonly type: LogicalType;
      /** `COMMENT '...'` (SHOW CREATE TABLE shows it); also on the other kinds. */
      readonly comment?: string;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'computed';
      readonly name: string;
      readonly expr: Expr;
      /** The expression as written (SHOW CREATE TABLE). */
      readonly text?: string;
      readonly comment?: string;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'metadata';
      readonly name: string;
      readonly type: LogicalType;
      readonly key: string | undefined;
      readonly virtual: boolean;
      readonly comment?: string;
      readonly at: SourcePosition;
    };

export interface TableOption {
  readonly key: string;
  readonly value: string;
  readonly at: SourcePosition;
}

/** One `column = value` of an INSERT's static PARTITION spec; the value as the literal's text. */
export interface StaticPartitionValue {
  readonly column: string;
  readonly value: string;
  readonly at: SourcePosition;
}

/** A feature of a LIKE clause's source table that its options include, exclude or overwrite. */
export type LikeFeature =
  | 'ALL'
  | 'CONSTRAINTS'
  | 'DISTRIBUTION'
  | 'GENERATED'
  | 'METADATA'
  | 'OPTIONS'
  | 'PARTITIONS'
  | 'WATERMARKS';

/** `LIKE source [(INCLUDING | EXCLUDING | OVERWRITING feature, ...)]` of CREATE TABLE. */
export interface TableLike {
  readonly table: string;
  readonly options: readonly {
    readonly strategy: 'INCLUDING' | 'EXCLUDING' | 'OVERWRITING';
    readonly feature: LikeFeature;
    readonly at: SourcePosition;
  }[];
  readonly at: SourcePosition;
}

export type Statement =
  | {
      readonly kind: 'create-table';
      readonly name: string;
      readonly temporary: boolean;
      readonly ifNotExists: boolean;
      readonly columns: readonly ColumnDefinition[];
      readonly watermark:
        | {
            readonly column: string;
            readonly expr: Expr;
            /** The expression as written (SHOW CREATE TABLE). */
            readonly text?: string;
            readonly at: SourcePosition;
          }
        | undefined;
      readonly primaryKey: readonly string[] | undefined;
      readonly options: readonly TableOption[];
      /** `PARTITIONED BY (cols)`: the filesystem connector's partition directories. */
      readonly partitionedBy?: readonly string[];
      /** The table's `COMMENT '...'` (SHOW CREATE TABLE shows it). */
      readonly comment?: string;
      /** `LIKE source (options)`: the table starts from another table's definition. */
      readonly like?: TableLike;
      /** `AS query` (CTAS): the table takes the query's columns and the query is inserted into it. */
      readonly asQuery?: Query;
      /**
       * `CREATE OR REPLACE TABLE ... AS` (`or-replace`) or `REPLACE TABLE ... AS` (`replace`,
       * the table must exist): an existing table of the name is dropped first.
       */
      readonly replace?: 'or-replace' | 'replace';
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'create-view';
      readonly name: string;
      readonly temporary: boolean;
      readonly ifNotExists: boolean;
      readonly query: Query;
      /** The view's text, for DESCRIBE and EXPLAIN. */
      readonly text: string;
      /** `CREATE VIEW v (a, b) AS ...`: the names given to the query's columns. */
      readonly columns?: readonly string[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'create-function';
      readonly name: string;
      readonly ifNotExists: boolean;
      readonly className: string;
      /** `LANGUAGE x`, upper-cased; Weir runs TYPESCRIPT (and JAVASCRIPT) functions. */
      readonly language?: string;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'insert';
      readonly table: string;
      /** `/*+ OPTIONS(...) *\/` after the table's name: options for this INSERT only. */
      readonly options?: readonly TableOption[];
      /** `PARTITION (k = 'v', ...)`: static partition values, which the query does not give. */
      readonly partition?: readonly StaticPartitionValue[];
      readonly columns: readonly string[] | undefined;
      readonly query: Query;
      readonly at: SourcePosition;
    }
  | { readonly kind: 'query'; readonly query: Query; readonly at: SourcePosition }
  | { readonly kind: 'explain'; readonly statement: Statement; readonly at: SourcePosition }
  | {
      readonly kind: 'set';
      readonly key: string;
      readonly value: string;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'statement-set';
      readonly inserts: readonly Statement[];
      readonly at: SourcePosition;
    }
  | CatalogStatement;

/** What SHOW lists or shows. */
export type ShowWhat =
  | 'TABLES'
  | 'VIEWS'
  | 'FUNCTIONS'
  | 'USER FUNCTIONS'
  | 'CATALOGS'
  | 'DATABASES'
  | 'CURRENT CATALOG'
  | 'CURRENT DATABASE'
  | 'COLUMNS'
  | 'CREATE TABLE'
  | 'CREATE VIEW'
  /** A bare `SET`: the session's options. */
  | 'OPTIONS'
  /** `DESCRIBE CATALOG [EXTENDED] c`. */
  | 'CATALOG';

/** `[NOT] LIKE 'pattern'` or `ILIKE` after SHOW TABLES, VIEWS, FUNCTIONS or COLUMNS. */
export interface ShowLike {
  readonly pattern: string;
  readonly not: boolean;
  readonly caseInsensitive: boolean;
}

/** Where ALTER TABLE ... ADD puts a column: first, after another, or (undefined) last. */
export type ColumnPosition = { readonly first: true } | { readonly after: string };

/** ALTER TABLE's changes of the schema (Flink 1.17's ADD, MODIFY, DROP and RENAME of columns). */
export type SchemaChange =
  | {
      readonly kind: 'add' | 'modify';
      readonly columns: readonly {
        readonly definition: ColumnDefinition;
        readonly position: ColumnPosition | undefined;
      }[];
      readonly watermark?: {
        readonly column: string;
        readonly expr: Expr;
        readonly text: string;
        readonly at: SourcePosition;
      };
      readonly primaryKey?: readonly string[];
    }
  | { readonly kind: 'drop-columns'; readonly columns: readonly string[] }
  | { readonly kind: 'drop-watermark' }
  | { readonly kind: 'drop-primary-key' }
  | { readonly kind: 'rename-column'; readonly from: string; readonly to: string };

/** The statements that read or change the catalog itself: DROP, SHOW, DESCRIBE, USE, RESET, ALTER. */
export type CatalogStatement =
  | {
      readonly kind: 'drop';
      readonly object: 'TABLE' | 'VIEW' | 'FUNCTION' | 'DATABASE' | 'CATALOG';
      /** DROP TEMPORARY TABLE / VIEW: only a temporary one. */
      readonly temporary?: boolean;
      readonly ifExists: boolean;
      readonly name: string;
      /** DROP DATABASE ... CASCADE: with its tables and views (RESTRICT, the default, refuses). */
      readonly cascade?: boolean;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'create-catalog';
      readonly name: string;
      readonly ifNotExists: boolean;
      readonly comment?: string;
      readonly options: readonly TableOption[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'create-database';
      readonly name: string;
      readonly ifNotExists: boolean;
      readonly comment?: string;
      readonly options: readonly TableOption[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'alter-catalog';
      readonly name: string;
      readonly change:
        | { readonly kind: 'set'; readonly options: readonly TableOption[] }
        | { readonly kind: 'reset'; readonly keys: readonly string[] }
        | { readonly kind: 'comment'; readonly comment: string };
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'alter-database';
      readonly name: string;
      readonly options: readonly TableOption[];
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'show';
      readonly what: ShowWhat;
      /** The table or view of SHOW COLUMNS and SHOW CREATE; the catalog of DESCRIBE CATALOG. */
      readonly name?: string;
      /** DESCRIBE CATALOG EXTENDED. */
      readonly extended?: boolean;
      /** `FROM` / `IN` a database (or catalog, for SHOW DATABASES). */
      readonly from?: string;
      readonly like?: ShowLike;
      readonly at: SourcePosition;
    }
  | { readonly kind: 'describe'; readonly name: string; readonly at: SourcePosition }
  | {
      readonly kind: 'use';
      readonly catalog: boolean;
      readonly name: string;
      readonly at: SourcePosition;
    }
  | { readonly kind: 'reset'; readonly key: string | undefined; readonly at: SourcePosition }
  | {
      readonly kind: 'alter-table';
      readonly name: string;
      readonly ifExists: boolean;
      readonly action:
        | { readonly kind: 'set'; readonly options: readonly TableOption[] }
        | { readonly kind: 'reset'; readonly keys: readonly string[] }
        | { readonly kind: 'rename'; readonly to: string }
        | SchemaChange;
      readonly at: SourcePosition;
    }
  | {
      readonly kind: 'alter-view';
      readonly name: string;
      readonly action:
        | { readonly kind: 'rename'; readonly to: string }
        | { readonly kind: 'as'; readonly query: Query; readonly text: string };
      readonly at: SourcePosition;
    };
