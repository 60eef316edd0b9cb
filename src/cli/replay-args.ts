import { parseArgs } from 'node:util';
import type { ReplayRange } from '../core/replay.js';
import { UsageError } from './failure.js';

/** `weir replay` and the replay part of `weir reconcile`. */
export interface ReplayCommandOptions {
  readonly module: string;
  readonly jobArgs: readonly string[];
  /** The range every source reads unless `sourceRanges` names it. */
  readonly range: ReplayRange;
  readonly sourceRanges: Readonly<Record<string, ReplayRange>>;
  readonly parallelism: number | undefined;
  readonly batchSize: number | undefined;
  /** Directory to write the replay's output into. */
  readonly output: string | undefined;
  readonly productionSinks: boolean;
}

export interface ReconcileCommandOptions extends ReplayCommandOptions {
  readonly against: string | undefined;
  readonly keyFields: readonly string[] | undefined;
  readonly tolerance: number | undefined;
  readonly show: number | undefined;
  /** Write the JSON report here (`-`: standard output). */
  readonly report: string | undefined;
  /** Write the `weir_reconcile_*` metrics here, in Prometheus text format. */
  readonly metricsFile: string | undefined;
}

const RANGE_FLAGS = {
  range: { type: 'string' },
  offsets: { type: 'string', multiple: true },
  files: { type: 'string', multiple: true },
  'source-range': { type: 'string', multiple: true },
  parallelism: { type: 'string', short: 'p' },
  'batch-size': { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseReplay(argv: readonly string[]): ReplayCommandOptions | 'help' {
  const parsed = parseReplayArgs('replay', argv, { 'production-sinks': { type: 'boolean' } });
  if (parsed === 'help') return 'help';
  return { ...parsed.options, productionSinks: parsed.values['production-sinks'] === true };
}

export function parseReconcile(argv: readonly string[]): ReconcileCommandOptions | 'help' {
  const parsed = parseReplayArgs('reconcile', argv, {
    against: { type: 'string' },
    key: { type: 'string' },
    tolerance: { type: 'string' },
    show: { type: 'string' },
    report: { type: 'string' },
    'metrics-file': { type: 'string' },
  });
  if (parsed === 'help') return 'help';
  const v = parsed.values;
  const tolerance = text(v.tolerance);
  let toleranceValue: number | undefined;
  if (tolerance !== undefined) {
    toleranceValue = Number(tolerance);
    if (!Number.isFinite(toleranceValue) || toleranceValue < 0 || tolerance.trim() === '') {
      throw new UsageError(`--tolerance must be a number >= 0, such as 1e-9; got '${tolerance}'`);
    }
  }
  const key = text(v.key);
  const keyFields = key?.split(',').map((f) => f.trim());
  if (keyFields?.some((f) => f === '')) {
    throw new UsageError(
      `--key takes field paths separated by commas, such as key,window.end; got '${key}'`,
    );
  }
  return {
    ...parsed.options,
    productionSinks: false,
    against: text(v.against),
    keyFields,
    tolerance: toleranceValue,
    show: count('--show', text(v.show), 0),
    report: text(v.report),
    metricsFile: text(v['metrics-file']),
  };
}

type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

function parseReplayArgs(
  command: string,
  argv: readonly string[],
  extra: FlagSpec,
):
  | 'help'
  | {
      options: Omit<ReplayCommandOptions, 'productionSinks'>;
      values: Record<string, string | boolean | (string | boolean)[] | undefined>;
    } {
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const jobArgs = separator === -1 ? [] : argv.slice(separator + 1);
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...own],
      options: { ...RANGE_FLAGS, ...extra },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return 'help';
  const [module, ...rest] = positionals;
  if (module === undefined)
    throw new UsageError(`missing the job module: weir ${command} <job-module>`);
  if (rest.length > 0) {
    throw new UsageError(`unexpected argument '${rest[0]}'; pass arguments for the job after --`);
  }
  const range: ReplayRange = {
    ...parseTimeRange(text(values.range)),
    ...parseOffsets(list(values.offsets)),
    ...(list(values.files).length === 0 ? {} : { files: list(values.files) }),
  };
  const sourceRanges: Record<string, ReplayRange> = {};
  for (const spec of list(values['source-range'])) {
    const eq = spec.indexOf('=');
    if (eq <= 0) {
      throw new UsageError(
        `--source-range takes NAME=FROM..TO, such as clicks=2026-12-01..2026-12-02; got '${spec}'`,
      );
    }
    sourceRanges[spec.slice(0, eq)] = parseTimeRange(spec.slice(eq + 1));
  }
  return {
    options: {
      module,
      jobArgs,
      range,
      sourceRanges,
      parallelism: count('--parallelism', text(values.parallelism), 1),
      batchSize: count('--batch-size', text(values['batch-size']), 1),
      output: text(values.output),
    },
    values,
  };
}

/** `FROM..TO`: each side an ISO 8601 time, epoch milliseconds, or empty for open. */
export function parseTimeRange(spec: string | undefined): Pick<ReplayRange, 'from' | 'to'> {
  if (spec === undefined) return {};
  const at = spec.indexOf('..');
  if (at < 0) {
    throw new UsageError(
      `--range takes FROM..TO (ISO 8601 times or epoch milliseconds, either side may be empty), such as 2026-12-01T00:00:00Z..2026-12-02T00:00:00Z; got '${spec}'`,
    );
  }
  const from = timeOf(spec.slice(0, at), spec);
  const to = timeOf(spec.slice(at + 2), spec);
  if (from !== undefined && to !== undefined && to <= from) {
    throw new UsageError(`--range ${spec}: the end must come after the start`);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function timeOf(text: string, spec: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (/^-?\d+$/.test(t)) return Number(t);
  // A bare date means midnight UTC, as Date.parse reads it.
  const ms = /^\d{4}-\d{2}-\d{2}/.test(t) ? Date.parse(t) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `--range ${spec}: '${t}' is neither an ISO 8601 time nor epoch milliseconds`,
    );
  }
  return ms;
}

/** `topic:partition=first-end`, several separated by commas or given as several flags. */
export function parseOffsets(specs: readonly string[]): Pick<ReplayRange, 'positions'> {
  if (specs.length === 0) return {};
  const positions: Record<string, readonly [number, number]> = {};
  for (const spec of specs.flatMap((s) => s.split(','))) {
    const m = /^(.+):(\d+)=(\d+)-(\d+)$/.exec(spec.trim());
    if (m === null) {
      throw new UsageError(
        `--offsets takes TOPIC:PARTITION=FIRST-END (END exclusive), such as orders:0=0-1000; got '${spec}'`,
      );
    }
    const [, topic, partition, first, end] = m;
    if (Number(end) < Number(first)) {
      throw new UsageError(`--offsets ${spec}: the end offset must not be below the first`);
    }
    positions[`${topic}:${partition}`] = [Number(first), Number(end)];
  }
  return { positions };
}

function count(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || !/^\d+$/.test(value)) {
    throw new UsageError(`${flag} must be a whole number >= ${min}, got '${value}'`);
  }
  return n;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
