/**
 * What the SQL savepoint tests share: a table `t (k INT, v INT)` of generated rows, paced in
 * the run that is stopped, and the changes an exactly-once file sink committed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { Change } from '../../src/core/changelog.js';
import type { StreamEnvironment, TableEnvironment } from '../../src/index.js';

/** Registers `t (k, v)`: `count` rows `generate(i)` from one source subtask, rebalanced. */
export function generatedKeyValues(
  env: StreamEnvironment,
  tEnv: TableEnvironment,
  count: number,
  generate: (i: number) => [number, number],
  /** Rows per second; undefined: as fast as they go. */
  rate: number | undefined,
): void {
  const events = env
    .fromGenerator({ count, ...(rate === undefined ? {} : { ratePerSecond: rate }), generate })
    .setParallelism(1)
    .uid('events')
    .rebalance();
  tEnv.fromDataStream('t', events, {
    columns: [
      { name: 'k', type: 'INT' },
      { name: 'v', type: 'INT' },
    ],
  });
}

/** The changes committed to `dir` (one JSON change a line), in file order. */
export async function committedChanges(dir: string): Promise<Change<unknown[]>[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const out: Change<unknown[]>[] = [];
  for (const f of files.filter((f) => !f.startsWith('.')).sort()) {
    for (const line of (await readFile(join(dir, f), 'utf8')).split('\n'))
      if (line) out.push(JSON.parse(line) as Change<unknown[]>);
  }
  return out;
}

/** Waits (up to 60 s) until some change is committed to `dir`. */
export async function untilCommitted(dir: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await committedChanges(dir)).length === 0) {
    if (Date.now() > deadline) throw new Error(`no output committed to ${dir} within 60 s`);
    await pause(20);
  }
}
