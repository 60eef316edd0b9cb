#!/usr/bin/env node
/**
 * The `weir` command: `weir run <job-module>`, `weir sql -f <script>`, `weir demo`,
 * `weir savepoint`, `weir stop`, `weir cancel`, `weir jobs`, `weir replay`, `weir reconcile`,
 * `--help`, `--version`.
 * Parses the command line, dispatches,
 * and turns every outcome into an exit status (0 ok or stopped by the user,
 * 1 failure, 2 usage, 3 a reconciliation that diverged). Documented in docs/cli.md.
 */
import { readFileSync } from 'node:fs';
import { type Command, HELP_TEXT, parseCommandLine } from './args.js';
import { describeFailure, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './failure.js';
import { JsonLog } from './json-log.js';
import type { CliIO } from './run-command.js';

async function main(argv: readonly string[], io: CliIO): Promise<number> {
  let command: Command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    return reportUsage(error, io);
  }
  const verbose =
    (command.kind === 'run' || command.kind === 'sql' || command.kind === 'demo') &&
    command.options.verbose;
  try {
    switch (command.kind) {
      case 'help':
        io.stdout.write(`weir ${version()} — stream processing for TypeScript\n\n${HELP_TEXT}`);
        return EXIT_OK;
      case 'version':
        io.stdout.write(`${version()}\n`);
        return EXIT_OK;
      // Commands load the engine lazily: --help, --version and usage errors stay instant.
      case 'run':
      case 'sql': {
        const { runCommand } = await import('./run-command.js');
        return await runCommand(command.options, io);
      }
      case 'sql-client': {
        const { runSqlClient } = await import('./sql-client/sql-client.js');
        return await runSqlClient({ stdin: process.stdin, stdout: process.stdout });
      }
      case 'demo': {
        const { runDemoCommand } = await import('./demo/demo-command.js');
        return await runDemoCommand(command.options, io);
      }
      case 'savepoint': {
        const { runSavepointCommand } = await import('./remote-commands.js');
        return await runSavepointCommand(command.options, io);
      }
      case 'stop': {
        const { runSavepointCommand } = await import('./remote-commands.js');
        return await runSavepointCommand(command.options, io, 'stop');
      }
      case 'cancel': {
        const { runCancelCommand } = await import('./remote-commands.js');
        return await runCancelCommand(command.options, io);
      }
      case 'jobs': {
        const { runJobsCommand } = await import('./remote-commands.js');
        return await runJobsCommand(command.options, io);
      }
      case 'replay': {
        const { runReplayCommand } = await import('./replay-command.js');
        return await runReplayCommand(command.options, io);
      }
      case 'reconcile': {
        const { runReconcileCommand } = await import('./replay-command.js');
        return await runReconcileCommand(command.options, io);
      }
    }
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(error, io);
    const [message, ...details] = describeFailure(error, verbose);
    if (
      (command.kind === 'run' || command.kind === 'sql') &&
      command.options.logFormat === 'json'
    ) {
      new JsonLog(io.stderr).write('error', 'run_failed', message ?? 'failed', {
        details: details.map((d) => d.trim()),
      });
      return EXIT_FAILURE;
    }
    io.stderr.write(`weir: ${message}\n`);
    for (const line of details) io.stderr.write(`${line}\n`);
    return EXIT_FAILURE;
  }
}

function reportUsage(error: unknown, io: CliIO): number {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`weir: ${message}\nRun 'weir --help' for usage.\n`);
  return EXIT_USAGE;
}

/** The package version; package.json sits two levels above both src/cli and dist/cli. */
function version(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const pkg: unknown = JSON.parse(text);
    const value: unknown =
      typeof pkg === 'object' && pkg !== null ? Reflect.get(pkg, 'version') : undefined;
    return typeof value === 'string' ? value : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Waits until everything written has been handed to the OS: exiting earlier can cut piped output short. */
function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
});
await Promise.all([flush(process.stdout), flush(process.stderr)]);
// Exit explicitly: a job module may leave handles open (sockets, timers) that would keep us alive.
process.exit(code);
