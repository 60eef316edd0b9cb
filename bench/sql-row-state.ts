/**
 * The cost of writing SQL rows to keyed state with their values tagged (MAP, bytes, bigint,
 * NaN, -0), on the common path: flat rows of strings and numbers. In one process, on the
 * same rows, CPU-seconds of
 * - the row text a changelog side of a regular join keys a row by (`rowText`), against the
 *   plain `JSON.stringify` it was before MAP values were told apart;
 * - a join entry's snapshot JSON with the SQL row serializer, against the JSON default
 *   (identity) it replaced, each followed by the `JSON.stringify` a checkpoint file or the
 *   disk backend does.
 *
 *   npx tsx bench/sql-row-state.ts [rows] [rounds]
 */
import { cpuUsage } from 'node:process';
import { rowText } from '../src/runtime/operators/changelog/same-row.js';
import { ROW_SERIALIZER } from '../src/sql/planner/row-serializer.js';

const rowCount = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);

// Nexmark-like bid rows: ids, a price, strings, an epoch-ms time.
const rows = Array.from({ length: rowCount }, (_, i) => [
  i,
  i % 1000,
  (i * 37) % 100_000,
  `channel-${i % 10}`,
  `https://www.nexmark.com/${i % 97}/item.htm?query=1`,
  1_700_000_000_000 + i,
  '',
]);

function cpu(fn: () => number): number {
  const start = cpuUsage();
  let sink = 0;
  for (let r = 0; r < rounds; r++) sink += fn();
  const used = cpuUsage(start);
  if (sink === -1) console.log(sink);
  return (used.user + used.system) / 1e6;
}

const plainText = () => rows.reduce((n, r) => n + `j${JSON.stringify(r)}`.length, 0);
const taggedText = () => rows.reduce((n, r) => n + rowText(r).length, 0);
const jsonEntry = () => rows.reduce((n, r) => n + JSON.stringify([r, 1, 0]).length, 0);
const taggedEntry = () =>
  rows.reduce((n, r) => n + JSON.stringify([ROW_SERIALIZER.toJson(r), 1, 0]).length, 0);

// Warm up every path before measuring.
for (const f of [plainText, taggedText, jsonEntry, taggedEntry]) f();
const results = {
  'row text: j + JSON.stringify (before)': cpu(plainText),
  'row text: rowText (after)': cpu(taggedText),
  'entry JSON: identity + stringify (before)': cpu(jsonEntry),
  'entry JSON: SQL row serializer + stringify (after)': cpu(taggedEntry),
};
const [a, b, c, d] = Object.values(results) as [number, number, number, number];
console.log(`${rowCount} rows x ${rounds} rounds; CPU-seconds`);
for (const [name, s] of Object.entries(results)) console.log(`  ${name}: ${s.toFixed(3)}`);
console.log(`  rowText / JSON.stringify: ${(b / a).toFixed(2)}`);
console.log(`  tagged entry / JSON entry: ${(d / c).toFixed(2)}`);
