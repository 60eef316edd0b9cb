import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeterministicRandom } from '../../src/util/random.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/crash-job.ts', import.meta.url));
const EVENTS = 16_000;
const KILLS = 20;
/**
 * Per case. Generous: six cases share the machine, and at a load average of
 * 30-45 (other test runs beside) a case of 20 kills took 260-400 s.
 */
const CASE_TIMEOUT_MS = 600_000;

let dir: string;
let input: string;
/** The fixture as one bundled module: the test starts it about a hundred times. */
let job: string;

beforeAll(async () => {
  const bundling = bundledFixture(FIXTURE);
  dir = await mkdtemp(join(tmpdir(), 'weir-crash-'));
  input = join(dir, 'clicks.jsonl');
  const random = new DeterministicRandom(11);
  const lines: string[] = [];
  for (let i = 0; i < EVENTS; i++) {
    // Mostly in order, some disorder, and a few records late beyond the bound.
    const jitter = random.int(200) + (random.chance(0.01) ? 2_000 : 0);
    lines.push(JSON.stringify({ user: `u${random.int(23)}`, time: i * 5 - jitter }));
  }
  await writeFile(input, `${lines.join('\n')}\n`);
  job = await bundling;
});

/** Runs still alive, killed at the end: a test that timed out leaves none behind. */
const children = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (job !== undefined) await rm(dirname(job), { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
});

type Backend = 'heap' | 'disk';

function start(
  name: string,
  parallelism: number,
  stallEvery: number,
  backend: Backend,
  crashAt?: 'checkpoint' | 'commit',
): ChildProcess {
  const settings = {
    input,
    output: join(dir, name, 'out'),
    checkpoints: join(dir, name, 'chk'),
    stateDirectory: join(dir, name, 'state'),
    backend,
    parallelism,
    stallMs: stallEvery === 0 ? 0 : 1,
    stallEvery,
    ...(crashAt === undefined ? {} : { crashAt }),
  };
  const child = spawn(process.execPath, [job], {
    env: { ...process.env, WEIR_CRASH_JOB: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function exitOf(
  child: ChildProcess,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
}

async function committed(name: string): Promise<string[]> {
  const out = join(dir, name, 'out');
  const lines: string[] = [];
  for (const f of (await readdir(out)).filter((f) => !f.startsWith('.'))) {
    lines.push(
      ...(await readFile(join(out, f), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => `${f.split('-')[0]}: ${l}`),
    );
  }
  return lines.sort();
}

/** The newest complete checkpoint's directory name, if any. */
async function latestCheckpoint(name: string): Promise<string | undefined> {
  const entries = await readdir(join(dir, name, 'chk')).catch(() => [] as string[]);
  return entries
    .filter((e) => /^chk-\d+$/.test(e))
    .sort()
    .pop();
}

/** Keyed states declared in the newest checkpoint's files of the window operator ('counts'). */
async function windowStateNames(name: string): Promise<string[]> {
  const chk = join(dir, name, 'chk', (await latestCheckpoint(name))!);
  const names = new Set<string>();
  for (const f of (await readdir(chk)).filter((f) => f.startsWith('counts-'))) {
    const snapshot = JSON.parse(await readFile(join(chk, f), 'utf8')) as { states?: object };
    for (const state of Object.keys(snapshot.states ?? {})) names.add(state);
  }
  return [...names];
}

interface CrashRun {
  /** Times the process was killed (by the test, or by itself at an injected fault). */
  readonly deaths: number;
  /** Distinct checkpoints the runs after a death restored from: proof that work carried over. */
  readonly restoredFrom: number;
}

/**
 * Runs the job to completion: kills it with SIGKILL at random moments `kills`
 * times first (or, with `crashAt`, lets it die at its injected fault), and
 * restarts it each time from the latest checkpoint.
 */
async function runWithCrashes(
  name: string,
  parallelism: number,
  backend: Backend,
  kills: number,
  seed: number,
  crashAt?: 'checkpoint' | 'commit',
): Promise<CrashRun> {
  const random = new DeterministicRandom(seed);
  let deaths = 0;
  const restored = new Set<string>();
  for (;;) {
    const latest = await latestCheckpoint(name);
    if (deaths > 0 && latest !== undefined) restored.add(latest);
    // Random kills need a long run (1 ms per record); injected faults a shorter
    // one, and only the first `kills` runs have the fault.
    const fault = deaths < kills ? crashAt : undefined;
    const child = start(name, parallelism, crashAt === undefined ? 1 : 4, backend, fault);
    const exit = exitOf(child);
    if (crashAt === undefined && deaths < kills) {
      // Kill at a random moment after the job module has loaded.
      const running = new Promise<void>((resolve) =>
        child.stdout!.on('data', (d: Buffer) => {
          if (d.toString().includes('running')) resolve();
        }),
      );
      await Promise.race([running, exit]);
      if (deaths % 4 !== 3) {
        // Most kills land after this run has completed a checkpoint of its own, so that
        // every restart carries work over, however slowly a loaded machine runs the job.
        const deadline = Date.now() + 20_000;
        while (
          child.exitCode === null &&
          (await latestCheckpoint(name)) === latest &&
          Date.now() < deadline
        ) {
          await sleep(20);
        }
      }
      // The rest land early, while the job may still be restoring.
      await Promise.race([sleep(random.int(deaths % 4 !== 3 ? 900 : 1050)), exit]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const { code, signal, stderr } = await exit;
    if (signal === 'SIGKILL') {
      deaths++;
      if (deaths > 200) throw new Error('the job does not progress across restarts');
      continue;
    }
    if (code !== 0) throw new Error(`job failed (exit ${code}): ${stderr}`);
    return { deaths, restoredFrom: restored.size };
  }
}

const expectedOutput = new Map<number, Promise<string[]>>();
/** Output of an uninterrupted run at this parallelism. */
function reference(parallelism: number): Promise<string[]> {
  let p = expectedOutput.get(parallelism);
  if (p === undefined) {
    p = (async () => {
      const name = `reference-p${parallelism}`;
      const r = await exitOf(start(name, parallelism, 0, 'heap'));
      if (r.code !== 0) throw new Error(r.stderr);
      return committed(name);
    })();
    expectedOutput.set(parallelism, p);
  }
  return p;
}

// Every case runs concurrently: the jobs mostly wait (stalls and restarts).
describe.concurrent('crash and restore', () => {
  it('uninterrupted runs at parallelism 1 and 2 agree', async () => {
    const one = await reference(1);
    expect(one.length).toBeGreaterThan(2000);
    expect(await reference(2)).toEqual(one);
  }, 120_000);

  describe('random SIGKILLs', () => {
    for (const backend of ['heap', 'disk'] as const) {
      for (const parallelism of [1, 2]) {
        it(
          `killed ${KILLS} times with the ${backend} backend at parallelism ${parallelism}: committed output equals an uninterrupted run`,
          async () => {
            const name = `killed-${backend}-p${parallelism}`;
            const run = await runWithCrashes(name, parallelism, backend, KILLS, 100 + parallelism);
            expect(run.deaths).toBe(KILLS);
            expect(run.restoredFrom).toBeGreaterThanOrEqual(KILLS / 4);
            expect(await committed(name)).toEqual(await reference(parallelism));
            // With the disk backend the windows keep their contents in it too.
            expect(await windowStateNames(name)).toEqual(
              backend === 'disk' ? ['__weir.window-slices'] : [],
            );
          },
          CASE_TIMEOUT_MS,
        );
      }
    }
  });

  describe('faults at the worst moments', () => {
    for (const [crashAt, parallelism, backend] of [
      ['checkpoint', 1, 'heap'],
      ['commit', 2, 'disk'],
    ] as const) {
      it(
        `dies in the middle of a ${crashAt} three times (${backend}, parallelism ${parallelism}) and still commits exactly once`,
        async () => {
          const name = `crash-in-${crashAt}`;
          const run = await runWithCrashes(name, parallelism, backend, 3, 7, crashAt);
          expect(run.deaths).toBe(3);
          expect(await committed(name)).toEqual(await reference(parallelism));
        },
        CASE_TIMEOUT_MS,
      );
    }
  });
});
