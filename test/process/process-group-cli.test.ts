import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningCli, startWeir } from '../cli/run-cli.js';
import { createTopic, json, produce, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { GROUP_FIXTURE, startGroupMember } from './group-member.js';

const running: RunningCli[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});

interface Out {
  readonly id: number;
  readonly member: string;
}

function member(app: string, input: string, output: string, name: string): RunningCli {
  const cli = startGroupMember(GROUP_FIXTURE, app, name, [input, output, name]);
  // A member no test stops is killed at its time limit; that is not a failure of the test.
  cli.done.catch(() => {});
  running.push(cli);
  return cli;
}

/** A job's topics and a producer of ids 0, 1, 2, ... over 6 partitions, with reads of the output. */
async function scenario() {
  const input = uniqueTopic('pg-in');
  const output = uniqueTopic('pg-out');
  const app = uniqueTopic('pg-app');
  await createTopic(input, 6);
  await createTopic(output, 1);
  let next = 0;
  /** Produces `n` more ids, spread over the 6 partitions. */
  const send = async (n: number): Promise<void> => {
    const batch = Array.from({ length: n }, (_, i) => next + i);
    next += n;
    await produce(
      input,
      batch.map((id) => ({ value: JSON.stringify({ id }), partition: id % 6 })),
    );
  };
  let out: Out[] = [];
  const read = async (): Promise<Out[]> => {
    out = await readAll(output, json<Out>());
    return out;
  };
  const diagnose = () =>
    `${out.length} records out; stderr: ${running.map((r) => r.output('stderr').slice(-600)).join(' | ')}`;
  /** Keeps producing until `check` holds on the output: members join and leave meanwhile. */
  const produceUntil = async (what: string, check: (o: Out[]) => boolean) => {
    await waitFor(
      what,
      async () => {
        await send(30);
        return check(await read());
      },
      150_000,
      diagnose,
    );
  };

  /**
   * Waits until every id sent is in the output, then checks there is no
   * other: at least once, as a task that moved may repeat records after its
   * last committed offset, never skip one.
   */
  const everySentCameOut = async (): Promise<void> => {
    const total = next;
    await waitFor(
      'every record sent to come out',
      async () => new Set((await read()).map((r) => r.id)).size === total,
      60_000,
      diagnose,
    );
    expect([...new Set(out.map((r) => r.id))].sort((x, y) => x - y)).toEqual(
      Array.from({ length: total }, (_, i) => i),
    );
  };

  return {
    app,
    input,
    output,
    send,
    read,
    produceUntil,
    diagnose,
    everySentCameOut,
    last: () => out,
  };
}

describe('weir run --group', () => {
  it('processes started with one group id share the input, and scale 1 -> 3 -> 2 loses nothing', async () => {
    const { app, input, output, send, read, produceUntil, diagnose, everySentCameOut, last } =
      await scenario();
    const a = member(app, input, output, 'a');
    await send(60);
    await waitFor(
      'member a to copy the first records',
      async () => (await read()).length >= 60,
      60_000,
      diagnose,
    );
    expect(new Set(last().map((r) => r.member))).toEqual(new Set(['a']));

    const seen = last().length;
    member(app, input, output, 'b');
    const c = member(app, input, output, 'c');
    await produceUntil('b and c to take over tasks', (o) => {
      const later = new Set(o.slice(seen).map((r) => r.member));
      return later.has('b') && later.has('c');
    });

    // c leaves (Ctrl-C: it stops and leaves the group); a and b take its tasks.
    c.child.kill('SIGTERM');
    expect((await c.done).code).not.toBeNull();
    const afterLeave = last().length;
    await produceUntil('a and b to carry on without c', (o) => {
      const later = o.slice(afterLeave);
      return later.length >= 180 && !later.slice(-60).some((r) => r.member === 'c');
    });

    await everySentCameOut();
    a.child.kill('SIGTERM');
    await a.done;
  }, 240_000);

  it('a member killed with SIGKILL loses nothing: the broker gives its tasks to the others, a restarted one takes some back', async () => {
    const { app, input, output, produceUntil, everySentCameOut, last } = await scenario();
    member(app, input, output, 'a');
    const b = member(app, input, output, 'b');
    await produceUntil('a and b to hold tasks', (o) => {
      const members = new Set(o.map((r) => r.member));
      return members.has('a') && members.has('b');
    });
    // SIGKILL: no leave request, no flush; b's uncommitted progress is read again by its heir.
    b.child.kill('SIGKILL');
    await b.done;
    const afterKill = last().length;
    await produceUntil(
      'a to take over b’s tasks once the broker’s session timeout has passed',
      (o) => {
        const later = o.slice(afterKill);
        // Every partition reached a again: ids of all six residues, after b's last record.
        const residues = new Set(later.filter((r) => r.member === 'a').map((r) => r.id % 6));
        return residues.size === 6;
      },
    );
    const beforeRestart = last().length;
    member(app, input, output, 'b2');
    await produceUntil('the restarted member to take tasks again', (o) =>
      o.slice(beforeRestart).some((r) => r.member === 'b2'),
    );
    await everySentCameOut();
  }, 240_000);

  it('refuses a keyed operator without a uid, which its repartition topic would be named after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-group-keyed-'));
    const cli = startWeir([
      'run',
      GROUP_FIXTURE,
      '--group',
      'never-joins',
      '--bootstrap',
      '127.0.0.1:9092',
      '--checkpoint-dir',
      dir,
      '--',
      'in',
      'out',
      'x',
      'keyed',
    ]);
    running.push(cli);
    const result = await cli.done;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /cannot run in process group 'never-joins': give it a \.uid\(\): the repartition topic/,
    );
  }, 60_000);
});
