/**
 * Restores and savepoints from the command line, end to end: a rate-limited,
 * exactly-once job (fixtures/running-counts.ts) is interrupted (Ctrl-C with
 * --savepoint-on-stop, or SIGKILL), restored with --from at another
 * parallelism, and its committed output must equal an uninterrupted run's.
 * Savepoints of a running job are taken through its REST API with
 * `weir savepoint`, and refused restores fail clearly.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTokenFile } from '../../src/ui/rest-token.js';
import { startBundledWeir } from './run-cli.js';

const JOB = 'test/cli/fixtures/running-counts.ts';
/**
 * Records of every run; at RATE a run takes ten seconds, time enough to
 * interrupt it even when the machine is so busy that starting the CLI and
 * its first checkpoint take several seconds.
 */
const COUNT = '3000';
const RATE = '300';
/**
 * Every process must be done long before the test times out. Generous: on a
 * machine shared with other work, starting a job (TypeScript loader, worker
 * threads) alone can take many seconds.
 */
const HARD_TIMEOUT_MS = 120_000;

const root = mkdtempSync(join(tmpdir(), 'weir-cli-savepoint-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
/** A fresh directory path (not created) under the test's temporary root. */
function fresh(name: string): string {
  return join(root, `${name}-${++dirs}`);
}

// About twenty runs: from one bundle of the CLI and the job.
const weir = (...args: string[]) => startBundledWeir(args, HARD_TIMEOUT_MS);

/** The committed output of the sink: lines of its visible (non-dot) files, sorted. */
function committedLines(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n'))
    .filter((line) => line.length > 0)
    .sort();
}

/** Resolves once the sink has committed something: a checkpoint completed and the job is mid-run. */
async function firstCommit(directory: string): Promise<void> {
  await expect
    .poll(() => committedLines(directory).length, { timeout: 90_000, interval: 50 })
    .toBeGreaterThan(0);
}

/** The id of the one job `weir jobs --url url` lists. */
async function onlyJobId(url: string): Promise<string> {
  const jobs = await weir('jobs', '--url', url).done;
  expect(jobs.code, jobs.stderr).toBe(0);
  const [, row] = jobs.stdout.trim().split('\n');
  expect(row, jobs.stdout).toBeDefined();
  return row!.split(/ +/)[0]!;
}

/** The output of one uninterrupted run at full speed, shared by the tests that compare to it. */
let reference: Promise<string[]> | undefined;
function uninterrupted(): Promise<string[]> {
  reference ??= (async () => {
    const out = fresh('reference');
    const result = await weir('run', JOB, '--', out, COUNT, 'max').done;
    if (result.code !== 0) throw new Error(`reference run failed\n${result.stderr}`);
    return committedLines(out);
  })();
  return reference;
}

describe.concurrent('weir run --from and savepoints', { timeout: 300_000 }, () => {
  it('stops with a savepoint on SIGINT and restores it at parallelism 2', async ({ expect }) => {
    const out = fresh('out');
    const checkpoints = fresh('ckpt');
    const savepoints = fresh('sp');
    const first = weir(
      'run',
      JOB,
      '--checkpoint-dir',
      checkpoints,
      '--checkpoint-interval',
      '0.5',
      '--savepoint-on-stop',
      savepoints,
      '--',
      out,
      COUNT,
      RATE,
    );
    await firstCommit(out);
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain(
      `stopping 'running-counts' with a savepoint into ${savepoints} (SIGINT)`,
    );
    const path = stopped.stderr.match(/savepoint written to (\S+)/)?.[1];
    expect(path).toMatch(/savepoint-\d{10}$/);
    expect(existsSync(join(path!, '_metadata.json'))).toBe(true);
    expect(stopped.stderr).toMatch(/■ job 'running-counts' stopped with a savepoint in /);
    // The summary names the last checkpoint (savepoints aside) and where it is.
    const last = stopped.stderr.match(/last checkpoint: (\d+) \((\S+)\)/);
    expect(last?.[2]).toBe(join(checkpoints, `chk-${last?.[1]?.padStart(10, '0')}`));
    const partial = committedLines(out).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(Number(COUNT));

    // Renaming the reduce's uid orphans its state: refused, with the way out.
    const renamed = await weir('run', JOB, '--from', path!, '--', out, COUNT, 'max', 'renamed')
      .done;
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain(`✗ cannot restore job 'running-counts' from savepoint`);
    expect(renamed.stderr).toContain(
      "the checkpoint holds state for operator ids the job does not have: 'running-counts'",
    );
    expect(renamed.stderr).toContain('code:     INVALID_JOB');
    expect(renamed.stderr).toContain('--allow-non-restored-state');
    expect(renamed.stderr).not.toMatch(/^\s+at /m);
    expect(committedLines(out)).toHaveLength(partial);

    // Dropping the orphaned state on purpose (into a copy: the sink commits into its directory).
    const copy = fresh('copy');
    cpSync(out, copy, { recursive: true });
    const dropped = await weir(
      'run',
      JOB,
      '--from',
      path!,
      '--allow-non-restored-state',
      '--',
      copy,
      COUNT,
      'max',
      'renamed',
    ).done;
    expect(dropped.code, dropped.stderr).toBe(0);

    const resumed = await weir(
      'run',
      JOB,
      '--from',
      path!,
      '--parallelism',
      '2',
      '--checkpoint-dir',
      checkpoints,
      '--',
      out,
      COUNT,
      'max',
    ).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`restoring 'running-counts' from savepoint`);
    expect(resumed.stderr).toMatch(/✓ job 'running-counts' finished/);
    expect(resumed.stderr).toMatch(/last checkpoint: \d+ /);
    // Rescaled: the second sink subtask wrote files too.
    expect(readdirSync(out).some((name) => name.startsWith('part-1-'))).toBe(true);
    expect(committedLines(out)).toEqual(await uninterrupted());
  });

  it('resumes from the latest checkpoint after SIGKILL', async ({ expect }) => {
    const out = fresh('out');
    const checkpoints = fresh('ckpt');
    const first = weir(
      'run',
      JOB,
      '--checkpoint-dir',
      checkpoints,
      '--checkpoint-interval',
      '0.3',
      '--',
      out,
      COUNT,
      RATE,
    );
    await firstCommit(out);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');

    // The checkpoint directory is not a checkpoint: the error says which to pass.
    const wrong = await weir('run', JOB, '--from', checkpoints, '--', out, COUNT, 'max').done;
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`pass one of them, e.g. --from ${checkpoints}/chk-`);
    expect(wrong.stderr).toContain(`or --from latest --checkpoint-dir ${checkpoints}`);

    const resumed = await weir(
      'run',
      JOB,
      '--from',
      'latest',
      '--checkpoint-dir',
      checkpoints,
      '-p',
      '2',
      '--',
      out,
      COUNT,
      'max',
    ).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `restoring 'running-counts' from checkpoint \\d+ \\(${checkpoints}/chk-\\d{10}\\)`,
      ),
    );
    expect(committedLines(out)).toEqual(await uninterrupted());
  });

  it('starts without state when --from latest finds no checkpoint', async ({ expect }) => {
    const out = fresh('out');
    const result = await weir(
      'run',
      JOB,
      '--from',
      'latest',
      '--checkpoint-dir',
      fresh('empty'),
      '--',
      out,
      '70',
      'max',
    ).done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /no checkpoint in \S+ yet; starting 'running-counts' without state/,
    );
    expect(committedLines(out)).toHaveLength(70);
  });

  it('takes a savepoint of a running job with weir savepoint', async ({ expect }) => {
    const out = fresh('out');
    const savepoints = fresh('sp');
    const onStop = fresh('sp-on-stop');
    // JSON logs this time; --savepoint-on-stop on top, for its log records.
    const job = weir(
      'run',
      JOB,
      '--metrics-port',
      '0',
      '--log-format',
      'json',
      '--savepoint-on-stop',
      onStop,
      '--savepoint-dir',
      savepoints,
      '--',
      out,
      '30000',
      RATE,
    );
    const [, url] = (await job.waitFor(
      'stderr',
      /"event":"metrics_started".*?"url":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/,
    )) as [string, string];

    const jobs = await weir('jobs', '--url', url).done;
    expect(jobs.code, jobs.stderr).toBe(0);
    const [header, row, ...more] = jobs.stdout.trim().split('\n');
    expect(header).toMatch(/^ID +NAME +STATUS +STARTED +DURATION$/);
    expect(more).toEqual([]);
    const [id, name, status] = row!.split(/ +/);
    expect({ name, status }).toEqual({ name: 'running-counts', status: 'running' });

    // The token is in a file only this user can read, found from the port alone.
    const tokenFile = defaultTokenFile(Number(new URL(url).port));
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    const wrongToken = fresh('token');
    writeFileSync(wrongToken, 'not-the-token\n');
    const [taken, unknown, outside, refused] = await Promise.all([
      weir('savepoint', id!, '--to', savepoints, '--url', url).done,
      weir('savepoint', 'running-counts', '--to', savepoints, '--url', url).done,
      weir('savepoint', id!, '--to', `${savepoints}/../elsewhere`, '--url', url).done,
      weir('savepoint', id!, '--to', savepoints, '--url', url, '--token-file', wrongToken).done,
    ]);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain(`savepoints may only be written into '${savepoints}'`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`refused the REST token in ${wrongToken}`);
    expect(taken.code, taken.stderr).toBe(0);
    const path = taken.stdout.trim();
    expect(path).toMatch(new RegExp(`^${savepoints}/savepoint-\\d{10}$`));
    const metadata = JSON.parse(readFileSync(join(path, '_metadata.json'), 'utf8')) as {
      kind: string;
    };
    expect(metadata.kind).toBe('savepoint');
    expect(statSync(path).mode & 0o777).toBe(0o700);
    expect(statSync(join(path, '_metadata.json')).mode & 0o777).toBe(0o600);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      `there is no job 'running-counts' at ${url.replace(/\/metrics$/, '')}; 'running-counts' is the name of job ${id}: pass its id`,
    );

    job.child.kill('SIGINT');
    const stopped = await job.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    const events = stopped.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; path?: string; savepoint?: string });
    const completed = events.find((e) => e.event === 'savepoint_completed');
    expect(completed?.path).toMatch(new RegExp(`^${onStop}/savepoint-\\d{10}$`));
    expect(events.at(-1)).toMatchObject({ event: 'job_cancelled', savepoint: completed?.path });
    expect(stopped.stderr).toContain(`"event":"rest_token"`);
    expect(stopped.stderr).toContain(tokenFile);
    expect(stopped.stderr).not.toContain(token);
    expect(existsSync(tokenFile)).toBe(false);
  });

  it('stops a job with weir stop and resumes it exactly; cancels one with weir cancel', async ({
    expect,
  }) => {
    // Long enough that no busy machine finishes it before it is stopped.
    const count = '30000';
    const reference = fresh('reference');
    const out = fresh('out');
    const savepoints = fresh('sp');
    const job = weir(
      'run',
      JOB,
      '--metrics-port',
      '0',
      '--log-format',
      'json',
      '--savepoint-dir',
      savepoints,
      '--checkpoint-dir',
      fresh('ckpt'),
      '--checkpoint-interval',
      '0.5',
      '--',
      out,
      count,
      RATE,
    );
    const [, url] = (await job.waitFor(
      'stderr',
      /"event":"metrics_started".*?"url":"(http:\/\/127\.0\.0\.1:\d+)\/metrics"/,
    )) as [string, string];
    await firstCommit(out);
    const id = await onlyJobId(url);

    const outside = await weir('stop', id, '--to', `${savepoints}/../elsewhere`, '--url', url).done;
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain(`cannot stop job '${id}': savepoints may only be written`);
    const stop = await weir('stop', id, '--to', savepoints, '--url', url).done;
    expect(stop.code, stop.stderr).toBe(0);
    const path = stop.stdout.trim();
    expect(path).toMatch(new RegExp(`^${savepoints}/savepoint-\\d{10}$`));
    const stopped = await job.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain('"event":"job_cancelled"');
    const partial = committedLines(out).length;
    expect(partial).toBeLessThan(Number(count));

    // The output of the stopped run plus a run from its savepoint: exactly one uninterrupted run's.
    const [resumed, whole] = await Promise.all([
      weir('run', JOB, '--from', path, '--', out, count, 'max').done,
      weir('run', JOB, '--', reference, count, 'max').done,
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(whole.code, whole.stderr).toBe(0);
    expect(committedLines(out)).toEqual(committedLines(reference));

    const second = weir(
      'run',
      JOB,
      '--metrics-port',
      '0',
      '--log-format',
      'json',
      '--',
      fresh('out'),
      count,
      RATE,
    );
    const [, secondUrl] = (await second.waitFor(
      'stderr',
      /"event":"metrics_started".*?"url":"(http:\/\/127\.0\.0\.1:\d+)\/metrics"/,
    )) as [string, string];
    const secondId = await onlyJobId(secondUrl);
    const cancel = await weir('cancel', secondId, '--url', secondUrl).done;
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout.trim()).toBe(`cancelled ${secondId}`);
    const cancelled = await second.done;
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stderr).toContain('"event":"job_cancelled"');
    const gone = await weir('cancel', secondId, '--url', secondUrl).done;
    expect(gone.code).toBe(1);
  });

  it('says so when nothing answers at --url', async ({ expect }) => {
    // A port that was free a moment ago, and a server that is not Weir's.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const other = createServer((_request, response) => {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('not found\n');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as AddressInfo).port;
    try {
      const [jobs, savepoint, notWeir] = await Promise.all([
        weir('jobs', '--url', String(closed)).done,
        weir('savepoint', 'abc', '--to', fresh('sp'), '--url', `127.0.0.1:${closed}`).done,
        weir('jobs', '--url', `http://127.0.0.1:${otherPort}`).done,
      ]);
      for (const result of [jobs, savepoint]) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `weir: nothing is listening on http://127.0.0.1:${closed};`,
        );
        expect(result.stderr).toContain('--ui or --metrics-port');
      }
      expect(notWeir.code).toBe(1);
      expect(notWeir.stderr).toContain("did not answer as Weir's REST API (HTTP 404, text/plain)");
    } finally {
      other.close();
    }
  });
});
