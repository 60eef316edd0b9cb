/**
 * `npm run docs:check`: checks every relative link and anchor in README.md and
 * docs/**\/*.md (the generated API reference, docs/api/, aside): the file or
 * folder a link names must exist, and an anchor (`#section`, `file.md#section`)
 * must be the slug of a heading of that file, as GitHub makes them, or an
 * explicit `<a id>`/`<a name>`. Links with a scheme (`https:`, `mailto:`) are
 * not followed: the check is offline. Exits 1 listing every broken link.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One link that does not lead where it says. */
export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly reason: string;
}

/** A link found in a Markdown file: its target as written and its line (1-based). */
export interface FoundLink {
  readonly target: string;
  readonly line: number;
}

/**
 * The text of a Markdown file with fenced code blocks and inline code spans
 * blanked out (line breaks kept), so that links inside code are not links.
 */
function withoutCode(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && opening !== null) {
      fence = opening[1]![0]!.repeat(opening[1]!.length);
      lines[i] = '';
    } else if (fence !== undefined) {
      if (line.trimStart().startsWith(fence)) fence = undefined;
      lines[i] = '';
    } else {
      lines[i] = line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
    }
  }
  return lines.join('\n');
}

/** Every link of a Markdown text: inline links and images, reference definitions, HTML href/src. */
export function findLinks(text: string): FoundLink[] {
  const links: FoundLink[] = [];
  const lines = withoutCode(text).split('\n');
  lines.forEach((line, i) => {
    // [text](target "title") and ![alt](target); the target may be in <...>.
    for (const m of line.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: m[1]!.replace(/^<|>$/g, ''), line: i + 1 });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (definition !== null) links.push({ target: definition[1]!, line: i + 1 });
    for (const m of line.matchAll(/\b(?:href|src)="([^"]+)"/g)) {
      links.push({ target: m[1]!, line: i + 1 });
    }
  });
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading
    // Links and images show their text.
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    // Code spans show their content; emphasis markers and HTML tags show nothing.
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*+)(\S(?:.*?\S)?)\1/g, '$2');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown text defines: heading slugs (repeats get -1, -2, ...) and `<a id|name>`. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const lines = withoutCodeBlocksOnly(text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    // Setext headings: a line underlined with === or ---.
    if (
      heading === undefined &&
      line.trim() !== '' &&
      /^ {0,3}(=+|-+)\s*$/.test(lines[i + 1] ?? '')
    ) {
      if (!/^\s*[-*+>|]/.test(line)) heading = line.trim();
    }
    if (heading !== undefined) {
      const base = slug(heading);
      const seen = counts.get(base) ?? 0;
      counts.set(base, seen + 1);
      anchors.add(seen === 0 ? base : `${base}-${seen}`);
    }
    for (const m of line.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

/** Like {@link withoutCode} for fenced blocks only: headings keep their code spans. */
function withoutCodeBlocksOnly(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(lines[i]!);
    if (fence === undefined && opening !== null) {
      fence = opening[1]![0]!.repeat(opening[1]!.length);
      lines[i] = '';
    } else if (fence !== undefined) {
      if (lines[i]!.trimStart().startsWith(fence)) fence = undefined;
      lines[i] = '';
    }
  }
  return lines.join('\n');
}

/** Markdown files to check under `root`: README.md and docs/**\/*.md, without `skip` folders. */
export function markdownFiles(root: string, skip: readonly string[]): string[] {
  const files: string[] = [];
  if (existsSync(join(root, 'README.md'))) files.push(join(root, 'README.md'));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (skip.some((s) => path === join(root, s))) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return files.sort();
}

/**
 * Checks the links of `files` (absolute paths). Links into `generated` (a
 * folder relative to `root` that a build step writes, such as docs/api) are
 * checked only when it exists.
 */
export function checkLinks(
  root: string,
  files: readonly string[],
  generated?: string,
): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string): Set<string> => {
    let set = anchorCache.get(file);
    if (set === undefined) {
      set = anchorsOf(readFileSync(file, 'utf8'));
      anchorCache.set(file, set);
    }
    return set;
  };
  const generatedDir = generated === undefined ? undefined : resolve(root, generated);
  for (const file of files) {
    const rel = relative(root, file);
    for (const { target, line } of findLinks(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const hash = target.indexOf('#');
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : target.slice(hash + 1);
      let path: string;
      try {
        path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      } catch {
        broken.push({ file: rel, line, target, reason: 'malformed percent-encoding' });
        continue;
      }
      if (
        generatedDir !== undefined &&
        (path === generatedDir || path.startsWith(generatedDir + sep)) &&
        !existsSync(generatedDir)
      ) {
        continue;
      }
      if (pathPart.startsWith('/')) {
        broken.push({ file: rel, line, target, reason: 'absolute path: use a relative link' });
        continue;
      }
      if (!existsSync(path)) {
        broken.push({ file: rel, line, target, reason: `${relative(root, path)} does not exist` });
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(path).isDirectory() || !path.endsWith('.md')) {
        broken.push({ file: rel, line, target, reason: 'an anchor into something not Markdown' });
        continue;
      }
      let wanted: string;
      try {
        wanted = decodeURIComponent(anchor).toLowerCase();
      } catch {
        wanted = anchor.toLowerCase();
      }
      if (!anchors(path).has(wanted)) {
        broken.push({
          file: rel,
          line,
          target,
          reason: `${relative(root, path)} has no heading with anchor #${wanted}`,
        });
      }
    }
  }
  return broken;
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const generated = join('docs', 'api');
  const files = markdownFiles(root, [generated]);
  const broken = checkLinks(root, files, generated);
  for (const b of broken) console.error(`${b.file}:${b.line}: ${b.target}: ${b.reason}`);
  if (broken.length > 0) {
    console.error(`${broken.length} broken link(s) in ${files.length} Markdown files`);
    process.exitCode = 1;
  } else {
    console.log(`links: all relative links and anchors of ${files.length} Markdown files resolve`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
