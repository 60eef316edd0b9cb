/**
 * One job per checkpoint directory: a second job on a directory in use is
 * refused with the holder's name; the directory is free again when the job
 * ends, at once when its process was killed on this host, and when the lease
 * of an owner elsewhere expires; a job whose lease was taken over stops.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiscardingSink, type JobClient, StreamEnvironment, WeirError } from '../../src/index.js';
import { checkpointStorageAt } from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { OWNER_FILE } from '../../src/runtime/checkpoint/directory-lease.js';

const root = mkdtempSync(join(tmpdir(), 'weir-lease-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
const fresh = () => join(root, `ckpt-${++dirs}`);

/** An unbounded job checkpointing into `directory`. */
function startJob(name: string, directory: string, leaseMs?: number): JobClient {
  const env = new StreamEnvironment({
    parallelism: 1,
    checkpointing: { directory, intervalMs: 100, ...(leaseMs === undefined ? {} : { leaseMs }) },
  });
  env
    .fromGenerator<number>({ ratePerSecond: 1_000, generate: (i) => i })
    .uid('numbers')
    .sinkTo(new DiscardingSink());
  return env.executeAsync(name);
}

async function failureOf(client: JobClient): Promise<WeirError> {
  const error = await client.result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return error as WeirError;
}

const ownerOf = (directory: string) =>
  JSON.parse(readFileSync(join(directory, OWNER_FILE), 'utf8')) as {
    jobName: string;
    pid: number;
    ownerId: string;
  };

describe('checkpoint directory lease', () => {
  it('refuses a second job on a directory in use, and frees it when the first ends', async () => {
    const directory = fresh();
    const first = startJob('first', directory);
    await expect.poll(() => first.monitor.status, { timeout: 60_000 }).toBe('running');
    expect(ownerOf(directory)).toMatchObject({ jobName: 'first', pid: process.pid });

    const second = startJob('second', directory);
    const refused = await failureOf(second);
    expect(refused.code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
    expect(refused.message).toContain(
      `the checkpoint directory '${directory}' is in use by job 'first'`,
    );
    expect(refused.message).toContain(`process ${process.pid}`);
    expect(first.monitor.status).toBe('running');

    await first.cancel();
    expect(existsSync(join(directory, OWNER_FILE))).toBe(false);
    const third = startJob('third', directory);
    await expect.poll(() => third.monitor.status, { timeout: 60_000 }).toBe('running');
    await third.cancel();
  });

  it('takes over at once from a killed process on this host', async () => {
    const directory = fresh();
    // A process that holds the lease, then dies without releasing it.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, OWNER_FILE),
      JSON.stringify({
        ownerId: 'killed',
        jobName: 'killed',
        pid: holder.pid,
        host: hostname(),
        acquiredAt: Date.now(),
        renewedAt: Date.now(),
        leaseMs: 600_000,
      }),
    );
    const refused = await failureOf(startJob('while-alive', directory));
    expect(refused.code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const next = startJob('after-kill', directory);
    await expect.poll(() => next.monitor.status, { timeout: 60_000 }).toBe('running');
    expect(ownerOf(directory).jobName).toBe('after-kill');
    await next.cancel();
  });

  it('removes the owner files a process killed while taking the lease left behind', async () => {
    const directory = fresh();
    mkdirSync(directory, { recursive: true });
    const old = (Date.now() - 5 * 60_000) / 1000;
    for (const name of [`${OWNER_FILE}.stale-killed`, `${OWNER_FILE}.new-killed`]) {
      writeFileSync(join(directory, name), '{}');
      utimesSync(join(directory, name), old, old);
    }
    // Young: it may be a live contender's, in the middle of taking the lease.
    writeFileSync(join(directory, `${OWNER_FILE}.stale-young`), '{}');
    const job = startJob('cleans-up', directory);
    await expect.poll(() => job.monitor.status, { timeout: 60_000 }).toBe('running');
    expect(readdirSync(directory).filter((f) => f.startsWith(`${OWNER_FILE}.`))).toEqual([
      `${OWNER_FILE}.stale-young`,
    ]);
    await job.cancel();
  });

  it('takes over from an owner on another host once its lease expires', async () => {
    const directory = fresh();
    mkdirSync(directory, { recursive: true });
    const leaseMs = 1_500;
    writeFileSync(
      join(directory, OWNER_FILE),
      JSON.stringify({
        ownerId: 'elsewhere',
        jobName: 'elsewhere',
        pid: 1,
        host: 'another-host.invalid',
        acquiredAt: Date.now(),
        renewedAt: Date.now(),
        leaseMs,
      }),
    );
    const refused = await failureOf(startJob('early', directory));
    expect(refused.message).toMatch(
      /in use by job 'elsewhere' \(process 1 on another-host\.invalid\)/,
    );
    expect(refused.message).toMatch(/its lease expires in \d s/);
    // The recorded owner stopped renewing: after its lease, the directory is free.
    await expect
      .poll(
        async () => {
          const client = startJob('late', directory);
          const outcome = await Promise.race([
            client.result.then(
              () => 'ended',
              (e: unknown) => (e instanceof WeirError ? e.code : 'failed'),
            ),
            new Promise<string>((resolve) => {
              const check = setInterval(() => {
                if (client.monitor.status === 'running') {
                  clearInterval(check);
                  resolve('running');
                }
              }, 20);
            }),
          ]);
          if (outcome === 'running') await client.cancel();
          return outcome;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe('running');
  });

  it('stops a job whose lease was taken over, without restarting it', async () => {
    const directory = fresh();
    const env = new StreamEnvironment({
      parallelism: 1,
      checkpointing: { directory, intervalMs: 100, leaseMs: 600 },
    });
    env.setRestartStrategy({ kind: 'fixed-delay', attempts: 5, delayMs: 10 });
    env
      .fromGenerator<number>({ ratePerSecond: 1_000, generate: (i) => i })
      .sinkTo(new DiscardingSink());
    const client = env.executeAsync('taken-over');
    await expect.poll(() => client.monitor.status, { timeout: 60_000 }).toBe('running');
    // Another job wrote itself in (as if this one had stopped renewing in time).
    writeFileSync(
      join(directory, OWNER_FILE),
      JSON.stringify({ ...ownerOf(directory), ownerId: 'usurper', jobName: 'usurper' }),
    );
    const error = await failureOf(client);
    expect(error.code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
    expect(error.message).toContain(`job 'taken-over' lost the checkpoint directory`);
    expect(error.message).toContain("now held by job 'usurper'");
    expect(client.monitor.restarts()).toBe(0);
    // Not ours any more: left in place.
    expect(ownerOf(directory).jobName).toBe('usurper');
  });

  it('a lease file removed while the job runs: the job stops, saying the file was removed', async () => {
    const directory = fresh();
    const client = startJob('removed', directory, 600);
    await expect.poll(() => client.monitor.status, { timeout: 60_000 }).toBe('running');
    rmSync(join(directory, OWNER_FILE));
    const error = await failureOf(client);
    expect(error.code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
    expect(error.message).toContain(`lease file ${OWNER_FILE} is gone`);
    expect(error.message).toContain('removed while the job ran');
    expect(error.message).not.toContain('paused or overloaded');
  });

  it('with takeOver, takes the lease of a live holder at once, and the holder stops', async () => {
    const directory = fresh();
    const holder = startJob('old-owner', directory, 600);
    await expect.poll(() => holder.monitor.status, { timeout: 60_000 }).toBe('running');
    const storage = checkpointStorageAt(directory);
    // Without takeOver the live holder keeps it; with it (the group chose the new owner) it moves.
    await expect(storage.acquireLease({ jobName: 'new-owner' })).rejects.toThrow(
      /in use by job 'old-owner'/,
    );
    const lease = await storage.acquireLease({ jobName: 'new-owner', takeOver: true });
    expect(ownerOf(directory).jobName).toBe('new-owner');
    const error = await failureOf(holder);
    expect(error.message).toContain(`job 'old-owner' lost the checkpoint directory`);
    expect(ownerOf(directory).jobName).toBe('new-owner');
    await lease.release();
  });

  it('a holder taken over records no further commit, at once rather than at its next renewal', async () => {
    const directory = fresh();
    const old = checkpointStorageAt(directory);
    const lost: WeirError[] = [];
    // A renewal a minute away: only the check at the commit can notice the take-over.
    const held = await old.acquireLease({
      jobName: 'old-owner',
      leaseMs: 180_000,
      onLost: (e) => lost.push(e),
    });
    await old.recordCommit(1, join(directory, 'chk-0000000001'));
    expect((await old.lastCommit())?.checkpointId).toBe(1);

    const taken = await checkpointStorageAt(directory).acquireLease({
      jobName: 'new-owner',
      takeOver: true,
    });
    const refused = await old.recordCommit(2, join(directory, 'chk-0000000002')).catch((e) => e);
    expect(refused).toBeInstanceOf(WeirError);
    expect((refused as WeirError).code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
    expect((refused as WeirError).message).toContain(
      'checkpoint 2 is not committed: another job took the checkpoint directory',
    );
    expect((await old.lastCommit())?.checkpointId).toBe(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.message).toContain(`job 'old-owner' lost the checkpoint directory`);
    // Also once the new owner has let the directory go again.
    await taken.release();
    await expect(old.recordCommit(3, join(directory, 'chk-0000000003'))).rejects.toThrow(
      /not committed/,
    );
    await held.release();
  });
});
