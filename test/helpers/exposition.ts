/**
 * A strict reader of the Prometheus text exposition format (0.0.4) and the
 * naming rules Weir's metrics follow (docs/observability.md, Metrics). It
 * returns every problem it finds rather than the first, so one run of the
 * naming test lists all metrics that break a rule.
 */

export interface ExpositionFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly samples: ExpositionSample[];
}

export interface ExpositionSample {
  /** The sample's name: the family's, or with `_bucket`, `_sum`, `_count` for histograms. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Parses an exposition; `problems` lists what breaks the format. */
export function parseExposition(text: string): {
  families: ExpositionFamily[];
  problems: string[];
} {
  const problems: string[] = [];
  const families = new Map<string, ExpositionFamily>();
  const helps = new Map<string, string>();
  const seriesSeen = new Set<string>();
  let current: ExpositionFamily | undefined;
  if (text.length > 0 && !text.endsWith('\n'))
    problems.push('the exposition must end with a newline');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    const at = `line ${i + 1}`;
    if (line === '') {
      problems.push(`${at}: empty line`);
      return;
    }
    const help = /^# HELP (\S+) (.*)$/.exec(line);
    if (help !== null) {
      const [, name, text] = help as unknown as [string, string, string];
      if (!NAME.test(name)) problems.push(`${at}: invalid metric name '${name}'`);
      if (helps.has(name)) problems.push(`${at}: second HELP for ${name}`);
      if (/\\[^\\n]/.test(text.replace(/\\\\/g, ''))) problems.push(`${at}: bad escape in HELP`);
      helps.set(name, text);
      return;
    }
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) {
      const [, name, kind] = type as unknown as [string, string, string];
      if (!TYPES.has(kind)) problems.push(`${at}: unknown type '${kind}'`);
      if (families.has(name)) problems.push(`${at}: ${name} appears twice`);
      if (!helps.has(name)) problems.push(`${at}: ${name} has no HELP before its TYPE`);
      current = { name, type: kind, help: helps.get(name) ?? '', samples: [] };
      families.set(name, current);
      return;
    }
    if (line.startsWith('#')) return;
    const sample = parseSample(line);
    if (typeof sample === 'string') {
      problems.push(`${at}: ${sample}: ${line}`);
      return;
    }
    if (current === undefined || !belongsTo(sample.name, current)) {
      problems.push(`${at}: sample ${sample.name} is not under its own TYPE line`);
      return;
    }
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seriesSeen.has(key)) problems.push(`${at}: duplicate series ${key}`);
    seriesSeen.add(key);
    current.samples.push(sample);
  });
  for (const family of families.values()) {
    if (family.type === 'histogram') problems.push(...histogramProblems(family));
  }
  return { families: [...families.values()], problems };
}

function belongsTo(sample: string, family: ExpositionFamily): boolean {
  if (family.type !== 'histogram') return sample === family.name;
  return ['_bucket', '_sum', '_count'].some((s) => sample === `${family.name}${s}`);
}

function parseSample(line: string): ExpositionSample | string {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (head === null) return 'no metric name';
  const name = head[1]!;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const m = /^([^=]*)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest);
      if (m === null) return 'malformed labels';
      const [all, label, raw, comma] = m as unknown as [string, string, string, string];
      if (!LABEL_NAME.test(label) || label.startsWith('__')) return `invalid label name '${label}'`;
      if (Object.hasOwn(labels, label)) return `label '${label}' twice`;
      labels[label] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(all.length);
      if (comma === '' && !rest.startsWith('}')) return 'labels not separated by a comma';
    }
    rest = rest.slice(1);
  }
  const value = /^ (\S+)( -?\d+)?$/.exec(rest);
  if (value === null) return 'malformed value';
  const text = value[1]!;
  const n =
    text === '+Inf'
      ? Number.POSITIVE_INFINITY
      : text === '-Inf'
        ? Number.NEGATIVE_INFINITY
        : text === 'NaN'
          ? Number.NaN
          : /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)
            ? Number(text)
            : undefined;
  if (n === undefined) return `value '${text}' is not a number`;
  return { name, labels, value: n };
}

/** Buckets ascending and cumulative, a `+Inf` bucket equal to `_count`, for every series. */
function histogramProblems(family: ExpositionFamily): string[] {
  const problems: string[] = [];
  const bySeries = new Map<string, ExpositionSample[]>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    bySeries.set(key, [...(bySeries.get(key) ?? []), s]);
    if (s.name.endsWith('_bucket') && le === undefined) {
      problems.push(`${family.name}: a bucket without le`);
    }
  }
  for (const [key, samples] of bySeries) {
    const buckets = samples.filter((s) => s.name.endsWith('_bucket'));
    const count = samples.find((s) => s.name.endsWith('_count'));
    const sum = samples.find((s) => s.name.endsWith('_sum'));
    if (count === undefined || sum === undefined) {
      problems.push(`${family.name}${key}: no _count or _sum`);
      continue;
    }
    const bounds = buckets.map((b) => Number(b.labels.le === '+Inf' ? Infinity : b.labels.le));
    if (bounds.at(-1) !== Number.POSITIVE_INFINITY) {
      problems.push(`${family.name}${key}: no +Inf bucket`);
    }
    for (let i = 1; i < buckets.length; i++) {
      if (!(bounds[i]! > bounds[i - 1]!))
        problems.push(`${family.name}${key}: buckets not ascending`);
      if (buckets[i]!.value < buckets[i - 1]!.value) {
        problems.push(`${family.name}${key}: bucket counts not cumulative`);
      }
    }
    if (buckets.at(-1)?.value !== count.value) {
      problems.push(`${family.name}${key}: the +Inf bucket differs from _count`);
    }
  }
  return problems;
}

/** Words of a name that make it a time: such a metric must be in seconds. */
const TIME_WORDS = new Set([
  'watermark',
  'latency',
  'duration',
  'uptime',
  'delay',
  'alignment',
  'interval',
  'age',
  'elapsed',
  'time',
  'timeout',
]);

/**
 * Weir's naming rules (docs/observability.md, Metrics): `weir_` prefix,
 * counters and only counters end in `_total`, times in seconds, no
 * milliseconds, every series labelled `job_name` and `job_id` and never
 * `job` or `instance`.
 */
export function namingProblems(families: readonly ExpositionFamily[]): string[] {
  const problems: string[] = [];
  for (const f of families) {
    const { name } = f;
    if (!name.startsWith('weir_')) problems.push(`${name}: no weir_ prefix`);
    if (f.type === 'counter' && !name.endsWith('_total')) {
      problems.push(`${name}: a counter whose name does not end in _total`);
    }
    if (f.type !== 'counter' && name.endsWith('_total')) {
      problems.push(`${name}: a ${f.type} whose name ends in _total`);
    }
    if (f.type === 'untyped') problems.push(`${name}: untyped`);
    if (
      /(^|_)(ms|millis|milliseconds|us|micros|ns|nanos|minutes|hours|kb|mb|percent)(_|$)/.test(name)
    ) {
      problems.push(`${name}: not in a base unit`);
    }
    // A 0/1 flag about a time (`weir_kafka_partition_holds_watermark`) is no time itself.
    const flag = f.type === 'gauge' && f.help.startsWith('1 ');
    if (!flag && name.split('_').some((w) => TIME_WORDS.has(w)) && !name.includes('_seconds')) {
      problems.push(`${name}: a time not in seconds (no _seconds in the name)`);
    }
    if (
      name.endsWith('_timestamp') ||
      (name.includes('timestamp') && !name.endsWith('_timestamp_seconds'))
    ) {
      problems.push(`${name}: a point in time must end in _timestamp_seconds`);
    }
    if (f.help.trim() === '') problems.push(`${name}: no help text`);
    for (const s of f.samples) {
      const labels = Object.keys(s.labels);
      if (labels[0] !== 'job_name' || labels[1] !== 'job_id') {
        problems.push(`${s.name}: labels ${labels.join(',')} do not start with job_name, job_id`);
      }
      for (const l of labels) {
        if (l === 'job' || l === 'instance') problems.push(`${s.name}: label '${l}'`);
        if (!/^[a-z][a-z0-9_]*$/.test(l))
          problems.push(`${s.name}: label '${l}' is not snake_case`);
      }
    }
  }
  return problems;
}
