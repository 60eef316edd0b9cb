import { formatClock, formatCount, formatDuration, formatElapsed, formatSpan } from '../format.js';
import { renderTable } from '../table.js';
import type { DemoBoard } from './demo-board.js';
import { DEMO_TIMING } from './demo-job.js';

/** Live numbers of the running demo, sampled by the command on every tick. */
export interface DemoStatus {
  /** Wall-clock time of the sample, epoch ms. */
  readonly now: number;
  readonly elapsedMs: number;
  /** The --duration limit in ms; 0 when the demo runs until Ctrl-C. */
  readonly limitMs: number;
  readonly eventsPerSecond: number;
  readonly eventsTotal: number;
  readonly watermark: number;
  /** Clicks too late for their page-count window (from the window operator's metric). */
  readonly lateRecords: number;
}

/** The demo's fixed settings, shown in the title and summary. */
export interface DemoDescription {
  readonly rate: number;
  readonly windowMs: number;
  readonly parallelism: number;
  /** Where the web UI and metrics are served, when they are. */
  readonly links?: string;
}

export interface StyledLine {
  readonly text: string;
  readonly style?: 'heading' | 'muted';
}

/** "14:03:27.4 (0.6 s behind)", or a dash before the first watermark. */
function watermarkText(watermark: number, now: number): string {
  if (!Number.isFinite(watermark)) return '— (none yet)';
  return `${formatClock(watermark, true)} (${formatDuration(Math.max(0, now - watermark))} behind)`;
}

function elapsedText(status: DemoStatus): string {
  const elapsed = formatElapsed(status.elapsedMs);
  return status.limitMs > 0 ? `${elapsed} of ${formatElapsed(status.limitMs)}` : elapsed;
}

/** The one-line status: throughput, event time, late data, time running. */
export function statusText(status: DemoStatus, separator = ' │ '): string {
  return [
    `${formatCount(status.eventsPerSecond)} events/s`,
    `watermark ${watermarkText(status.watermark, status.now)}`,
    `late ${formatCount(status.lateRecords)}`,
    elapsedText(status),
  ].join(separator);
}

function title(d: DemoDescription): string {
  return (
    `weir demo · ${formatCount(d.rate)} clicks/s · ${formatDuration(d.windowMs)} tumbling windows per page` +
    ` · sessions per user (gap ${formatDuration(DEMO_TIMING.sessionGapMs)})` +
    (d.parallelism > 1 ? ` · parallelism ${d.parallelism}` : '')
  );
}

function windowLines(board: DemoBoard, status: DemoStatus, d: DemoDescription, limit: number) {
  const rows = board.recentWindows(limit);
  if (rows.length === 0) {
    if (!Number.isFinite(status.watermark)) return ['(waiting for the first watermark)'];
    const firstEnd = Math.floor(status.watermark / d.windowMs) * d.windowMs + d.windowMs;
    return [`(first results when the watermark passes ${formatClock(firstEnd)})`];
  }
  return renderTable(
    [
      { header: 'PAGE' },
      { header: 'WINDOW' },
      { header: 'COUNT', align: 'right' },
      { header: 'UPDATED' },
    ],
    rows.map((r) => [
      r.page,
      formatSpan(r.start, r.end),
      formatCount(r.count),
      r.updates === 0 ? 'no' : `yes ×${r.updates}`,
    ]),
  );
}

function sessionLines(board: DemoBoard, limit: number): string[] {
  const rows = board.recentSessions(limit);
  if (rows.length === 0) {
    return [
      `(none closed yet: a session ends ${formatDuration(DEMO_TIMING.sessionGapMs)} after a user's last click)`,
    ];
  }
  return renderTable(
    [
      { header: 'USER' },
      { header: 'FIRST CLICK' },
      { header: 'LAST CLICK' },
      { header: 'LENGTH', align: 'right' },
      { header: 'CLICKS', align: 'right' },
      { header: 'PAGES', align: 'right' },
    ],
    rows.map((s) => [
      s.user,
      formatClock(s.first),
      formatClock(s.last),
      formatDuration(s.last - s.first),
      formatCount(s.clicks),
      String(s.pages),
    ]),
  );
}

function lateLine(board: DemoBoard): string {
  const late = board.latestLate;
  const head = `Late clicks sent to the side output: ${formatCount(board.lateClicks)}`;
  if (late === undefined) return head;
  const { click, arrivedAt } = late;
  return `${head} · latest: ${click.user} on ${click.page} at ${formatClock(click.timestamp, true)}, arrived ${formatDuration(arrivedAt - click.timestamp)} after it happened`;
}

/**
 * The full-screen view: title, status, the latest page counts, recent
 * sessions and late data. Table lengths follow the terminal height; lines
 * are cut to its width by the screen, never wrapped (wrapping would break
 * redrawing in place).
 */
export function renderFrame(
  board: DemoBoard,
  status: DemoStatus,
  description: DemoDescription,
  size: { readonly rows: number },
  final = false,
): StyledLine[] {
  const spare = Math.max(2, size.rows - 11 - (description.links === undefined ? 0 : 1));
  const windowRows = Math.min(12, Math.max(1, Math.ceil(spare * 0.6)));
  const sessionRows = Math.min(6, Math.max(1, spare - windowRows));
  const table = (lines: string[]): StyledLine[] =>
    lines.map((text, i) => (i === 0 && lines.length > 1 ? { text, style: 'muted' } : { text }));
  const lines: StyledLine[] = [
    { text: title(description), style: 'heading' },
    { text: statusText(status) + (final ? '' : ' │ Ctrl-C to stop') },
    ...(description.links === undefined || final
      ? []
      : [{ text: description.links, style: 'muted' } as const]),
    { text: '' },
    { text: 'Page counts: latest windows (event time)', style: 'heading' },
    ...table(windowLines(board, status, description, windowRows)),
    { text: '' },
    {
      text: `Sessions: most recently closed (${formatCount(board.sessionsClosed)} so far)`,
      style: 'heading',
    },
    ...table(sessionLines(board, sessionRows)),
    { text: '' },
    { text: lateLine(board) },
  ];
  return final ? lines : lines.slice(0, size.rows);
}

/**
 * The log-friendly view, printed every couple of seconds when stdout is not a
 * terminal: a status line, then one line per window period that closed since.
 */
export function renderPlainUpdate(board: DemoBoard, status: DemoStatus): string[] {
  const stamp = `[${formatClock(status.now)}]`;
  const lines = [
    `${stamp} ${statusText(status, ' · ')} · sessions ${formatCount(board.sessionsClosed)} · updates ${formatCount(board.windowUpdates)}`,
  ];
  for (const period of board.takeNewPeriods()) {
    const counts = period.rows.map((r) => `${r.page} ${formatCount(r.count)}`).join(' · ');
    lines.push(`${stamp} window ${formatSpan(period.start, period.end)}: ${counts}`);
  }
  return lines;
}

export function renderSummary(board: DemoBoard, status: DemoStatus, stoppedBy: string): string[] {
  const perSecond = status.elapsedMs > 0 ? (status.eventsTotal * 1000) / status.elapsedMs : 0;
  return [
    `Demo stopped after ${formatDuration(status.elapsedMs)} (${stoppedBy}).`,
    `  events read      ${formatCount(status.eventsTotal)} (${formatCount(perSecond)}/s)`,
    `  window results   ${formatCount(board.windowResults)}, plus ${formatCount(board.windowUpdates)} updates from stragglers`,
    `  sessions closed  ${formatCount(board.sessionsClosed)}`,
    `  late clicks      ${formatCount(board.lateClicks)} to the side output`,
    `  last watermark   ${watermarkText(status.watermark, status.now)}`,
  ];
}

const ESC = '\x1b[';

/**
 * Draws frames in place on a terminal. It uses the alternate screen, so the
 * shell's scrollback is left as it was, and writes each frame as one string
 * (cursor home, lines each clearing their rest, clear below): no flicker.
 */
export class TerminalScreen {
  private open = false;
  private readonly restoreOnExit = (): void => this.leave();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly color: boolean,
  ) {}

  enter(): void {
    if (this.open) return;
    this.open = true;
    this.out.write(`${ESC}?1049h${ESC}?25l${ESC}H${ESC}2J`);
    // Even on a forced exit the terminal must get its normal screen and cursor back.
    process.once('exit', this.restoreOnExit);
  }

  draw(lines: readonly StyledLine[]): void {
    const width = Math.max(20, this.out.columns ?? 80);
    // No newline after the last line: on a full screen it would scroll the first line away.
    const body = lines.map((line) => `${this.styled(line, width)}${ESC}K`).join('\n');
    this.out.write(`${ESC}H${body}${ESC}J`);
  }

  leave(): void {
    if (!this.open) return;
    this.open = false;
    process.off('exit', this.restoreOnExit);
    this.out.write(`${ESC}?25h${ESC}?1049l`);
  }

  /** A line cut to the terminal width, then styled (escape codes must not count towards the width). */
  styled(line: StyledLine, width: number): string {
    const text = line.text.length > width - 1 ? `${line.text.slice(0, width - 2)}…` : line.text;
    if (!this.color || line.style === undefined) return text;
    return line.style === 'heading' ? `${ESC}1m${text}${ESC}0m` : `${ESC}2m${text}${ESC}0m`;
  }
}
