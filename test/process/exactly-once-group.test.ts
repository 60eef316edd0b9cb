import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../kafka/helpers.js';
import {
  chunks,
  type Ev,
  fireAndFinish,
  input,
  type KeyedWindowsMember,
  keyedWindowsMembers,
  keyedWindowsTopics,
  line,
  oracle,
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
const member = keyedWindowsMembers(61_400, ['exactly-once'], ['--checkpoint-interval', '1']);
/** Kills in this test; each waits for the survivors to take over and the replacement to join. */
const KILLS = Number(process.env.WEIR_TEST_GROUP_KILLS ?? 3);
const TASKS = 2 * PARTITIONS;

describe('exactly once per task in a process group', () => {
  it(`SIGKILL ${KILLS} times at random moments, scaled 1 -> 3 -> 2: the read_committed output equals the batch computation exactly`, async () => {
    const t = await keyedWindowsTopics('eo');
    const next = random(1_616);
    const members: KeyedWindowsMember[] = [member(t, 'a')];
    const everyone: KeyedWindowsMember[] = [...members];
    const diagnose = () => everyone.map((m) => m.cli.output('stderr').slice(-600)).join(' | ');
    await settled(members, TASKS, diagnose);
    const data = input(37);
    const { onTime, late, ticks } = data;
    const parts = chunks(onTime, KILLS + 3) as Ev[][];
    await t.send(ticks(0));
    await t.send(parts[0]!);
    // 1 -> 3 while records flow.
    const joining = t.send(parts[1]!);
    for (const name of ['b', 'c']) {
      const m = member(t, name);
      members.push(m);
      everyone.push(m);
    }
    await joining;
    await settled(members, TASKS, diagnose);
    for (let kill = 0; kill < KILLS; kill++) {
      const sending = t.send(parts[kill + 2]!);
      // A random moment: while the chunk is produced and read, checkpoints taken and sealed.
      await sleep(Math.floor(next() * 1_500));
      const victim = members.splice(Math.floor(next() * members.length), 1)[0]!;
      victim.cli.child.kill('SIGKILL');
      await sending;
      // The survivors take the victim's tasks once its session has expired.
      await settled(members, TASKS, diagnose);
      const replacement = member(t, `r${kill}`);
      members.push(replacement);
      everyone.push(replacement);
      await settled(members, TASKS, diagnose);
    }
    // 3 -> 2 with a SIGTERM while the last records flow.
    const last = t.send(parts[KILLS + 2]!);
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    await last;
    expect((await leaver.cli.done).code).toBe(0);
    await settled(members, TASKS, diagnose);
    const crossed = onTime.length + 3;
    await waitFor(
      'every record to cross the repartition topic',
      async () => (await t.exchanged()) >= crossed,
      90_000,
      diagnose,
    );
    // Committed exactly once: what a killed member wrote after its last seal was aborted.
    expect(await t.exchanged()).toBe(crossed);
    const got = await fireAndFinish(t, data, diagnose);
    expect(got.map(line).sort()).toEqual(oracle(onTime, late, ticks));
    await stopAll(members);
  }, 600_000);
});
