/**
 * The schema of a `weir run` config file (`weir.config.json`, `.yaml`,
 * `.ts`; docs/cli.md, Config file). A config file is the command line
 * written down: every key is a run flag's long name (`checkpoint-dir`,
 * `restart-strategy`, ...), plus `module` (the job module) and `args` (the
 * job's arguments). Keeping the names identical means one list of options to
 * learn and document, and a file and the command line are checked by the
 * same rules once merged (src/cli/args.ts). The published JSON Schema
 * (`weir.config.schema.json`) is generated from this one.
 */
import * as v from 'valibot';

const LOG_LEVELS = ['info', 'warn', 'error'] as const;
/** What `--log-level` lets through: records at this level and above. */
export type LogLevelSetting = (typeof LOG_LEVELS)[number];
export const LOG_LEVEL_NAMES: readonly LogLevelSetting[] = LOG_LEVELS;

const text = (description: string) =>
  v.pipe(v.string(), v.trim(), v.nonEmpty('must not be empty'), v.description(description));
const flag = (description: string) => v.pipe(v.boolean(), v.description(description));
const positiveInt = (description: string) =>
  v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be at least 1'),
    v.description(description),
  );
const count = (description: string) =>
  v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(0, 'must not be negative'),
    v.description(description),
  );
const seconds = (description: string, zeroAllowed: boolean) =>
  v.pipe(
    v.number(),
    v.finite('must be a finite number of seconds'),
    zeroAllowed
      ? v.minValue(0, 'must not be negative')
      : v.gtValue(0, 'must be a positive number of seconds'),
    v.description(`${description} (seconds)`),
  );
const port = (description: string) =>
  v.pipe(
    v.number(),
    v.integer('must be a port number'),
    v.minValue(0, 'must be a port number (0 to 65535)'),
    v.maxValue(65535, 'must be a port number (0 to 65535)'),
    v.description(description),
  );
const oneOf = <const T extends readonly string[]>(values: T, description: string) =>
  v.pipe(
    v.picklist(values, `must be one of ${values.map((x) => `'${x}'`).join(', ')}`),
    v.description(description),
  );

/** Every key a config file may hold; an unknown key is an error (a typo would otherwise pass unseen). */
export const CONFIG_SCHEMA = v.strictObject({
  $schema: v.optional(
    v.pipe(v.string(), v.description('The JSON Schema of this file, for editors')),
  ),
  module: v.optional(
    text('The job module: a .ts or .js file whose default export is defineJob(...)'),
  ),
  args: v.optional(
    v.pipe(v.array(v.string()), v.description('Arguments handed to the job as ctx.args')),
  ),
  name: v.optional(text("The job's name (default: the module's file name)")),
  parallelism: v.optional(positiveInt('Default parallelism of operators')),
  'max-parallelism': v.optional(positiveInt('Key groups: upper bound for parallelism')),
  'batch-size': v.optional(positiveInt('Records per batch read by sources')),
  workers: v.optional(
    v.pipe(
      v.union(
        [
          v.literal('auto'),
          v.pipe(
            v.number(),
            v.integer("must be 'auto' or a whole number"),
            v.minValue(0, "must be 'auto' or a whole number"),
          ),
        ],
        "must be 'auto' or a whole number",
      ),
      v.description(
        "Worker threads: 'auto' (one per core) or a number; 0 runs on the calling thread",
      ),
    ),
  ),
  verbose: v.optional(flag('Print stack traces on failure')),
  'log-format': v.optional(
    oneOf(['text', 'json'], 'text, or json: one JSON object per line on stderr'),
  ),
  'log-level': v.optional(oneOf(LOG_LEVELS, 'Least level of what the CLI reports on stderr')),
  'status-interval': v.optional(seconds('Time between JSON status records', false)),
  'checkpoint-dir': v.optional(text('Take checkpoints into this directory')),
  'checkpoint-interval': v.optional(seconds('Time between checkpoints', false)),
  'checkpoint-timeout': v.optional(
    seconds('A checkpoint not complete after this long is abandoned', false),
  ),
  'checkpoint-min-pause': v.optional(
    seconds('Least time between the end of a checkpoint and the start of the next', true),
  ),
  'checkpoints-retained': v.optional(positiveInt('Completed checkpoints kept on disk')),
  from: v.optional(
    text("Restore from this checkpoint or savepoint directory, or 'latest' in checkpoint-dir"),
  ),
  'allow-non-restored-state': v.optional(
    flag('With from: drop state of operators the job no longer has'),
  ),
  'allow-duplicate-output': v.optional(
    flag('With from: restore a checkpoint older than committed output'),
  ),
  'savepoint-on-stop': v.optional(
    text('On Ctrl-C or SIGTERM, stop with a savepoint into this directory'),
  ),
  'restart-strategy': v.optional(
    oneOf(
      ['none', 'fixed-delay', 'exponential-delay', 'failure-rate'],
      'What a failure does: restart from the latest checkpoint, or not',
    ),
  ),
  'restart-attempts': v.optional(count('Restarts allowed (see docs/cli.md per strategy)')),
  'restart-delay': v.optional(
    seconds('Wait before a restart; the first wait for exponential-delay', true),
  ),
  'restart-max-delay': v.optional(seconds('exponential-delay: longest wait', true)),
  'restart-failure-interval': v.optional(
    seconds('failure-rate: the window failures are counted in', false),
  ),
  'state-backend': v.optional(
    oneOf(['heap', 'disk'], 'Where keyed state lives: heap (default) or disk (LMDB)'),
  ),
  'state-dir': v.optional(text('Disk backend: the directory its stores are made in')),
  group: v.optional(
    text('Run as one member of this process group (the Kafka group id, the same in every process)'),
  ),
  bootstrap: v.optional(text('Kafka brokers of the process group (host:port, comma-separated)')),
  'session-timeout': v.optional(
    seconds('How long a group member may go silent before its tasks move', false),
  ),
  'standby-replicas': v.optional(
    count('Copies of each task snapshot other members keep on local disk (s3:// checkpoints)'),
  ),
  ui: v.optional(flag('Serve the web UI (default port 8081)')),
  'ui-port': v.optional(port('Serve the web UI on this port (0: any free port)')),
  'ui-host': v.optional(text('Interface for the web UI (beyond loopback it needs TLS)')),
  'keep-ui': v.optional(
    flag('Keep serving the web UI after the job ends, until Ctrl-C or SIGTERM'),
  ),
  'metrics-port': v.optional(port('Serve Prometheus metrics on this port')),
  'metrics-host': v.optional(text('Interface for the metrics endpoint')),
  'tls-cert': v.optional(text('PEM certificate: serve the web UI and REST API over HTTPS')),
  'tls-key': v.optional(text('PEM private key of tls-cert')),
  'token-file': v.optional(text('Where to keep the REST token')),
  'savepoint-dir': v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.trim(), v.nonEmpty('must not be empty'))),
      v.description('Directories the REST API may write savepoints into'),
    ),
  ),
});

/** A config file's contents once validated. */
export type WeirConfig = v.InferOutput<typeof CONFIG_SCHEMA>;

/** The keys that are not run flags. */
export const NON_FLAG_KEYS: ReadonlySet<string> = new Set(['$schema', 'module', 'args']);

/** The run flags a config file may set: every key of the schema but {@link NON_FLAG_KEYS}. */
export const CONFIG_FLAG_KEYS: readonly string[] = Object.keys(CONFIG_SCHEMA.entries).filter(
  (k) => !NON_FLAG_KEYS.has(k),
);

/**
 * Validates a config file's contents. Every problem is listed, each naming
 * its key: `checkpoint-interval must be a positive number of seconds, got "5s"`.
 */
export function validateConfig(
  input: unknown,
): { ok: true; config: WeirConfig } | { ok: false; problems: string[] } {
  // An array is an object to valibot: its items would be reported as unknown keys.
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [`must be an object of settings, got ${describeValue(input)}`] };
  }
  const result = v.safeParse(CONFIG_SCHEMA, input);
  if (result.success) return { ok: true, config: result.output };
  return { ok: false, problems: result.issues.map(describeIssue) };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue);
  if (path === null || path === '') {
    return `must be an object of settings, got ${describeValue(issue.input)}`;
  }
  // An unknown key: strictObject reports it with the key as its path.
  if (issue.kind === 'schema' && issue.expected === 'never') {
    return `${path} is not a setting (docs/cli.md lists them)`;
  }
  const message = issue.message.startsWith('Invalid type')
    ? `must be ${describeExpected(issue.expected)}`
    : issue.message;
  return `${path} ${message}, got ${describeValue(issue.input)}`;
}

function describeExpected(expected: string | null): string {
  if (expected === 'number') return 'a number';
  if (expected === 'string') return 'a string';
  if (expected === 'boolean') return 'true or false';
  if (expected === 'Array') return 'a list';
  return expected ?? 'valid';
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}
