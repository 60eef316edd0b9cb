/**
 * `weir sql` without a script: an interactive SQL client in the manner of Flink's. Statements
 * end with `;` and may span lines; `SHOW ...`, `DESCRIBE t`, `DROP`, `ALTER`, `EXPLAIN`,
 * `SET`, DDL, `INSERT INTO` (a job started in the background) and `SELECT` (a result table
 * updated as changes arrive; on a pipe, one `+I[...]` line per change). A wrong statement
 * prints its error with line and column and the client carries on.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isChange } from '../../core/changelog.js';
import type { Sink, SinkWriter } from '../../core/sink.js';
import { StreamEnvironment } from '../../index.js';
import type { JobClient } from '../../runtime/job/job-client.js';
import type { Row } from '../../sql/connectors/connector.js';
import { externalSqlConnectors } from '../../sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../sql/connectors/registry.js';
import { parseScript } from '../../sql/parser/parser.js';
import { TableEnvironment } from '../../sql/table-environment.js';
import { asChange, changeLine, MaterializedResult } from './result-view.js';
import { statementResultText } from './statement-result-text.js';
import { splitStatements } from './statement-splitter.js';

export interface SqlClientIO {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; rows?: number };
}

const PROMPT = 'Weir SQL> ';
const CONTINUATION = '        > ';
const HISTORY_LINES = 1000;
const REFRESH_MS = 1000;

/** The history file: `WEIR_SQL_HISTORY`, else `~/.weir_sql_history`. */
function historyFile(): string {
  return process.env.WEIR_SQL_HISTORY ?? join(homedir(), '.weir_sql_history');
}

function loadHistory(file: string): string[] {
  try {
    // readline wants the newest entry first.
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .slice(-HISTORY_LINES)
      .reverse();
  } catch {
    return [];
  }
}

const quoted = (name: string): string => `\`${name.replaceAll('`', '``')}\``;
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** The DDL of a table CTAS made: its stored columns (not computed ones), key, partitions and options. */
function tableDdl(
  parsed: Extract<ReturnType<typeof parseScript>[number], { kind: 'create-table' }>,
  columns: readonly { readonly name: string; readonly type: string; readonly extras: string }[],
): string {
  const parts = columns
    .filter((c) => !c.extras.includes('computed'))
    .map((c) => `${quoted(c.name)} ${c.type}`);
  if (parsed.primaryKey !== undefined)
    parts.push(`PRIMARY KEY (${parsed.primaryKey.map(quoted).join(', ')}) NOT ENFORCED`);
  const partitions =
    parsed.partitionedBy === undefined
      ? ''
      : ` PARTITIONED BY (${parsed.partitionedBy.map(quoted).join(', ')})`;
  const options = parsed.options.map((o) => `${literal(o.key)} = ${literal(o.value)}`);
  return `CREATE TABLE ${quoted(parsed.name)} (${parts.join(', ')})${partitions} WITH (${options.join(', ')})`;
}

/** Calls `onValue` for each record, in this process (the client's jobs run on its thread). */
class CallbackSink<T> implements Sink<T> {
  readonly name = 'sql client';
  readonly accepts = 'retract' as const;
  constructor(private readonly onValue: (value: T) => void) {}
  createWriter(): SinkWriter<T> {
    return {
      write: (batch) => {
        for (const v of batch.values) this.onValue(v);
      },
      close: () => {},
    };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SqlClient {
  /** Statements that shape later ones (CREATE, SET), replayed into each job's environment. */
  private readonly definitions: string[] = [];
  private catalog = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  private readonly jobs = new Set<JobClient>();
  private query: JobClient | undefined;
  /** The INSERTs of an open `BEGIN STATEMENT SET;`, submitted as one job by `END;`. */
  private statementSet: string[] | undefined;
  private readonly tty: boolean;

  constructor(private readonly io: SqlClientIO) {
    this.tty = io.stdout.isTTY === true && io.stdin.isTTY === true;
    registerSqlConnectors(externalSqlConnectors);
  }

  private say(text: string): void {
    this.io.stdout.write(`${text}\n`);
  }

  /** Reads statements until the input ends (or `QUIT;`), then waits for running INSERT jobs. */
  async run(): Promise<number> {
    const file = historyFile();
    const rl = createInterface({
      input: this.io.stdin,
      output: this.io.stdout,
      terminal: this.tty,
      history: this.tty ? loadHistory(file) : [],
      historySize: HISTORY_LINES,
    });
    const interrupt = () => {
      if (this.query !== undefined) void this.query.cancel().catch(() => {});
      else if (this.tty) rl.write('\n');
    };
    rl.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    if (this.tty)
      this.say("Weir SQL client. Statements end with ';'. Type HELP; for help, QUIT; to leave.");
    let pending = '';
    const prompt = () => {
      if (!this.tty) return;
      rl.setPrompt(pending.trim() === '' ? PROMPT : CONTINUATION);
      rl.prompt();
    };
    prompt();
    try {
      for await (const line of rl) {
        const { statements, rest } = splitStatements(`${pending}${line}\n`);
        pending = rest;
        for (const statement of statements) {
          if (this.tty) {
            try {
              appendFileSync(file, `${statement.replace(/\s*\n\s*/g, ' ')};\n`);
            } catch {
              // A history that cannot be written is no reason to stop.
            }
          }
          if (/^(quit|exit)$/i.test(statement)) {
            rl.close();
            return await this.finish();
          }
          await this.execute(statement);
        }
        prompt();
      }
    } finally {
      process.off('SIGINT', interrupt);
    }
    if (pending.trim() !== '')
      this.say(`[WARNING] ignored an unfinished statement (no ';'): ${pending.trim()}`);
    return await this.finish();
  }

  private async finish(): Promise<number> {
    if (this.jobs.size > 0)
      this.say(`[INFO] waiting for ${this.jobs.size} running job(s) to finish`);
    await Promise.allSettled([...this.jobs].map((j) => j.result));
    return 0;
  }

  /** Runs one statement; errors are printed, never thrown. */
  async execute(statement: string): Promise<void> {
    try {
      await this.dispatch(statement);
    } catch (error) {
      this.say(`[ERROR] ${messageOf(error)}`);
    }
  }

  private async dispatch(statement: string): Promise<void> {
    if (/^help$/i.test(statement)) {
      this.say(HELP);
      return;
    }
    if (/^begin\s+statement\s+set$/i.test(statement)) {
      if (this.statementSet !== undefined)
        throw new Error(
          'a statement set is already open: add INSERT INTO statements, then END; submits them',
        );
      this.statementSet = [];
      this.say('[INFO] Begin a statement set.');
      return;
    }
    if (/^end$/i.test(statement)) {
      const inserts = this.statementSet;
      if (inserts === undefined)
        throw new Error('no statement set to submit: END; comes after BEGIN STATEMENT SET;');
      this.statementSet = undefined;
      if (inserts.length === 0) this.say('[INFO] No statement in the statement set, skip submit.');
      else await this.insert(`BEGIN STATEMENT SET;\n${inserts.join(';\n')};\nEND;`);
      return;
    }
    const parsed = parseScript(statement);
    const first = parsed[0];
    if (parsed.length !== 1 || first === undefined) return;
    if (this.statementSet !== undefined) {
      if (first.kind !== 'insert')
        throw new Error(
          'only INSERT INTO statements can be added to the open statement set (END; submits it)',
        );
      this.catalog.explainSql(statement);
      this.statementSet.push(statement);
      this.say('[INFO] Add SQL update statement to the statement set.');
      return;
    }
    switch (first.kind) {
      case 'query':
        await this.select(statement);
        return;
      case 'insert':
      case 'statement-set':
        await this.insert(statement);
        return;
      case 'create-table':
        if (first.asQuery !== undefined) {
          await this.createTableAs(statement, first);
          return;
        }
        break;
      case 'explain': {
        const result = this.catalog.executeSql(statement);
        for (const plan of result.explained) this.say(plan);
        return;
      }
      case 'show':
      case 'describe':
        for (const result of this.catalog.executeSql(statement).results)
          this.say(statementResultText(result));
        return;
    }
    if (first.kind === 'create-function') await this.catalog.loadFunctionModules(statement);
    this.catalog.executeSql(statement);
    this.definitions.push(statement);
    this.say('[INFO] Execute statement succeeded.');
  }

  /**
   * CREATE TABLE ... AS SELECT: its INSERT runs as a job (as INSERT INTO does); the session
   * remembers the table it made, as plain DDL (columns, key, partitions, options), so later
   * statements do not run the query again.
   */
  private async createTableAs(
    statement: string,
    parsed: Extract<ReturnType<typeof parseScript>[number], { kind: 'create-table' }>,
  ): Promise<void> {
    const { tEnv } = this.freshEnvironment();
    const result = tEnv.executeSql(statement);
    // With IF NOT EXISTS over a table the session has, the query went into that table.
    if (!this.catalog.listTables().includes(parsed.name)) {
      const definition = tableDdl(parsed, tEnv.describeTable(parsed.name));
      this.catalog.executeSql(definition);
      this.definitions.push(definition);
    }
    this.say('[INFO] Execute statement succeeded.');
    if (result.job !== undefined) await this.watch(result.job);
  }

  /** A table environment on a fresh job with every definition so far. */
  private freshEnvironment(): { env: StreamEnvironment; tEnv: TableEnvironment } {
    const parallelism = Number(this.catalog.options.get('parallelism.default') ?? 1);
    const env = new StreamEnvironment({
      parallelism: Number.isInteger(parallelism) && parallelism > 0 ? parallelism : 1,
    });
    const tEnv = TableEnvironment.create(env);
    if (this.definitions.length > 0) tEnv.buildScript(`${this.definitions.join(';\n')};`);
    return { env, tEnv };
  }

  private async insert(statement: string): Promise<void> {
    const { tEnv } = this.freshEnvironment();
    const job = tEnv.executeSql(statement).job;
    if (job !== undefined) await this.watch(job);
  }

  /**
   * Follows a job an INSERT or CTAS started, in the background; with `table.dml-sync` =
   * 'true' (as in Flink) the next statement waits until the job has ended.
   */
  private async watch(job: JobClient): Promise<void> {
    this.jobs.add(job);
    this.say(`[INFO] Submitted job ${job.jobId}`);
    const ended = job.result.then(
      () => this.say(`[INFO] Job ${job.jobId} finished`),
      (error: unknown) => this.say(`[ERROR] Job ${job.jobId} failed: ${messageOf(error)}`),
    );
    void job.result.finally(() => this.jobs.delete(job)).catch(() => {});
    if (this.catalog.options.get('table.dml-sync')?.trim().toLowerCase() === 'true') await ended;
  }

  private async select(statement: string): Promise<void> {
    const { env, tEnv } = this.freshEnvironment();
    const table = tEnv.sqlQuery(statement);
    const result = new MaterializedResult();
    const render = () => {
      const height = Math.max(5, (this.io.stdout.rows ?? 24) - 4);
      this.io.stdout.write(`\x1b[2J\x1b[H${result.render(table.columns, height)}\n`);
      this.io.stdout.write(
        `rows: ${result.size}, changes: ${result.changes}; Ctrl-C stops the query\n`,
      );
    };
    // An updating query (GROUP BY, outer join, Top-N) is read as its changes: toDataStream
    // refuses it. An upsert changelog (no -U) replaces and deletes rows by its upsert key.
    const changes = table.changelogMode === 'insert-only' ? undefined : table.toChangelogStream();
    const upsertKey = changes?.mode === 'upsert' ? changes.upsertKey : undefined;
    const keyOf = (value: unknown): string | undefined => {
      if (upsertKey === undefined || !isChange(value)) return undefined;
      const key = upsertKey(value.value as Row);
      return `${typeof key}:${String(key)}`;
    };
    const sink = new CallbackSink<unknown>((value) => {
      const change = asChange(value, (row) => table.display(row));
      if (this.tty) result.apply(change, keyOf(value));
      else this.say(changeLine(change));
    });
    if (changes === undefined) table.toDataStream().sinkTo(sink);
    else changes.sinkTo(sink);
    const job = env.executeAsync('sql client query');
    this.query = job;
    const timer = this.tty ? setInterval(render, REFRESH_MS) : undefined;
    try {
      const outcome = await job.result;
      if (this.tty) render();
      this.say(outcome.status === 'cancelled' ? '[INFO] Query stopped' : '[INFO] Query finished');
    } catch (error) {
      if (this.tty) render();
      this.say(`[ERROR] ${messageOf(error)}`);
    } finally {
      if (timer !== undefined) clearInterval(timer);
      this.query = undefined;
    }
  }
}

const HELP = `Statements end with ';' and may span lines.
  CREATE TABLE / VIEW, SET 'key' = 'value'   define tables, views, options
  SHOW TABLES; SHOW FUNCTIONS; DESCRIBE t;   what is defined (also SHOW VIEWS, COLUMNS FROM t,
                                               CREATE TABLE t, CATALOGS, DATABASES)
  DROP / ALTER TABLE t ...; RESET 'key';       change what is defined
  EXPLAIN SELECT ...;                          the plan of a query
  SELECT ...;                                  run a query and show its result (Ctrl-C stops it)
  INSERT INTO t SELECT ...;                    start a job in the background
  BEGIN STATEMENT SET; INSERT ...; END;        several INSERTs as one job
  QUIT;                                        leave (waits for running jobs)`;

/** Runs the client on the process's terminal or pipes. */
export function runSqlClient(io: SqlClientIO): Promise<number> {
  return new SqlClient(io).run();
}
