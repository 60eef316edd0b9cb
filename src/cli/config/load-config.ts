/**
 * Finds and reads a `weir run` config file: JSON, YAML, or a TypeScript or
 * JavaScript module whose default export is the config object. Reading is
 * synchronous, like the rest of argument parsing, so every setting is known
 * (and checked) before anything loads.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../failure.js';
import { validateConfig, type WeirConfig } from './config-schema.js';

/** The names `weir run` looks for in the working directory when no `--config` is given. */
export const DEFAULT_CONFIG_FILES = [
  'weir.config.ts',
  'weir.config.mts',
  'weir.config.js',
  'weir.config.mjs',
  'weir.config.json',
  'weir.config.yaml',
  'weir.config.yml',
] as const;

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

/** The default config file in `cwd`, if there is one; two are an error (which one would win?). */
export function findConfigFile(cwd: string): string | undefined {
  const found = DEFAULT_CONFIG_FILES.filter((name) => existsSync(resolve(cwd, name)));
  if (found.length > 1) {
    throw new UsageError(
      `${found.join(' and ')} are both in ${cwd}: keep one, or choose with --config`,
    );
  }
  return found[0];
}

/** Reads and validates the config file `file` (as given; resolved against `cwd`). */
export function loadConfigFile(file: string, cwd: string): WeirConfig {
  const path = resolve(cwd, file);
  if (!existsSync(path))
    throw new UsageError(`cannot find config file ${file} (looked for ${path})`);
  const ext = extname(path).toLowerCase();
  let contents: unknown;
  if (ext === '.json') contents = parseText(file, path, (text) => JSON.parse(text));
  else if (ext === '.yaml' || ext === '.yml') contents = parseText(file, path, parseYaml);
  else if (MODULE_EXTENSIONS.has(ext)) contents = evaluateModule(file, path);
  else {
    throw new UsageError(
      `config file ${file}: unknown kind '${ext}' (use .json, .yaml, .yml, .ts or .js)`,
    );
  }
  const result = validateConfig(contents);
  if (!result.ok) {
    throw new UsageError(`invalid config file ${file}: ${result.problems.join('; ')}`);
  }
  return result.config;
}

function parseText(file: string, path: string, parse: (text: string) => unknown): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read config file ${file}: ${messageOf(error)}`);
  }
  try {
    // An empty YAML file parses to null; treat it like an empty object.
    return parse(text) ?? {};
  } catch (error) {
    throw new UsageError(`config file ${file} is not valid: ${messageOf(error)}`);
  }
}

/**
 * The default export of a config module, evaluated in a child Node process
 * with the TypeScript loader Weir already uses for job modules (tsx), and
 * handed back as JSON: a config is data, and this keeps parsing synchronous
 * without loading a TypeScript compiler into the CLI itself.
 */
function evaluateModule(file: string, path: string): unknown {
  const script = [
    'const loaded = await import(process.argv[1]);',
    // A module Node treats as CommonJS arrives wrapped: its exports are the namespace's default.
    'let config = loaded.default;',
    "if (config !== null && typeof config === 'object' && config.__esModule === true) config = config.default;",
    "if (config === undefined) { process.stderr.write('it has no default export'); process.exit(3); }",
    'process.stdout.write(JSON.stringify(config));',
  ].join('\n');
  let out: string;
  try {
    out = execFileSync(
      process.execPath,
      [
        '--import',
        import.meta.resolve('tsx'),
        '--input-type=module',
        '-e',
        script,
        '--',
        pathToFileURL(path).href,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
  } catch (error) {
    const stderr: unknown = error instanceof Error ? Reflect.get(error, 'stderr') : undefined;
    const reason =
      typeof stderr === 'string' && stderr.trim() !== '' ? lastLine(stderr) : messageOf(error);
    throw new UsageError(`cannot load config file ${file}: ${reason}`);
  }
  return JSON.parse(out);
}

/** The line of a child's stderr that says what went wrong (its error message, not the stack). */
function lastLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return (
    lines.find((l) => /^\w*Error\b|^it has no default export/.test(l.trim()))?.trim() ??
    lines[0]!.trim()
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
