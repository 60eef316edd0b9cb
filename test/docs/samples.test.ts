/**
 * The code samples of the README and the user guides compile, and those of the testing guide
 * pass. Every ```ts block of DOCS is type-checked as written (importing
 * `weir`, `weir/testing`, ... as a user would), each as its own module; a
 * block whose opening line names a file (```ts word-count.job.ts) is that
 * file, beside the others of its page. The blocks of RUN that import vitest
 * are then written to test/docs/.samples/ (with the `weir` imports pointed at
 * src/) and imported here, so their tests run as part of this file.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const DOCS = [
  'README.md',
  'docs/getting-started.md',
  'docs/testing-jobs.md',
  'docs/connectors/generator.md',
  'docs/connectors/collection.md',
  'docs/connectors/print.md',
  'docs/connectors/nexmark.md',
];
const RUN = ['docs/testing-jobs.md'];
const samplesDir = join(root, 'test', 'docs', '.samples');

interface Sample {
  readonly doc: string;
  /** Line of the opening fence, 1-based. */
  readonly line: number;
  /** Where the sample lives, as a module. */
  readonly path: string;
  readonly code: string;
}

function samplesOf(doc: string): Sample[] {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n');
  const samples: Sample[] = [];
  const dir = join(samplesDir, basename(doc, '.md'));
  for (let i = 0; i < lines.length; i++) {
    const open = /^```ts(?:\s+(\S+))?\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!)) body.push(lines[i]!);
    const name = open[1] ?? `sample-${samples.length + 1}.ts`;
    samples.push({ doc, line: start + 1, path: join(dir, name), code: `${body.join('\n')}\n` });
  }
  return samples;
}

/** The entry points of package.json as paths under src/, for `paths`. */
function entryPointPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { types: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const name = key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`;
    paths[name] = [target.types.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts')];
  }
  return paths;
}

const samples = DOCS.flatMap(samplesOf);
const entryPoints = entryPointPaths();

describe('documentation samples', () => {
  it('every page has samples', () => {
    for (const doc of DOCS)
      expect(
        samples.some((s) => s.doc === doc),
        doc,
      ).toBe(true);
  });

  it('type-check as written', { timeout: 180_000 }, () => {
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const options: ts.CompilerOptions = { ...parsed.options, noEmit: true, paths: entryPoints };
    const virtual = new Map(samples.map((s) => [s.path, s.code]));
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
    host.readFile = (f) => virtual.get(f) ?? readFile.call(host, f);
    host.getSourceFile = (f, language, onError, create) => {
      const code = virtual.get(f);
      return code === undefined
        ? getSourceFile.call(host, f, language, onError, create)
        : ts.createSourceFile(f, code, language);
    };
    const program = ts.createProgram([...virtual.keys()], options, host);
    // The samples' own diagnostics: those of every source file they reach took most of the
    // time and were filtered out anyway.
    const problems = [...virtual.keys()]
      .flatMap((f) => ts.getPreEmitDiagnostics(program, program.getSourceFile(f)))
      .filter((d) => d.file !== undefined && virtual.has(d.file.fileName))
      .map((d) => {
        const sample = samples.find((s) => s.path === d.file!.fileName)!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        return `${sample.doc}:${sample.line + 1 + line}: ${message}`;
      });
    expect(problems).toEqual([]);
  });
});

// The runnable samples: written out with `weir` imports pointed at src/, then
// imported, which registers their tests here.
rmSync(samplesDir, { recursive: true, force: true });
const runnable = samples.filter((s) => RUN.includes(s.doc));
for (const s of runnable) {
  mkdirSync(dirname(s.path), { recursive: true });
  const code = s.code.replace(/from '(weir(?:\/[a-z]+)?)'/g, (whole, name: string) => {
    const target = entryPoints[name]?.[0];
    if (target === undefined) return whole;
    const path = relative(dirname(s.path), join(root, target)).replace(/\.ts$/, '.js');
    return `from '${path.startsWith('.') ? path : `./${path}`}'`;
  });
  writeFileSync(s.path, code);
}
for (const s of runnable) {
  if (!s.code.includes("from 'vitest'")) continue;
  describe(`${s.doc}:${s.line}`, async () => {
    await import(pathToFileURL(s.path).href);
  });
}
