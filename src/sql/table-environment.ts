/**
 * The SQL entry point: a table environment on a {@link StreamEnvironment}. DDL fills its
 * catalog; queries and INSERT INTO add to the environment's logical graph through the
 * DataStream API, so SQL and hand-written jobs share one planner and one runtime.
 */

import { DataStreamImpl } from '../api/data-stream.js';
import { StreamEnvironmentImpl } from '../api/environment.js';
import { implOf } from '../api/impl-of.js';
import { StreamEnvironment } from '../api/stream-environment.js';
import type { ChangelogStream, DataStream } from '../api/streams.js';
import { DiscardingSink } from '../connectors/collection/sink/collect-sink.js';
import type { Change, ChangelogMode } from '../core/changelog.js';
import type { Sink } from '../core/sink.js';
import type { ExecuteOptions, JobClient } from '../runtime/job/job-client.js';
import {
  Catalog,
  type CatalogTable,
  type CatalogView,
  type TableColumn,
} from './catalog/catalog.js';
import {
  createTableText,
  createViewText,
  DESCRIBE_COLUMNS,
  describeTableRows,
  describeViewRows,
  likeTest,
  qualified,
  type StatementResult,
  withOptions,
} from './catalog/catalog-statements.js';
import { checkCreateTableAs, splitCreateTableAs } from './catalog/create-table-as.js';
import { alteredTable } from './catalog/schema-change.js';
import { mergeLike } from './catalog/table-like.js';
import { type Row, validateOptions } from './connectors/connector.js';
import { connectorOf } from './connectors/registry.js';
import { coerce } from './expressions/cast.js';
import { CodeGen } from './expressions/code-gen.js';
import { compileScalar } from './expressions/compile.js';
import { builtInFunctionNames } from './expressions/functions.js';
import { Scope } from './expressions/scope.js';
import {
  CURRENT_DATABASE_KEY,
  LOCAL_TIME_ZONE_OPTION,
  sessionTimeZone,
  timeZoneOf,
  withSessionConfig,
} from './expressions/session-time-zone.js';
import {
  type AggregateFunctionSpec,
  FunctionCatalog,
  loadedFunction,
  loadFunctionModules,
  type ScalarFunction,
  type TableFunctionSpec,
  withFunctions,
} from './functions/user-functions.js';
import type { Query, Statement } from './parser/ast.js';
import { parseDataType, parseExpression, parseScript } from './parser/parser.js';
import { AGG_PHASE_STRATEGY, aggPhaseStrategyOf } from './planner/aggregate-phase.js';
import {
  graphOf,
  inferStatementChangelogs,
  noteChangelogRole,
  upsertKeyText,
  withChangelogModes,
} from './planner/changelog-plan.js';
import {
  changelogModeOf,
  changesOf,
  isUpdating,
  refuseUnappliableChangelog,
  retracting,
} from './planner/changelog-relation.js';
import {
  checkDistinctSplitOption,
  DISTINCT_SPLIT_OPTIONS,
  distinctSplitOf,
} from './planner/distinct-split.js';
import { withStateLines } from './planner/explain-state.js';
import { insertColumns } from './planner/insert-columns.js';
import { checkMiniBatchOption, MINI_BATCH_OPTIONS, miniBatchOf } from './planner/mini-batch.js';
import { NON_TEMPORAL_SORT_ENABLED, nonTemporalSortOf } from './planner/non-temporal-sort.js';
import { type PlanContext, planQuery } from './planner/query-planner.js';
import type { Relation } from './planner/relation.js';
import { columnPositions, primaryKeyOf } from './planner/row-key.js';
import { changesForSink } from './planner/sink-changelog.js';
import {
  checkTypeLengthEnforcer,
  NOT_NULL_ENFORCER,
  notNullEnforcerOf,
  sinkNotNullEnforcer,
  TYPE_LENGTH_ENFORCER,
} from './planner/sink-not-null.js';
import { checkingOnly } from './planner/source-planner.js';
import {
  SOURCE_IDLE_TIMEOUT_OPTION,
  STATE_TTL_OPTION,
  sourceIdleTimeoutOf,
  stateTtlOf,
} from './planner/state-ttl.js';
import { REUSE_SUB_PLAN, reuseSubPlansOf, SubPlans } from './planner/sub-plans.js';
import { withHintOptions } from './planner/table-hints.js';
import { checkWindowEmitOption, isWindowEmitOption, windowEmitOf } from './planner/window-emit.js';
import { sqlError } from './sql-error.js';
import { externalValueReader } from './types/external-values.js';
import { formatType, type LogicalType } from './types/logical-type.js';
import { type JsonValue, toDisplayString, toJsonValue } from './types/values.js';

/** Flink's option for the job's default parallelism. */
const DEFAULT_PARALLELISM = 'parallelism.default';

/** A column of a query result: its name and SQL type (e.g. `DECIMAL(24, 3)`). */
export interface ResultColumn {
  readonly name: string;
  readonly type: string;
}

/** The result of {@link TableEnvironment.sqlQuery}. */
export interface Table {
  readonly columns: readonly ResultColumn[];
  /**
   * What the query emits, as Flink infers it: `insert-only` rows, or changes (`retract`:
   * `+I`, `-U`/`+U`, `-D`) for an updating query (unwindowed GROUP BY, outer joins, ...).
   */
  readonly changelogMode: ChangelogMode;
  /** The query's rows, one array per row, values at the columns' positions (insert-only queries). */
  toDataStream(): DataStream<Row>;
  /** The query's changes (any query; each row of an insert-only one is a `+I`). */
  toChangelogStream(): ChangelogStream<Row>;
  /**
   * A row as JSON values: DECIMAL as its plain string, TIMESTAMP as epoch ms, a BIGINT beyond
   * 2^53 as its digits, a ROW or ARRAY as an array, a MAP as [key, value] pairs and a MULTISET
   * as [element, count] pairs (JSON objects key by text only).
   */
  toJson(row: Row): JsonValue[];
  /**
   * A row's values as Flink's print connector and SQL client show them (`<NULL>` for null, a
   * TIMESTAMP_LTZ as the wall clock of the session time zone the query was planned in).
   */
  display(row: Row): string[];
}

/** The schema of a DataStream registered as a table ({@link TableEnvironment.fromDataStream}). */
export interface DataStreamSchema {
  /** Each column's name and SQL type (`BIGINT`, `DECIMAL(10, 2)`, `TIMESTAMP(3)`). */
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  /** The rowtime column and its watermark expression, as in `WATERMARK FOR col AS expr`. */
  readonly watermark?: { readonly column: string; readonly expression: string };
}

/** What {@link TableEnvironment.executeSql} did. */
export interface SqlScriptResult {
  /** One line per statement (`CREATE TABLE bid`, `INSERT INTO sink`, ...). */
  readonly statements: readonly string[];
  /** The text of each EXPLAIN statement. */
  readonly explained: readonly string[];
  /** The job running the script's INSERT INTO statements, if it had any. */
  readonly job: JobClient | undefined;
  /** What each SHOW and DESCRIBE statement answered, in script order. */
  readonly results: readonly StatementResult[];
}

/** How {@link TableEnvironment.buildScript} takes a script. */
export interface BuildScriptOptions {
  /**
   * A SELECT prints its changes to standard output (as `weir sql -f` runs a script, like
   * Flink's SQL client); otherwise a SELECT is refused: it needs an INSERT INTO.
   */
  readonly printSelects?: boolean;
}

export interface ExecuteSqlOptions extends ExecuteOptions {
  /** Name of the job running the INSERTs; `SET 'pipeline.name'` overrides it. Default `weir sql`. */
  readonly jobName?: string;
}

export class TableEnvironment {
  private readonly catalog = new Catalog();
  private readonly functions = new FunctionCatalog();
  private readonly config = new Map<string, string>();
  private readonly sources = new Map<string, Relation>();
  /** How each INSERT's changes meet its sink (changelog mode, upsert key), for EXPLAIN. */
  private readonly sinkExplains: string[] = [];
  /** INSERTs added to the environment's job so far. */
  private insertsInJob = 0;
  /** Whether executeSql has started the environment's job. */
  private startedJob = false;

  private constructor(readonly env: StreamEnvironment) {}

  /** A table environment adding to `env`'s job. */
  static create(env: StreamEnvironment): TableEnvironment {
    return new TableEnvironment(env);
  }

  /** `SET` options so far. */
  get options(): ReadonlyMap<string, string> {
    return this.config;
  }

  /**
   * Runs a script: CREATE TABLE / VIEW, SET, EXPLAIN, and INSERT INTO. The INSERTs become one
   * job, started at the end of the script (as Flink submits an INSERT); await `job.result`.
   */
  executeSql(script: string, options: ExecuteSqlOptions = {}): SqlScriptResult {
    const built = this.buildScript(script);
    let job: JobClient | undefined;
    if (built.inserts > 0 && this.startedJob) {
      // The environment's job still holds the earlier INSERTs' sinks: running it again would
      // write their rows a second time. Flink submits each INSERT as a job of its own.
      return sqlError(
        'this TableEnvironment has already started a job with INSERT INTO: its StreamEnvironment holds one job, which would run the earlier INSERTs again; put the INSERTs in one script (or EXECUTE STATEMENT SET), or use a new StreamEnvironment and TableEnvironment',
      );
    }
    if (built.inserts > 0) {
      this.startedJob = true;
      const { jobName, ...execute } = options;
      job = this.env.executeAsync(
        this.config.get('pipeline.name') ?? jobName ?? 'weir sql',
        execute,
      );
    }
    return {
      statements: built.statements,
      explained: built.explained,
      job,
      results: built.results,
    };
  }

  /**
   * Applies a script to the environment without starting the job: DDL fills the catalog and
   * each INSERT INTO adds its query and sink to the job (which `env.execute` then runs, with
   * whatever checkpointing and restore options the caller chose).
   */
  buildScript(
    script: string,
    options: BuildScriptOptions = {},
  ): {
    readonly statements: readonly string[];
    readonly explained: readonly string[];
    readonly results: readonly StatementResult[];
    readonly inserts: number;
  } {
    return this.planning(() => this.buildScriptWithFunctions(script, options));
  }

  /**
   * Registers a TypeScript scalar, aggregate or table function under `name` for this
   * environment's statements (Flink's `createTemporarySystemFunction`); see
   * `defineScalarFunction`, `defineAggregateFunction` and `defineTableFunction`.
   */
  createTemporarySystemFunction(
    name: string,
    fn: ScalarFunction | AggregateFunctionSpec | TableFunctionSpec,
  ): void {
    this.functions.register(name, fn);
  }

  /**
   * Loads the modules a script's `CREATE FUNCTION name AS 'file.ts#export'` statements name
   * (relative to the working directory), so that executeSql can run them; `weir sql` does this
   * itself.
   */
  async loadFunctionModules(script: string): Promise<void> {
    const references = parseScript(script).flatMap((s) =>
      s.kind === 'create-function' ? [s.className] : [],
    );
    await loadFunctionModules(references, process.cwd());
  }

  /**
   * Registers a DataStream as table `name` of this environment's job: `schema.columns` name
   * and type the values (an array per record in column order, or an object read by column
   * name), `schema.watermark` makes a column the rowtime with Flink's `WATERMARK FOR col AS
   * expr`. Queries of this environment read it like any table.
   */
  fromDataStream<T>(name: string, stream: DataStream<T>, schema: DataStreamSchema): void {
    if (implOf(stream, DataStreamImpl, 'fromDataStream').builder !== (this.env as object))
      sqlError(
        `fromDataStream '${name}': the DataStream belongs to another StreamEnvironment than this table environment's; a table can only be read in the job of its stream`,
      );
    const columns: TableColumn[] = schema.columns.map((c) => ({
      name: c.name,
      type: parseDataType(c.type),
      computed: undefined,
    }));
    const names = columns.map((c) => c.name);
    // A stream of plain values (numbers, strings, dates) is a table of one column, as Flink
    // makes an atomic type its column `f0`.
    const atomic = (v: unknown): boolean =>
      v === null || typeof v !== 'object' || v instanceof Date;

    const readers = columns.map((c) => externalValueReader(c.type, name, c.name));
    const convert = readers.some((r) => r !== undefined);
    const rows = stream
      .map((v: T): Row => {
        const row: Row = Array.isArray(v)
          ? (v as Row)
          : atomic(v)
            ? names.length === 1
              ? [v]
              : sqlError(
                  `fromDataStream '${name}': a record of ${names.length} columns must be an array or an object, not ${v === null ? 'null' : typeof v}`,
                )
            : names.map((n) => (v as Record<string, unknown>)[n] ?? null);
        if (!convert) return row;
        // A fresh array: the record itself may be the program's own, read again elsewhere.
        return row.map((x, i) => (readers[i] === undefined ? x : readers[i](x)));
      })
      .name(`${name}: rows`);
    const at = { line: 1, column: 1 };
    const watermark =
      schema.watermark === undefined
        ? undefined
        : { column: schema.watermark.column, expr: parseExpression(schema.watermark.expression) };
    if (watermark !== undefined && !names.includes(watermark.column))
      sqlError(
        `fromDataStream '${name}': the watermark column '${watermark.column}' is not a column`,
      );
    this.catalog.register(
      {
        kind: 'table',
        name,
        columns,
        watermark,
        primaryKey: undefined,
        options: new Map(),
        connector: 'datastream',
        dataStream: { env: this.env, stream: rows },
        at,
      },
      false,
      at,
      // As Flink's createTemporaryView: a session object, which may hide a catalog table.
      true,
    );
  }

  /** Runs `body` (planning) with this environment's functions and session time zone. */
  private planning<T>(body: () => T): T {
    const session = new Map(this.config).set(CURRENT_DATABASE_KEY, this.catalog.currentDatabase);
    return withFunctions(this.functions, () => withSessionConfig(session, body));
  }

  /** The names of the functions registered (`SHOW FUNCTIONS` lists them after the built-in ones). */
  listFunctions(): string[] {
    return this.functions.names();
  }

  private buildScriptWithFunctions(
    script: string,
    options: BuildScriptOptions,
  ): {
    readonly statements: readonly string[];
    readonly explained: readonly string[];
    readonly results: readonly StatementResult[];
    readonly inserts: number;
  } {
    const statements: string[] = [];
    const explained: string[] = [];
    const results: StatementResult[] = [];
    let inserts = 0;
    for (const statement of parseScript(script)) {
      statements.push(this.describe(statement));
      switch (statement.kind) {
        case 'explain':
          explained.push(this.explainStatement(statement.statement));
          break;
        case 'show':
        case 'describe':
          results.push(this.answer(statement));
          break;
        case 'query':
          if (options.printSelects !== true)
            sqlError(
              'a SELECT in a script needs a sink: write INSERT INTO <table> SELECT ... (or use sqlQuery)',
              statement.at,
            );
          this.printQuery(statement, this.planContext(this.env));
          inserts += 1;
          this.insertsInJob += 1;
          this.sinkExplains.length = 0;
          break;
        default: {
          const added = this.apply(statement, this.planContext(this.env));
          inserts += added;
          this.insertsInJob += added;
          this.sinkExplains.length = 0;
        }
      }
    }
    return { statements, explained, results, inserts };
  }

  /** Plans a SELECT (insert-only for now) into a stream of rows of this environment's job. */
  sqlQuery(select: string): Table {
    return this.planning(() => this.planTable(select));
  }

  private planTable(select: string): Table {
    const statements = parseScript(select);
    const statement = statements[0];
    if (statements.length !== 1 || statement?.kind !== 'query') {
      return sqlError(
        'sqlQuery takes exactly one SELECT (or VALUES, or WITH ... SELECT)',
        statement?.at,
      );
    }
    const relation = planQuery(statement.query, this.planContext(this.env));
    const types = relation.columns.map((c) => c.type);
    // The client shows TIMESTAMP_LTZ values in the zone the query was planned in.
    const zone = sessionTimeZone();
    const changelogMode = changelogModeOf(relation);
    return {
      columns: relation.columns.map((c) => ({ name: c.name, type: formatType(c.type) })),
      changelogMode,
      // The projection compiles when the stream is first asked for: user functions must be in scope.
      toDataStream: () => {
        if (isUpdating(relation))
          sqlError(
            `the query is updating (it emits a ${changelogMode} changelog): read it with toChangelogStream()`,
            statement.at,
          );
        return this.planning(() => relation.stream);
      },
      toChangelogStream: () => this.planning(() => changesOf(relation)),
      toJson: (row) => row.map((v, i) => toJsonValue(v, types[i] as LogicalType)),
      display: (row) => row.map((v, i) => toDisplayString(v, types[i] as LogicalType, zone)),
    };
  }

  /** The tables and views created so far, by name in creation order (`SHOW TABLES`). */
  listTables(): string[] {
    return this.catalog.names();
  }

  /**
   * The columns of a table or view (`DESCRIBE t`): name, SQL type and what else Flink shows
   * in `extras` (computed expression, METADATA, WATERMARK, PRIMARY KEY).
   */
  describeTable(
    name: string,
  ): { readonly name: string; readonly type: string; readonly extras: string }[] {
    const object = this.catalog.get(name);
    if (object.kind === 'view') {
      return this.planning(() => this.sqlQueryColumns(`SELECT * FROM ${name}`)).map((c) => ({
        ...c,
        extras: '',
      }));
    }
    return object.columns.map((c) => {
      const extras: string[] = [];
      if (c.computed !== undefined) extras.push('computed');
      if (c.metadata !== undefined)
        extras.push(`METADATA FROM '${c.metadata.key}'${c.metadata.virtual ? ' VIRTUAL' : ''}`);
      if (object.primaryKey?.includes(c.name) === true) extras.push('PRIMARY KEY');
      if (object.watermark?.column === c.name) extras.push('WATERMARK');
      if (object.partitionKeys?.includes(c.name) === true) extras.push('PARTITION KEY');
      return { name: c.name, type: formatType(c.type), extras: extras.join(', ') };
    });
  }

  private sqlQueryColumns(select: string): ResultColumn[] {
    const statement = parseScript(select)[0];
    if (statement?.kind !== 'query') return [];
    const scratch = checkingOnly(new StreamEnvironment({ parallelism: 1 }));
    const relation = planQuery(statement.query, {
      env: scratch,
      catalog: this.catalog,
      ctes: new Map(),
      sources: new Map(),
    });
    return relation.columns.map((c) => ({ name: c.name, type: formatType(c.type) }));
  }

  /** The plan of a query or INSERT (Weir's logical graph and physical plan), without running it. */
  explainSql(sql: string): string {
    return this.planning(() => this.explainText(sql));
  }

  private explainText(sql: string): string {
    const statements = parseScript(sql);
    const statement = statements[0];
    if (statements.length !== 1 || statement === undefined)
      return sqlError('explainSql takes exactly one statement');
    return this.explainStatement(statement.kind === 'explain' ? statement.statement : statement);
  }

  private explainStatement(statement: Statement): string {
    // Planned into a scratch environment: explaining adds nothing to the real job.
    const scratch = checkingOnly(new StreamEnvironment({ parallelism: this.env.parallelism }));
    const ctx: PlanContext = {
      env: scratch,
      catalog: this.catalog,
      ctes: new Map(),
      sources: new Map(),
      ...this.execOptions(),
    };
    if (statement.kind === 'query') {
      const relation = planQuery(statement.query, ctx);
      if (isUpdating(relation)) {
        // As a changelog read by `toChangelogStream()`: with its update-befores.
        const sink = changesOf(relation).sinkTo(new DiscardingSink<Change<Row>>());
        noteChangelogRole(sink, { kind: 'sink', accepts: 'retract' });
        inferStatementChangelogs(graphOf(scratch), 0);
      } else relation.stream.sinkTo(new DiscardingSink<Row>());
      const schema = relation.columns
        .map((c) => `${c.name} ${formatType(c.type)}${c.rowtime ? ' *ROWTIME*' : ''}`)
        .join(', ');
      const key = isUpdating(relation)
        ? `\nupsert key: ${upsertKeyText(relation.upsertKey, relation.columns)}`
        : '';
      return `== Result ==\n(${schema})\nchangelog mode: ${changelogModeOf(relation)}${key}\n\n${reusedText(ctx)}${explainWithModes(scratch)}`;
    }
    const ctas = statement.kind === 'create-table' && statement.asQuery !== undefined;
    if (statement.kind === 'insert' || statement.kind === 'statement-set' || ctas) {
      // Explaining must not change the catalog: the tables a CTAS makes (or replaces) are put
      // back as they were afterwards.
      const before = new Map(
        (statement.kind === 'statement-set' ? statement.inserts : [statement]).flatMap((s) =>
          s.kind === 'create-table'
            ? [[s.name, this.catalog.has(s.name) ? this.catalog.get(s.name) : undefined] as const]
            : [],
        ),
      );
      this.sinkExplains.length = 0;
      try {
        this.apply(statement, ctx);
      } finally {
        for (const [name, object] of before) {
          this.catalog.drop(name);
          if (object !== undefined) this.catalog.replace(object);
        }
      }
      const sinks = this.sinkExplains.splice(0);
      const header = sinks.length === 0 ? '' : `== Sinks ==\n${sinks.join('\n')}\n\n`;
      return `${header}${reusedText(ctx)}${explainWithModes(scratch)}`;
    }
    return sqlError(`EXPLAIN of ${this.describe(statement)} is not supported`, statement.at);
  }

  private planContext(env: StreamEnvironment): PlanContext {
    return {
      env,
      catalog: this.catalog,
      ctes: new Map(),
      sources: env === this.env ? this.sources : new Map(),
      ...this.execOptions(),
    };
  }

  /** The `table.exec.state.ttl` and `table.exec.mini-batch.*` set so far, as plan context fields. */
  private execOptions(): Pick<
    PlanContext,
    | 'stateTtl'
    | 'sourceIdleTimeoutMs'
    | 'miniBatch'
    | 'aggPhaseStrategy'
    | 'distinctSplit'
    | 'subPlans'
    | 'nonTemporalSort'
    | 'windowEmit'
  > {
    const ttl = stateTtlOf(this.config.get(STATE_TTL_OPTION));
    const idle = sourceIdleTimeoutOf(this.config.get(SOURCE_IDLE_TIMEOUT_OPTION));
    return {
      ...(ttl === undefined ? {} : { stateTtl: ttl }),
      ...(idle === undefined ? {} : { sourceIdleTimeoutMs: idle }),
      miniBatch: () => miniBatchOf(this.config),
      aggPhaseStrategy: () => aggPhaseStrategyOf(this.config.get(AGG_PHASE_STRATEGY)),
      distinctSplit: () => distinctSplitOf(this.config),
      subPlans: new SubPlans(reuseSubPlansOf(this.config.get(REUSE_SUB_PLAN))),
      nonTemporalSort: () => nonTemporalSortOf(this.config.get(NON_TEMPORAL_SORT_ENABLED)),
      windowEmit: (window, at) => windowEmitOf(this.config, window, at),
    };
  }

  private describe(s: Statement): string {
    switch (s.kind) {
      case 'create-table':
        return `CREATE TABLE ${s.name}`;
      case 'create-view':
        return `CREATE VIEW ${s.name}`;
      case 'create-function':
        return `CREATE FUNCTION ${s.name}`;
      case 'insert':
        return `INSERT INTO ${s.table}`;
      case 'query':
        return 'SELECT';
      case 'explain':
        return 'EXPLAIN';
      case 'set':
        return `SET ${s.key}`;
      case 'statement-set':
        return 'EXECUTE STATEMENT SET';
      case 'drop':
        return `DROP ${s.object} ${s.name}`;
      case 'show':
        if (s.what === 'OPTIONS') return 'SET';
        if (s.what === 'CATALOG')
          return `DESCRIBE CATALOG ${s.extended ? 'EXTENDED ' : ''}${s.name}`;
        return `SHOW ${s.what}${s.name === undefined ? '' : ` ${s.name}`}`;
      case 'describe':
        return `DESCRIBE ${s.name}`;
      case 'use':
        return `USE ${s.catalog ? 'CATALOG ' : ''}${s.name}`;
      case 'reset':
        return s.key === undefined ? 'RESET' : `RESET ${s.key}`;
      case 'alter-table':
        return `ALTER TABLE ${s.name}`;
      case 'alter-view':
        return `ALTER VIEW ${s.name}`;
      case 'create-catalog':
        return `CREATE CATALOG ${s.name}`;
      case 'create-database':
        return `CREATE DATABASE ${s.name}`;
      case 'alter-catalog':
        return `ALTER CATALOG ${s.name}`;
      case 'alter-database':
        return `ALTER DATABASE ${s.name}`;
    }
  }

  /** The answer of a SHOW or DESCRIBE statement. */
  private answer(s: Extract<Statement, { kind: 'show' | 'describe' }>): StatementResult {
    const statement = this.describe(s);
    const list = (column: string, names: readonly string[]): StatementResult => {
      const test = likeTest(s.kind === 'show' ? s.like : undefined);
      return {
        statement,
        columns: [column],
        rows: names
          .filter(test)
          .sort()
          .map((n) => [n]),
      };
    };
    if (s.kind === 'describe') {
      return { statement, columns: DESCRIBE_COLUMNS, rows: this.describeRows(s.name, s.at) };
    }
    switch (s.what) {
      case 'TABLES':
        return list('table name', this.catalog.names(s.from, s.at));
      case 'VIEWS':
        return list(
          'view name',
          this.catalog.names(s.from, s.at).filter((n) => {
            const db = s.from === undefined ? '' : `${s.from}.`;
            return this.catalog.get(`${db}${n}`).kind === 'view';
          }),
        );
      case 'FUNCTIONS':
        return list('function name', [...builtInFunctionNames(), ...this.listFunctions()]);
      case 'USER FUNCTIONS':
        return list('function name', this.listFunctions());
      case 'CATALOGS':
        return list('catalog name', this.catalog.catalogs());
      case 'DATABASES':
        return list('database name', this.catalog.databasesOf(s.from, s.at));
      case 'CURRENT CATALOG':
        return {
          statement,
          columns: ['current catalog name'],
          rows: [[this.catalog.currentCatalog]],
        };
      case 'CURRENT DATABASE':
        return {
          statement,
          columns: ['current database name'],
          rows: [[this.catalog.currentDatabase]],
        };
      case 'COLUMNS': {
        const test = likeTest(s.like);
        const rows = this.describeRows(s.name as string, s.at).filter((r) => test(r[0] as string));
        return { statement, columns: DESCRIBE_COLUMNS, rows };
      }
      case 'CREATE TABLE': {
        const object = this.catalog.get(s.name as string, s.at);
        if (object.kind !== 'table')
          sqlError(`'${s.name}' is a view: SHOW CREATE VIEW shows it`, s.at);
        if (object.dataStream !== undefined)
          sqlError(`'${s.name}' is a DataStream registered as a table: it has no DDL`, s.at);
        return {
          statement,
          columns: ['result'],
          rows: [
            [
              createTableText(
                object,
                this.catalog.pathOf(object),
                this.catalog.isTemporary(s.name as string),
              ),
            ],
          ],
        };
      }
      case 'CATALOG':
        return {
          statement,
          columns: ['info name', 'info value'],
          rows: this.catalog.describeCatalog(s.name as string, s.extended === true, s.at),
        };
      case 'OPTIONS':
        return {
          statement,
          columns: ['key', 'value'],
          rows: [...this.config].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        };
      case 'CREATE VIEW': {
        const object = this.catalog.get(s.name as string, s.at);
        if (object.kind !== 'view')
          sqlError(`'${s.name}' is a table: SHOW CREATE TABLE shows it`, s.at);
        return {
          statement,
          columns: ['result'],
          rows: [
            [
              createViewText(
                object,
                this.catalog.pathOf(object),
                this.catalog.isTemporary(s.name as string),
              ),
            ],
          ],
        };
      }
    }
  }

  private describeRows(name: string, at: Statement['at']): string[][] {
    const object = this.catalog.get(name, at);
    if (object.kind === 'table') return describeTableRows(object);
    const statement = parseScript(`SELECT * FROM ${qualified(this.catalog.pathOf(object))}`)[0];
    if (statement?.kind !== 'query') return [];
    const relation = this.planning(() =>
      planQuery(statement.query, {
        env: checkingOnly(new StreamEnvironment({ parallelism: 1 })),
        catalog: this.catalog,
        ctes: new Map(),
        sources: new Map(),
      }),
    );
    return describeViewRows(relation.columns.map((c) => ({ ...c, rowtime: c.rowtime === true })));
  }

  /** DROP TABLE, VIEW, FUNCTION, DATABASE or CATALOG. */
  private drop(s: Extract<Statement, { kind: 'drop' }>): void {
    if (s.object === 'DATABASE') {
      this.catalog.dropDatabase(s.name, s.ifExists, s.cascade === true, s.at);
      this.sources.clear();
      return;
    }
    if (s.object === 'CATALOG') {
      this.catalog.dropCatalog(s.name, s.ifExists, s.at);
      this.sources.clear();
      return;
    }
    if (s.object === 'FUNCTION') {
      if (!this.functions.drop(s.name) && !s.ifExists)
        sqlError(`function '${s.name}' does not exist`, s.at);
      return;
    }
    if (s.temporary === true ? !this.catalog.isTemporary(s.name) : !this.catalog.has(s.name)) {
      if (!s.ifExists)
        sqlError(
          `${s.temporary === true ? 'temporary ' : ''}${s.object === 'TABLE' ? 'table' : 'view'} '${s.name}' does not exist`,
          s.at,
        );
      return;
    }
    // Refused, as in Flink: the permanent object stays while a temporary one hides it.
    if (s.temporary !== true && this.catalog.hidesPermanent(s.name))
      this.catalog.drop(s.name, false, s.at);
    const object = this.catalog.get(s.name);
    const kind = object.kind;
    // DROP VIEW IF EXISTS of a table (DROP TABLE IF EXISTS of a view) leaves it, as Flink
    // finds no view (table) of that name: CatalogTableITCase.testDropViewSameNameWithTableIfNotExists.
    if ((kind === 'table') !== (s.object === 'TABLE') && s.ifExists) return;
    if (kind === 'view' && s.object === 'TABLE')
      sqlError(`'${s.name}' is a view: DROP VIEW drops it`, s.at);
    if (kind === 'table' && s.object === 'VIEW')
      sqlError(`'${s.name}' is a table: DROP TABLE drops it`, s.at);
    this.catalog.drop(s.name, s.temporary === true, s.at);
    this.forgetSources(object.name);
  }

  /** Forgets the sources planned from a table, also those of hinted reads (`name[["k","v"]]`). */
  private forgetSources(name: string): void {
    for (const key of [...this.sources.keys()])
      if (key === name || key.startsWith(`${name}[[`)) this.sources.delete(key);
  }

  /** ALTER TABLE ... SET / RESET / RENAME TO / ADD / MODIFY / DROP, and ALTER VIEW ... RENAME TO / AS. */
  private alter(s: Extract<Statement, { kind: 'alter-table' | 'alter-view' }>): void {
    if (s.kind === 'alter-table' && s.ifExists && !this.catalog.has(s.name)) return;
    const object = this.catalog.get(s.name, s.at);
    const word = s.kind === 'alter-table' ? 'TABLE' : 'VIEW';
    if ((object.kind === 'table') !== (s.kind === 'alter-table'))
      sqlError(
        `'${s.name}' is a ${object.kind}: ALTER ${object.kind.toUpperCase()} changes it, not ALTER ${word}`,
        s.at,
      );
    this.forgetSources(object.name);
    const { action } = s;
    if (action.kind === 'rename') {
      if (this.catalog.has(action.to))
        sqlError(`a table or view named '${action.to}' already exists`, s.at);
      const temporary = this.catalog.isTemporary(s.name);
      this.catalog.drop(object.name, temporary, s.at);
      this.catalog.register({ ...object, name: action.to }, false, s.at, temporary);
      return;
    }
    if (action.kind === 'as') {
      planQuery(action.query, this.planContext(checkingOnly(new StreamEnvironment())));
      // The new query, with its own column names (a column list of the old one goes).
      const { columns: _, ...view } = object as CatalogView;
      this.catalog.replace({ ...view, query: action.query, text: action.text });
      return;
    }
    const table = object as CatalogTable;
    if (action.kind === 'set' || action.kind === 'reset') {
      const altered =
        action.kind === 'set'
          ? withOptions(table, action.options, [], s.at)
          : withOptions(table, [], action.keys, s.at);
      validateOptions(connectorOf(altered), altered);
      this.catalog.replace(altered);
      return;
    }
    if (table.dataStream !== undefined)
      sqlError(
        `'${s.name}' is a DataStream registered as a table: its schema is its stream's`,
        s.at,
      );
    this.createTable(alteredTable(table, action, s.at), 'replace');
  }

  /** Applies a statement; returns the number of INSERTs it added. */
  private apply(statement: Statement, ctx: PlanContext): number {
    switch (statement.kind) {
      case 'create-table':
        if (statement.asQuery !== undefined) {
          this.createTableAs(statement, ctx);
          return 1;
        }
        this.createTable(statement);
        return 0;
      case 'create-view':
        // Planned once now, so that a wrong view fails at CREATE VIEW, as in Flink.
        planQuery(statement.query, this.planContext(checkingOnly(new StreamEnvironment())));
        this.catalog.register(
          {
            kind: 'view',
            name: statement.name,
            query: statement.query,
            text: statement.text,
            ...(statement.columns === undefined ? {} : { columns: statement.columns }),
          },
          statement.ifNotExists,
          statement.at,
          statement.temporary,
        );
        this.forgetSources(statement.name);
        return 0;
      case 'create-function': {
        const language = statement.language ?? 'TYPESCRIPT';
        if (language !== 'TYPESCRIPT' && language !== 'JAVASCRIPT')
          sqlError(
            `CREATE FUNCTION ... LANGUAGE ${language}: Weir runs TYPESCRIPT (or JAVASCRIPT) functions`,
            statement.at,
          );
        if (statement.ifNotExists && this.functions.has(statement.name)) return 0;
        this.functions.register(
          statement.name,
          loadedFunction(statement.className, process.cwd(), statement.at),
          statement.at,
        );
        return 0;
      }
      case 'set':
        // Checked here, so that a bad value is an error at its SET.
        if (statement.key === STATE_TTL_OPTION) stateTtlOf(statement.value, statement.at);
        if (statement.key === SOURCE_IDLE_TIMEOUT_OPTION)
          sourceIdleTimeoutOf(statement.value, statement.at);
        if (statement.key === AGG_PHASE_STRATEGY) aggPhaseStrategyOf(statement.value, statement.at);
        if (DISTINCT_SPLIT_OPTIONS.has(statement.key))
          checkDistinctSplitOption(statement.key, statement.value, statement.at);
        if (statement.key === LOCAL_TIME_ZONE_OPTION) timeZoneOf(statement.value, statement.at);
        if (statement.key === REUSE_SUB_PLAN) reuseSubPlansOf(statement.value, statement.at);
        if (statement.key === NON_TEMPORAL_SORT_ENABLED)
          nonTemporalSortOf(statement.value, statement.at);
        if (MINI_BATCH_OPTIONS.has(statement.key))
          checkMiniBatchOption(statement.key, statement.value, statement.at);
        if (statement.key === DEFAULT_PARALLELISM) this.setParallelism(statement);
        if (statement.key === NOT_NULL_ENFORCER) notNullEnforcerOf(statement.value, statement.at);
        if (statement.key === TYPE_LENGTH_ENFORCER)
          checkTypeLengthEnforcer(statement.value, statement.at);
        // A wrong key or value is an error at its SET, as for the other options checked here.
        if (isWindowEmitOption(statement.key))
          checkWindowEmitOption(statement.key, statement.value, statement.at);
        this.config.set(statement.key, statement.value);
        return 0;
      case 'insert':
        this.insert(statement, ctx);
        return 1;
      case 'statement-set':
        for (const s of statement.inserts) this.apply(s, ctx);
        return statement.inserts.length;
      case 'drop':
        this.drop(statement);
        return 0;
      case 'alter-table':
      case 'alter-view':
        this.alter(statement);
        return 0;
      case 'use':
        if (statement.catalog) this.catalog.useCatalog(statement.name, statement.at);
        else this.catalog.useDatabase(statement.name, statement.at);
        return 0;
      case 'create-catalog': {
        const type = statement.options.find((o) => o.key === 'type')?.value;
        if (type !== 'generic_in_memory')
          sqlError(
            `CREATE CATALOG ${statement.name}: ${type === undefined ? "'type' is missing" : `catalog type '${type}' is not supported`}; Weir SQL has in-memory catalogs: WITH ('type' = 'generic_in_memory')`,
            statement.at,
          );
        this.catalog.createCatalog(
          statement.name,
          statement.ifNotExists,
          statement.at,
          new Map(statement.options.map((o) => [o.key, o.value])),
          statement.comment,
        );
        return 0;
      }
      case 'create-database':
        this.catalog.createDatabase(
          statement.name,
          statement.ifNotExists,
          statement.at,
          statement.comment,
          statement.options.map((o) => [o.key, o.value]),
        );
        return 0;
      case 'alter-catalog': {
        const { change } = statement;
        this.catalog.alterCatalog(
          statement.name,
          change.kind === 'set'
            ? { kind: 'set', options: change.options.map((o) => [o.key, o.value]) }
            : change,
          statement.at,
        );
        return 0;
      }
      case 'alter-database':
        this.catalog.alterDatabase(
          statement.name,
          statement.options.map((o) => [o.key, o.value]),
          statement.at,
        );
        return 0;
      case 'reset':
        if (statement.key === undefined) this.config.clear();
        else this.config.delete(statement.key);
        return 0;
      default:
        return sqlError(`${this.describe(statement)} cannot run here`, statement.at);
    }
  }

  /**
   * `SET 'parallelism.default'`: the job's default parallelism, as Flink's table config sets its
   * environment's (winning over the one the environment was made with, e.g. `weir sql -p`).
   * The script's INSERTs run as one job at one parallelism, so a different value after an
   * INSERT is refused rather than applied to the INSERTs before it.
   */
  private setParallelism(s: Extract<Statement, { kind: 'set' }>): void {
    const text = s.value.trim();
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= 1))
      sqlError(
        `SET '${DEFAULT_PARALLELISM}' needs a positive whole number, got '${s.value}'`,
        s.at,
      );
    const env = implOf(this.env, StreamEnvironmentImpl, `SET '${DEFAULT_PARALLELISM}'`);
    if (value === env.parallelism) return;
    if (this.insertsInJob > 0)
      sqlError(
        `SET '${DEFAULT_PARALLELISM}' after an INSERT: the INSERTs run as one job at one default parallelism (${env.parallelism} so far); set it before the first INSERT`,
        s.at,
      );
    if (value > env.maxParallelism)
      sqlError(
        `SET '${DEFAULT_PARALLELISM}' = '${value}' exceeds the job's max parallelism (${env.maxParallelism})`,
        s.at,
      );
    env.setDefaultParallelism(value);
  }

  /**
   * CTAS: the table from the query's columns (planned apart, so the real job gets the query
   * once), then an INSERT INTO it. Into a table that exists only with IF NOT EXISTS, which
   * then inserts into that table.
   */
  private createTableAs(s: Extract<Statement, { kind: 'create-table' }>, ctx: PlanContext): void {
    checkCreateTableAs(s);
    const query = s.asQuery as Query;
    if (s.replace === 'replace' && !this.catalog.has(s.name))
      sqlError(
        `table '${s.name}' does not exist: REPLACE TABLE replaces one (CREATE OR REPLACE makes it)`,
        s.at,
      );
    if (s.replace !== undefined && this.catalog.has(s.name)) {
      if (this.catalog.get(s.name).kind !== 'table')
        sqlError(`'${s.name}' is a view: [CREATE OR] REPLACE TABLE replaces a table`, s.at);
      this.catalog.drop(s.name);
      this.forgetSources(s.name);
    }
    if (this.catalog.names().includes(s.name)) {
      if (!s.ifNotExists)
        sqlError(
          `table '${s.name}' already exists: CREATE TABLE ... AS SELECT creates its table (INSERT INTO adds to one)`,
          s.at,
        );
      this.insert({ kind: 'insert', table: s.name, columns: undefined, query, at: s.at }, ctx);
      return;
    }
    // Planned once, into the job: the INSERT takes this relation rather than planning again
    // (a DataStream table can only be read in its own job).
    const firstNode = graphOf(ctx.env).nodes.length;
    const relation = planQuery(query, ctx);
    const { table, columnOf } = splitCreateTableAs(s, relation.columns);
    this.createTable(table);
    this.insert({ kind: 'insert', table: s.name, columns: undefined, query, at: s.at }, ctx, {
      relation,
      firstNode,
      ...(columnOf === undefined ? {} : { columnOf }),
    });
  }

  /**
   * A script's SELECT, as Flink's SQL client runs one from a file: its changes are printed to
   * standard output as the `print` connector prints them (`+I[...]`, `-U[...]`, ...), from the
   * same job as the script's INSERTs. It goes through a `print` table of the query's columns
   * that lives only while the INSERT is planned.
   */
  private printQuery(s: Extract<Statement, { kind: 'query' }>, ctx: PlanContext): void {
    const firstNode = graphOf(ctx.env).nodes.length;
    const relation = planQuery(s.query, ctx);
    let name = 'select_result';
    for (let n = 1; this.catalog.has(name); n++) name = `select_result_${n}`;
    this.createTable({
      kind: 'create-table',
      name,
      temporary: true,
      ifNotExists: false,
      // Positional names: a SELECT may repeat a column name, and print shows only values.
      columns: relation.columns.map((c, i) => ({
        kind: 'physical',
        name: `f${i}`,
        type: c.type,
        at: s.at,
      })),
      watermark: undefined,
      primaryKey: undefined,
      options: [{ key: 'connector', value: 'print', at: s.at }],
      at: s.at,
    });
    try {
      this.insert(
        { kind: 'insert', table: name, columns: undefined, query: s.query, at: s.at },
        ctx,
        {
          relation,
          firstNode,
        },
      );
    } finally {
      this.catalog.drop(name);
    }
  }

  /** Registers the table `statement` defines (`replace`: in place of the one of its name, ALTER TABLE). */
  private createTable(
    statement: Extract<Statement, { kind: 'create-table' }>,
    mode: 'create' | 'replace' = 'create',
  ): void {
    let s = statement;
    if (s.like !== undefined) {
      const source = this.catalog.get(s.like.table, s.like.at);
      if (source.kind !== 'table')
        sqlError(`the table of a LIKE clause cannot be a view ('${s.like.table}')`, s.like.at);
      s = mergeLike(s, source);
    }
    const columns: TableColumn[] = [];
    // A PRIMARY KEY column is NOT NULL, as in Flink (DESCRIBE, and the types of expressions
    // over it); the sources check the values they read for it (not-null-columns.ts).
    const keyed = (type: LogicalType, name: string): LogicalType =>
      s.primaryKey?.includes(name) === true && type.nullable
        ? ({ ...type, nullable: false } as LogicalType)
        : type;
    for (const c of s.columns) {
      if (columns.some((x) => x.name === c.name))
        sqlError(`column '${c.name}' is declared twice`, c.at);
      if (c.kind === 'name-only')
        sqlError(
          `column '${c.name}' needs a type (a column list of names alone is for CREATE TABLE ... AS SELECT)`,
          c.at,
        );
      // A column's COMMENT is kept for SHOW CREATE TABLE.
      const comment = c.comment === undefined ? {} : { comment: c.comment };
      if (c.kind === 'metadata')
        columns.push({
          name: c.name,
          type: keyed(c.type, c.name),
          computed: undefined,
          metadata: { key: c.key ?? c.name, virtual: c.virtual },
          ...comment,
        });
      else if (c.kind === 'physical')
        columns.push({
          name: c.name,
          type: keyed(c.type, c.name),
          computed: undefined,
          ...comment,
        });
      else
        columns.push({
          name: c.name,
          type: { kind: 'NULL', nullable: true },
          computed: c.expr,
          ...(c.text === undefined ? {} : { computedText: c.text }),
          ...comment,
        });
    }
    // Computed columns see the physical ones; their types come from their expressions.
    const physical = new Scope(
      columns
        .filter((c) => c.computed === undefined)
        .map((c) => ({ name: c.name, type: c.type, qualifier: undefined, rowtime: false })),
    );
    const typed = columns.map((c) =>
      c.computed === undefined ? c : { ...c, type: compileScalar(c.computed, physical).type },
    );
    const options = new Map(s.options.map((o) => [o.key, o]));
    const connector = options.get('connector');
    if (connector === undefined)
      sqlError(`table '${s.name}' needs a 'connector' option in WITH (...)`, s.at);
    const table: CatalogTable = {
      kind: 'table',
      name: s.name,
      columns: typed,
      watermark:
        s.watermark === undefined
          ? undefined
          : {
              column: s.watermark.column,
              expr: s.watermark.expr,
              ...(s.watermark.text === undefined ? {} : { text: s.watermark.text }),
            },
      primaryKey: s.primaryKey,
      ...(s.partitionedBy === undefined ? {} : { partitionKeys: s.partitionedBy }),
      ...(s.comment === undefined ? {} : { comment: s.comment }),
      options,
      connector: connector.value,
      at: s.at,
    };
    if (s.watermark !== undefined && !typed.some((c) => c.name === s.watermark?.column)) {
      sqlError(`WATERMARK FOR '${s.watermark.column}': no such column`, s.watermark.at);
    }
    validateOptions(connectorOf(table), table);
    if (mode === 'replace') this.catalog.replace(table);
    else {
      this.catalog.register(table, s.ifNotExists, s.at, s.temporary);
      // A temporary table may hide a permanent one already read in this job.
      this.forgetSources(s.name);
    }
  }

  /**
   * Adds an INSERT INTO to the job. `planned` is its query planned already (CTAS), with which
   * query column fills each written column (`columnOf`, undefined entries NULL) when not the
   * query's order.
   */
  private insert(
    s: Extract<Statement, { kind: 'insert' }>,
    ctx: PlanContext,
    planned?: {
      readonly relation: Relation;
      readonly firstNode: number;
      readonly columnOf?: readonly (number | undefined)[];
    },
  ): void {
    const stored = this.catalog.get(s.table, s.at);
    if (stored.kind !== 'table') sqlError(`cannot INSERT INTO the view '${s.table}'`, s.at);
    const target = withHintOptions(stored, s.table, s.options, s.at) as CatalogTable;
    const connector = connectorOf(target);
    if (connector.sink === undefined)
      sqlError(`connector '${connector.name}' can only be read, not written`, s.at);
    const graph = graphOf(ctx.env);
    const firstNode = planned?.firstNode ?? graph.nodes.length;
    const relation = planned?.relation ?? planQuery(s.query, ctx);
    // VIRTUAL metadata columns are read-only: INSERT INTO leaves them out, as Flink does.
    const sinkColumns = target.columns.filter(
      (c) => c.computed === undefined && c.metadata?.virtual !== true,
    );
    // A column list and a static PARTITION spec say which columns the query fills.
    const fill = insertColumns(s, target, sinkColumns);
    const columnOf = planned?.columnOf ?? fill.columnOf;
    if (planned?.columnOf === undefined && relation.columns.length !== fill.filled.length) {
      sqlError(
        `INSERT INTO ${s.table}: the query has ${relation.columns.length} columns, the table ${fill.filled.length} (${fill.filled.join(', ')})`,
        s.at,
      );
    }
    const g = new CodeGen();
    let changed = false;
    const codes = sinkColumns.map((c, i) => {
      const j = columnOf[i];
      const value =
        j === undefined
          ? fill.constants.has(i)
            ? { code: g.constant(fill.constants.get(i)), type: c.type }
            : { code: 'null', type: { kind: 'NULL', nullable: true } as LogicalType }
          : { code: `r[${j}]`, type: (relation.columns[j] as { type: LogicalType }).type };
      const converted = coerce(g, value, c.type, s.at, `INSERT INTO ${s.table} column '${c.name}'`);
      if (converted.code !== value.code || j !== i) changed = true;
      return converted.code;
    });
    const convert = g.function<(r: Row) => Row>(`return [${codes.join(', ')}];`);
    // NOT NULL columns (a PRIMARY KEY's among them) checked as Flink's ConstraintEnforcer.
    const enforcer = sinkNotNullEnforcer(
      s.table,
      sinkColumns,
      target.primaryKey === undefined
        ? undefined
        : columnPositions(target.primaryKey, sinkColumns, `PRIMARY KEY of '${s.table}':`, s.at),
      notNullEnforcerOf(this.config.get(NOT_NULL_ENFORCER)),
    );
    const enforcerName = `NotNullEnforcer(fields=[${enforcer?.names.join(', ')}])`;
    if (isUpdating(relation)) {
      let changes = changesOf(relation);
      if (changed) changes = retracting(changes).mapRows(convert);
      if (enforcer !== undefined) {
        // Passes each change on or fails (or drops it): to the changelog inference, a
        // projection that keeps every column (Flink adds its enforcer after the inference).
        const checked = changes.process(enforcer.changes()).name(enforcerName);
        noteChangelogRole(checked, { kind: 'calc', filter: false });
        changes = checked.asChangelog(changes.mode, changes.upsertKey);
        noteChangelogRole(changes, { kind: 'calc', filter: false });
      }
      const sink =
        connector.changelogSink?.(target) ??
        (connector.sink(target) as unknown as Sink<Change<Row>>);
      const accepted = sink.accepts ?? 'insert-only';
      const key = primaryKeyOf(target, sinkColumns, s.at);
      const sinkKey =
        key === undefined
          ? undefined
          : {
              positions: columnPositions(target.primaryKey ?? [], sinkColumns, '', s.at),
              of: key,
            };
      const planned = changesForSink(
        s.table,
        changes,
        accepted,
        relation.upsertKey,
        sinkKey,
        sinkColumns,
        ctx.stateTtl,
      );
      changes = planned.changes;
      let explain = planned.explain;
      if (connector.ignoresUpdateBefore === true && changes.mode === 'retract') {
        changes = changes.filter((c) => c.kind !== '-U');
        noteChangelogRole(changes, { kind: 'drop-update-before' });
        explain += ', update-befores ignored by the connector: changelogMode=[I,UA,D]';
      }
      this.sinkExplains.push(explain);
      refuseUnappliableChangelog(s.table, connector.name, accepted, changes.mode, s.at);
      noteChangelogRole(changes.sinkTo(sink).name(s.table), { kind: 'sink', accepts: accepted });
      inferStatementChangelogs(graph, firstNode);
      return;
    }
    let rows = changed ? relation.stream.map(convert).name(`to ${s.table}`) : relation.stream;
    if (enforcer !== undefined) rows = rows.process(enforcer.rows()).name(enforcerName);
    rows.sinkTo(connector.sink(target)).name(s.table);
  }
}

/** The plan of a scratch environment with state lines and every operator's changelog mode. */
function explainWithModes(scratch: StreamEnvironment): string {
  return withChangelogModes(withStateLines(scratch.explain()), graphOf(scratch));
}

/** The views and WITH queries a statement read more than once, each planned once (Flink's `Reused`). */
function reusedText(ctx: PlanContext): string {
  const reused = ctx.subPlans?.reused() ?? [];
  if (reused.length === 0) return '';
  const lines = reused.map((r) => `${r.name}: planned once, reused by ${r.reads} references`);
  return `== Reused ==\n${lines.join('\n')}\n\n`;
}
