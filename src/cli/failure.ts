import { JobModuleError } from '../api/job-module/load-job-module.js';

/**
 * How the CLI reports what went wrong. A failing job should say where and on
 * what it failed (a WeirError carries code, operator and record) without a
 * stack trace, which is noise for job authors unless they ask with --verbose.
 */

/** Bad command-line usage: the CLI prints the message and a hint, and exits with 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An expected failure with a message that needs no stack (a missing module, a bad export). */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** Conventional status of a process ended by SIGINT (128 + 2), used for a forced exit. */
export const EXIT_FORCED = 130;

/** The fields of a WeirError, read structurally so errors from another copy of the library also qualify. */
interface ErrorDetails {
  readonly code?: string;
  readonly operatorId?: string;
  readonly record?: string;
}

function detailsOf(error: object): ErrorDetails {
  const read = (name: string): string | undefined => {
    const value: unknown = Reflect.get(error, name);
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  return { code: read('code'), operatorId: read('operatorId'), record: read('record') };
}

/** The lines describing a failure: message first, then the WeirError details, then (verbose) stacks. */
export function describeFailure(error: unknown, verbose: boolean): string[] {
  if (!(error instanceof Error)) return [String(error)];
  const lines = [error.message];
  const { code, operatorId, record } = detailsOf(error);
  // Node system errors also have a `code` (ENOENT...); only Weir's codes are upper-case words.
  if (code !== undefined && /^[A-Z_]+$/.test(code) && error.name === 'WeirError') {
    lines.push(`  code:     ${code}`);
  }
  if (operatorId !== undefined) lines.push(`  operator: ${operatorId}`);
  if (record !== undefined) lines.push(`  record:   ${record}`);
  if (verbose) {
    let current: unknown = error;
    let prefix = '';
    while (current instanceof Error) {
      lines.push(`${prefix}${current.stack ?? `${current.name}: ${current.message}`}`);
      current = current.cause;
      prefix = 'Caused by: ';
    }
  } else if (!(error instanceof CliError) && !(error instanceof JobModuleError)) {
    lines.push('  (run with --verbose for the stack trace)');
  }
  return lines;
}
