/**
 * Hand-over markers between the members of a process group: the next owner
 * waits while the previous owner is alive and handing over, and stops
 * waiting soon after it goes silent (killed mid-way), long before the
 * overall timeout.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskHandovers } from '../../src/cli/task-handovers.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function pair(silentMs: number) {
  const dir = await mkdtemp(join(tmpdir(), 'weir-handovers-'));
  dirs.push(dir);
  const timing = { beatMs: 50, silentMs };
  return {
    giver: new TaskHandovers(dir, 'a', 60_000, timing),
    taker: new TaskHandovers(dir, 'b', 60_000, timing),
  };
}

const never = () => false;

describe('task hand-overs', () => {
  it('the next owner waits for a live giver past the silence limit, until it releases', async () => {
    const { giver, taker } = await pair(1_500);
    await giver.handingOver(['t1', 't2']);
    let done = false;
    const waiting = taker.awaitReleased(['t1', 't2'], never).then((late) => {
      done = true;
      return late;
    });
    // Three silence limits: the beats keep the hand-over alive.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(done).toBe(false);
    await giver.released(['t1', 't2']);
    expect(await waiting).toEqual([]);
    giver.close();
  });

  it('a giver that stops beating (killed mid-way) is given up on after the silence limit', async () => {
    const { giver, taker } = await pair(1_500);
    await giver.handingOver(['t1']);
    giver.close(); // what a SIGKILL leaves: the marker, no more beats, no release
    const started = performance.now();
    expect(await taker.awaitReleased(['t1'], never)).toEqual(['t1']);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(1_500);
    expect(waited).toBeLessThan(30_000);
  });

  it('a release written while a beat is under way is not overwritten by it', async () => {
    const { giver, taker } = await pair(1_500);
    for (let i = 0; i < 20; i++) {
      await giver.handingOver(['t']);
      await new Promise((r) => setTimeout(r, 45 + (i % 3) * 5));
      await giver.released(['t']);
      await new Promise((r) => setTimeout(r, 60));
      expect(await taker.awaitReleased(['t'], never)).toEqual([]);
    }
    giver.close();
  });

  it('tasks no one hands over, and its own markers, are not waited for', async () => {
    const { giver } = await pair(1_500);
    await giver.handingOver(['mine']);
    expect(await giver.awaitReleased(['mine', 'free'], never)).toEqual([]);
    giver.close();
  });
});
