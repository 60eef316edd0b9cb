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
import { heldTasks, startGroupMember } from './group-member.js';

const FIXTURE = 'test/cli/fixtures/group-keyed-windows.ts';
const running: RunningCli[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});

/** Input partitions; the last one never gets a record (an idle task). */
const PARTITIONS = 4;
const KEYS = Array.from({ length: 9 }, (_, i) => `k${i}`);
const WINDOW = 10_000;
const LATENESS = 15_000;
const OUT_OF_ORDERNESS = 100_000;
/** Ticks that take the watermark past every on-time window (multiples of 3: see `ticks`). */
const TICK = 201_000;
const END = 402_000;
let nextPort = 61_140;

interface Ev {
  readonly k: string;
  readonly t: number;
  readonly v: number;
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every key's records go to one partition (0..2), so their order holds end to end; ticks go to all three. */
const partitionOf = (e: Ev): number => (e.k === 'tick' ? e.t % 3 : Number(e.k.slice(1)) % 3);

/**
 * The input in phases: a tick in each partition, so every producing task
 * has spoken before the data; on-time records up to 90 s (each key has one
 * at 85 s); ticks at 200 s that take the watermark (100 s behind) to 100 s;
 * late records (those in [80 s, 90 s) update their window, earlier ones are
 * too late for it); ticks at 400 s that fire the last window.
 */
function input(seed: number) {
  const next = random(seed);
  const onTime: Ev[] = [];
  for (const k of KEYS) {
    onTime.push({ k, t: 85_000, v: 1 });
    for (let i = 0; i < 40; i++)
      onTime.push({ k, t: Math.floor(next() * 90_000), v: Math.floor(next() * 100) });
  }
  const late: Ev[] = KEYS.flatMap((k) =>
    Array.from({ length: 4 }, () => ({
      k,
      t: Math.floor(next() * 90_000),
      v: Math.floor(next() * 100),
    })),
  );
  // t: a multiple of 3, so tick t + p goes to partition p.
  const ticks = (t: number): Ev[] => [0, 1, 2].map((p) => ({ k: 'tick', t: t + p, v: 0 }));
  return { onTime, late, ticks };
}

/** The batch computation: what the job must write, as a sorted list of lines. */
function oracle(onTime: readonly Ev[], late: readonly Ev[], ticks: (t: number) => Ev[]): string[] {
  const out: Out[] = [];
  const acc = new Map<string, { k: string; start: number; n: number; sum: number }>();
  const add = (e: Ev) => {
    const start = Math.floor(e.t / WINDOW) * WINDOW;
    const id = `${e.k}@${start}`;
    const a = acc.get(id) ?? { k: e.k, start, n: 0, sum: 0 };
    a.n++;
    a.sum += e.v;
    acc.set(id, a);
    return a;
  };
  // Everything before the ticks at TICK fires when they pass.
  for (const e of [...ticks(0), ...onTime]) add(e);
  for (const a of acc.values()) out.push({ kind: 'window', ...a, update: false });
  const watermark = TICK + 2 - OUT_OF_ORDERNESS - 1;
  for (const e of late) {
    const start = Math.floor(e.t / WINDOW) * WINDOW;
    if (start + WINDOW - 1 + LATENESS <= watermark) out.push({ kind: 'late', ...e });
    else out.push({ kind: 'window', ...add({ ...e }), update: true });
  }
  // The ticks' own window fires when the ticks at END pass.
  out.push({ kind: 'window', k: 'tick', start: 200_000, n: 3, sum: 0, update: false });
  return out.map(line).sort();
}

function line(o: Out): string {
  return o.kind === 'window'
    ? `window ${o.k} ${o.start} n=${o.n} sum=${o.sum}${o.update ? ' update' : ''}`
    : `late ${o.k} ${o.t} v=${o.v}`;
}

function member(app: string, inTopic: string, outTopic: string, name: string) {
  return memberOf(FIXTURE, app, [inTopic, outTopic], name);
}

function memberOf(fixture: string, app: string, args: readonly string[], name: string) {
  const port = nextPort++;
  const cli = startGroupMember(fixture, app, name, args, ['--metrics-port', String(port)]);
  running.push(cli);
  return { cli, port };
}

type Member = ReturnType<typeof member>;

/** Waits until the members hold `total` tasks between them, each some (a member's readers each report a line). */
async function settled(members: readonly Member[], total: number, diagnose: () => string) {
  await waitFor(
    'the group to settle',
    async () => {
      const held = await Promise.all(members.map((m) => heldTasks(m.port)));
      const sums = held.map((h) => h.reduce((a, b) => a + b, 0));
      return (
        sums.reduce((a, b) => a + b, 0) === total &&
        held.every((h) => h.length === 2) &&
        sums.every((n) => n > 0)
      );
    },
    90_000,
    diagnose,
  );
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
