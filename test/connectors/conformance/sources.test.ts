/**
 * The source conformance checks (weir/testing) for every source that needs
 * no external server: collections, generators, files and directories, Nexmark.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  NexmarkSource,
  nexmarkConfig,
  nexmarkEvent,
} from '../../../src/connectors/nexmark/index.js';
import {
  ArraySource,
  DirectorySource,
  FileFormat,
  FileSource,
  GeneratorSource,
} from '../../../src/index.js';
import { sourceChecks } from '../../../src/testing/index.js';
import { conformance } from './register.js';

let dir = '';
const rows = Array.from({ length: 23 }, (_, i) => ({ id: i, name: `n${i}` }));
const jsonl = (xs: readonly object[]) => xs.map((r) => `${JSON.stringify(r)}\n`).join('');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-source-conformance-'));
  await writeFile(join(dir, 'rows.jsonl'), jsonl(rows));
  await writeFile(join(dir, 'more.jsonl'), jsonl(rows.slice(0, 5)));
  await writeFile(
    join(dir, 'rows.csv'),
    `id,name\n${rows.map((r) => `${r.id},${r.name}`).join('\n')}\n`,
  );
  await mkdir(join(dir, 'incoming'));
  await writeFile(join(dir, 'incoming', 'a.jsonl'), jsonl(rows.slice(0, 10)));
  await writeFile(join(dir, 'incoming', 'b.jsonl'), jsonl(rows.slice(10)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const missing = () => join(dir, 'missing.jsonl');

conformance('ArraySource', sourceChecks({ create: () => new ArraySource(rows), expected: rows }));

conformance(
  'GeneratorSource',
  sourceChecks({
    create: () => new GeneratorSource({ count: 20, generate: (i) => ({ i, square: i * i }) }),
    expected: Array.from({ length: 20 }, (_, i) => ({ i, square: i * i })),
  }),
);

conformance(
  'FileSource (JSON Lines)',
  sourceChecks({
    create: () =>
      new FileSource([join(dir, 'rows.jsonl'), join(dir, 'more.jsonl')], FileFormat.jsonLines()),
    expected: [...rows, ...rows.slice(0, 5)],
    createFailing: () => new FileSource(missing(), FileFormat.jsonLines()),
  }),
);

conformance(
  'FileSource (CSV)',
  sourceChecks({
    create: () => new FileSource(join(dir, 'rows.csv'), FileFormat.csv({ header: true })),
    expected: rows.map((r) => ({ id: String(r.id), name: r.name })),
    createFailing: () => new FileSource(join(dir, 'missing.csv'), FileFormat.csv({ header: true })),
  }),
);

conformance(
  'DirectorySource',
  sourceChecks({
    create: () =>
      new DirectorySource(join(dir, 'incoming'), FileFormat.jsonLines(), { pollIntervalMs: 20 }),
    expected: rows,
    createFailing: () => new DirectorySource(join(dir, 'no-such-dir'), FileFormat.jsonLines()),
  }),
);

const smallNexmark = { maxEvents: 40, firstEventRate: 1_000_000, nextEventRate: 1_000_000 };
conformance(
  'NexmarkSource',
  sourceChecks({
    create: () => new NexmarkSource({ config: smallNexmark }),
    expected: Array.from({ length: 40 }, (_, i) => nexmarkEvent(i, nexmarkConfig(smallNexmark))),
  }),
);
