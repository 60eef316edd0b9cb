import { describe, expect, it } from 'vitest';
import { waitFor } from '../kafka/helpers.js';
import {
  chunks,
  type Ev,
  expectNoWindowLost,
  fireAndFinish,
  input,
  keyedWindowsMembers,
  keyedWindowsTopics,
  lastWins,
  oracleOutputs,
  PARTITIONS,
  sendAndExchange,
  settled,
  stderrOf,
  stopAll,
  TICK,
} from './keyed-windows-input.js';

/**
 * Keyed state that moves with its task: members of a process group join,
 * leave and die while keyed windows with allowed lateness are counted, and
 * the result is checked against the batch computation.
 */
const member = keyedWindowsMembers(61_160);

describe('keyed state moves with its task in a process group', () => {
  it('scaled 1 -> 3 -> 2 while producing (joins, then a SIGTERM): the final value of every window equals the batch computation', async () => {
    const t = await keyedWindowsTopics('kh');
    const members = [member(t, 'a')];
    const diagnose = stderrOf(members);
    await settled(members, 2 * PARTITIONS, diagnose);
    const data = input(23);
    const { onTime, late, ticks } = data;
    const [first, second, third, fourth] = chunks(onTime, 4) as [Ev[], Ev[], Ev[], Ev[]];
    await t.send(ticks(0));
    await t.send(first);
    // Two members join while records flow: a gives them tasks, with their windows.
    const joining = t.send(second);
    members.push(member(t, 'b'), member(t, 'c'));
    await joining;
    await settled(members, 2 * PARTITIONS, diagnose);
    await t.send(third);
    // c leaves with SIGTERM while records flow: its tasks go to a and b.
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    await t.send(fourth);
    expect((await leaver.cli.done).code).toBe(0);
    await settled(members, 2 * PARTITIONS, diagnose);
    expect(members.map((m) => m.cli.output('stderr')).join('')).toMatch(/restored: (?!none)/);
    await waitFor(
      'every record to cross the repartition topic',
      async () => (await t.exchanged()) >= onTime.length + 3,
      60_000,
      diagnose,
    );
    const got = await fireAndFinish(t, data, diagnose);
    // Updates replace earlier results: the last value of every window counts.
    expect(lastWins(got)).toEqual(lastWins(oracleOutputs(onTime, late, ticks)));
    await stopAll(members);
  }, 420_000);

  it('a member killed with SIGKILL mid-stream: no window loses input, and a duplicate-insensitive aggregate (max) is exact', async () => {
    const t = await keyedWindowsTopics('kh');
    const members = [member(t, 'a'), member(t, 'b')];
    const diagnose = stderrOf(members);
    await settled(members, 2 * PARTITIONS, diagnose);
    const { onTime, ticks } = input(29);
    const [first, second, third] = chunks(onTime, 3) as [Ev[], Ev[], Ev[]];
    await sendAndExchange(t, [...ticks(0), ...first], diagnose);
    await t.send(second);
    const killed = members.pop()!;
    killed.cli.child.kill('SIGKILL');
    await t.send(third);
    // The survivor takes every task once the group's session timeout has passed.
    await settled(members, 2 * PARTITIONS, diagnose);
    await t.send(ticks(TICK));
    await expectNoWindowLost(t, [...ticks(0), ...onTime], diagnose);
    await stopAll(members);
  }, 420_000);
});
