import type { WrittenRow } from '../core/replay.js';
import type { Json } from '../core/snapshot.js';
import { canonicalJson } from './canonical-json.js';

/** How two outputs are lined up and when two rows are equal. */
export interface CompareOptions {
  /** `append`: rows with one identity are compared as a multiset; `upsert`: the last row per identity. */
  readonly mode: 'append' | 'upsert';
  /**
   * Fields that identify a row, as dotted paths into its value (`window.end`,
   * `user.id`), `$key` for the sink's key. Default: the sink's key, plus the
   * window (`window.start`, `window.end`, and `key` of a window result) when
   * the row has one; a row with neither is its own identity.
   */
  readonly keyFields?: readonly string[];
  /**
   * Numbers within this relative difference are equal: |a - b| <= tolerance *
   * max(1, |a|, |b|). Applies to JSON numbers and to numeric strings (as
   * PostgreSQL numeric columns read). Default 0: exact.
   */
  readonly tolerance?: number;
  /**
   * Compare only rows whose time is in [from, to): a row's timestamp when the
   * sink keeps one, else a window result's last millisecond (`window.end - 1`);
   * rows with neither always count.
   */
  readonly from?: number;
  readonly to?: number;
  /** How many differences to keep in full. Default 20. */
  readonly maxShown?: number;
  /** Why a difference at this row is expected (for example late data), or undefined. */
  readonly explain?: (row: WrittenRow) => string | undefined;
}

export type DifferenceKind = 'missing' | 'extra' | 'differing';

/** One row that is not the same in both outputs. */
export interface Difference {
  readonly kind: DifferenceKind;
  readonly identity: string;
  /** The row the replay computed (missing, differing). */
  readonly expected?: WrittenRow;
  /** The row the streaming job wrote (extra, differing). */
  readonly written?: WrittenRow;
  /** Differing rows: the dotted paths whose values differ. */
  readonly fields?: readonly string[];
  /** Set when the difference has a known cause (such as late data), and so is not a divergence. */
  readonly explainedBy?: string;
}

export interface ComparisonResult {
  readonly expectedRows: number;
  readonly writtenRows: number;
  /** Rows left out by the time range, on both sides together. */
  readonly outOfRange: number;
  readonly matched: number;
  readonly missing: number;
  readonly extra: number;
  readonly differing: number;
  /** Differences with a known cause (counted in missing/extra/differing too). */
  readonly explained: number;
  /** Differences without one: non-zero means the outputs diverge. */
  readonly divergent: number;
  /** The first differences, unexplained ones first. */
  readonly differences: readonly Difference[];
}

interface Group {
  expected: WrittenRow[];
  written: WrittenRow[];
}

/** Lines up the replay's rows with the streaming job's and counts what differs. */
export async function compareOutputs(
  expected: AsyncIterable<WrittenRow>,
  written: AsyncIterable<WrittenRow>,
  options: CompareOptions,
): Promise<ComparisonResult> {
  const identify = identityOf(options.keyFields);
  const groups = new Map<string, Group>();
  let expectedRows = 0;
  let writtenRows = 0;
  let outOfRange = 0;
  const inRange = (row: WrittenRow) => {
    const time = row.timestamp ?? lastMillisecond(row.value);
    return (
      time === undefined ||
      ((options.from === undefined || time >= options.from) &&
        (options.to === undefined || time < options.to))
    );
  };
  const add = (row: WrittenRow, side: keyof Group) => {
    const id = identify(row);
    let group = groups.get(id);
    if (group === undefined) {
      group = { expected: [], written: [] };
      groups.set(id, group);
    }
    if (options.mode === 'upsert') group[side] = [row];
    else group[side].push(row);
  };
  for await (const row of expected) {
    if (!inRange(row)) outOfRange++;
    else {
      expectedRows++;
      add(row, 'expected');
    }
  }
  for await (const row of written) {
    if (!inRange(row)) outOfRange++;
    else {
      writtenRows++;
      add(row, 'written');
    }
  }

  const tolerance = options.tolerance ?? 0;
  const maxShown = options.maxShown ?? 20;
  const shownUnexplained: Difference[] = [];
  const shownExplained: Difference[] = [];
  const counts = { matched: 0, missing: 0, extra: 0, differing: 0, explained: 0 };
  const record = (d: Difference) => {
    counts[d.kind]++;
    if (d.explainedBy !== undefined) counts.explained++;
    const list = d.explainedBy === undefined ? shownUnexplained : shownExplained;
    if (list.length < maxShown) list.push(d);
  };
  const explain = (row: WrittenRow | undefined) =>
    row === undefined ? undefined : options.explain?.(row);

  for (const [identity, group] of groups) {
    const unmatched = matchEqual(group, tolerance, counts);
    const pairs = Math.min(unmatched.expected.length, unmatched.written.length);
    for (let i = 0; i < pairs; i++) {
      const e = unmatched.expected[i]!;
      const w = unmatched.written[i]!;
      const explainedBy = explain(e) ?? explain(w);
      record({
        kind: 'differing',
        identity,
        expected: e,
        written: w,
        fields: differingPaths(e.value, w.value, tolerance),
        ...(explainedBy === undefined ? {} : { explainedBy }),
      });
    }
    for (const e of unmatched.expected.slice(pairs)) {
      const explainedBy = explain(e);
      record({ kind: 'missing', identity, expected: e, ...(explainedBy ? { explainedBy } : {}) });
    }
    for (const w of unmatched.written.slice(pairs)) {
      const explainedBy = explain(w);
      record({ kind: 'extra', identity, written: w, ...(explainedBy ? { explainedBy } : {}) });
    }
  }
  const differences = [...shownUnexplained, ...shownExplained].slice(0, maxShown);
  const all = counts.missing + counts.extra + counts.differing;
  return {
    expectedRows,
    writtenRows,
    outOfRange,
    ...counts,
    divergent: all - counts.explained,
    differences,
  };
}

/** Removes the rows that have an equal partner on the other side; returns what is left. */
function matchEqual(group: Group, tolerance: number, counts: { matched: number }): Group {
  if (group.expected.length === 1 && group.written.length === 1) {
    if (equalJson(group.expected[0]!.value, group.written[0]!.value, tolerance)) {
      counts.matched++;
      return { expected: [], written: [] };
    }
    return group;
  }
  // Exact matches first through their text, then what is equal within tolerance.
  const byText = new Map<string, WrittenRow[]>();
  for (const w of group.written) {
    const text = canonicalJson(w.value);
    const list = byText.get(text);
    if (list === undefined) byText.set(text, [w]);
    else list.push(w);
  }
  const leftExpected: WrittenRow[] = [];
  for (const e of group.expected) {
    const list = byText.get(canonicalJson(e.value));
    if (list !== undefined && list.length > 0) {
      list.pop();
      counts.matched++;
    } else leftExpected.push(e);
  }
  let leftWritten = [...byText.values()].flat();
  if (tolerance > 0 && leftExpected.length > 0 && leftWritten.length > 0) {
    const stillExpected: WrittenRow[] = [];
    for (const e of leftExpected) {
      const i = leftWritten.findIndex((w) => equalJson(e.value, w.value, tolerance));
      if (i < 0) stillExpected.push(e);
      else {
        leftWritten = [...leftWritten.slice(0, i), ...leftWritten.slice(i + 1)];
        counts.matched++;
      }
    }
    return { expected: stillExpected, written: leftWritten };
  }
  return { expected: leftExpected, written: leftWritten };
}

/** The identity function of {@link CompareOptions.keyFields}. */
export function identityOf(keyFields: readonly string[] | undefined): (row: WrittenRow) => string {
  if (keyFields !== undefined && keyFields.length > 0) {
    return (row) =>
      canonicalJson(
        keyFields.map((f) => (f === '$key' ? (row.key ?? null) : pathValue(row.value, f))),
      );
  }
  return (row) => {
    const window = windowOf(row.value);
    if (window === undefined) {
      return row.key === undefined ? canonicalJson(row.value) : canonicalJson([row.key]);
    }
    return canonicalJson([row.key ?? null, window.key, window.start, window.end]);
  };
}

/** The key and bounds of a window result's JSON (`{ key, window: { start, end }, ... }`), if it is one. */
export function windowOf(
  value: Json,
): { readonly key: Json; readonly start: number; readonly end: number } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const window = value.window;
  if (typeof window !== 'object' || window === null || Array.isArray(window)) return undefined;
  const { start, end } = window;
  if (typeof start !== 'number' || typeof end !== 'number') return undefined;
  return { key: value.key ?? null, start, end };
}

function lastMillisecond(value: Json): number | undefined {
  const window = windowOf(value);
  return window === undefined ? undefined : window.end - 1;
}

function pathValue(value: Json, path: string): Json {
  let at: Json | undefined = value;
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null) return null;
    at = Array.isArray(at) ? at[Number(part)] : at[part];
  }
  return at ?? null;
}

/** Deep equality of JSON values, numbers (and numeric strings) within `tolerance`. */
export function equalJson(a: Json, b: Json, tolerance: number): boolean {
  if (a === b) return true;
  if (tolerance > 0) {
    const x = numeric(a);
    const y = numeric(b);
    if (x !== undefined && y !== undefined) return closeEnough(x, y, tolerance);
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => equalJson(v, b[i]!, tolerance));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k in b && equalJson(a[k]!, b[k]!, tolerance));
}

function numeric(v: Json): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v))
    return Number(v);
  return undefined;
}

function closeEnough(x: number, y: number, tolerance: number): boolean {
  return Math.abs(x - y) <= tolerance * Math.max(1, Math.abs(x), Math.abs(y));
}

/** The dotted paths at which two JSON values differ (the whole value: ``). */
export function differingPaths(a: Json, b: Json, tolerance: number, at = ''): string[] {
  if (equalJson(a, b, tolerance)) return [];
  const bothObjects =
    typeof a === 'object' &&
    typeof b === 'object' &&
    a !== null &&
    b !== null &&
    Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) return [at === '' ? '(value)' : at];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out: string[] = [];
  for (const k of keys) {
    const path = at === '' ? k : `${at}.${k}`;
    const x = (a as Record<string, Json>)[k];
    const y = (b as Record<string, Json>)[k];
    if (x === undefined || y === undefined) out.push(path);
    else out.push(...differingPaths(x, y, tolerance, path));
  }
  return out;
}
