import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamEnvironment } from '../../index.js';
import type { DemoOptions } from '../args.js';
import { describeFailure, EXIT_FAILURE, EXIT_OK } from '../failure.js';
import { formatCount, formatDuration } from '../format.js';
import { type Observers, startObservers } from '../observe.js';
import { RateMeter } from '../rate-meter.js';
import type { CliIO } from '../run-command.js';
import { type StopReason, startedByNpm, stopReasonText, superviseJob } from '../supervise.js';
import { DemoBoard } from './demo-board.js';
import { buildClickDemo, DEMO_OPERATORS } from './demo-job.js';
import {
  type DemoDescription,
  type DemoStatus,
  renderFrame,
  renderPlainUpdate,
  renderSummary,
  statusText,
  TerminalScreen,
} from './terminal-view.js';

/** Redraws per second on a terminal: lively without costing the job noticeable time. */
const TTY_TICK_MS = 250;
/** Log lines every couple of seconds keep piped output readable. */
const PLAIN_TICK_MS = 2000;
/** With the web UI on, the demo checkpoints this often, so the UI has a history to show. */
const UI_CHECKPOINT_INTERVAL_MS = 2000;

/**
 * `weir demo`: runs the click-stream job with in-memory sinks and shows its
 * results live, as a redrawn screen on a terminal or as periodic plain lines
 * otherwise. Stops after --duration or on Ctrl-C, then prints a summary.
 */
export async function runDemoCommand(options: DemoOptions, io: CliIO): Promise<number> {
  // Its checkpoints are temporary: savepoints only where --savepoint-dir allows.
  const observers = await startObservers(options, { cwd: io.cwd, defaultSavepointDirs: [] });
  // Checkpoints (into a temporary directory, removed at the end) give the UI a history to show.
  const checkpointDir =
    options.uiPort === undefined ? undefined : await mkdtemp(join(tmpdir(), 'weir-demo-'));
  try {
    return await runDemo(options, io, observers, checkpointDir);
  } finally {
    await observers.close();
    if (checkpointDir !== undefined) await rm(checkpointDir, { recursive: true, force: true });
  }
}

async function runDemo(
  options: DemoOptions,
  io: CliIO,
  observers: Observers,
  checkpointDir: string | undefined,
): Promise<number> {
  const env = new StreamEnvironment({
    parallelism: options.parallelism,
    ...(checkpointDir === undefined
      ? {}
      : { checkpointing: { directory: checkpointDir, intervalMs: UI_CHECKPOINT_INTERVAL_MS } }),
  });
  const board = new DemoBoard();
  const links = [
    observers.uiUrl === undefined ? '' : `web UI ${observers.uiUrl}`,
    observers.metricsUrl === undefined ? '' : `metrics ${observers.metricsUrl}`,
  ].filter((l) => l.length > 0);
  const description: DemoDescription = {
    rate: options.rate,
    windowMs: options.windowMs,
    parallelism: options.parallelism,
    ...(links.length === 0 ? {} : { links: links.join(' · ') }),
  };
  buildClickDemo(
    env,
    { startTime: Date.now(), ratePerSecond: options.rate, windowMs: options.windowMs },
    board.outputs(),
  );

  const client = env.executeAsync('weir demo');
  observers.attach(client);
  const started = performance.now();
  const meter = new RateMeter();
  const sample = (): DemoStatus => {
    const eventsTotal = client.metrics.total('weir_source_records_total');
    const elapsedMs = performance.now() - started;
    return {
      now: Date.now(),
      elapsedMs,
      limitMs: options.durationMs,
      eventsTotal,
      eventsPerSecond: meter.sample(eventsTotal, elapsedMs),
      watermark: board.currentWatermark(),
      lateRecords: client.metrics.total('weir_window_late_records_total', {
        operator: DEMO_OPERATORS.pageCounts,
      }),
    };
  };

  sample(); // the rate meter's starting point
  const tty = io.stdout.isTTY === true;
  const screen = tty ? new TerminalScreen(io.stdout, colorWanted(io.stdout)) : undefined;
  const write = (lines: readonly string[]): void => {
    if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
  };
  const drawScreen = (status: DemoStatus): void =>
    screen?.draw(renderFrame(board, status, description, { rows: io.stdout.rows ?? 24 }));

  if (screen === undefined) {
    write([
      `weir demo: ${formatCount(options.rate)} clicks/s, ${formatDuration(options.windowMs)} windows per page, ` +
        `sessions per user, parallelism ${options.parallelism}. Press Ctrl-C to stop.`,
      ...(description.links === undefined ? [] : [`Open the ${description.links}`]),
    ]);
  } else {
    screen.enter();
    drawScreen(sample());
  }

  const run = await superviseJob(client, {
    watchParent: startedByNpm(),
    durationMs: options.durationMs,
    tickMs: screen === undefined ? PLAIN_TICK_MS : TTY_TICK_MS,
    onTick: () => {
      const status = sample();
      if (screen === undefined) write(renderPlainUpdate(board, status));
      else drawScreen(status);
    },
    onStopRequested: (reason) => {
      if (screen === undefined) write([`stopping (${stopText(reason)})…`]);
    },
    onForcedExit: () => {
      screen?.leave();
      io.stderr.write('weir: forced exit\n');
    },
  });

  const final = sample();
  if (screen !== undefined) {
    screen.leave();
    const frame = renderFrame(board, final, description, { rows: 40 }, true);
    write(frame.map((line) => screen.styled(line, io.stdout.columns ?? 80)));
  } else {
    write(renderPlainUpdate(board, final));
  }

  if (run.outcome.kind === 'failed') {
    const [message, ...details] = describeFailure(run.outcome.error, options.verbose);
    io.stderr.write(`✗ the demo failed: ${message}\n${details.map((d) => `${d}\n`).join('')}`);
    io.stderr.write(`  at: ${statusText(final, ' · ')}\n`);
    return EXIT_FAILURE;
  }
  const stoppedBy = run.stopReason === undefined ? 'input ended' : stopText(run.stopReason);
  write(['', ...renderSummary(board, final, stoppedBy)]);
  return EXIT_OK;
}

function stopText(reason: StopReason): string {
  if (reason.kind === 'duration') return 'time limit reached';
  return reason.kind === 'signal' ? `${reason.signal} received` : stopReasonText(reason);
}

/** Colour only for people: a terminal that is not "dumb", and no NO_COLOR (https://no-color.org). */
function colorWanted(stream: NodeJS.WriteStream): boolean {
  const noColor = process.env.NO_COLOR;
  return (
    stream.isTTY === true &&
    (noColor === undefined || noColor === '') &&
    process.env.TERM !== 'dumb'
  );
}
