import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  anchorsOf,
  checkLinks,
  findLinks,
  markdownFiles,
  slug,
} from '../../scripts/check-links.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'weir-links-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the documentation link check', () => {
  it('makes anchors as GitHub does', () => {
    expect(slug('Restoring: `--from`')).toBe('restoring---from');
    expect(slug('Using every core: `--workers N|auto`')).toBe('using-every-core---workers-nauto');
    expect(slug('The [files](files.md) page, **bold**')).toBe('the-files-page-bold');
    expect(slug('Exactly-once, at_least_once & more')).toBe('exactly-once-at_least_once--more');
    expect([
      ...anchorsOf('# A\n## A\ntext\nSetext\n---\n```\n# not a heading\n```\n<a id="x"></a>'),
    ]).toEqual(['a', 'a-1', 'setext', 'x']);
  });

  it('finds links outside code only', () => {
    const text = [
      'See [a](a.md#one) and ![img](pic.png "title").',
      'Not `[b](b.md)` here.',
      '```',
      '[c](c.md)',
      '```',
      '[ref]: d.md',
      '<a href="e.md">e</a>',
    ].join('\n');
    expect(findLinks(text).map((l) => [l.target, l.line])).toEqual([
      ['a.md#one', 1],
      ['pic.png', 1],
      ['d.md', 6],
      ['e.md', 7],
    ]);
  });

  it('reports missing files and anchors, and nothing else', async () => {
    await mkdir(join(root, 'docs', 'sub'), { recursive: true });
    await writeFile(
      join(root, 'README.md'),
      '# Weir\n[ok](docs/guide.md#two-words) [dir](docs/sub) [web](https://example.org/x.md)\n[self](#weir) [bad](#nope) [gone](docs/missing.md)\n[api](docs/api/README.md)\n',
    );
    await writeFile(
      join(root, 'docs', 'guide.md'),
      '# Guide\n## Two words\n[up](../README.md#weir) [x](guide.md#three)\n',
    );
    const files = markdownFiles(root, ['docs/api']);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(['README.md', 'docs/guide.md']);
    const broken = checkLinks(root, files, 'docs/api');
    expect(broken.map((b) => `${b.file}:${b.line} ${b.target}`)).toEqual([
      'README.md:3 #nope',
      'README.md:3 docs/missing.md',
      'docs/guide.md:3 guide.md#three',
    ]);
    // Once the generated folder exists, links into it are checked too.
    await mkdir(join(root, 'docs', 'api'));
    expect(checkLinks(root, files, 'docs/api').map((b) => b.target)).toContain(
      'docs/api/README.md',
    );
  });
});
