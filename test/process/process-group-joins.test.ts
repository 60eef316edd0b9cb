import { describe, expect, it } from 'vitest';
import {
  finish,
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

/**
 * Joins (two keyed inputs) across the processes of a group: a regular inner
 * join, a regular left outer join, an interval join and a window join, keyed
 * by the same key in event time, over an input with an empty partition, on
 * 1, 2 and 3 processes: each run's output equals the batch computation (the
 * pairs as a multiset; the outer join's final state).
 */
const member = joinMembers(61_250);

describe('weir run --group with joins', () => {
  it.each([1, 2, 3])(
    'four joins over %i process(es) equal the batch computation',
    async (processes) => {
      const t = await joinTopics('gj');
      const members = Array.from({ length: processes }, (_, i) =>
        member(t, String.fromCharCode(97 + i)),
      );
      const diagnose = joinStderr(members);
      await joinsSettled(members, diagnose);
      const input = joinInput(processes * 13);
      await startTicks(t, input, diagnose);
      await t.send(input.left, input.right);
      const expected = lines(joinOracle(input));
      const got = await finish(t, input, (g) => lines(g).length >= expected.length, diagnose);
      expect(lines(got)).toEqual(expected);
      await stopAll(members);
    },
    200_000,
  );
});
