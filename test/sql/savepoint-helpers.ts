/**
 * What the SQL savepoint tests share: a table `t (k INT, v INT)` of generated rows, paced in
 * the run that is stopped, the changes an exactly-once file sink committed, and the
 * stop-restore-and-compare run itself.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { expect } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import type { Change } from '../../src/core/changelog.js';
import { type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';

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

/** The changes committed to `dir` (one JSON change a line), in the order they were made. */
export async function committedChanges(dir: string): Promise<Change<unknown[]>[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const out: Change<unknown[]>[] = [];
  for (const f of files.filter((f) => !f.startsWith('.')).sort(byCheckpoint)) {
    for (const line of (await readFile(join(dir, f), 'utf8')).split('\n'))
      if (line) out.push(JSON.parse(line) as Change<unknown[]>);
  }
  return out;
}

/**
 * Part files (`<prefix>-<subtask>-<checkpoint>.jsonl`) in the order their changes were made:
 * by checkpoint, then subtask. A key's changes lie in one subtask's file per checkpoint, but
 * after a restore at another parallelism in another subtask's than before, so name order
 * (subtask first) could put a key's later changes before its earlier ones.
 */
function byCheckpoint(a: string, b: string): number {
  const parts = (f: string) => /-(\d+)-(\d+)\.jsonl$/.exec(f)?.slice(1).map(Number) ?? [0, 0];
  const [sa, ca] = parts(a);
  const [sb, cb] = parts(b);
  return ca! - cb! || sa! - sb! || a.localeCompare(b);
}

/** Waits (up to 60 s) until some change is committed to `dir`. */
export async function untilCommitted(dir: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await committedChanges(dir)).length === 0) {
    if (Date.now() > deadline) throw new Error(`no output committed to ${dir} within 60 s`);
    await pause(20);
  }
}

/** The job of a savepoint test: each of `queries` over `t` into `out/q<i>`, exactly once. */
export function changesJob(options: {
  out: string;
  checkpoints: string;
  rate: number | undefined;
  parallelism: number;
  events: number;
  eventAt: (i: number) => [number, number];
  queries: readonly string[];
  /** Registers the tables the queries read, in place of `t` (see generatedKeyValues). */
  tables?: (env: StreamEnvironment, tEnv: TableEnvironment) => void;
}): StreamEnvironment {
  const env = new StreamEnvironment({
    parallelism: options.parallelism,
    batchSize: 5,
    checkpointing: { directory: options.checkpoints, intervalMs: 100 },
  });
  const tEnv = TableEnvironment.create(env);
  if (options.tables !== undefined) options.tables(env, tEnv);
  else generatedKeyValues(env, tEnv, options.events, options.eventAt, options.rate);
  options.queries.forEach((q, i) => {
    tEnv
      .sqlQuery(q)
      .toChangelogStream()
      .map((c: Change<Row>) => JSON.stringify(c))
      .sinkTo(
        new ExactlyOnceFileSink<string>({
          directory: join(options.out, `q${i}`),
          format: (l) => l,
        }),
      )
      .uid(`changes-${i}`);
  });
  return env;
}

/** Each query's final rows committed under `out`, as sorted JSON texts. */
export async function finalRows(out: string, queries: number): Promise<string[][]> {
  return Promise.all(
    Array.from({ length: queries }, async (_, i) =>
      materialize(await committedChanges(join(out, `q${i}`)), (row) => JSON.stringify(row)).sort(),
    ),
  );
}

/**
 * Runs `job` paced, stops it with a savepoint once the last query committed something, and
 * restores it to the end: the final rows, checked equal to those of an uninterrupted run (and
 * the restored run checked to have added changes).
 */
export async function throughSavepoint(
  prefix: string,
  queries: number,
  job: (out: string, checkpoints: string, rate: number | undefined) => StreamEnvironment,
  firstRunRate: number,
): Promise<string[][]> {
  const run = await stoppedAndRestored(prefix, job, firstRunRate, `q${queries - 1}`, (out) =>
    finalRows(out, queries),
  );
  expect(run.before).toBeGreaterThan(0);
  expect(run.after).toBeGreaterThan(run.before);
  expect(run.uninterrupted).toEqual(run.restored);
  return run.restored;
}

/**
 * Runs `job` paced at `rate`, stops it with a savepoint once its output folder `watched`
 * (below the run's output folder) has a commit, and restores it unpaced into the same
 * output; then runs it uninterrupted into another. `finalRows` reads a run's output folder.
 */
export async function stoppedAndRestored<T>(
  prefix: string,
  job: (out: string, checkpoints: string, rate: number | undefined) => StreamEnvironment,
  rate: number,
  watched: string,
  finalRows: (out: string) => Promise<T>,
): Promise<{ before: number; after: number; restored: T; uninterrupted: T }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    const out = join(dir, 'out');
    const first = job(out, join(dir, 'cp-first'), rate).executeAsync('first');
    await untilCommitted(join(out, watched));
    const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
    const before = (await committedChanges(join(out, watched))).length;
    await job(out, join(dir, 'cp-second'), undefined).executeAsync('second', {
      restoreFrom: savepoint,
    }).result;
    const after = (await committedChanges(join(out, watched))).length;
    const restored = await finalRows(out);
    const clean = join(dir, 'clean');
    await job(clean, join(dir, 'cp-clean'), undefined).execute('clean');
    return { before, after, restored, uninterrupted: await finalRows(clean) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The job of `queries` over `t` (`events` rows `eventAt(i)`, see {@link generatedKeyValues}) at
 * parallelism 2, each query's changes committed to `<out>/q<i>`, for {@link stoppedAndRestored}.
 */
export function keyValueQueriesJob(
  queries: readonly string[],
  events: number,
  eventAt: (i: number) => [number, number],
): (out: string, checkpoints: string, rate: number | undefined) => StreamEnvironment {
  return (out, checkpoints, rate) =>
    changesJob({ out, checkpoints, rate, parallelism: 2, events, eventAt, queries });
}
