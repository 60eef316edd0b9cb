import { describe, expect, it } from 'vitest';
import { waitFor } from '../kafka/helpers.js';
import {
  fireAndFinish,
  input,
  keyedWindowsMembers,
  keyedWindowsTopics,
  line,
  oracle,
  PARTITIONS,
  settled,
  stderrOf,
  stopAll,
} from './keyed-windows-input.js';

const member = keyedWindowsMembers(61_140);

async function run(processes: number, seed: number): Promise<void> {
  const t = await keyedWindowsTopics('kg');
  const members = Array.from({ length: processes }, (_, i) =>
    member(t, String.fromCharCode(97 + i)),
  );
  const diagnose = stderrOf(members);
  // Every member holds tasks, and all tasks are held, before any data.
  await settled(members, 2 * PARTITIONS, diagnose);
  const data = input(seed);
  const { onTime, late, ticks } = data;
  // Every producing task speaks (with a record, then its watermark) before the data.
  await t.send(ticks(0));
  await waitFor(
    'the first ticks to cross the repartition topic',
    async () => (await t.exchanged()) === 3,
    60_000,
    diagnose,
  );
  await t.send(onTime);
  const got = await fireAndFinish(t, data, diagnose);
  expect(got.map(line).sort()).toEqual(oracle(onTime, late, ticks));
  await stopAll(members);
}

describe('weir run --group with a keyed stage', () => {
  it.each([1, 2, 3])(
    'keyed windows with late data over %i process(es) equal the batch computation (an idle input partition)',
    async (processes) => {
      await run(processes, 7);
    },
    // Longer than the waits inside together: a stall fails one of them, which says where.
    420_000,
  );

  it('a task read by one member moves to another with its state: the output still equals the batch computation', async () => {
    const t = await keyedWindowsTopics('kg');
    const members = [member(t, 'a')];
    const diagnose = stderrOf(members);
    await settled(members, 2 * PARTITIONS, diagnose);
    const data = input(11);
    const { onTime, late, ticks } = data;
    await t.send(ticks(0));
    await t.send(onTime);
    await waitFor(
      'a to read the records',
      async () => (await t.exchanged()) === onTime.length + 3,
      60_000,
      diagnose,
    );
    // b joins: a gives tasks of both stages up, with their open windows, to b.
    const b = member(t, 'b');
    members.push(b);
    await settled(members, 2 * PARTITIONS, diagnose);
    await waitFor(
      'b to restore tasks a had read',
      () => /restored: (?!none)/.test(b.cli.output('stderr')),
      60_000,
      diagnose,
    );
    const got = await fireAndFinish(t, data, diagnose);
    expect(got.map(line).sort()).toEqual(oracle(onTime, late, ticks));
    await stopAll(members);
  }, 200_000);
});
