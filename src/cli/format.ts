/**
 * Human-readable renderings shared by the CLI's status lines, tables and
 * summaries. Kept free of I/O so views can be tested as pure functions.
 */

const counts = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A whole count with thousands separators: 20,000. */
export function formatCount(n: number): string {
  return counts.format(Math.round(n));
}

/** A duration for people: "850 ms", "3.2 s", "2 min 05 s", "1 h 02 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
  const totalSeconds = Math.floor(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes} min ${pad2(totalSeconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${pad2(minutes % 60)} min`;
}

/** Elapsed time as a clock: "0:07", "12:34", "1:02:03". */
export function formatElapsed(ms: number): string {
  const totalSeconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = pad2(totalSeconds % 60);
  return hours > 0 ? `${hours}:${pad2(minutes)}:${seconds}` : `${minutes}:${seconds}`;
}

/** Local wall-clock time of an epoch-ms timestamp: "14:03:27", or "14:03:27.4" with tenths. */
export function formatClock(epochMs: number, tenths = false): string {
  if (!Number.isFinite(epochMs)) return epochMs < 0 ? '—' : '∞';
  const d = new Date(epochMs);
  const base = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  return tenths ? `${base}.${Math.floor(d.getMilliseconds() / 100)}` : base;
}

/** A window's bounds as "14:03:25–14:03:30". */
export function formatSpan(startMs: number, endMs: number): string {
  return `${formatClock(startMs)}–${formatClock(endMs)}`;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
