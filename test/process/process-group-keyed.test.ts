import { afterAll, describe, expect, it } from 'vitest';
import { repartitionTopicName } from '../../src/connectors/kafka/group/repartition-topic.js';
import type { Out } from '../cli/fixtures/group-keyed-windows.js';
import type { RunningCli } from '../cli/run-cli.js';
import {
  createTopic,
  json,
  produce,
  readAll,
  readRecords,
  uniqueTopic,
  waitFor,
} from '../kafka/helpers.js';
import { startGroupMember } from './group-member.js';
import {
  END,
  type Ev,
  input,
  line,
  oracle,
  PARTITIONS,
  partitionOf,
  settled,
  TICK,
  WINDOW,
} from './keyed-windows-input.js';

let nextPort = 61_140;

const FIXTURE = 'test/cli/fixtures/group-keyed-windows.ts';
const running: RunningCli[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});

function member(app: string, inTopic: string, outTopic: string, name: string) {
  return memberOf(FIXTURE, app, [inTopic, outTopic], name);
}

function memberOf(fixture: string, app: string, args: readonly string[], name: string) {
  const port = nextPort++;
  const cli = startGroupMember(fixture, app, name, args, ['--metrics-port', String(port)]);
  running.push(cli);
  return { cli, port };
}

async function run(processes: number, seed: number): Promise<void> {
  const inTopic = uniqueTopic('kg-in');
  const outTopic = uniqueTopic('kg-out');
  const app = uniqueTopic('kg-app');
  await createTopic(inTopic, PARTITIONS);
  await createTopic(outTopic, 1);
  const members = Array.from({ length: processes }, (_, i) =>
    member(app, inTopic, outTopic, String.fromCharCode(97 + i)),
  );
  const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-800)).join(' | ');
  // Every member holds tasks, and all tasks are held, before any data.
  await settled(members, 2 * PARTITIONS, diagnose);

  const { onTime, late, ticks } = input(seed);
  const send = (events: readonly Ev[]) =>
    produce(
      inTopic,
      events.map((e) => ({ value: JSON.stringify(e), partition: partitionOf(e) })),
    );
  const repartition = repartitionTopicName(app, 'counts');
  const dataIn = async () =>
    (await readRecords(repartition)).filter((r) => r.headers.length === 0).length;
  const outputs = async () => (await readAll(outTopic, json<Out>())).map(line);

  // Every producing task speaks (with a record, then its watermark) before the data.
  await send(ticks(0));
  await waitFor(
    'the first ticks to cross the repartition topic',
    async () => (await dataIn()) === 3,
    60_000,
    diagnose,
  );
  await send(onTime);
  await send(ticks(TICK));
  const firstWindows = new Set(
    [...ticks(0), ...onTime].map((e) => `${e.k}@${Math.floor(e.t / WINDOW) * WINDOW}`),
  ).size;
  await waitFor(
    'every on-time window to fire',
    async () => (await outputs()).length >= firstWindows,
    60_000,
    diagnose,
  );
  await send(late);
  await send(ticks(END));
  const expected = oracle(onTime, late, ticks);
  let got: string[] = [];
  await waitFor(
    'every late record and the last window',
    async () => {
      got = await outputs();
      return got.length >= expected.length;
    },
    60_000,
    () => `${got.length} of ${expected.length}; ${diagnose()}`,
  );
  expect(got.sort()).toEqual(expected);
  for (const m of members) m.cli.child.kill('SIGTERM');
  await Promise.all(members.map((m) => m.cli.done));
}

describe('weir run --group with a keyed stage', () => {
  it.each([1, 2, 3])(
    'keyed windows with late data over %i process(es) equal the batch computation (an idle input partition)',
    async (processes) => {
      await run(processes, 7);
    },
    200_000,
  );

  it('a task read by one member moves to another with its state: the output still equals the batch computation', async () => {
    const inTopic = uniqueTopic('kg-in');
    const outTopic = uniqueTopic('kg-out');
    const app = uniqueTopic('kg-app');
    await createTopic(inTopic, PARTITIONS);
    await createTopic(outTopic, 1);
    const a = member(app, inTopic, outTopic, 'a');
    const members = [a];
    const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-800)).join(' | ');
    await settled(members, 2 * PARTITIONS, diagnose);
    const { onTime, late, ticks } = input(11);
    const send = (events: readonly Ev[]) =>
      produce(
        inTopic,
        events.map((e) => ({ value: JSON.stringify(e), partition: partitionOf(e) })),
      );
    await send(ticks(0));
    await send(onTime);
    const repartition = repartitionTopicName(app, 'counts');
    await waitFor(
      'a to read the records',
      async () =>
        (await readRecords(repartition)).filter((r) => r.headers.length === 0).length ===
        onTime.length + 3,
      60_000,
      diagnose,
    );
    // b joins: a gives tasks of both stages up, with their open windows, to b.
    const b = member(app, inTopic, outTopic, 'b');
    members.push(b);
    await settled(members, 2 * PARTITIONS, diagnose);
    await waitFor(
      'b to restore tasks a had read',
      () => /restored: (?!none)/.test(b.cli.output('stderr')),
      60_000,
      diagnose,
    );
    await send(ticks(TICK));
    // The late records go in only once the ticks' watermark has fired the windows (as in `run`).
    const firstWindows = new Set(
      [...ticks(0), ...onTime].map((e) => `${e.k}@${Math.floor(e.t / WINDOW) * WINDOW}`),
    ).size;
    await waitFor(
      'every on-time window to fire',
      async () => (await readAll(outTopic, json<Out>())).length >= firstWindows,
      60_000,
      diagnose,
    );
    await send(late);
    await send(ticks(END));
    const expected = oracle(onTime, late, ticks);
    let got: string[] = [];
    await waitFor(
      'every window, update and late record',
      async () => {
        got = (await readAll(outTopic, json<Out>())).map(line);
        return got.length >= expected.length;
      },
      60_000,
      () =>
        `${got.length} of ${expected.length}; missing ${expected
          .filter((l) => !got.includes(l) && l.startsWith('window'))
          .slice(0, 12)
          .join(' / ')}; extra ${got
          .filter((l) => !expected.includes(l))
          .slice(0, 12)
          .join(' / ')}; ${diagnose()}`,
    );
    expect(got.sort()).toEqual(expected);
    for (const m of members) m.cli.child.kill('SIGTERM');
    await Promise.all(members.map((m) => m.cli.done));
  }, 200_000);
});
