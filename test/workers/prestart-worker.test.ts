/**
 * Threads started ahead (a standby member's writer threads): `startWorker`
 * takes a waiting one for its module, messages posted at once reach it, and
 * one that fails while it waits is dropped without ending the process. A
 * thread handed back (a closed writer's) serves the next taker first.
 */
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  prestartedWorkers,
  prestartWorker,
  releaseWorker,
  startWorker,
} from '../../src/util/threads/start-worker.js';
import { waitFor } from '../kafka/helpers.js';

const ECHO = new URL('./fixtures/echo-thread.mjs', import.meta.url);
const FAILING = new URL('./fixtures/failing-thread.mjs', import.meta.url);
const started: Worker[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((w) => w.terminate()));
  // Any still waiting: take and end them, so tests do not see each other's.
  while (prestartedWorkers(ECHO) > 0) await startWorker(ECHO).terminate();
});

async function echo(worker: Worker, message: string): Promise<{ echo: string; threadId: number }> {
  const answer = once(worker, 'message');
  worker.postMessage(message);
  return (await answer)[0] as { echo: string; threadId: number };
}

describe('prestartWorker', () => {
  it('starts threads that startWorker then takes, in order, before starting new ones', async () => {
    prestartWorker(ECHO);
    prestartWorker(ECHO);
    expect(prestartedWorkers(ECHO)).toBe(2);
    const first = startWorker(ECHO);
    const second = startWorker(ECHO);
    expect(prestartedWorkers(ECHO)).toBe(0);
    const third = startWorker(ECHO);
    started.push(first, second, third);
    // Posted at once, possibly before the module has loaded: the message waits for it.
    const answers = await Promise.all([echo(first, 'a'), echo(second, 'b'), echo(third, 'c')]);
    expect(answers.map((a) => a.echo)).toEqual(['a', 'b', 'c']);
    expect(new Set(answers.map((a) => a.threadId)).size).toBe(3);
    expect(answers.map((a) => a.threadId)).toEqual([first, second, third].map((w) => w.threadId));
  });

  it('leaves a prestarted thread to callers without options only', async () => {
    prestartWorker(ECHO);
    const withOptions = startWorker(ECHO, { name: 'own' });
    started.push(withOptions);
    expect(prestartedWorkers(ECHO)).toBe(1);
    expect((await echo(withOptions, 'x')).echo).toBe('x');
  });

  it('drops a thread that fails while it waits, and the process goes on', async () => {
    prestartWorker(FAILING);
    expect(prestartedWorkers(FAILING)).toBe(1);
    await waitFor('the failed thread to be dropped', () => prestartedWorkers(FAILING) === 0);
    // A later start is a new thread, whose failure its caller sees.
    const fresh = startWorker(FAILING);
    const [error] = (await once(fresh, 'error')) as [Error];
    expect(error.message).toContain('this module cannot load');
  });
});

describe('releaseWorker', () => {
  it('hands a thread back to the next taker, ahead of prestarted ones, without its old listeners', async () => {
    const first = startWorker(ECHO);
    const firstId = (await echo(first, 'a')).threadId;
    let oldListenerCalls = 0;
    first.on('message', () => oldListenerCalls++);
    prestartWorker(ECHO);
    await releaseWorker(ECHO, first);
    expect(prestartedWorkers(ECHO)).toBe(2);
    const again = startWorker(ECHO);
    started.push(again);
    expect(again).toBe(first);
    const answer = await echo(again, 'b');
    expect(answer).toEqual({ echo: 'b', threadId: firstId });
    expect(oldListenerCalls).toBe(0);
    // The prestarted one still waits for the next taker.
    expect(prestartedWorkers(ECHO)).toBe(1);
  });

  it('drops a handed-back thread that exits while it waits', async () => {
    const worker = startWorker(ECHO);
    await echo(worker, 'a');
    await releaseWorker(ECHO, worker);
    expect(prestartedWorkers(ECHO)).toBe(1);
    await worker.terminate();
    await waitFor('the ended thread to be dropped', () => prestartedWorkers(ECHO) === 0);
  });
});
