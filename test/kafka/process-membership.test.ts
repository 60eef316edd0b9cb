import { afterAll, describe, expect, it } from 'vitest';
import { ProcessMembership } from '../../src/connectors/kafka/group/process-membership.js';
import { BROKERS, createTopic, uniqueTopic, waitFor } from './helpers.js';

const open: ProcessMembership[] = [];
afterAll(async () => {
  await Promise.all(open.map((m) => m.close()));
});

describe('process membership (KIP-848 consumer protocol)', () => {
  it('joins again as a new member after a pause past its session timeout, giving its tasks up meanwhile', async () => {
    const topic = uniqueTopic('pm-in');
    await createTopic(topic, 2);
    const warnings: string[] = [];
    const membership = await ProcessMembership.join({
      brokers: BROKERS,
      applicationId: uniqueTopic('pm-app'),
      topics: [topic],
      warn: (line) => warnings.push(line),
    });
    open.push(membership);
    const seen: number[] = [];
    membership.onChange((tasks) => seen.push(tasks.size));
    await waitFor('both tasks', () => membership.tasks().size === 2, 30_000);
    // The process is starved (no heartbeat) past the group's 6 s session timeout: the
    // group drops it, and the client alone would heartbeat in vain from then on.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 9_000);
    await waitFor(
      'the tasks given up, then given again',
      () => seen.includes(0) && membership.tasks().size === 2,
      30_000,
      () => `sizes seen ${JSON.stringify(seen)}; ${warnings.join(' | ')}`,
    );
    expect(warnings.join('\n')).toMatch(/dropped this process/);
    expect(await membership.nextHeartbeat(15_000)).toBe(true);
  }, 90_000);
});
