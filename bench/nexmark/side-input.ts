/**
 * q13's side input: a bounded table of {@link SIDE_INPUT_ROWS} rows `key -> value` (the value is
 * the key's decimal string, as the reference's side input generator writes it), given to both
 * engines as one CSV file of `key,value` lines. Bids look it up by `auction % SIDE_INPUT_ROWS`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Rows of the side input: keys 0 .. 9,999, so every bid's `auction % 10000` finds one. */
export const SIDE_INPUT_ROWS = 10_000;

/** The CSV text of the side input. */
export function sideInputCsv(rows = SIDE_INPUT_ROWS): string {
  const lines: string[] = [];
  for (let key = 0; key < rows; key++) lines.push(`${key},${key}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Path of the side input's CSV file, written (atomically) under the system's temporary
 * directory unless it is already there with the expected contents.
 */
export function sideInputFile(rows = SIDE_INPUT_ROWS): string {
  const dir = join(tmpdir(), 'weir-nexmark');
  const path = join(dir, `side-input-${rows}.csv`);
  const csv = sideInputCsv(rows);
  if (existsSync(path) && readFileSync(path, 'utf8') === csv) return path;
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, csv);
  renameSync(tmp, path);
  return path;
}

/**
 * Reads a side input CSV file into a map; throws naming the line for anything but `key,value`
 * with an integer key.
 */
export function readSideInput(path: string): Map<number, string> {
  const table = new Map<number, string>();
  const lines = readFileSync(path, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const comma = line.indexOf(',');
    const key = comma > 0 ? Number(line.slice(0, comma)) : Number.NaN;
    if (!Number.isSafeInteger(key)) {
      throw new Error(`${path}:${i + 1}: expected 'key,value' with an integer key, got '${line}'`);
    }
    table.set(key, line.slice(comma + 1));
  }
  return table;
}
