import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The lines of the visible (committed) files a file sink wrote into `out`, file by file. */
export async function committedLines(out: string): Promise<string[]> {
  const files = (await readdir(out)).filter((f) => !f.startsWith('.')).sort();
  const lines: string[] = [];
  for (const f of files)
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  return lines;
}
