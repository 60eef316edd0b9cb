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
  chunks,
  countAndMax,
  END,
  type Ev,
  input,
  lastWins,
  oracleOutputs,
  PARTITIONS,
  partitionOf,
  settled,
  TICK,
  WINDOW,
} from './keyed-windows-input.js';

/**
 * Keyed state that moves with its task: members of a process group join,
 * leave and die while keyed windows with allowed lateness are counted, and
 * the result is checked against the batch computation.
 */
const FIXTURE = 'test/cli/fixtures/group-keyed-windows.ts';
const running: RunningCli[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});
let nextPort = 61_160;

function member(app: string, inTopic: string, outTopic: string, name: string) {
  const port = nextPort++;
  const cli = startGroupMember(
    FIXTURE,
    app,
    name,
    [inTopic, outTopic],
    ['--metrics-port', String(port)],
  );
  running.push(cli);
  return { cli, port };
}

async function setUp() {
  const inTopic = uniqueTopic('kh-in');
  const outTopic = uniqueTopic('kh-out');
  const app = uniqueTopic('kh-app');
  await createTopic(inTopic, PARTITIONS);
  await createTopic(outTopic, 1);
  const send = (events: readonly Ev[]) =>
    produce(
      inTopic,
      events.map((e) => ({ value: JSON.stringify(e), partition: partitionOf(e) })),
    );
  const repartition = repartitionTopicName(app, 'counts');
  /** Records (not watermark marks) written into the repartition topic so far. */
  const exchanged = async () =>
    (await readRecords(repartition)).filter((r) => r.headers.length === 0).length;
  const outputs = () => readAll(outTopic, json<Out>());
  return { inTopic, outTopic, app, send, exchanged, outputs };
}

const windowOf = (e: Ev) => `${e.k}@${Math.floor(e.t / WINDOW) * WINDOW}`;

describe('keyed state moves with its task in a process group', () => {
  it('scaled 1 -> 3 -> 2 while producing (joins, then a SIGTERM): the final value of every window equals the batch computation', async () => {
    const { inTopic, outTopic, app, send, exchanged, outputs } = await setUp();
    const members = [member(app, inTopic, outTopic, 'a')];
    const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-600)).join(' | ');
    await settled(members, 2 * PARTITIONS, diagnose);
    const { onTime, late, ticks } = input(23);
    const [first, second, third, fourth] = chunks(onTime, 4) as [Ev[], Ev[], Ev[], Ev[]];
    await send(ticks(0));
    await send(first);
    // Two members join while records flow: a gives them tasks, with their windows.
    const joining = send(second);
    members.push(member(app, inTopic, outTopic, 'b'), member(app, inTopic, outTopic, 'c'));
    await joining;
    await settled(members, 2 * PARTITIONS, diagnose);
    await send(third);
    // c leaves with SIGTERM while records flow: its tasks go to a and b.
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    await send(fourth);
    expect((await leaver.cli.done).code).toBe(0);
    await settled(members, 2 * PARTITIONS, diagnose);
    expect(members.map((m) => m.cli.output('stderr')).join('')).toMatch(/restored: (?!none)/);
    await waitFor(
      'every record to cross the repartition topic',
      async () => (await exchanged()) >= onTime.length + 3,
      60_000,
      diagnose,
    );
    await send(ticks(TICK));
    const windows = new Set([...ticks(0), ...onTime].map(windowOf)).size;
    await waitFor(
      'every on-time window to fire',
      async () =>
        new Set((await outputs()).map((o) => `${o.k}@${'start' in o ? o.start : ''}`)).size >=
        windows,
      60_000,
      diagnose,
    );
    await send(late);
    await send(ticks(END));
    const expected = lastWins(oracleOutputs(onTime, late, ticks));
    let got: string[] = [];
    await waitFor(
      'the late records and the last window',
      async () => {
        got = lastWins(await outputs());
        return got.length >= expected.length;
      },
      60_000,
      () => `${got.length} of ${expected.length}; ${diagnose()}`,
    );
    expect(got).toEqual(expected);
    for (const m of members) m.cli.child.kill('SIGTERM');
    await Promise.all(members.map((m) => m.cli.done));
  }, 240_000);

  it('a member killed with SIGKILL mid-stream: no window loses input, and a duplicate-insensitive aggregate (max) is exact', async () => {
    const { inTopic, outTopic, app, send, exchanged, outputs } = await setUp();
    const members = [member(app, inTopic, outTopic, 'a'), member(app, inTopic, outTopic, 'b')];
    const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-600)).join(' | ');
    await settled(members, 2 * PARTITIONS, diagnose);
    const { onTime, ticks } = input(29);
    const [first, second, third] = chunks(onTime, 3) as [Ev[], Ev[], Ev[]];
    await send(ticks(0));
    await send(first);
    await waitFor(
      'the first records to cross the repartition topic',
      async () => (await exchanged()) >= first.length + 3,
      60_000,
      diagnose,
    );
    await send(second);
    const killed = members.pop()!;
    killed.cli.child.kill('SIGKILL');
    await send(third);
    // The survivor takes every task once the group's session timeout has passed.
    await settled(members, 2 * PARTITIONS, diagnose);
    await send(ticks(TICK));
    const batch = countAndMax([...ticks(0), ...onTime]);
    let final = new Map<string, { n: number; max: number | undefined }>();
    await waitFor(
      'every on-time window to fire',
      async () => {
        final = new Map();
        for (const o of await outputs())
          if (o.kind === 'window') final.set(`${o.k}@${o.start}`, { n: o.n, max: o.max });
        return [...batch.keys()].every((w) => final.has(w));
      },
      90_000,
      () => `${final.size} of ${batch.size} windows; ${diagnose()}`,
    );
    for (const [w, { n, max }] of batch) {
      expect(final.get(w)!.n, `records of window ${w}`).toBeGreaterThanOrEqual(n);
      expect(final.get(w)!.max, `max of window ${w}`).toBe(max);
    }
    expect(final.size).toBe(batch.size);
    for (const m of members) m.cli.child.kill('SIGTERM');
    await Promise.all(members.map((m) => m.cli.done));
  }, 240_000);
});
