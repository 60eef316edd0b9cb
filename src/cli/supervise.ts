import type { JobClient, JobResult } from '../index.js';

/** Why a job stopped before its input ended. */
export type StopReason =
  | { readonly kind: 'signal'; readonly signal: NodeJS.Signals }
  | { readonly kind: 'duration' }
  /** The process that started the CLI exited (see {@link SuperviseOptions.watchParent}). */
  | { readonly kind: 'parent-exited' };

/** A stop reason in words, for status lines and logs. */
export function stopReasonText(reason: StopReason): string {
  switch (reason.kind) {
    case 'signal':
      return reason.signal;
    case 'duration':
      return 'time limit';
    case 'parent-exited':
      return 'the npm process that started weir exited';
  }
}

export type RunOutcome =
  | { readonly kind: 'finished' | 'cancelled'; readonly result: JobResult }
  | { readonly kind: 'failed'; readonly error: unknown; readonly durationMs: number };

export interface SupervisedRun {
  readonly outcome: RunOutcome;
  /** Set when the CLI cancelled the job (Ctrl-C, SIGTERM, or the time limit). */
  readonly stopReason: StopReason | undefined;
}

export interface SuperviseOptions {
  /** Cancel the job after this long; 0 or undefined runs until it ends. */
  readonly durationMs?: number;
  /** Called every `tickMs` while the job runs (live displays). */
  readonly onTick?: () => void;
  readonly tickMs?: number;
  /** Called once when a stop is requested, before the job has stopped. */
  readonly onStopRequested?: (reason: StopReason) => void;
  /**
   * How a requested stop stops the job; `client.cancel()` when omitted. The
   * outcome is still read from `client.result`: this promise's rejection is
   * ignored, so it should handle its own errors (a savepoint that failed).
   */
  readonly stop?: (reason: StopReason) => Promise<unknown>;
  /** Called on the second signal, right before the process exits with {@link forceExitCode}. */
  readonly onForcedExit?: () => void;
  readonly forceExitCode?: number;
  /**
   * Stop, as on SIGTERM, when the parent process exits. Under `npx`, `npm exec`
   * and `npm run`, npm starts the CLI through `sh -c` and passes a SIGTERM or
   * SIGINT it receives to that shell only; the shell dies of it without
   * passing it on, and the CLI would run on, orphaned.
   */
  readonly watchParent?: boolean;
  /** The parent to watch: the one the CLI had when it started (default: the current one). */
  readonly parentPid?: number;
  /** A stop signal that arrived before the job started ({@link holdStopSignals}): stop at once. */
  readonly pendingSignal?: NodeJS.Signals;
}

/** Signals caught before the job runs; see {@link holdStopSignals}. */
export interface HeldSignals {
  /** The CLI's parent when the hold began. */
  readonly parentPid: number;
  /** The first stop signal received so far, if any. */
  first(): NodeJS.Signals | undefined;
  /** Stops catching (after {@link superviseJob} has installed its own handlers). */
  release(): void;
}

/**
 * Catches SIGINT and SIGTERM from now until the job is supervised: without a
 * listener Node dies of the signal at once, so one sent while the module
 * loads or the job starts would kill the CLI without a summary or savepoint.
 */
export function holdStopSignals(): HeldSignals {
  let first: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    first ??= signal;
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return {
    parentPid: process.ppid,
    first: () => first,
    release: () => {
      for (const signal of SIGNALS) process.off(signal, onSignal);
    },
  };
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
/**
 * A second signal this soon after the first is the same request: npm passes
 * on the SIGINT that Ctrl-C has already sent its whole process group.
 */
const REPEATED_SIGNAL_MS = 1000;
const PARENT_POLL_MS = 200;

/** Whether npm started this process (`npx`, `npm exec`, `npm run`, `npm start`). */
export function startedByNpm(): boolean {
  return process.env.npm_lifecycle_event !== undefined;
}

/**
 * Waits for a running job while translating the outside world into job
 * control: the first SIGINT/SIGTERM (or the time limit) cancels the job
 * cleanly (or stops it as `options.stop` says, e.g. with a savepoint), so
 * sinks close and a summary can be printed; a second signal (a second or
 * more later) exits at once for when cancelling itself hangs. Always removes its signal
 * handlers and timers, whatever the outcome.
 */
export async function superviseJob(
  client: JobClient,
  options: SuperviseOptions = {},
): Promise<SupervisedRun> {
  const started = performance.now();
  let stopReason: StopReason | undefined;

  const requestStop = (reason: StopReason): void => {
    if (stopReason !== undefined) return;
    stopReason = reason;
    options.onStopRequested?.(reason);
    // The outcome is observed through `client.result` below.
    (options.stop?.(reason) ?? client.cancel()).catch(() => {});
  };
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    const now = performance.now();
    if (firstSignalAt === undefined) firstSignalAt = now;
    else if (now - firstSignalAt >= REPEATED_SIGNAL_MS) {
      options.onForcedExit?.();
      process.exit(options.forceExitCode ?? 130);
    }
    requestStop({ kind: 'signal', signal });
  };
  const parent = options.parentPid ?? process.ppid;
  const parentWatch =
    options.watchParent === true
      ? setInterval(() => {
          // Reparented: the parent is gone (process.ppid is read afresh on each access).
          if (process.ppid !== parent) requestStop({ kind: 'parent-exited' });
        }, PARENT_POLL_MS)
      : undefined;

  for (const signal of SIGNALS) process.on(signal, onSignal);
  if (options.pendingSignal !== undefined) onSignal(options.pendingSignal);
  const limit =
    options.durationMs !== undefined && options.durationMs > 0
      ? setTimeout(() => requestStop({ kind: 'duration' }), options.durationMs)
      : undefined;
  const ticker =
    options.onTick === undefined ? undefined : setInterval(options.onTick, options.tickMs ?? 250);
  // A job stuck on a promise that never settles (a sink whose close hangs) leaves
  // nothing in the event loop, and Node would exit silently with status 13. Stay
  // alive instead, so the user sees it hang and a second Ctrl-C ends it.
  const keepAlive = setInterval(() => {}, 60_000);

  try {
    const result = await client.result;
    return { outcome: { kind: result.status, result }, stopReason };
  } catch (error) {
    return {
      outcome: { kind: 'failed', error, durationMs: performance.now() - started },
      stopReason,
    };
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    clearTimeout(limit);
    clearInterval(ticker);
    clearInterval(keepAlive);
    clearInterval(parentWatch);
  }
}
