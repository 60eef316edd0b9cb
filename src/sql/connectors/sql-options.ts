/**
 * `WITH (...)` options checked by a valibot schema: every option is a string, so a connector
 * declares each one as a string schema (a fixed set of values, a whole number, a required
 * name), and a mistake becomes a `SqlError` at the option's position naming the option and
 * what it allows.
 */
import * as v from 'valibot';
import type { CatalogTable } from '../catalog/catalog.js';
import { sqlError } from '../sql-error.js';

/** The schema of one option's value (always a string in `WITH`, possibly absent). */
export type SqlOptionSchema = v.GenericSchema<string | undefined, unknown>;

/** One of a fixed set of values; the message lists them. */
export function choice<const T extends readonly [string, ...string[]]>(values: T) {
  return v.picklist(values, `allowed values: ${values.join(', ')}`);
}

/** A whole number >= 0, as text. */
export function wholeNumber() {
  return v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number >= 0'));
}

/** `true` or `false`. */
export function flag() {
  return choice(['true', 'false']);
}

const DURATION =
  /^(\d+)\s*(ms|milli|millis|milliseconds?|s|sec|secs|seconds?|min|mins|minutes?|h|hours?|d|days?)?$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  m: 1,
  s: 1000,
  i: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration as Flink writes one (`500 ms`, `10 s`, `5 min`, `1 h`; a bare number is ms), in ms. */
export function duration() {
  return v.pipe(
    v.string(),
    v.regex(DURATION, "must be a duration such as '500 ms', '10 s', '5 min'"),
    v.transform((s) => {
      const [, n, unit = 'ms'] = DURATION.exec(s) as RegExpExecArray;
      const key =
        unit.startsWith('mi') && unit !== 'milli' && !unit.startsWith('mill')
          ? 'i'
          : unit.charAt(0);
      return Number(n) * (UNIT_MS[key] ?? 1);
    }),
  );
}

/** A non-empty string. */
export function text(what: string) {
  return v.pipe(v.string(), v.minLength(1, `must be ${what}`));
}

export interface SqlOptionsSpec<E extends Record<string, SqlOptionSchema>> {
  readonly connector: string;
  readonly entries: E;
  /** Option keys starting with one of these are passed through (`properties.`). */
  readonly prefixes?: readonly string[];
  /** Rules across options, each a message and a test of the parsed options. */
  readonly rules?: readonly {
    readonly check: (o: v.InferOutput<v.ObjectSchema<E, undefined>>) => boolean;
    readonly message: string;
  }[];
}

/**
 * Parses a table's options against `spec`: unknown keys, missing required ones and bad values
 * fail with the option's line and column. Returns the parsed options.
 */
export function parseSqlOptions<E extends Record<string, SqlOptionSchema>>(
  spec: SqlOptionsSpec<E>,
  table: CatalogTable,
): v.InferOutput<v.ObjectSchema<E, undefined>> {
  const input: Record<string, string> = {};
  for (const [key, option] of table.options) {
    if (key === 'connector') continue;
    if (key in spec.entries) input[key] = option.value;
    else if (!(spec.prefixes ?? []).some((p) => key.startsWith(p))) {
      const known = [...Object.keys(spec.entries), ...(spec.prefixes ?? []).map((p) => `${p}*`)];
      sqlError(
        `unknown option '${key}' of connector '${spec.connector}'; its options are: ${known.sort().join(', ')}`,
        option.at,
      );
    }
  }
  const result = v.safeParse(v.object(spec.entries), input, { abortEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const key = v.getDotPath(issue) ?? '';
    const option = table.options.get(key);
    if (option === undefined) {
      sqlError(`connector '${spec.connector}' needs option '${key}'`, table.at);
    }
    sqlError(
      `option '${key}' of connector '${spec.connector}' is '${option.value}'; ${issue.message}`,
      option.at,
    );
  }
  for (const rule of spec.rules ?? []) {
    if (!rule.check(result.output))
      sqlError(`connector '${spec.connector}': ${rule.message}`, table.at);
  }
  return result.output;
}

/** The options of `table` whose keys start with `prefix`, without it (`properties.x` -> `x`). */
export function prefixedOptions(table: CatalogTable, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, option] of table.options) {
    if (key.startsWith(prefix)) out.set(key.slice(prefix.length), option.value);
  }
  return out;
}
