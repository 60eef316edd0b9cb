import { describe, expect, it } from 'vitest';
import { killHeldMember } from './group-member.js';
import {
  chunks,
  type Ev,
  expectExactlyOnce,
  input,
  type KeyedWindowsMember,
  keyedWindowsMembers,
  keyedWindowsTopics,
  PARTITIONS,
  random,
  settled,
  stopAll,
} from './keyed-windows-input.js';

/**
 * Exactly once per task in a process group: keyed windows with an
 * exactly-once Kafka sink on 1, then 3 processes, members killed with
 * SIGKILL at seeded random moments while records flow (each replaced by a
 * new process), then 3 -> 2 with a SIGTERM. Every record crosses the
 * repartition topic exactly once (committed), and the read_committed output
 * equals the batch computation exactly: a record counted twice or lost would
 * change a window's count.
 */
// Checkpoints every second: each commits a transaction per writer, and a
// busy machine does not keep up with the group tests' usual 0.2 s.
const member = keyedWindowsMembers(62_200, ['exactly-once'], ['--checkpoint-interval', '1']);
/**
 * Kills in this test. They come in quick succession: each victim is replaced
 * at once, and the next kill does not wait for the group to recover, so a
 * kill may land while the group is still rebalancing, restoring or handing
 * over, and a member may be fenced by one that took its tasks over while it
 * was slow to hand them over (the group settles once, after the last).
 */
const KILLS = Number(process.env.WEIR_TEST_GROUP_KILLS ?? 20);
/**
 * The longest pause before a kill: a checkpoint (one a second) or a rebalance may happen
 * meanwhile, and the moment falls anywhere in a checkpoint's cycle.
 */
const KILL_GAP_MS = 1_500;
const TASKS = 2 * PARTITIONS;
/** How long the group may take to settle after the last kill. */
const SETTLE_AFTER_KILLS_MS = 240_000;

describe('exactly once per task in a process group', () => {
  it(`SIGKILL ${KILLS} times at random moments, scaled 1 -> 3 -> 2: the read_committed output equals the batch computation exactly`, async () => {
    const t = await keyedWindowsTopics('eo');
    const next = random(1_616);
    const members: KeyedWindowsMember[] = [member(t, 'a')];
    const diagnose = () =>
      members.map((m) => `[${m.port}] ${m.cli.output('stderr').slice(-1_200)}`).join(' | ');
    await settled(members, TASKS, diagnose);
    const data = input(37);
    const { onTime, ticks } = data;
    const parts = chunks(onTime, KILLS + 3) as Ev[][];
    await t.send(ticks(0));
    await t.send(parts[0]!);
    // 1 -> 3 while records flow.
    const joining = t.send(parts[1]!);
    for (const name of ['b', 'c']) members.push(member(t, name));
    await joining;
    await settled(members, TASKS, diagnose);
    for (let kill = 0; kill < KILLS; kill++) {
      const sending = t.send(parts[kill + 2]!);
      // A random moment: while records are produced and read, checkpoints sealed, tasks moved.
      await killHeldMember(members, next, () => member(t, `r${kill}`), diagnose, KILL_GAP_MS);
      await sending;
    }
    // The survivors and replacements take every task once the victims' sessions have
    // expired: hand-overs one after another, each a final savepoint (slow on a busy machine).
    await settled(members, TASKS, diagnose, 2, SETTLE_AFTER_KILLS_MS);
    // 3 -> 2 with a SIGTERM while the last records flow.
    const last = t.send(parts[KILLS + 2]!);
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    await last;
    expect((await leaver.cli.done).code).toBe(0);
    await settled(members, TASKS, diagnose);
    await expectExactlyOnce(t, data, diagnose);
    await stopAll(members);
  }, 600_000);
});
