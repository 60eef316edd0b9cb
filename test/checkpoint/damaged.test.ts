import { cp, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/failure.js';
import { resolveRestorePoint } from '../../src/cli/restore.js';
import {
  ExactlyOnceFileSink,
  type KeyedProcessFunction,
  StreamEnvironment,
  type ValueState,
  WeirError,
} from '../../src/index.js';

const N = 3_000;
const KEYS = 4;

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'weir-damaged-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every record out: its key and how many records of that key came so far. */
const expected = Array.from({ length: N }, (_, i) => i)
  .map((i) => `k${i % KEYS} ${Math.floor(i / KEYS) + 1}`)
  .sort();

interface Dirs {
  readonly chk: string;
  readonly out: string;
}

function job(dirs: Dirs, ratePerSecond: number, intervalMs = 30): StreamEnvironment {
  const env = new StreamEnvironment({
    parallelism: 1,
    batchSize: 10,
    checkpointing: { directory: dirs.chk, intervalMs, retained: 3 },
  });
  const counter: KeyedProcessFunction<string, number, string> & { count?: ValueState<number> } = {
    open(ctx) {
      this.count = ctx.state.getValueState<number>('count');
    },
    processElement(_i, ctx, out) {
      const n = (this.count!.value() ?? 0) + 1;
      this.count!.update(n);
      out.collect(`${ctx.key} ${n}`);
    },
  };
  env
    .fromGenerator({ count: N, ratePerSecond, generate: (i) => i })
    .uid('numbers')
    .keyBy((i) => `k${i % KEYS}`)
    .process(counter)
    .uid('counts')
    .sinkTo(
      new ExactlyOnceFileSink<string>({ directory: dirs.out, prefix: 'out', format: (s) => s }),
    )
    .uid('sink');
  return env;
}

async function committedId(dirs: Dirs): Promise<number | undefined> {
  try {
    const record = JSON.parse(await readFile(join(dirs.chk, '_committed.json'), 'utf8')) as {
      checkpointId: number;
    };
    return record.checkpointId;
  } catch {
    return undefined;
  }
}

/** Runs the job until sinks have committed at least `commits` checkpoints, then cancels it. */
async function runPartly(name: string, commits = 3): Promise<Dirs> {
  const dirs = { chk: join(root, name, 'chk'), out: join(root, name, 'out') };
  const client = job(dirs, 1_500).executeAsync(name);
  for (let polls = 0; ((await committedId(dirs)) ?? 0) < commits; polls++) {
    if (polls > 3_000) throw new Error('no checkpoint was committed in time');
    await sleep(10);
  }
  await client.cancel();
  // The cancel may land between a checkpoint's write and its commit record:
  // drop such a checkpoint (as if the job had died before writing it), so the
  // newest checkpoint is always the committed one.
  const committed = (await committedId(dirs))!;
  for (const name of await checkpoints(dirs)) {
    if (Number(name.slice(4)) > committed) await rm(join(dirs.chk, name), { recursive: true });
  }
  return dirs;
}

/** Checkpoint directories, oldest first. */
async function checkpoints(dirs: Dirs): Promise<string[]> {
  return (await readdir(dirs.chk)).filter((e) => /^chk-\d+$/.test(e)).sort();
}

async function newest(dirs: Dirs): Promise<string> {
  return join(dirs.chk, (await checkpoints(dirs)).at(-1)!);
}

async function committedLines(dirs: Dirs): Promise<string[]> {
  const lines: string[] = [];
  for (const f of (await readdir(dirs.out)).filter((f) => !f.startsWith('.'))) {
    lines.push(...(await readFile(join(dirs.out, f), 'utf8')).split('\n').filter(Boolean));
  }
  return lines.sort();
}

async function restore(dirs: Dirs, from: string, allowDuplicateOutput = false): Promise<void> {
  const result = await job(dirs, 1_000_000).execute('restored', {
    restoreFrom: from,
    ...(allowDuplicateOutput ? { allowDuplicateOutput } : {}),
  });
  expect(result.status).toBe('finished');
}

async function failure(run: Promise<void>): Promise<WeirError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return error as WeirError;
}

describe('damaged checkpoints', () => {
  it('an intact checkpoint restores to exactly the output of an uninterrupted run', async () => {
    const dirs = await runPartly('intact');
    await restore(dirs, 'latest');
    expect(await committedLines(dirs)).toEqual(expected);
  });

  it('newest metadata deleted: no fallback past committed output, and the message says why', async () => {
    const dirs = await runPartly('no-metadata');
    const chk = await newest(dirs);
    const committed = await committedId(dirs);
    await rm(join(chk, '_metadata.json'));
    const error = await failure(restore(dirs, 'latest'));
    expect(error.message).toContain(chk);
    expect(error.message).toContain('_metadata.json');
    expect(error.message).toContain(`committed output up to checkpoint ${committed}`);
    expect(error.message).toContain('duplicates');
  });

  it('weir run --from latest refuses the same fallback, naming --allow-duplicate-output', async () => {
    const dirs = await runPartly('cli-latest');
    const all = await checkpoints(dirs);
    await rm(join(dirs.chk, all.at(-1)!, '_metadata.json'));
    const error = await resolveRestorePoint('latest', dirs.chk, root).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toContain(all.at(-1)!);
    expect((error as Error).message).toContain('--allow-duplicate-output');
    const forced = await resolveRestorePoint('latest', dirs.chk, root, true);
    expect(forced?.path).toBe(join(dirs.chk, all.at(-2)!));
  });

  const stateDamage: [string, (file: string) => Promise<void>][] = [
    [
      'truncated',
      async (file) => {
        const size = (await readFile(file)).length;
        await truncate(file, Math.floor(size / 2));
      },
    ],
    [
      'one digit of a count changed',
      async (file) => {
        const text = await readFile(file, 'utf8');
        const at = text.search(/[0-9](?=[^0-9]*$)/);
        const digit = Number(text[at]);
        await writeFile(file, `${text.slice(0, at)}${(digit + 1) % 10}${text.slice(at + 1)}`);
      },
    ],
    ['replaced by {}', (file) => writeFile(file, '{}')],
    [
      'bytes flipped',
      async (file) => {
        const bytes = await readFile(file);
        const at = Math.floor(bytes.length / 3);
        bytes[at] = bytes[at]! ^ 0x20;
        await writeFile(file, bytes);
      },
    ],
  ];
  for (const [what, damage] of stateDamage) {
    it(`state file ${what}: restoring fails naming the checkpoint and the file`, async () => {
      const dirs = await runPartly(`state-${what.replace(/\W+/g, '-')}`);
      const chk = await newest(dirs);
      await damage(join(chk, 'counts-0.json'));
      for (const from of [chk, 'latest']) {
        const error = await failure(restore(dirs, from));
        expect(error.message).toContain(chk);
        expect(error.message).toContain('counts-0.json');
      }
      const explicit = await failure(restore(dirs, chk));
      expect(explicit.code).toBe('CHECKPOINT_DAMAGED');
    });
  }

  it('an edited source offset in the metadata fails the restore', async () => {
    const dirs = await runPartly('source-offset');
    const chk = await newest(dirs);
    const path = join(chk, '_metadata.json');
    const meta = JSON.parse(await readFile(path, 'utf8')) as {
      operators: { uid: string; sourcePositions?: unknown[] }[];
    };
    const source = meta.operators.find((o) => o.uid === 'numbers')!;
    expect(source.sourcePositions).toHaveLength(1);
    // Whatever the position's shape: make it say something else.
    source.sourcePositions = [editNumbers(source.sourcePositions![0])];
    await writeFile(path, JSON.stringify(meta, null, 1));
    const error = await failure(restore(dirs, chk));
    expect(error.code).toBe('CHECKPOINT_DAMAGED');
    expect(error.message).toContain(chk);
    expect(error.message).toContain('_metadata.json');
  });

  it('a damaged checkpoint newer than committed output is passed over safely', async () => {
    const dirs = await runPartly('newer-uncommitted');
    const chk = await newest(dirs);
    // As if the process died after writing a checkpoint's files but before
    // its metadata: a newer directory no sink has committed.
    const id = Number(chk.slice(chk.lastIndexOf('-') + 1)) + 1;
    const partial = join(dirs.chk, `chk-${String(id).padStart(10, '0')}`);
    await cp(chk, partial, { recursive: true });
    await rm(join(partial, '_metadata.json'));
    await restore(dirs, 'latest');
    expect(await committedLines(dirs)).toEqual(expected);
  });

  it('a restore passing over a damaged checkpoint says so: an exception for the UI and an event for the log', async () => {
    const dirs = await runPartly('passed-over-told');
    const chk = await newest(dirs);
    const id = Number(chk.slice(chk.lastIndexOf('-') + 1));
    const damaged = join(dirs.chk, `chk-${String(id + 1).padStart(10, '0')}`);
    await cp(chk, damaged, { recursive: true });
    await writeFile(join(damaged, '_metadata.json'), '{"not": "a checkpoint"');
    const client = job(dirs, 1_000_000).executeAsync('restored', { restoreFrom: 'latest' });
    const told: { restoredFrom: number | undefined; skipped: number[] }[] = [];
    client.monitor.onPassedOver((e) =>
      told.push({ restoredFrom: e.restoredFrom, skipped: e.skipped.map((c) => c.checkpointId) }),
    );
    expect((await client.result).status).toBe('finished');
    expect(await committedLines(dirs)).toEqual(expected);
    const messages = client.monitor.exceptions().map((e) => e.message);
    expect(
      messages.some((m) => m.includes(`checkpoint ${id + 1} is damaged and was passed over`)),
    ).toBe(true);
    expect(messages.some((m) => m.includes(damaged))).toBe(true);
    // The listener was attached after the restore began; the UI's record holds either way.
    if (told.length > 0) expect(told[0]).toEqual({ restoredFrom: id, skipped: [id + 1] });
  });

  it('a restore records its checkpoint as committed before the sinks commit its output, so an older one cannot commit it again', async () => {
    const dirs = await runPartly('restore-commits');
    const all = await checkpoints(dirs);
    expect(all.length).toBeGreaterThan(1);
    const [previous, last] = all.slice(-2).map((name) => join(dirs.chk, name)) as [string, string];
    const lastId = Number(last.slice(last.lastIndexOf('-') + 1));
    const previousId = Number(previous.slice(previous.lastIndexOf('-') + 1));
    // As if the process died after writing the newest checkpoint, before its commit record.
    await writeFile(
      join(dirs.chk, '_committed.json'),
      JSON.stringify({
        checkpointId: previousId,
        path: previous,
        committedAt: new Date().toISOString(),
      }),
    );
    // A restore of the newest commits its pending output when the sinks recover, and records
    // that first. (Its own first checkpoint follows at once, so the record may move on past it.)
    const client = job(dirs, 1_000, 3_600_000).executeAsync('restored', { restoreFrom: 'latest' });
    for (let polls = 0; ((await committedId(dirs)) ?? 0) < lastId; polls++) {
      if (polls > 3_000) throw new Error(`the commit record still says ${await committedId(dirs)}`);
      await sleep(10);
    }
    await client.cancel();
    const committed = await committedId(dirs);
    expect(committed).toBeGreaterThanOrEqual(lastId);
    const error = await failure(restore(dirs, previous));
    expect(error.code).toBe('INVALID_JOB');
    expect(error.message).toContain(`committed output up to checkpoint ${committed}`);
    await restore(dirs, 'latest');
    expect(await committedLines(dirs)).toEqual(expected);
  });

  it('checkpoints written before checksums are still read', async () => {
    const dirs = await runPartly('no-checksums');
    const path = join(await newest(dirs), '_metadata.json');
    const {
      checksums: _checksums,
      metadataChecksum: _metadataChecksum,
      ...meta
    } = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    expect(_checksums).toBeDefined();
    await writeFile(path, JSON.stringify(meta));
    await restore(dirs, 'latest');
    expect(await committedLines(dirs)).toEqual(expected);
  });

  it('with every checkpoint damaged, the job does not start empty', async () => {
    const dirs = await runPartly('all-damaged');
    for (const name of await checkpoints(dirs)) await rm(join(dirs.chk, name, '_metadata.json'));
    const error = await failure(restore(dirs, 'latest'));
    expect(error.code).toBe('CHECKPOINT_DAMAGED');
    expect(error.message).toContain('no checkpoint can be restored');
  });

  it('restoring a checkpoint older than committed output is refused unless duplicates are allowed', async () => {
    const dirs = await runPartly('older');
    const all = await checkpoints(dirs);
    expect(all.length).toBeGreaterThan(1);
    const older = join(dirs.chk, all[0]!);
    const committed = await committedId(dirs);
    const error = await failure(restore(dirs, older));
    expect(error.code).toBe('INVALID_JOB');
    expect(error.message).toContain(`committed output up to checkpoint ${committed}`);
    expect(error.message).toContain('allowDuplicateOutput');
    // Forced: the job runs; output between the two checkpoints (if any came
    // between them on a busy machine) is written again.
    await restore(dirs, older, true);
    const lines = await committedLines(dirs);
    expect(new Set(lines)).toEqual(new Set(expected));
    expect(lines.length).toBeGreaterThanOrEqual(expected.length);
  });
});

/** `value` with every number in it increased by 7. */
function editNumbers(value: unknown): unknown {
  if (typeof value === 'number') return value + 7;
  if (Array.isArray(value)) return value.map(editNumbers);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, editNumbers(v)]));
  }
  return value;
}
