import { describe, expect, it } from 'vitest';
import type { JoinEv } from '../cli/fixtures/group-joins.js';
import { waitFor } from '../kafka/helpers.js';
import {
  atLeastOnce,
  finish,
  type JoinInput,
  joinInput,
  joinMembers,
  joinOracle,
  joinStderr,
  joinsSettled,
  joinTopics,
  lines,
  startTicks,
  stopAll,
} from './joins-input.js';
import { chunks } from './keyed-windows-input.js';

/**
 * Joins whose state (both sides' rows, interval and window timers) moves
 * with its tasks while members of the group join, leave and die: the four
 * joins of test/cli/fixtures/group-joins.ts against the batch computation.
 */
const member = joinMembers(61_270);

/** Both inputs in `parts` consecutive slices, each key's order kept. */
function slices(input: JoinInput, parts: number): (i: number) => [JoinEv[], JoinEv[]] {
  const left = chunks(input.left, parts);
  const right = chunks(input.right, parts);
  return (i) => [left[i]!, right[i]!];
}

describe('joins move with their tasks in a process group', () => {
  it('scaled 1 -> 3 -> 2 while producing (joins, then a SIGTERM): every join equals the batch computation exactly', async () => {
    const t = await joinTopics('jh');
    const members = [member(t, 'a')];
    const diagnose = joinStderr(members);
    await joinsSettled(members, diagnose);
    const input = joinInput(31);
    const part = slices(input, 4);
    await startTicks(t, input, diagnose);
    await t.send(...part(0));
    // Two members join while records flow: a gives them tasks, with both sides' state.
    const joining = t.send(...part(1));
    members.push(member(t, 'b'), member(t, 'c'));
    await joining;
    await joinsSettled(members, diagnose);
    await t.send(...part(2));
    // c leaves with SIGTERM while records flow: its tasks go to a and b.
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    await t.send(...part(3));
    expect((await leaver.cli.done).code).toBe(0);
    await joinsSettled(members, diagnose);
    expect(members.map((m) => m.cli.output('stderr')).join('')).toMatch(/restored: (?!none)/);
    const expected = lines(joinOracle(input));
    const got = await finish(t, input, (g) => lines(g).length >= expected.length, diagnose);
    expect(lines(got)).toEqual(expected);
    await stopAll(members);
  }, 240_000);

  it('a member killed with SIGKILL mid-stream: no pair is missing, and none is made up', async () => {
    const t = await joinTopics('jh');
    const members = [member(t, 'a'), member(t, 'b')];
    const diagnose = joinStderr(members);
    await joinsSettled(members, diagnose);
    const input = joinInput(37);
    const part = slices(input, 3);
    await startTicks(t, input, diagnose);
    await t.send(...part(0));
    const crossed = 6 + part(0)[0].length + part(0)[1].length;
    await waitFor(
      'the first records to cross every repartition topic',
      async () => (await t.exchanged()) >= crossed,
      60_000,
      diagnose,
    );
    await t.send(...part(1));
    const killed = members.pop()!;
    killed.cli.child.kill('SIGKILL');
    await t.send(...part(2));
    // The survivor takes every task once the group's session timeout has passed.
    await joinsSettled(members, diagnose);
    const expected = joinOracle(input);
    const got = await finish(t, input, (g) => atLeastOnce(expected, g), diagnose);
    // At least once: a pair may come twice (records after the last snapshot are read again).
    for (const j of ['inner', 'outer', 'interval', 'window'] as const) {
      expect([...got[j].keys()].sort(), `pairs of the ${j} join`).toEqual(
        [...expected[j].keys()].sort(),
      );
      for (const [pair, n] of expected[j])
        expect(got[j].get(pair), `${j} ${pair}`).toBeGreaterThanOrEqual(n);
    }
    await stopAll(members);
  }, 240_000);
});
