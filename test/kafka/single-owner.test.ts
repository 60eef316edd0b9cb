/**
 * Ownership of a single-owner task on the test broker: of the members that
 * join, one owns the task; members joining later do not take it; when the
 * owner leaves, exactly one of the others takes it.
 */

import { Admin } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ownershipGroupId,
  SingleOwnerTask,
} from '../../src/connectors/kafka/group/single-owner.js';
import { uniqueTopic, waitFor } from './helpers.js';

const BROKERS = ['127.0.0.1:9092'];
const joined: SingleOwnerTask[] = [];
const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
afterAll(async () => {
  for (const m of joined) await m.close();
  await admin.close();
});

/** Waits until the ownership group is stable (every assignment delivered) with `members` members. */
async function settled(applicationId: string, members: number): Promise<void> {
  const id = ownershipGroupId(applicationId, 'cdc');
  await waitFor(
    `the group to be stable with ${members} members`,
    async () => {
      const group = (await admin.describeGroups({ groups: [id] })).get(id);
      return group?.state === 'STABLE' && group.members.size === members;
    },
    60_000,
  );
}

async function member(applicationId: string, name: string): Promise<SingleOwnerTask> {
  const m = await SingleOwnerTask.join({
    brokers: BROKERS,
    applicationId,
    task: 'cdc',
    memberName: name,
  });
  joined.push(m);
  return m;
}

describe('SingleOwnerTask', () => {
  it('gives the task to one member, keeps it there while others join, and moves it once when the owner leaves', async () => {
    const app = uniqueTopic('single-owner');
    const a = await member(app, 'a');
    await a.acquired();
    const b = await member(app, 'b');
    const c = await member(app, 'c');
    // b and c join (each a rebalance); a keeps the task through both.
    let lostByA = false;
    a.onLost(() => {
      lostByA = true;
    });
    await settled(app, 3);
    expect([a.isOwner, b.isOwner, c.isOwner]).toEqual([true, false, false]);
    expect(lostByA).toBe(false);

    await a.close();
    await waitFor('b or c to own the task', () => b.isOwner || c.isOwner, 60_000);
    await settled(app, 2);
    expect([b.isOwner, c.isOwner].filter(Boolean)).toHaveLength(1);
  }, 120_000);

  it("refuses a session timeout below the broker's minimum, naming the setting", async () => {
    // The test broker accepts sessions from 1 s (scripts/kafka.sh).
    const joining = SingleOwnerTask.join({
      brokers: BROKERS,
      applicationId: uniqueTopic('single-owner-short'),
      task: 'cdc',
      sessionTimeoutMs: 300,
    });
    await expect(joining).rejects.toThrow(/group\.min\.session\.timeout\.ms/);
    await expect(joining).rejects.toThrow('asked for 300 ms: set --session-timeout');
  }, 60_000);
});
