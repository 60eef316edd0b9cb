/**
 * Where the settings of `weir run` come from, lowest precedence first: a
 * config file, `WEIR_*` environment variables, the command line. The file
 * and the environment are turned into command-line flags placed before the
 * user's own, so one parser applies the defaults and checks the rules
 * between options, whatever their source.
 */
import { dirname, resolve } from 'node:path';
import type * as v from 'valibot';
import { resolveLocation } from '../../runtime/checkpoint/store/open-store.js';
import { UsageError } from '../failure.js';
import {
  CONFIG_FLAG_KEYS,
  CONFIG_SCHEMA,
  validateConfig,
  type WeirConfig,
} from './config-schema.js';
import { findConfigFile, loadConfigFile } from './load-config.js';

/** The environment variable of a setting: `checkpoint-dir` is `WEIR_CHECKPOINT_DIR`. */
export function envName(key: string): string {
  return `WEIR_${key.toUpperCase().replace(/-/g, '_')}`;
}

/** Names the config file to read (besides `--config`); the other `WEIR_*` names are settings. */
export const CONFIG_ENV = 'WEIR_CONFIG';

/** Settings whose values are lists have no environment variable (a list does not fit one). */
function scalarKeys(): string[] {
  return CONFIG_FLAG_KEYS.filter((key) => schemaType(key) !== 'array');
}

function schemaType(key: string): string {
  const entry = CONFIG_SCHEMA.entries[key as keyof typeof CONFIG_SCHEMA.entries];
  return (entry as v.OptionalSchema<v.GenericSchema, undefined>).wrapped.type;
}

/**
 * The settings given by `WEIR_*` environment variables, checked like a
 * config file; a bad value is reported under its variable's name.
 */
export function configFromEnv(env: NodeJS.ProcessEnv): WeirConfig {
  const raw: Record<string, unknown> = {};
  const names = new Map<string, string>();
  for (const key of scalarKeys()) {
    const name = envName(key);
    const text = env[name];
    if (text === undefined || text === '') continue;
    names.set(key, name);
    raw[key] = coerce(schemaType(key), text.trim());
  }
  const result = validateConfig(raw);
  if (result.ok) return result.config;
  const problems = result.problems.map((p) => {
    const key = /^[\w-]+/.exec(p)?.[0] ?? '';
    return names.has(key) ? `${names.get(key)}${p.slice(key.length)}` : p;
  });
  throw new UsageError(`invalid environment: ${problems.join('; ')}`);
}

/** An environment variable's text as the type its setting takes (left as text when it is not). */
function coerce(type: string, text: string): unknown {
  if (type === 'boolean') {
    if (/^(true|1|yes)$/i.test(text)) return true;
    if (/^(false|0|no)$/i.test(text)) return false;
    return text;
  }
  if (type === 'number' || type === 'union') {
    return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  }
  return text;
}

/**
 * Command-line flags for `config`, leaving out those the command line gives
 * itself (`given`: long names): those win, lists included (a list on the
 * command line replaces the file's).
 */
export function configFlags(config: WeirConfig, given: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const key of CONFIG_FLAG_KEYS) {
    const value: unknown = config[key as keyof WeirConfig];
    if (value === undefined || given.has(key)) continue;
    if (typeof value === 'boolean') {
      // A flag set to false in a file is the flag not given.
      if (value) out.push(`--${key}`);
    } else if (Array.isArray(value)) {
      for (const item of value) out.push(`--${key}`, String(item));
    } else {
      out.push(`--${key}`, String(value));
    }
  }
  return out;
}

/** The file's settings overlaid with the environment's (the environment wins, key by key). */
function overlay(file: WeirConfig | undefined, env: WeirConfig): WeirConfig {
  return { ...file, ...env };
}

/** Settings that are paths: in a config file, relative to the file's directory. */
const PATH_KEYS = [
  'module',
  'checkpoint-dir',
  'savepoint-on-stop',
  'state-dir',
  'tls-cert',
  'tls-key',
  'token-file',
] as const;

/**
 * Paths in a config file are relative to the file, wherever `weir run` is
 * started (a file kept beside its job names it `./job.ts`); those on the
 * command line and in the environment are relative to the working directory.
 */
function resolvePaths(config: WeirConfig, base: string): WeirConfig {
  const out: Record<string, unknown> = { ...config };
  for (const key of PATH_KEYS) {
    const value = config[key];
    if (value !== undefined) out[key] = resolveLocation(base, value);
  }
  if (config.from !== undefined && config.from !== 'latest')
    out.from = resolveLocation(base, config.from);
  if (config['savepoint-dir'] !== undefined) {
    out['savepoint-dir'] = config['savepoint-dir'].map((d) => resolveLocation(base, d));
  }
  return out as WeirConfig;
}

/** What the config file and the environment add to a `weir run` command line. */
export interface RunSettings {
  /** Flags to put before the command line's own. */
  readonly flags: readonly string[];
  /** The merged settings (for `module` and `args`, which are no flags). */
  readonly config: WeirConfig | undefined;
  /** The config file read, as given or found. */
  readonly file: string | undefined;
}

/**
 * The settings of the config file (`--config`, else `WEIR_CONFIG`, else a
 * `weir.config.*` in the working directory) and of `WEIR_*` variables, as
 * flags the command line (`given`, its parsed flags) does not set itself.
 */
export function runSettings(
  given: Readonly<Record<string, unknown>>,
  context: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): RunSettings {
  const named = typeof given.config === 'string' ? given.config : context.env[CONFIG_ENV];
  if (named !== undefined && named.trim() === '')
    throw new UsageError('--config must not be empty');
  const file = named ?? findConfigFile(context.cwd);
  const fromFile =
    file === undefined
      ? undefined
      : resolvePaths(loadConfigFile(file, context.cwd), dirname(resolve(context.cwd, file)));
  const config = overlay(fromFile, configFromEnv(context.env));
  const set = new Set(Object.keys(given).filter((k) => given[k] !== undefined));
  return { flags: configFlags(config, set), config, file };
}
