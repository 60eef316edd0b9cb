import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { globSync, isDynamicPattern } from 'tinyglobby';
import { invalidArgument, WeirError } from '../../../core/errors.js';
import { reasonOf } from '../../shared/bad-records.js';
import { compareNames } from '../file-names.js';

/**
 * The files a replay reads when it is given `files`: each entry is a path or
 * a glob pattern (`*`, `**`, `?`, `[...]`, `{a,b}`), relative to the current
 * directory unless absolute. The result is every regular file matched, as
 * absolute paths, without duplicates, sorted: so the replay's order depends on
 * the set of files only, not on how they were named. As in a shell, a pattern
 * does not match names starting with `.` (hidden or in-progress files); a
 * path naming such a file does. An entry that matches
 * nothing is an error, since a replay that silently reads less is worse than
 * none.
 */
export function resolveReplayFiles(source: string, patterns: readonly string[]): string[] {
  if (patterns.length === 0) {
    throw invalidArgument(`cannot replay source '${source}': the list of files is empty`);
  }
  const found = new Set<string>();
  for (const pattern of patterns) {
    if (typeof pattern !== 'string' || pattern.length === 0) {
      throw invalidArgument(`cannot replay source '${source}': a file pattern is empty`);
    }
    const matches = isDynamicPattern(pattern)
      ? globSync(pattern, { absolute: true, onlyFiles: true, expandDirectories: false })
      : isFile(pattern)
        ? [resolve(pattern)]
        : [];
    if (matches.length === 0) {
      throw invalidArgument(
        `cannot replay source '${source}': '${pattern}' matches no file (relative to ${process.cwd()})`,
      );
    }
    for (const match of matches) found.add(resolve(match));
  }
  return [...found].sort(compareNames);
}

/**
 * The files of `directory` that a directory source would read if it listed
 * the directory now, in name order, as `directory` joined with each name.
 */
export function listDirectoryFiles(
  source: string,
  directory: string,
  accept: (name: string) => boolean,
): string[] {
  let names: string[];
  try {
    names = readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isFile() && accept(entry.name))
      .map((entry) => entry.name);
  } catch (cause) {
    throw new WeirError(
      'SOURCE_FAILED',
      `cannot replay source '${source}': cannot list directory '${directory}': ${reasonOf(cause)}`,
      { cause, domain: 'external' },
    );
  }
  if (names.length === 0) {
    throw invalidArgument(
      `cannot replay source '${source}': directory '${directory}' holds no file it would read`,
    );
  }
  return names.sort(compareNames).map((name) => join(directory, name));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
