/** Helpers of the changelog tests: materializing change sequences, and runs across a savepoint. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import type { Change, ChangelogStream, StreamEnvironment } from '../../src/index.js';

/**
 * The multiset a retract changelog describes: `+I`/`+U` add a row, `-U`/`-D`
 * remove one, which must be there (a retraction of a row never emitted is a bug).
 * Returns the rows as sorted JSON texts.
 */
export function materialize<T>(changes: readonly Change<T>[]): string[] {
  const bag = new Map<string, number>();
  for (const c of changes) {
    const text = JSON.stringify(c.value);
    const n = bag.get(text) ?? 0;
    if (c.kind === '+I' || c.kind === '+U') bag.set(text, n + 1);
    else {
      if (n === 0) throw new Error(`retraction of a row not in the result: ${c.kind} ${text}`);
      if (n === 1) bag.delete(text);
      else bag.set(text, n - 1);
    }
  }
  const out: string[] = [];
  for (const [text, n] of bag) for (let i = 0; i < n; i++) out.push(text);
  return out.sort();
}

/** The table an upsert changelog describes: the last `+I`/`+U` row per key, unless deleted. */
export function materializeUpserts<T>(
  changes: readonly Change<T>[],
  keyOf: (row: T) => unknown,
): string[] {
  const table = new Map<string, T>();
  for (const c of changes) {
    if (c.kind === '-U')
      throw new Error(`an upsert changelog carried -U ${JSON.stringify(c.value)}`);
    const key = JSON.stringify(keyOf(c.value));
    if (c.kind === '-D') table.delete(key);
    else table.set(key, c.value);
  }
  return [...table.values()].map((r) => JSON.stringify(r)).sort();
}

/** An operation on a table of rows by id: upsert a row, or delete an id. */
export type TableOp<T> = { op: 'upsert'; row: T } | { op: 'delete'; id: number };

/**
 * Applies table operations by plain loops: the retract changelog an upstream
 * updating operator would emit for them (`+I`, `-U old`/`+U new`, `-D`), and
 * the final table.
 */
export function tableHistory<T>(
  ops: readonly TableOp<T>[],
  idOf: (row: T) => number,
): { changes: Change<T>[]; final: T[] } {
  const table = new Map<number, T>();
  const changes: Change<T>[] = [];
  for (const o of ops) {
    if (o.op === 'delete') {
      const prev = table.get(o.id);
      if (prev !== undefined) changes.push({ kind: '-D', value: prev });
      table.delete(o.id);
      continue;
    }
    const id = idOf(o.row);
    const prev = table.get(id);
    table.set(id, o.row);
    if (prev === undefined) changes.push({ kind: '+I', value: o.row });
    else changes.push({ kind: '-U', value: prev }, { kind: '+U', value: o.row });
  }
  return { changes, final: [...table.values()] };
}

/** Changes rendered as `"<kind> <json>"`, for exact sequence comparisons. */
export function render<T>(changes: readonly Change<T>[]): string[] {
  return changes.map((c) => `${c.kind} ${JSON.stringify(c.value)}`);
}

/** Changes grouped by a key, each group in arrival order. */
export function perKey<T>(
  changes: readonly Change<T>[],
  keyOf: (row: T) => unknown,
): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const c of changes) {
    const k = JSON.stringify(keyOf(c.value));
    let list = m.get(k);
    if (list === undefined) {
      list = [];
      m.set(k, list);
    }
    list.push(`${c.kind} ${JSON.stringify(c.value)}`);
  }
  return m;
}

async function committedChanges<T>(dir: string): Promise<Change<T>[]> {
  // `<prefix>-<subtask>-<checkpoint>.jsonl`: in checkpoint order, so each key's changes stay in order.
  const checkpointOf = (f: string) => f.split('-').at(-1) ?? '';
  const files = (await readdir(dir))
    .filter((f) => !f.startsWith('.'))
    .sort((a, b) => checkpointOf(a).localeCompare(checkpointOf(b)) || a.localeCompare(b));
  const out: Change<T>[] = [];
  for (const f of files) {
    for (const line of (await readFile(join(dir, f), 'utf8')).split('\n')) {
      if (line) out.push(JSON.parse(line) as Change<T>);
    }
  }
  return out;
}

/**
 * Runs a job whose changelog goes to an exactly-once file sink twice: once
 * uninterrupted, once stopped with a savepoint part-way (its source limited
 * to `rate` records per second) and restored at `restoredParallelism`.
 * `build` creates the environment and the changelog; it is called three times.
 */
export async function withSavepoint<T>(
  build: (
    parallelism: number,
    rate: number | undefined,
  ) => { env: StreamEnvironment; changes: ChangelogStream<T> },
  options: { parallelism: number; restoredParallelism: number; rate: number; stopAfterMs?: number },
): Promise<{ uninterrupted: Change<T>[]; restored: Change<T>[]; beforeSavepoint: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-changelog-'));
  try {
    const run = (out: string, parallelism: number, rate: number | undefined) => {
      const { env, changes } = build(parallelism, rate);
      changes
        .map((c) => JSON.stringify(c))
        .sinkTo(new ExactlyOnceFileSink<string>({ directory: out, format: (line) => line }))
        .uid('changes-sink');
      return env;
    };
    await run(join(dir, 'clean'), options.parallelism, undefined).execute('uninterrupted');
    const uninterrupted = await committedChanges<T>(join(dir, 'clean'));
    const first = run(join(dir, 'out'), options.parallelism, options.rate).executeAsync('first');
    await sleep(options.stopAfterMs ?? 150);
    const sp = await first.stopWithSavepoint(join(dir, 'sp'));
    const beforeSavepoint = (await committedChanges<T>(join(dir, 'out'))).length;
    const second = run(join(dir, 'out'), options.restoredParallelism, undefined).executeAsync(
      'second',
      { restoreFrom: sp },
    );
    await second.result;
    const restored = await committedChanges<T>(join(dir, 'out'));
    return { uninterrupted, restored, beforeSavepoint };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
