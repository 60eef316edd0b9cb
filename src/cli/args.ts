import { parseArgs } from 'node:util';
import type { RestartStrategy } from '../index.js';
import { EXPONENTIAL_DELAY_DEFAULTS } from '../runtime/job/restart-strategy.js';
import { isLoopback } from '../ui/loopback.js';
import { LOG_LEVEL_NAMES, type LogLevelSetting } from './config/config-schema.js';
import { runSettings } from './config/settings.js';
import { UsageError } from './failure.js';
import {
  parseReconcile,
  parseReplay,
  type ReconcileCommandOptions,
  type ReplayCommandOptions,
} from './replay-args.js';

/**
 * The command line, parsed into one of the CLI's commands. Parsing is kept
 * apart from running so every flag rule is checked before anything loads.
 */
export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly options: RunOptions }
  | { readonly kind: 'sql'; readonly options: RunOptions }
  /** `weir sql` without a script: the interactive client. */
  | { readonly kind: 'sql-client' }
  | { readonly kind: 'demo'; readonly options: DemoOptions }
  | { readonly kind: 'savepoint'; readonly options: SavepointOptions }
  | { readonly kind: 'stop'; readonly options: SavepointOptions }
  | { readonly kind: 'cancel'; readonly options: CancelOptions }
  | { readonly kind: 'jobs'; readonly options: JobsOptions }
  | { readonly kind: 'replay'; readonly options: ReplayCommandOptions }
  | { readonly kind: 'reconcile'; readonly options: ReconcileCommandOptions };

/** Where the CLI exposes a running job: Prometheus metrics and the web UI, both off by default. */
export interface ObserveOptions {
  /** Serve Prometheus metrics on this port (0: any free port). */
  readonly metricsPort: number | undefined;
  /** Interface for the metrics endpoint; default 127.0.0.1. */
  readonly metricsHost: string | undefined;
  /**
   * `--keep-ui`: once the job has ended (finished, failed or cancelled), keep
   * serving the web UI and REST API until Ctrl-C or SIGTERM.
   */
  readonly keepUi?: boolean;
  /** Serve the web UI on 127.0.0.1 at this port (0: any free port); undefined: no UI. */
  readonly uiPort: number | undefined;
  /** Interface for the web UI; beyond loopback it needs {@link tlsCert} and {@link tlsKey}. */
  readonly uiHost: string | undefined;
  /** PEM certificate file: serve the UI and REST API over HTTPS. */
  readonly tlsCert: string | undefined;
  /** PEM private key file of {@link tlsCert}. */
  readonly tlsKey: string | undefined;
  /** Where to keep the REST token; default `defaultTokenFile(port)` (see src/ui/rest-token.ts). */
  readonly tokenFile: string | undefined;
  /**
   * Directories the REST API may write savepoints into (as given). Undefined:
   * the job's checkpoint and savepoint-on-stop directories.
   */
  readonly savepointDirs: readonly string[] | undefined;
}

/** How `weir run` reports when not drawing a live status line: plain text or JSON lines. */
export type LogFormat = 'text' | 'json';
export type { LogLevelSetting };

/** Where keyed state lives: `--state-backend`. */
export type StateBackendSetting = 'heap' | 'disk';

/** What command-line parsing reads besides the arguments: for `weir run`'s config file and `WEIR_*` variables. */
export interface ParseContext {
  /** Where the default config file (`weir.config.*`) is looked for. */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface RunOptions extends ObserveOptions {
  /** `sql`: `module` is a SQL script (`weir sql -f`); otherwise a job module. */
  readonly language?: 'sql';
  /** Path of the job module as given (resolved against the working directory later). */
  readonly module: string;
  readonly parallelism: number | undefined;
  readonly maxParallelism: number | undefined;
  readonly batchSize: number | undefined;
  /** Worker threads (`'auto'`: one per core, at most the parallelism); 0 runs the job on the calling thread. */
  readonly workers: number | 'auto';
  readonly name: string | undefined;
  /** Everything after `--`, handed to the job as `context.args`. */
  readonly jobArgs: readonly string[];
  readonly verbose: boolean;
  readonly logFormat: LogFormat;
  /** `--log-level`: the least level reported on stderr; undefined: info. */
  readonly logLevel?: LogLevelSetting;
  /** Seconds between status records in JSON logs. */
  readonly statusIntervalMs: number;
  /** Take checkpoints into this directory. */
  readonly checkpointDir: string | undefined;
  readonly checkpointIntervalMs: number | undefined;
  /** `--checkpoint-timeout`: a checkpoint not complete after this long is abandoned. */
  readonly checkpointTimeoutMs?: number;
  /** `--checkpoint-min-pause`: least time between one checkpoint's end and the next one's start. */
  readonly checkpointMinPauseMs?: number;
  /** `--checkpoints-retained`: completed checkpoints kept on disk. */
  readonly checkpointsRetained?: number;
  /** `--state-backend`; undefined: the environment's default (heap). */
  readonly stateBackend?: StateBackendSetting;
  /** `--state-dir`: where the disk backend makes its stores. */
  readonly stateDir?: string;
  /** The config file the settings were read from (as found or given), if any. */
  readonly configFile?: string;
  /**
   * Restore from this checkpoint or savepoint directory (as given), or
   * `'latest'`: the newest checkpoint in {@link checkpointDir}.
   */
  readonly restoreFrom: string | undefined;
  /** Start even if the checkpoint holds state of operators the job no longer has. */
  readonly allowNonRestoredState: boolean;
  /** With `--from`: restore a checkpoint older than committed output, writing that output again. */
  readonly allowDuplicateOutput?: boolean;
  /** On Ctrl-C or SIGTERM, take a savepoint into this directory before stopping. */
  readonly savepointOnStop: string | undefined;
  /**
   * The `--restart-*` flags; undefined when not given: exponential-delay with
   * `--checkpoint-dir`, none without.
   */
  readonly restartStrategy: RestartStrategy | undefined;
  /** `--group` and `--bootstrap`: run as one member of this process group. */
  readonly processGroup?: {
    readonly applicationId: string;
    readonly brokers: readonly string[];
    /** `--session-timeout` in milliseconds, if given. */
    readonly sessionTimeoutMs?: number;
    /** `--standby-replicas`, if given. */
    readonly standbyReplicas?: number;
  };
}

/** Where `weir savepoint` and `weir jobs` find a running `weir run` or `weir demo`. */
export interface RemoteOptions {
  /** Base URL of the REST API, normalized: `http://127.0.0.1:8081` (no trailing slash). */
  readonly url: string;
}

/** `weir cancel <job-id>`: cancels a job running in another process. */
export interface CancelOptions extends RemoteOptions {
  readonly jobId: string;
  /** File holding the job's REST token; default: where the job keeps it for that port. */
  readonly tokenFile: string | undefined;
}

/**
 * `weir savepoint <job-id> --to DIR` (a savepoint of a job running in another
 * process) and `weir stop <job-id> --to DIR` (the same, then the job ends).
 */
export interface SavepointOptions extends CancelOptions {
  /** Directory for the savepoint, as given (resolved against the working directory later). */
  readonly directory: string;
}

/** `weir jobs`: the jobs of a running `weir run` or `weir demo`. */
export type JobsOptions = RemoteOptions;

export interface DemoOptions extends ObserveOptions {
  /** Stop after this long; 0 means run until Ctrl-C. */
  readonly durationMs: number;
  readonly rate: number;
  readonly parallelism: number;
  readonly windowMs: number;
  readonly verbose: boolean;
}

export const DEMO_DEFAULTS = {
  durationSeconds: 20,
  rate: 20_000,
  parallelism: 1,
  windowSeconds: 5,
} as const;

/** The web UI's port when `--ui` is given without `--ui-port`. */
export const DEFAULT_UI_PORT = 8081;
/** Where `weir savepoint` and `weir jobs` look without `--url`: the web UI's default address. */
export const DEFAULT_API_URL = `http://127.0.0.1:${DEFAULT_UI_PORT}`;
/** Seconds between status records of `--log-format json`. */
export const DEFAULT_STATUS_INTERVAL_SECONDS = 5;

export const HELP_TEXT = `Usage:
  weir run [<job-module>] [options] [-- job args...]
  weir sql -f <script.sql> [options]
  weir sql
  weir demo [options]
  weir savepoint <job-id> --to DIR [--url URL] [--token-file PATH]
  weir stop <job-id> --to DIR [--url URL] [--token-file PATH]
  weir cancel <job-id> [--url URL] [--token-file PATH]
  weir jobs [--url URL]
  weir replay <job-module> [range options] [--output DIR] [-- job args...]
  weir reconcile <job-module> [range options] [--against SINK] [-- job args...]
  weir --help | --version

Commands:
  run        Run a job module: a .ts or .js file whose default export is
             defineJob((env, ctx) => { ... }). Ctrl-C cancels the job
             (--savepoint-on-stop: stops it with a savepoint).
  sql        Run a SQL script (Flink's dialect: CREATE TABLE, CREATE VIEW, SET,
             INSERT INTO) as one job, with the run options (checkpoints, --from,
             restarts, --ui, metrics, --workers N); it runs on the calling thread
             unless --workers is given.
             Without -f: the interactive SQL client (SELECT shows a live result
             table; history in ~/.weir_sql_history or $WEIR_SQL_HISTORY).
  demo       A live, generated click stream: per-page tumbling counts, per-user
             sessions and late events, in event time.
  savepoint  Take a savepoint of a job running in a 'weir run' started with
             --ui or --metrics-port; prints the savepoint's path.
  stop       Stop such a job with a savepoint: its output ends exactly at the
             savepoint; prints the savepoint's path.
  cancel     Cancel such a job (no savepoint; pending windows do not fire).
  jobs       List the jobs of a 'weir run' started with --ui or --metrics-port.
  replay     Run a job module unchanged over a bounded slice of its sources, in
             event time, and write what its sinks would receive into a
             directory (never to the job's own sinks unless --production-sinks).
  reconcile  Replay, then compare the result with what the streaming job wrote
             to its sink (a Kafka topic, a table, files); exits 3 on divergence.

Run options:
      --config FILE         read settings from FILE (.json, .yaml, .yml, .ts, .js); default:
                            weir.config.* in the working directory, or $WEIR_CONFIG. Keys
                            are the long flag names, plus module and args; flags win over
                            WEIR_<FLAG> environment variables, which win over the file
  -p, --parallelism N       default parallelism of operators (default: the number of
                            workers, so one per core; 1 with --workers 0)
      --max-parallelism N   key groups: upper bound for parallelism (default 128)
      --batch-size N        records per batch read by sources (default 1024)
      --workers N|auto      run the subtasks on N worker threads (default auto: one per
                            core, at most the parallelism; 0: everything on the calling
                            thread); parallelism defaults to the number of workers
      --name NAME           job name (default: the module's file name)
      --verbose             print stack traces on failure
      --checkpoint-dir DIR  take checkpoints into DIR (a path, or s3://bucket/prefix)
      --checkpoint-interval SECONDS
                            time between checkpoints (default 1; needs --checkpoint-dir)
      --checkpoint-timeout SECONDS
                            abandon a checkpoint not complete after this long (default 60)
      --checkpoint-min-pause SECONDS
                            least time between one checkpoint's end and the next's start
                            (default 0)
      --checkpoints-retained N
                            completed checkpoints kept on disk (default 3)
      --from PATH|latest    restore from a checkpoint or savepoint directory, or from
                            the newest checkpoint in --checkpoint-dir (latest)
      --allow-non-restored-state
                            with --from: drop state of operators the job no longer has
      --allow-duplicate-output
                            with --from: restore even a checkpoint older than output
                            sinks have committed (that output is written again)
      --savepoint-on-stop DIR
                            on Ctrl-C or SIGTERM, stop with a savepoint into DIR
      --restart-strategy none|fixed-delay|exponential-delay|failure-rate
                            what a failure does: restart from the latest checkpoint
                            (default exponential-delay with --checkpoint-dir, else none)
      --restart-attempts N  restarts allowed: in all (fixed-delay, default 1), between
                            resets of the backoff (exponential-delay, default no bound)
                            or per --restart-failure-interval (failure-rate, default 1)
      --restart-delay SECONDS
                            wait before a restart; the first wait for exponential-delay
                            (default 1)
      --restart-max-delay SECONDS
                            exponential-delay: longest wait (default 60)
      --restart-failure-interval SECONDS
                            failure-rate: the window failures are counted in (default 60)
      --group APPLICATION-ID
                            run as one member of this process group: every process
                            started with the same id forms one job, and Kafka's group
                            coordinator spreads the Kafka sources' partitions over them
                            (needs --bootstrap and --checkpoint-dir; one thread each)
      --bootstrap HOST:PORT[,HOST:PORT...]
                            Kafka brokers of the process group
      --session-timeout SECONDS
                            with --group: how long a member may go silent before
                            the group moves its tasks to the others (default 6;
                            within the brokers' group.min.session.timeout.ms)
      --standby-replicas N  with --group and checkpoints in s3://: each task's newest
                            snapshot is copied to local disk by N other members, so
                            one of them taking it over restores without a download
      --state-backend heap|disk
                            where keyed state lives: heap (default) or disk (LMDB)
      --state-dir DIR       with --state-backend disk: make the stores in DIR (default:
                            the OS temp directory)
      --log-format FORMAT   text (default) or json: one JSON object per line on stderr
                            (job events, status every --status-interval seconds)
      --log-level LEVEL     info (default), warn or error: the least level reported
      --status-interval SECONDS
                            time between JSON status records (default ${DEFAULT_STATUS_INTERVAL_SECONDS})
  Arguments after -- are passed to the job as ctx.args.

Observability options (run and demo):
      --ui                  serve the web UI on http://127.0.0.1:${DEFAULT_UI_PORT}/
      --ui-port N           serve the web UI on this port (0: any free port)
      --keep-ui             run: once the job has ended, keep serving the web UI until
                            Ctrl-C or SIGTERM (with --ui alone: after a failure, on a
                            terminal); the exit status is still the job's
      --metrics-port N      serve Prometheus metrics on http://127.0.0.1:N/metrics,
                            and the REST API (weir jobs, weir savepoint) beside them
      --metrics-host HOST   interface for the metrics endpoint (default 127.0.0.1;
                            other than loopback, it serves /metrics only)
      --ui-host HOST        interface for the web UI (default 127.0.0.1; other than
                            loopback, it needs --tls-cert and --tls-key)
      --tls-cert FILE, --tls-key FILE
                            serve the web UI and REST API over HTTPS
      --token-file PATH     keep the REST token (needed for savepoints) in PATH
                            (default ~/.weir/rest-token-<port>, mode 0600)
      --savepoint-dir DIR   allow savepoints through the REST API into DIR (repeatable;
                            default: --checkpoint-dir and --savepoint-on-stop)

Savepoint, stop, cancel and jobs options:
      --to DIR              directory for the savepoint (savepoint and stop)
      --token-file PATH     the job's REST token (savepoint, stop and cancel; default:
                            the file the job wrote for the port of --url)
      --url URL             address of the 'weir run' to ask: its --ui or --metrics-port
                            address, or just the port (default ${DEFAULT_API_URL})

Replay and reconcile options (docs/reconcile.md):
      --range FROM..TO      event-log time range, ISO 8601 or epoch ms, either side
                            open (default: all input there is now)
      --offsets TOPIC:P=FIRST-END
                            exact Kafka offsets per partition (repeatable, END exclusive)
      --files GLOB          files a file source reads instead of its own (repeatable)
      --source-range NAME=FROM..TO
                            a time range for one source, by uid or name
  -p, --parallelism N       parallelism of the keyed part (default 1); output is equal
  -o, --output DIR          replay: write the output here (default ./replay-output);
                            reconcile: also write it here
      --production-sinks    replay: write to the job's own sinks instead
      --against SINK        reconcile: the sink to compare, by uid or name
      --key FIELDS          reconcile: fields identifying a row (default: the sink's
                            key, and the window of window results)
      --tolerance X         reconcile: relative tolerance for numbers (default 0)
      --show N              reconcile: differences printed in full (default 20)
      --report FILE         reconcile: write the report as JSON (- for stdout)
      --metrics-file FILE   reconcile: write weir_reconcile_* metrics (Prometheus text)

Demo options:
  -d, --duration SECONDS    stop after this long; 0 runs until Ctrl-C (default ${DEMO_DEFAULTS.durationSeconds})
  -r, --rate N              events generated per second (default ${DEMO_DEFAULTS.rate})
  -p, --parallelism N       parallelism of the job (default ${DEMO_DEFAULTS.parallelism})
  -w, --window SECONDS      tumbling window size (default ${DEMO_DEFAULTS.windowSeconds})

Exit status: 0 when the job finished or was stopped with Ctrl-C (and its
savepoint was taken), 1 when it failed, could not be restored or its savepoint
failed, 2 on a usage error. A second Ctrl-C exits at once (status 130).
savepoint, stop, cancel and jobs exit with 0 on success and 1 when the request
failed. replay exits 0 or 1; reconcile exits 0 when the outputs agree (apart
from differences late data explains), 3 when they diverge, 1 when it failed.
`;

export function parseCommandLine(
  argv: readonly string[],
  context: ParseContext = { cwd: process.cwd(), env: process.env },
): Command {
  const [first, ...rest] = argv;
  switch (first) {
    case undefined:
      throw new UsageError('missing command');
    case '-h':
    case '--help':
    case 'help':
      return { kind: 'help' };
    case '-v':
    case '--version':
      return { kind: 'version' };
    case 'run':
      return parseRun(rest, context);
    case 'sql':
      return parseSql(rest, context);
    case 'demo':
      return parseDemo(rest);
    case 'savepoint':
    case 'stop':
      return parseSavepoint(first, rest);
    case 'cancel':
      return parseCancel(rest);
    case 'jobs':
      return parseJobs(rest);
    case 'replay': {
      const options = parseReplay(rest);
      return options === 'help' ? { kind: 'help' } : { kind: 'replay', options };
    }
    case 'reconcile': {
      const options = parseReconcile(rest);
      return options === 'help' ? { kind: 'help' } : { kind: 'reconcile', options };
    }
    default:
      throw new UsageError(
        first.startsWith('-') ? `unknown option '${first}'` : `unknown command '${first}'`,
      );
  }
}

/** Worker threads for `weir run`: one per core unless told otherwise; 0 means none. */
function workersFlag(value: string | undefined): number | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  if (value === '0') return 0;
  return optionalInt('--workers', value)!;
}

/**
 * `weir sql -f script.sql [run options]`: the run options, with the script in place of the job
 * module. A SQL job is planned from its script in this process, so it runs without worker
 * threads (which rebuild a job from its module).
 */
function parseSql(argv: readonly string[], context: ParseContext): Command {
  if (argv.includes('--')) throw new UsageError('weir sql takes no job arguments after --');
  const rest = [...argv];
  const at = rest.findIndex((a) => a === '-f' || a === '--file');
  let file: string | undefined;
  if (at >= 0) {
    file = rest[at + 1];
    if (file === undefined || file.startsWith('-'))
      throw new UsageError(`${rest[at]} needs a file: weir sql -f job.sql`);
    rest.splice(at, 2);
  }
  if (file === undefined) {
    if (rest.length === 0) return { kind: 'sql-client' };
    throw new UsageError(
      'missing the script: weir sql -f <script.sql> (or no options: the interactive client)',
    );
  }
  const parsed = parseRun([file, ...rest], context);
  if (parsed.kind !== 'run') return parsed;
  // A script runs on the calling thread unless --workers asks for threads: planning it again
  // in every worker costs start-up that small scripts do not repay.
  const workers = rest.includes('--workers') ? parsed.options.workers : 0;
  return { kind: 'sql', options: { ...parsed.options, workers, language: 'sql' } };
}

function parseRun(argv: readonly string[], context: ParseContext): Command {
  // Split at the first `--` ourselves: parseArgs would mix job args into our positionals.
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const given = parse(own, runFlags());
  if (given.values.help === true) return { kind: 'help' };
  // The config file and WEIR_* variables, as flags in front of the user's own (which win).
  const settings = runSettings(given.values, context);
  const { values, positionals } =
    settings.flags.length === 0 ? given : parse([...settings.flags, ...own], runFlags());
  const jobArgs = separator === -1 ? (settings.config?.args ?? []) : argv.slice(separator + 1);
  const module = positionals[0] ?? settings.config?.module;
  const extra = positionals.slice(1);
  if (module === undefined) {
    throw new UsageError(
      'missing the job module: weir run <job-module> (or module in a config file)',
    );
  }
  if (extra.length > 0) {
    throw new UsageError(
      `unexpected argument '${extra[0]}'; pass arguments for the job after --, e.g. weir run ${module} -- ${extra.join(' ')}`,
    );
  }
  return { kind: 'run', options: runOptions(values, module, jobArgs, settings.file) };
}

/** The flags of `weir run` (and `weir sql`); a function, as it spreads constants defined below. */
function runFlags(): FlagSpec {
  return {
    parallelism: { type: 'string', short: 'p' },
    'max-parallelism': { type: 'string' },
    'batch-size': { type: 'string' },
    workers: { type: 'string' },
    name: { type: 'string' },
    verbose: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    'checkpoint-dir': { type: 'string' },
    'checkpoint-interval': { type: 'string' },
    'log-format': { type: 'string' },
    'status-interval': { type: 'string' },
    from: { type: 'string' },
    'allow-non-restored-state': { type: 'boolean' },
    'allow-duplicate-output': { type: 'boolean' },
    'savepoint-on-stop': { type: 'string' },
    'checkpoint-timeout': { type: 'string' },
    'checkpoint-min-pause': { type: 'string' },
    'checkpoints-retained': { type: 'string' },
    'state-backend': { type: 'string' },
    'state-dir': { type: 'string' },
    'log-level': { type: 'string' },
    config: { type: 'string' },
    'keep-ui': { type: 'boolean' },
    group: { type: 'string' },
    bootstrap: { type: 'string' },
    'session-timeout': { type: 'string' },
    'standby-replicas': { type: 'string' },
    ...RESTART_FLAGS,
    ...OBSERVE_FLAGS,
  };
}

/** RunOptions from the merged flags; every rule between options is checked here. */
function runOptions(
  values: FlagValues,
  module: string,
  jobArgs: readonly string[],
  configFile: string | undefined,
): RunOptions {
  const name = stringFlag(values.name);
  if (name !== undefined && name.trim() === '') throw new UsageError('--name must not be empty');
  const logFormat = stringFlag(values['log-format']) ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json') {
    throw new UsageError(`--log-format must be text or json, got '${logFormat}'`);
  }
  const checkpointDir = stringFlag(values['checkpoint-dir']);
  const interval = stringFlag(values['checkpoint-interval']);
  if (interval !== undefined && checkpointDir === undefined) {
    throw new UsageError('--checkpoint-interval needs --checkpoint-dir');
  }
  const status = stringFlag(values['status-interval']);
  const restoreFrom = nonEmpty('--from', stringFlag(values.from));
  if (restoreFrom === 'latest' && checkpointDir === undefined) {
    throw new UsageError(
      '--from latest needs --checkpoint-dir: the directory whose newest checkpoint to restore',
    );
  }
  const allowNonRestoredState = values['allow-non-restored-state'] === true;
  if (allowNonRestoredState && restoreFrom === undefined) {
    throw new UsageError('--allow-non-restored-state needs --from');
  }
  const allowDuplicateOutput = values['allow-duplicate-output'] === true;
  if (allowDuplicateOutput && restoreFrom === undefined) {
    throw new UsageError('--allow-duplicate-output needs --from');
  }
  const checkpointFlags = [
    '--checkpoint-timeout',
    '--checkpoint-min-pause',
    '--checkpoints-retained',
  ];
  const orphan = checkpointFlags.find((f) => values[f.slice(2)] !== undefined);
  if (orphan !== undefined && checkpointDir === undefined) {
    throw new UsageError(`${orphan} needs --checkpoint-dir`);
  }
  const timeout = stringFlag(values['checkpoint-timeout']);
  const minPause = stringFlag(values['checkpoint-min-pause']);
  const retained = optionalInt('--checkpoints-retained', values['checkpoints-retained']);
  const stateBackend = stringFlag(values['state-backend']);
  if (stateBackend !== undefined && stateBackend !== 'heap' && stateBackend !== 'disk') {
    throw new UsageError(`--state-backend must be heap or disk, got '${stateBackend}'`);
  }
  const stateDir = nonEmpty('--state-dir', stringFlag(values['state-dir']));
  if (stateDir !== undefined && stateBackend !== 'disk') {
    throw new UsageError('--state-dir needs --state-backend disk');
  }
  const logLevel = stringFlag(values['log-level']);
  if (logLevel !== undefined && !LOG_LEVEL_NAMES.includes(logLevel as LogLevelSetting)) {
    throw new UsageError(`--log-level must be ${LOG_LEVEL_NAMES.join(', ')}, got '${logLevel}'`);
  }
  const processGroup = processGroupOption(values, checkpointDir);
  return {
    module,
    ...(configFile === undefined ? {} : { configFile }),
    ...(logLevel === undefined ? {} : { logLevel: logLevel as LogLevelSetting }),
    ...(timeout === undefined
      ? {}
      : {
          checkpointTimeoutMs: Math.round(1000 * seconds('--checkpoint-timeout', timeout, false)),
        }),
    ...(minPause === undefined
      ? {}
      : {
          checkpointMinPauseMs: Math.round(
            1000 * seconds('--checkpoint-min-pause', minPause, true),
          ),
        }),
    ...(retained === undefined ? {} : { checkpointsRetained: retained }),
    ...(stateBackend === undefined ? {} : { stateBackend }),
    ...(stateDir === undefined ? {} : { stateDir }),
    parallelism: optionalInt('--parallelism', values.parallelism),
    maxParallelism: optionalInt('--max-parallelism', values['max-parallelism']),
    batchSize: optionalInt('--batch-size', values['batch-size']),
    workers: processGroup === undefined ? workersFlag(stringFlag(values.workers)) : 0,
    ...(processGroup === undefined ? {} : { processGroup }),
    name,
    jobArgs,
    verbose: values.verbose === true,
    logFormat,
    statusIntervalMs:
      1000 *
      (status === undefined
        ? DEFAULT_STATUS_INTERVAL_SECONDS
        : seconds('--status-interval', status, false)),
    checkpointDir,
    checkpointIntervalMs:
      interval === undefined
        ? undefined
        : Math.round(1000 * seconds('--checkpoint-interval', interval, false)),
    restoreFrom,
    allowNonRestoredState,
    ...(allowDuplicateOutput ? { allowDuplicateOutput } : {}),
    savepointOnStop: nonEmpty('--savepoint-on-stop', stringFlag(values['savepoint-on-stop'])),
    restartStrategy: restartStrategyFlags(values),
    ...observeOptions(values),
    ...keepUiOption(values),
  };
}

/**
 * `--group` with `--bootstrap`: a member of a process group runs on one
 * thread (the group, not worker threads, spreads the work) and commits the
 * group's offsets when its checkpoints complete, or, running a single-owner
 * task, hands its checkpoints to the next owner, so it needs checkpoints.
 */
function processGroupOption(
  values: FlagValues,
  checkpointDir: string | undefined,
): RunOptions['processGroup'] {
  const group = nonEmpty('--group', stringFlag(values.group));
  const bootstrap = nonEmpty('--bootstrap', stringFlag(values.bootstrap));
  const session = stringFlag(values['session-timeout']);
  const standby = stringFlag(values['standby-replicas']);
  if (group === undefined) {
    if (bootstrap !== undefined) throw new UsageError('--bootstrap needs --group');
    if (session !== undefined) throw new UsageError('--session-timeout needs --group');
    if (standby !== undefined) throw new UsageError('--standby-replicas needs --group');
    return undefined;
  }
  if (bootstrap === undefined)
    throw new UsageError('--group needs --bootstrap: the Kafka brokers that run the group');
  const workers = stringFlag(values.workers);
  if (workers !== undefined && workers !== '0')
    throw new UsageError(
      '--group runs each process on one thread: --workers must be 0 (start more processes instead)',
    );
  if (checkpointDir === undefined)
    throw new UsageError(
      '--group needs --checkpoint-dir: a member commits its progress when a checkpoint completes (a job reading Kafka: a directory per process; a single-owner job, e.g. PostgreSQL CDC: storage every member shares, such as s3://)',
    );
  const brokers = bootstrap.split(',').map((b) => b.trim());
  const bad = brokers.find((b) => !/^[^\s:]+:\d+$/.test(b));
  if (bad !== undefined)
    throw new UsageError(`--bootstrap takes host:port[,host:port...], got '${bad}'`);
  return {
    applicationId: group,
    brokers,
    ...(session === undefined
      ? {}
      : { sessionTimeoutMs: Math.round(1000 * seconds('--session-timeout', session, false)) }),
    ...(standby === undefined ? {} : { standbyReplicas: standbyReplicasOption(standby) }),
  };
}

function standbyReplicasOption(text: string): number {
  if (!/^\d+$/.test(text))
    throw new UsageError(
      `--standby-replicas takes a whole number of copies (0 or more), got '${text}'`,
    );
  return Number(text);
}

/** `--keep-ui` needs a UI to keep. */
function keepUiOption(values: FlagValues): { keepUi?: true } {
  if (values['keep-ui'] !== true) return {};
  if (values.ui !== true && values['ui-port'] === undefined) {
    throw new UsageError('--keep-ui needs --ui or --ui-port');
  }
  return { keepUi: true };
}

function parseDemo(argv: readonly string[]): Command {
  const { values, positionals } = parse(argv, {
    duration: { type: 'string', short: 'd' },
    rate: { type: 'string', short: 'r' },
    parallelism: { type: 'string', short: 'p' },
    window: { type: 'string', short: 'w' },
    verbose: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    ...OBSERVE_FLAGS,
  });
  if (values.help === true) return { kind: 'help' };
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const duration = stringFlag(values.duration);
  const durationSeconds =
    duration === undefined ? DEMO_DEFAULTS.durationSeconds : seconds('--duration', duration, true);
  const window = stringFlag(values.window);
  const windowSeconds =
    window === undefined ? DEMO_DEFAULTS.windowSeconds : seconds('--window', window, false);
  if (!Number.isInteger(windowSeconds * 1000)) {
    throw new UsageError('--window must be a whole number of milliseconds');
  }
  return {
    kind: 'demo',
    options: {
      durationMs: Math.round(durationSeconds * 1000),
      rate: optionalInt('--rate', values.rate) ?? DEMO_DEFAULTS.rate,
      parallelism: optionalInt('--parallelism', values.parallelism) ?? DEMO_DEFAULTS.parallelism,
      windowMs: windowSeconds * 1000,
      verbose: values.verbose === true,
      ...observeOptions(values),
    },
  };
}

/** The flags of the commands that act on a job in another process. */
const JOB_ACTION_FLAGS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The job id of `weir <command> <job-id>`, the only positional. */
function jobIdArgument(command: string, positionals: readonly string[], usage: string): string {
  const [jobId, ...extra] = positionals;
  if (jobId === undefined || jobId.trim() === '') {
    throw new UsageError(
      `missing the job id: weir ${command} ${usage} ('weir jobs' lists the ids)`,
    );
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  return jobId;
}

function parseSavepoint(command: 'savepoint' | 'stop', argv: readonly string[]): Command {
  const { values, positionals } = parse(argv, { ...JOB_ACTION_FLAGS, to: { type: 'string' } });
  if (values.help === true) return { kind: 'help' };
  const jobId = jobIdArgument(command, positionals, '<job-id> --to DIR');
  const directory = nonEmpty('--to', stringFlag(values.to));
  if (directory === undefined) {
    throw new UsageError('missing --to DIR: the directory to write the savepoint into');
  }
  const tokenFile = nonEmpty('--token-file', stringFlag(values['token-file']));
  return { kind: command, options: { jobId, directory, url: apiUrl(values.url), tokenFile } };
}

function parseCancel(argv: readonly string[]): Command {
  const { values, positionals } = parse(argv, JOB_ACTION_FLAGS);
  if (values.help === true) return { kind: 'help' };
  const jobId = jobIdArgument('cancel', positionals, '<job-id>');
  const tokenFile = nonEmpty('--token-file', stringFlag(values['token-file']));
  return { kind: 'cancel', options: { jobId, url: apiUrl(values.url), tokenFile } };
}

function parseJobs(argv: readonly string[]): Command {
  const { values, positionals } = parse(argv, {
    url: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) return { kind: 'help' };
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  return { kind: 'jobs', options: { url: apiUrl(values.url) } };
}

/**
 * The REST API's base URL from `--url`: a full URL (`http://127.0.0.1:9249`,
 * also the printed `.../metrics` address), `host:port`, or just a port.
 */
export function apiUrl(value: string | boolean | string[] | undefined): string {
  const text = stringFlag(value)?.trim();
  if (text === undefined) return DEFAULT_API_URL;
  const withScheme = /^\d+$/.test(text)
    ? `http://127.0.0.1:${text}`
    : /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
      ? text
      : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`--url must be an address like http://127.0.0.1:8081, got '${text}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url must be an http:// address, got '${text}'`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`--url must not have a query or fragment, got '${text}'`);
  }
  // The metrics address the CLI prints (.../metrics) is accepted as is.
  const path = url.pathname.replace(/\/+$/, '').replace(/\/metrics$/, '');
  return `${url.origin}${path}`;
}

const RESTART_FLAGS = {
  'restart-strategy': { type: 'string' },
  'restart-attempts': { type: 'string' },
  'restart-delay': { type: 'string' },
  'restart-max-delay': { type: 'string' },
  'restart-failure-interval': { type: 'string' },
} as const;

/** Which `--restart-*` tuning flags each strategy takes. */
const RESTART_FLAGS_OF: Readonly<Record<RestartStrategy['kind'], readonly string[]>> = {
  none: [],
  'fixed-delay': ['--restart-attempts', '--restart-delay'],
  'exponential-delay': ['--restart-attempts', '--restart-delay', '--restart-max-delay'],
  'failure-rate': ['--restart-attempts', '--restart-delay', '--restart-failure-interval'],
};

/**
 * The restart strategy the `--restart-*` flags ask for; defaults as in Flink
 * for settings not given. Undefined without `--restart-strategy` (the job's default).
 */
function restartStrategyFlags(values: FlagValues): RestartStrategy | undefined {
  const kind = stringFlag(values['restart-strategy']);
  const given = Object.keys(RESTART_FLAGS)
    .filter((name) => name !== 'restart-strategy' && values[name] !== undefined)
    .map((name) => `--${name}`);
  if (kind === undefined) {
    if (given.length > 0) throw new UsageError(`${given[0]} needs --restart-strategy`);
    return undefined;
  }
  if (!Object.hasOwn(RESTART_FLAGS_OF, kind)) {
    throw new UsageError(
      `--restart-strategy must be none, fixed-delay, exponential-delay or failure-rate, got '${kind}'`,
    );
  }
  const strategyKind = kind as RestartStrategy['kind'];
  const unused = given.find((flag) => !RESTART_FLAGS_OF[strategyKind].includes(flag));
  if (unused !== undefined)
    throw new UsageError(`${unused} does not apply to --restart-strategy ${kind}`);
  const attempts = optionalCount('--restart-attempts', stringFlag(values['restart-attempts']));
  const ms = (flag: string): number | undefined => {
    const text = stringFlag(values[flag.slice(2)]);
    return text === undefined ? undefined : Math.round(1000 * seconds(flag, text, true));
  };
  const delayMs = ms('--restart-delay');
  switch (strategyKind) {
    case 'none':
      return { kind: 'none' };
    case 'fixed-delay':
      return { kind: 'fixed-delay', attempts: attempts ?? 1, delayMs: delayMs ?? 1000 };
    case 'exponential-delay': {
      // A first wait above the default longest one raises the longest: it is no error.
      const maxBackoffMs =
        ms('--restart-max-delay') ??
        (delayMs !== undefined && delayMs > EXPONENTIAL_DELAY_DEFAULTS.maxBackoffMs
          ? delayMs
          : undefined);
      if (delayMs !== undefined && maxBackoffMs !== undefined && maxBackoffMs < delayMs) {
        throw new UsageError('--restart-max-delay must not be below --restart-delay');
      }
      return {
        kind: 'exponential-delay',
        ...(attempts === undefined ? {} : { attempts }),
        ...(delayMs === undefined ? {} : { initialBackoffMs: delayMs }),
        ...(maxBackoffMs === undefined ? {} : { maxBackoffMs }),
      };
    }
    case 'failure-rate': {
      const interval = stringFlag(values['restart-failure-interval']);
      if (attempts === 0)
        throw new UsageError('--restart-attempts must be at least 1 for failure-rate');
      return {
        kind: 'failure-rate',
        maxFailuresPerInterval: attempts ?? 1,
        failureIntervalMs:
          interval === undefined
            ? 60_000
            : Math.round(1000 * seconds('--restart-failure-interval', interval, false)),
        delayMs: delayMs ?? 1000,
      };
    }
  }
}

/** A whole number >= 0 from a flag, or undefined when not given. */
function optionalCount(flag: string, value: string | boolean | undefined): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) {
    throw new UsageError(`${flag} must be a whole number, got '${text}'`);
  }
  return n;
}

const OBSERVE_FLAGS = {
  ui: { type: 'boolean' },
  'ui-port': { type: 'string' },
  'metrics-port': { type: 'string' },
  'metrics-host': { type: 'string' },
  'ui-host': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'token-file': { type: 'string' },
  'savepoint-dir': { type: 'string', multiple: true },
} as const;

function observeOptions(values: FlagValues): ObserveOptions {
  const uiPort = optionalPort('--ui-port', values['ui-port']);
  const metricsHost = stringFlag(values['metrics-host']);
  const metricsPort = optionalPort('--metrics-port', values['metrics-port']);
  if (metricsHost !== undefined && metricsPort === undefined) {
    throw new UsageError('--metrics-host needs --metrics-port');
  }
  const uiHost = nonEmpty('--ui-host', stringFlag(values['ui-host']));
  const tlsCert = nonEmpty('--tls-cert', stringFlag(values['tls-cert']));
  const tlsKey = nonEmpty('--tls-key', stringFlag(values['tls-key']));
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const port = uiPort ?? (values.ui === true ? DEFAULT_UI_PORT : undefined);
  if (port === undefined && (uiHost ?? tlsCert) !== undefined) {
    throw new UsageError('--ui-host, --tls-cert and --tls-key need --ui or --ui-port');
  }
  if (uiHost !== undefined && !isLoopback(uiHost) && tlsCert === undefined) {
    throw new UsageError(
      `--ui-host ${uiHost} is beyond loopback: the REST API can take savepoints, so it needs TLS there (--tls-cert and --tls-key)`,
    );
  }
  const dirs = values['savepoint-dir'];
  const savepointDirs = Array.isArray(dirs) ? dirs : undefined;
  if (savepointDirs?.some((d) => d.trim() === '')) {
    throw new UsageError('--savepoint-dir must not be empty');
  }
  return {
    metricsPort,
    metricsHost,
    uiPort: port,
    uiHost,
    tlsCert,
    tlsKey,
    tokenFile: nonEmpty('--token-file', stringFlag(values['token-file'])),
    savepointDirs,
  };
}

function optionalPort(
  flag: string,
  value: string | boolean | string[] | undefined,
): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) {
    throw new UsageError(`${flag} must be a port number (0 to 65535), got '${text}'`);
  }
  return n;
}

type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** parseArgs with its errors turned into short usage messages. */
function parse(
  argv: readonly string[],
  options: FlagSpec,
): { values: FlagValues; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as FlagValues, positionals };
  } catch (error) {
    throw new UsageError(usageMessage(error));
  }
}

function usageMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code: unknown = Reflect.get(error, 'code');
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) {
    return `unknown option '${quoted}'`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    // parseArgs quotes the option as "-d, --duration <value>".
    const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
    return `option '${flag}' needs a value`;
  }
  return error.message;
}

/** A string flag that, when given, must not be blank. */
function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return value;
}

function stringFlag(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function optionalInt(
  flag: string,
  value: string | boolean | string[] | undefined,
): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${flag} must be a positive whole number, got '${text}'`);
  }
  return n;
}

function seconds(flag: string, text: string, zeroAllowed: boolean): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(n) || (n === 0 && !zeroAllowed)) {
    throw new UsageError(
      `${flag} must be a ${zeroAllowed ? '' : 'positive '}number of seconds, got '${text}'`,
    );
  }
  return n;
}
