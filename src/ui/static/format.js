/** Number and time renderings of the web UI. Pure functions, no DOM. */

const counts = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 1,234,567 */
export function count(n) {
  return n === null || n === undefined ? '–' : counts.format(Math.round(n));
}

/** 950, 12.3k, 4.56M: compact, for rates in the graph. */
export function compact(n) {
  if (n === null || n === undefined) return '–';
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toFixed(abs >= 1e10 ? 1 : 2)}G`;
  if (abs >= 1e6) return `${(n / 1e6).toFixed(abs >= 1e7 ? 1 : 2)}M`;
  if (abs >= 1e3) return `${(n / 1e3).toFixed(abs >= 1e4 ? 1 : 2)}k`;
  return abs >= 10 || n === 0 ? String(Math.round(n)) : n.toFixed(1);
}

/** "42%" */
export function percent(ratio) {
  return ratio === null || ratio === undefined ? '–' : `${Math.round(ratio * 100)}%`;
}

/** "850 ms", "3.2 s", "2 min 05 s", "1 h 02 min" */
export function duration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 0) return `-${duration(-ms)}`;
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Local time of an epoch-ms timestamp: "14:03:27.4". */
export function clock(epochMs, tenths = true) {
  if (epochMs === null || epochMs === undefined) return '–';
  const d = new Date(epochMs);
  const pad = (n) => String(n).padStart(2, '0');
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return tenths ? `${base}.${Math.floor(d.getMilliseconds() / 100)}` : base;
}

/** "12.4 KB" */
export function bytes(n) {
  if (n === null || n === undefined) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** "3 s ago" */
export function ago(epochMs, now = Date.now()) {
  if (epochMs === null || epochMs === undefined) return '–';
  return `${duration(Math.max(0, now - epochMs))} ago`;
}
