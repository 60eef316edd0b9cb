/**
 * Building blocks of the connectors' option schemas, and the one place
 * where options are validated. Every connector declares its options once,
 * as a valibot schema in its `config.ts`: the TypeScript type is inferred
 * from it, and validation at construction goes through {@link parseOptions},
 * whose message names the connector, the option and what it accepts.
 */
import * as v from 'valibot';
import { describeRecord, invalidArgument } from '../../core/errors.js';

/** Any option schema. */
export type OptionSchema = v.GenericSchema;

/** Options as users write them: the schema's input type with readonly properties and lists. */
export type OptionsOf<S extends OptionSchema> = ReadonlyOptions<v.InferInput<S>>;

/** Validated options, defaults applied: the schema's output type. */
export type ConfigOf<S extends OptionSchema> = Readonly<v.InferOutput<S>>;

/** Readonly properties, and readonly lists one level down (so users may pass `as const` lists). */
export type ReadonlyOptions<T> = {
  readonly [K in keyof T]: T[K] extends (infer E)[] ? readonly E[] : T[K];
};

/** How a rejected option becomes an error: `INVALID_ARGUMENT` unless a connector keeps another kind. */
export type OptionError = (message: string) => Error;

/**
 * Validates `input` against `schema` and returns the options with defaults
 * applied. The first problem throws, as `<what>: <option> <requirement>, got
 * <value>` (for example `KafkaSource: startFrom must be one of 'earliest',
 * 'latest', got "first"`), or `<what>: <rule>` for a rule across options.
 * Called once, when a connector is created.
 */
export function parseOptions<S extends OptionSchema>(
  what: string,
  schema: S,
  input: unknown,
  toError: OptionError = invalidArgument,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: true, message: expected });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  if (path === null || path === '') {
    // Rules across options, and options that are not an object at all.
    throw toError(
      issue.kind === 'validation'
        ? `${what}: ${issue.message}`
        : `${what} needs an options object, got ${describeRecord(input)}`,
    );
  }
  const shown = SECRET_NAME.test(path.slice(path.lastIndexOf('.') + 1))
    ? `a ${typeof issue.input}`
    : describe(withoutSecrets(issue.input));
  throw toError(`${what}: ${path} ${issue.message}, got ${shown}`);
}

/**
 * Options whose values are never shown in a message: passwords, tokens, key
 * passwords, and connection strings (which may hold a password).
 */
const SECRET_NAME = /password|passphrase|secret|token|^connection/i;

/** `value` with the values of secret options (at any depth) replaced by `'***'`. */
function withoutSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (value instanceof RegExp) return value;
  if (Array.isArray(value)) return value.map((x) => withoutSecrets(x, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, x]) => [
      k,
      SECRET_NAME.test(k) && typeof x !== 'function' ? '***' : withoutSecrets(x, depth + 1),
    ]),
  );
}

/** Fallback message of a check that declares none: what valibot expected. */
function expected(issue: v.BaseIssue<unknown>): string {
  return `must be ${issue.expected ?? 'valid'}`;
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (value instanceof RegExp) return String(value);
  return describeRecord(value);
}

function quoted(values: readonly (string | number)[]): string {
  return values.map((x) => (typeof x === 'string' ? `'${x}'` : String(x))).join(', ');
}

/** One of the given values, named in the message. */
export function oneOf<const T extends readonly (string | number)[]>(values: T) {
  const message = `must be one of ${quoted(values)}`;
  return v.picklist(values, message);
}

/** A whole number >= 1. */
export function positiveInt(message = 'must be a positive whole number') {
  return v.pipe(v.number(message), v.integer(message), v.minValue(1, message));
}

/** A finite number of milliseconds > 0. */
export function positiveMs(message = 'must be a positive number of milliseconds') {
  return v.pipe(v.number(message), v.finite(message), v.gtValue(0, message));
}

/** A finite number of milliseconds >= 0 (0 usually meaning "off"). */
export function nonNegativeMs(message = 'must be a number of milliseconds >= 0') {
  return v.pipe(v.number(message), v.finite(message), v.minValue(0, message));
}

/** A non-empty string. */
export function nonEmptyString(message = 'must be a non-empty string') {
  return v.pipe(v.string(message), v.minLength(1, message));
}

/** A user function (deserializer, key selector, callback); its signature comes from the type argument. */
export function fn<F extends (...args: never[]) => unknown>(message = 'must be a function') {
  return v.custom<F>((x) => typeof x === 'function', message);
}

/** An object checked only for what the connector calls on it (a format, a strategy). */
export function shaped<T>(check: (x: object) => boolean, message: string) {
  return v.custom<T>((x) => typeof x === 'object' && x !== null && check(x), message);
}
