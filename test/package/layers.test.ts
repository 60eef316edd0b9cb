/**
 * The layer rules of .dependency-cruiser.cjs: the table in
 * docs/architecture.md says what they say, and every kind of rule catches a
 * violation planted in a small source tree (so a rule that matches nothing,
 * say after a folder moves, cannot pass unnoticed).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const configPath = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Rule {
  readonly name: string;
}
const config = createRequire(import.meta.url)(configPath) as { forbidden: readonly Rule[] };

/** Forbidden layer pairs, from the rule names `layer-<from>-not-<to>`. */
function forbiddenPairsOfConfig(): string[] {
  return config.forbidden
    .map((r) => /^layer-(\w+)-not-(\w+)$/.exec(r.name))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} -> ${m[2]}`)
    .sort();
}

/**
 * Forbidden layer pairs, from the table under "What may import what" in
 * docs/architecture.md: one row per importing layer, one column per imported
 * layer, `no` where the import is forbidden.
 */
async function forbiddenPairsOfDocs(): Promise<string[]> {
  const doc = await readFile(join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.split('## What may import what')[1] ?? '';
  // The first table of the section.
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  const rows = lines.slice(start, end).map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replaceAll('`', '')),
  );
  const [header, , ...body] = rows;
  if (!header) return [];
  const pairs: string[] = [];
  for (const row of body) {
    row.forEach((cell, i) => {
      if (cell === 'no') pairs.push(`${row[0]} -> ${header[i]}`);
    });
  }
  return pairs.sort();
}

describe('layer rules', () => {
  it('are the table in docs/architecture.md', async () => {
    const fromConfig = forbiddenPairsOfConfig();
    expect(fromConfig.length).toBeGreaterThan(0);
    expect(await forbiddenPairsOfDocs()).toEqual(fromConfig);
  });

  describe('on a tree with planted violations', () => {
    let tree: string | undefined;
    afterAll(async () => {
      if (tree) await rm(tree, { recursive: true, force: true });
    });

    const files: Readonly<Record<string, string>> = {
      'src/core/contract.ts': "import { run } from '../runtime/task.js';\nexport const c = run;\n",
      'src/runtime/task.ts': "import { plan } from '../plan/plan.js';\nexport const run = plan;\n",
      'src/plan/plan.ts': 'export const plan = 1;\n',
      'src/connectors/files/source.ts':
        "import pg from 'pg';\nimport { k } from '../kafka/source.js';\nexport const f = [pg, k];\n",
      'src/connectors/kafka/source.ts':
        "import { Kafka } from '@platformatic/kafka';\nexport const k = Kafka;\n",
      'src/connectors/postgres/cdc.ts': "import pg from 'pg';\nexport const cdc = pg;\n",
      'src/api/stream.ts':
        "import type { Other } from './other.js';\nimport { cdc } from '../connectors/postgres/cdc.js';\nexport interface Stream { o?: Other }\nexport const s = cdc;\n",
      'src/api/other.ts':
        "import type { Stream } from './stream.js';\nexport type Other = Stream;\n",
      'src/ui/server.ts': 'export const ui = 1;\n',
      'src/metrics/metrics-server.ts': 'export const server = 1;\n',
      'src/metrics/index.ts':
        "export { run } from '../runtime/task.js';\nexport { server } from './metrics-server.js';\n",
      'src/index.ts':
        "export { s } from './api/stream.js';\nexport { ui } from './ui/server.js';\nexport { server } from './metrics/metrics-server.js';\n",
      'src/util/unused.ts': 'export const unused = 1;\n',
      'src/runtime/checkpoint/store/s3-client.ts':
        "import { S3Client } from '@aws-sdk/client-s3';\nexport const client = S3Client;\n",
      'src/runtime/checkpoint/store/s3-store.ts':
        "import { S3Client } from '@aws-sdk/client-s3';\nimport { client } from './s3-client.js';\nexport const store = [S3Client, client, import('./s3-client.js')];\n",
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
      }),
    };

    it('reports each kind of violation, and only those', async () => {
      tree = await mkdtemp(join(tmpdir(), 'weir-layers-'));
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(tree, path)), { recursive: true });
        await writeFile(join(tree, path), text);
      }
      const json = await run(
        process.execPath,
        [depcruise, 'src', '--config', configPath, '--output-type', 'json'],
        { cwd: tree },
      ).then(
        ({ stdout }) => stdout,
        (error: { stdout: string }) => error.stdout,
      );
      const result = JSON.parse(json) as {
        summary: { violations: { rule: { name: string }; from: string; to: string }[] };
      };
      const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
      expect(found.sort()).toEqual(
        [
          'layer-core-not-runtime: src/core/contract.ts -> src/runtime/task.ts',
          'core-imports-nothing-of-ours: src/core/contract.ts -> src/runtime/task.ts',
          'layer-runtime-not-plan: src/runtime/task.ts -> src/plan/plan.ts',
          'connector-not-other-connector: src/connectors/files/source.ts -> src/connectors/kafka/source.ts',
          'postgres-client-only-in-its-connector: src/connectors/files/source.ts -> pg',
          // A cycle is reported once, from one of its modules; this one is type-only.
          'no-cycles: src/api/other.ts -> src/api/stream.ts',
          'layer-sql-not-ui: src/index.ts -> src/ui/server.ts',
          'entry-point-stays-light: src/index.ts -> src/ui/server.ts',
          'entry-point-stays-light: src/index.ts -> src/metrics/metrics-server.ts',
          'entry-point-never-reaches-kafka-postgres-ui: src/index.ts -> pg',
          'entry-point-never-reaches-kafka-postgres-ui: src/index.ts -> src/connectors/postgres/cdc.ts',
          'entry-point-never-reaches-kafka-postgres-ui: src/index.ts -> src/ui/server.ts',
          'no-orphans: src/util/unused.ts -> src/util/unused.ts',
          'aws-sdk-only-in-s3-client: src/runtime/checkpoint/store/s3-store.ts -> @aws-sdk/client-s3',
          's3-client-loaded-on-demand: src/runtime/checkpoint/store/s3-store.ts -> src/runtime/checkpoint/store/s3-client.ts',
        ].sort(),
      );
    });
  });
});
