import { describe, it } from 'vitest';
import { waitFor } from '../kafka/helpers.js';
import {
  chunks,
  type Ev,
  expectExactlyOnce,
  input,
  type KeyedWindowsMember,
  keyedWindowsMembers,
  keyedWindowsTopics,
  PARTITIONS,
  settled,
  stopAll,
} from './keyed-windows-input.js';

/**
 * A zombie member of a process group: paused with SIGSTOP past its session
 * timeout while records flow, its tasks taken over by the other member,
 * then resumed. It must commit nothing more (its successor fenced its run),
 * notice, and rejoin; the read_committed output equals the batch
 * computation exactly and every record crosses the repartition topic once.
 */
const member = keyedWindowsMembers(62_260, ['exactly-once'], ['--checkpoint-interval', '1']);
const TASKS = 2 * PARTITIONS;

describe('a zombie member of a process group is fenced', () => {
  it('paused past its session timeout and resumed: it commits nothing more, rejoins, and the read_committed output equals the batch computation', async () => {
    const t = await keyedWindowsTopics('zombie');
    const members: KeyedWindowsMember[] = [member(t, 'a'), member(t, 'b')];
    const [zombie, successor] = members as [KeyedWindowsMember, KeyedWindowsMember];
    const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-800)).join(' | ');
    await settled(members, TASKS, diagnose);
    const data = input(53);
    const { onTime, ticks } = data;
    const parts = chunks(onTime, 4) as Ev[][];
    await t.send(ticks(0));
    await t.send(parts[0]!);
    // Paused while it holds tasks and records flow: its session expires meanwhile.
    zombie.cli.child.kill('SIGSTOP');
    try {
      await t.send(parts[1]!);
      // The successor takes every task over (fencing the paused member's run) and reads on.
      await settled([successor], TASKS, diagnose);
      await t.send(parts[2]!);
    } finally {
      zombie.cli.child.kill('SIGCONT');
    }
    // The zombie finds its run fenced when it next seals (or hands over), and rejoins.
    await waitFor(
      'the resumed member to notice it was fenced',
      async () => /was fenced/.test(zombie.cli.output('stderr')),
      120_000,
      diagnose,
    );
    await settled(members, TASKS, diagnose);
    await t.send(parts[3]!);
    await expectExactlyOnce(t, data, diagnose);
    await stopAll(members);
  }, 600_000);
});
