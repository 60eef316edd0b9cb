/**
 * `weir run --keep-ui`: once the job has ended, the web UI and REST API stay
 * up (the ended job's status, exceptions, checkpoints and last metrics) until
 * the operator lets go with Ctrl-C or SIGTERM. Only the UI outlives the job:
 * its sources, sinks and state are closed already.
 */
import type { RunOutcome } from './supervise.js';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
const PARENT_POLL_MS = 200;

/**
 * Whether the UI outlives the job: always with `--keep-ui`; with `--ui` alone
 * after a failure when someone is at the terminal, who will want to read why
 * before the page goes (under a supervisor, without a terminal, the process
 * exits at once so that the supervisor can act).
 */
export function keepsUi(
  options: { readonly keepUi?: boolean; readonly uiPort: number | undefined },
  outcome: RunOutcome,
  interactive: boolean,
): boolean {
  if (options.uiPort === undefined) return false;
  return options.keepUi === true || (outcome.kind === 'failed' && interactive);
}

export interface KeepServingOptions {
  /** Also stop when the process that started the CLI exits (npm; see supervise.ts). */
  readonly watchParent?: boolean;
  readonly parentPid?: number;
}

/** Resolves with the signal that ends the wait (or `undefined` when the parent exited). */
export function waitForStop(options: KeepServingOptions = {}): Promise<NodeJS.Signals | undefined> {
  return new Promise((resolve) => {
    const parent = options.parentPid ?? process.ppid;
    const done = (signal: NodeJS.Signals | undefined): void => {
      for (const s of SIGNALS) process.off(s, done);
      clearInterval(watch);
      resolve(signal);
    };
    // Also what keeps the process alive should the servers not.
    const watch = setInterval(() => {
      if (options.watchParent === true && process.ppid !== parent) done(undefined);
    }, PARENT_POLL_MS);
    for (const s of SIGNALS) process.on(s, done);
  });
}
