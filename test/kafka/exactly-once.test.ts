import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import type { Event, Result } from './fixtures/eos-job.js';
import { createTopic, json, produce, readAll, uniqueTopic } from './helpers.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'eos-job.ts');
const SINK_WORKER = join(import.meta.dirname, '../../src/connectors/kafka/sink/producer-worker.ts');
const PARTITIONS = 4;
const EVENTS = 12_000;
const WINDOW = 1000;
const BASE = 1_700_000_000_000;

function event(i: number): Event {
  return { key: `k${i % 7}`, v: i, t: BASE + i * 10 };
}

/** What an uninterrupted run emits: every window closed by the final watermark (the minimum over partitions). */
function expectedResults(): Result[] {
  const maxPerPartition = new Array<number>(PARTITIONS).fill(Number.NEGATIVE_INFINITY);
  const acc = new Map<string, Result>();
  for (let i = 0; i < EVENTS; i++) {
    const e = event(i);
    const p = i % PARTITIONS;
    maxPerPartition[p] = Math.max(maxPerPartition[p]!, e.t);
    const start = e.t - (e.t % WINDOW);
    const id = `${e.key}@${start}`;
    const r = acc.get(id) ?? { key: e.key, start, count: 0, sum: 0 };
    acc.set(id, { ...r, count: r.count + 1, sum: r.sum + e.v });
  }
  const watermark = Math.min(...maxPerPartition) - 1;
  return [...acc.values()].filter((r) => r.start + WINDOW - 1 <= watermark);
}

const canon = (rs: readonly Result[]) =>
  rs.map((r) => JSON.stringify([r.key, r.start, r.count, r.sum])).sort();

let dir: string | undefined;
/** The fixture as one bundled module: the test starts it a dozen times or more. */
let job: string | undefined;
const children = new Set<ChildProcess>();
beforeAll(async () => {
  job = await bundledFixture(FIXTURE, [SINK_WORKER]);
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  if (job !== undefined) await rm(dirname(job), { recursive: true, force: true });
});

describe('exactly-once Kafka -> window -> Kafka', () => {
  it('a job killed with SIGKILL at random moments commits exactly the results of an uninterrupted run', async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-eos-'));
    const input = uniqueTopic('eos-in');
    const output = uniqueTopic('eos-out');
    await createTopic(input, PARTITIONS);
    await createTopic(output, 3);
    const childEnv = {
      ...process.env,
      EOS_INPUT: input,
      EOS_OUTPUT: output,
      EOS_CHECKPOINTS: join(dir, 'checkpoints'),
      EOS_PREFIX: `${output}-tx`,
    };
    let stderr = '';
    /** Completed checkpoints and records read by the current child, as it last reported them. */
    let progress = { checkpoints: 0, records: 0 };
    const start = (): ChildProcess => {
      progress = { checkpoints: 0, records: 0 };
      const child = spawn(process.execPath, [job!], {
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d: Buffer) => {
        const m = /progress (\d+) (\d+)\s*$/.exec(d.toString());
        if (m !== null) progress = { checkpoints: Number(m[1]), records: Number(m[2]) };
      });
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      children.add(child);
      child.on('exit', () => children.delete(child));
      return child;
    };
    const stop = (child: ChildProcess) =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode);
        else {
          child.once('exit', (code) => resolve(code));
          child.kill('SIGKILL');
        }
      });

    // A producer writes the input in slices while the job is killed and restarted. It keeps
    // some input back until kills have hit running jobs: on a busy machine restarts are slow,
    // and input that was all read before the sixth such kill would leave later runs idle.
    let written = 0;
    let released = EVENTS / 4;
    const producing = (async () => {
      const slice = 100;
      while (written < EVENTS) {
        if (written >= released) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        const n = Math.min(slice, EVENTS - written);
        await produce(
          input,
          Array.from({ length: n }, (_, j) => {
            const i = written + j;
            return { value: JSON.stringify(event(i)), partition: i % PARTITIONS };
          }),
        );
        written += n;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    let kills = 0;
    /** Kills that hit a run which had completed checkpoints and was reading records. */
    let killsMidStream = 0;
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // At least 10 kills, and more (up to 20) until 6 have hit a running job: on a busy machine a
    // run may not reach its first checkpoint before its kill comes.
    while (kills < 10 || (killsMidStream < 6 && kills < 20)) {
      const child = start();
      if (kills % 4 === 3) {
        // Some kills land while the job starts: during recovery of the sink's transactions.
        await new Promise((r) => setTimeout(r, 300 + random() * 1500));
      } else {
        // The others land at a random moment after it has completed a checkpoint.
        const deadline = Date.now() + 60_000;
        while (progress.checkpoints === 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
        }
        await new Promise((r) => setTimeout(r, random() * 2500));
      }
      if (progress.checkpoints > 0 && progress.records > 0) {
        killsMidStream++;
        released = Math.min(EVENTS, EVENTS / 4 + (killsMidStream * EVENTS) / 8);
      }
      const code = await stop(child);
      expect(stderr, 'the job must not fail by itself').not.toContain('job failed');
      expect(code).toBeNull();
      kills++;
    }
    released = EVENTS;
    await producing;
    const beforeLastRun = (await readAll<Result>(output, json<Result>())).length;

    // A last, uninterrupted stretch until every expected window is committed.
    const expected = canon(expectedResults());
    const last = start();
    let got: string[] = [];
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      got = canon(await readAll<Result>(output, json<Result>()));
      if (got.length >= expected.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // Let it run a little longer: nothing more (no duplicate) may appear.
    await new Promise((r) => setTimeout(r, 1500));
    got = canon(await readAll<Result>(output, json<Result>()));
    await stop(last);
    expect(stderr).not.toContain('job failed');
    expect(kills).toBeGreaterThanOrEqual(10);
    // The kills hit running jobs, and runs before the last one committed results.
    expect(killsMidStream).toBeGreaterThanOrEqual(6);
    expect(beforeLastRun).toBeGreaterThan(0);
    console.log(
      `kills ${kills}, mid-stream ${killsMidStream}, results committed before the last run ${beforeLastRun} of ${expected.length}`,
    );
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
  }, 400_000);
});
