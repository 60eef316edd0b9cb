import { describe, expect, it } from 'vitest';
import { repartitionTopicName } from '../../src/connectors/kafka/group/repartition-topic.js';
import type { JoinEv } from '../cli/fixtures/group-joins.js';
import { waitFor } from '../kafka/helpers.js';
import { watchTransactions } from '../kafka/transaction-diagnostics.js';
import { killHeldMember } from './group-member.js';
import {
  finish,
  JOINS,
  type JoinInput,
  joinInput,
  joinMembers,
  joinOracle,
  joinStderr,
  joinsSettled,
  joinTopics,
  lines,
  startTicks,
  TASKS,
} from './joins-input.js';
import { chunks, random, settled } from './keyed-windows-input.js';

/**
 * Joins (two keyed inputs) across the processes of a group, exactly once: a
 * regular inner join, a regular left outer join, an interval join and a
 * window join (test/cli/fixtures/group-joins.ts), keyed by the same key in
 * event time over an input with an empty partition, through repartition
 * topics written in Kafka transactions, to an output written in Kafka
 * transactions. One run goes through 1, 3 and 2 processes: the state of
 * every join (both sides' rows, interval and window timers) moves with its
 * tasks when members join and when members are killed with SIGKILL (twenty
 * times, at seeded random moments, each victim replaced by a new process at
 * once), and the read_committed output equals the batch computation exactly.
 *
 * On a stall the message shows what holds read_committed readers back
 * (test/kafka/transaction-diagnostics.ts).
 */
const member = joinMembers(61_250);
/** Kills in this test, in quick succession as in test/process/exactly-once-group.test.ts. */
const KILLS = Number(process.env.WEIR_TEST_GROUP_KILLS ?? 20);
/** The longest pause before a kill: a checkpoint (one a second) or a rebalance may happen meanwhile. */
const KILL_GAP_MS = 1_500;
/** How long the group may take to settle after the last kill. */
const SETTLE_AFTER_KILLS_MS = 300_000;

/** Both inputs in `parts` consecutive slices, each key's order kept. */
function slices(input: JoinInput, parts: number): (i: number) => [JoinEv[], JoinEv[]] {
  const left = chunks(input.left, parts);
  const right = chunks(input.right, parts);
  return (i) => [left[i]!, right[i]!];
}

describe('weir run --group with joins, exactly once', () => {
  it(`scaled 1 -> 3 while producing, SIGKILLed ${KILLS} times at random moments, then 3 -> 2: every join equals the batch computation exactly, and members exit on SIGTERM`, async () => {
    const t = await joinTopics('gj');
    const members = [member(t, 'a')];
    // On a stall: what each member says, and what holds read_committed readers back.
    const stderr = joinStderr(members);
    const txns = watchTransactions(
      () => [...JOINS.map((uid) => repartitionTopicName(t.app, uid)), t.outTopic],
      [`weir-${t.app}`, t.outTopic],
    );
    const diagnose = () => `${stderr()} | ${txns.text()}`;
    await joinsSettled(members, diagnose);
    const input = joinInput(31);
    const part = slices(input, KILLS + 3);
    await startTicks(t, input, diagnose);
    await t.send(...part(0));
    // Two members join while records flow: a hands them tasks, with both sides' state.
    const joining = t.send(...part(1));
    members.push(member(t, 'b'), member(t, 'c'));
    await joining;
    await joinsSettled(members, diagnose);
    const crossed = 6 + part(0)[0].length + part(0)[1].length + part(1)[0].length;
    await waitFor(
      'the first two slices to cross every repartition topic',
      async () => (await t.exchanged()) >= crossed,
      120_000,
      diagnose,
    );
    // Members die while records flow, checkpoints are sealed and tasks move: the
    // survivors and the replacements restore the victims' tasks from their last
    // sealed snapshots and fence what the victims wrote after them. The next kill
    // does not wait for the group to recover.
    const next = random(2_718);
    let restored = '';
    for (let kill = 0; kill < KILLS; kill++) {
      const sending = t.send(...part(kill + 2));
      const victim = await killHeldMember(
        members,
        next,
        () => member(t, `r${kill}`),
        diagnose,
        KILL_GAP_MS,
      );
      restored += victim.cli.output('stderr');
      await sending;
    }
    await settled(members, TASKS, diagnose, 2 + JOINS.length, SETTLE_AFTER_KILLS_MS);
    // 3 -> 2 with a SIGTERM while the last records flow.
    const last = t.send(...part(KILLS + 2));
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    await last;
    expect((await leaver.cli.done).code).toBe(0);
    await joinsSettled(members, diagnose);
    restored += members.map((m) => m.cli.output('stderr')).join('');
    expect(restored).toMatch(/restored: (?!none)/);
    const expected = lines(joinOracle(input));
    const got = await finish(t, input, (g) => lines(g).length >= expected.length, diagnose);
    expect(lines(got)).toEqual(expected);
    // A stop signal ends each member's run with a final savepoint, promptly.
    const stopping = performance.now();
    for (const m of members) m.cli.child.kill('SIGTERM');
    const codes = await Promise.all(members.map(async (m) => (await m.cli.done).code));
    expect(codes).toEqual([0, 0]);
    expect(performance.now() - stopping).toBeLessThan(60_000);
    txns.stop();
  }, 900_000);
});
