/**
 * Interactive queries and observability across the members of a process
 * group: real `weir run --group` processes on loopback, each serving its
 * REST API. The state queried is the state a per-record pipeline in a group
 * has: each Kafka source task's position (key `topic:partition`, owned by
 * the member the group coordinator assigned the partition to); keyed state
 * is queried in keyed-queries-group.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ProcessGroupView } from '../../src/core/process-group.js';
import { parseExposition } from '../helpers/exposition.js';
import { createTopic, json, produce, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { launchBrowser } from '../ui/chromium.js';
import { GROUP_FIXTURE, membersOfFile, startGroupMember, type UiMember } from './group-member.js';

const PARTITIONS = 6;
const running = membersOfFile();

interface Member extends UiMember {
  readonly jobId: string;
}

async function startMember(
  app: string,
  input: string,
  output: string,
  name: string,
  port: number,
): Promise<Member> {
  const cli = startGroupMember(
    GROUP_FIXTURE,
    app,
    name,
    [input, output, name],
    ['--ui-port', String(port)],
  );
  running.push(cli);
  const [, url] = await cli.waitFor('stderr', /web UI at (http:\/\/[^\s/]+)\//);
  let jobId = '';
  await waitFor(
    `member ${name} to list its job`,
    async () => {
      const jobs = (await (await fetch(`${url}/jobs`)).json()) as { jobs: { id: string }[] };
      jobId = jobs.jobs[0]?.id ?? '';
      return jobId !== '';
    },
    60_000,
    () => cli.output('stderr').slice(-800),
  );
  return { name, cli, url: url!, jobId };
}

const groupView = async (m: Member): Promise<ProcessGroupView> =>
  (await (await fetch(`${m.url}/jobs/${m.jobId}/group`)).json()) as ProcessGroupView;

interface Position {
  readonly status: number;
  readonly body: {
    value?: { topic: string; partition: number; offset: number };
    member?: string;
    error?: string;
  };
}

const position = async (m: Member, task: string): Promise<Position> => {
  const r = await fetch(`${m.url}/jobs/${m.jobId}/state/input/${encodeURIComponent(task)}`);
  return { status: r.status, body: (await r.json()) as Position['body'] };
};

const metrics = async (m: Member) => {
  const { families, problems } = parseExposition(await (await fetch(`${m.url}/metrics`)).text());
  expect(problems).toEqual([]);
  return (name: string, labels: Record<string, string> = {}) =>
    families
      .find((f) => f.name === name)
      ?.samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
};

/** Runs `check` until it passes, for up to a minute; then its last failure is the test's. */
async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Owner of each task by a member's view: every task exactly once. */
function assignment(view: ProcessGroupView): Map<string, string> {
  const owners = new Map<string, string>();
  for (const m of view.members) for (const t of m.tasks) owners.set(t, m.member);
  return owners;
}

describe('interactive queries in a process group', () => {
  it('every member answers the same value for every task, from the task owner; /metrics and /group show the assignment, rebalances and lag', async () => {
    const input = uniqueTopic('iq-in');
    const output = uniqueTopic('iq-out');
    const app = uniqueTopic('iq-app');
    await createTopic(input, PARTITIONS);
    await createTopic(output, 1);
    const perPartition = new Map<number, number>();
    let next = 0;
    const send = async (n: number) => {
      const ids = Array.from({ length: n }, (_, i) => next + i);
      next += n;
      for (const id of ids)
        perPartition.set(id % PARTITIONS, (perPartition.get(id % PARTITIONS) ?? 0) + 1);
      await produce(
        input,
        ids.map((id) => ({ value: JSON.stringify({ id }), partition: id % PARTITIONS })),
      );
    };
    const tasks = Array.from({ length: PARTITIONS }, (_, p) => `${input}:${p}`);
    const a = await startMember(app, input, output, 'a', 61311);
    const b = await startMember(app, input, output, 'b', 61312);
    const members = [a, b];
    const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-600)).join(' | ');
    await send(360);

    // Both members hold tasks, every task has one owner, and each member's view agrees.
    let views: ProcessGroupView[] = [];
    await waitFor(
      'a settled assignment over both members, and every record out',
      async () => {
        views = await Promise.all(members.map(groupView));
        const owners = views.map(assignment);
        const settled = views.every(
          (v) =>
            v.members.length === 2 &&
            v.unassigned.length === 0 &&
            v.tasks.length > 0 &&
            v.members.every((m) => m.tasks.length > 0),
        );
        const agreed =
          owners.every((o) => o.size === PARTITIONS) &&
          JSON.stringify([...owners[0]!].sort()) === JSON.stringify([...owners[1]!].sort());
        if (!settled || !agreed) return false;
        return (
          new Set((await readAll(output, json<{ id: number }>())).map((r) => r.id)).size === next
        );
      },
      150_000,
      diagnose,
    );
    const owners = assignment(views[0]!);
    expect([...owners.keys()].sort()).toEqual([...tasks].sort());

    // Each member's tasks have read every record: position at the partition's end, lag 0.
    let last: ProcessGroupView[] = [];
    await waitFor(
      'every task position at its partition end',
      async () => {
        const vs = await Promise.all(members.map(groupView));
        last = vs;
        return vs.every((v) =>
          v.tasks.every(
            (t) => t.position === perPartition.get(Number(t.task.split(':')[1])) && t.lag === 0,
          ),
        );
      },
      60_000,
      () => JSON.stringify(last.map((v) => v.tasks)),
    );
    views = last;

    // The same value from every member, answered by the owner.
    let forwarded = 0;
    for (const task of tasks) {
      const partition = Number(task.split(':')[1]);
      const owner = owners.get(task)!;
      for (const m of members) {
        const answer = await position(m, task);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body.value).toEqual({
          topic: input,
          partition,
          offset: perPartition.get(partition),
        });
        expect(answer.body.member).toBe(owner);
        if (views[members.indexOf(m)]!.member !== owner) forwarded++;
      }
    }
    expect(forwarded).toBe(PARTITIONS);

    // Prometheus: this member's tasks with lag and position; every member and owner; rebalances.
    // The metrics come from the members topic and a lookup of partition ends once a second, as
    // each member last saw them: check until they agree (or the last failure after a minute).
    for (const [i, m] of members.entries()) {
      const view = views[i]!;
      await eventually(async () => {
        const sample = await metrics(m);
        expect(sample('weir_group_tasks')?.[0]?.value).toBe(view.tasks.length);
        expect(sample('weir_group_members')?.[0]?.value).toBe(2);
        expect(sample('weir_group_unassigned_tasks')?.[0]?.value).toBe(0);
        expect(sample('weir_group_rebalances_total')?.[0]?.value).toBeGreaterThanOrEqual(1);
        for (const t of view.tasks) {
          expect(sample('weir_group_task_lag_records', { task: t.task })?.[0]?.value).toBe(0);
          expect(sample('weir_group_task_position', { task: t.task })?.[0]?.value).toBe(t.position);
        }
        for (const task of tasks)
          expect(sample('weir_group_task_owner', { task })?.map((s) => s.labels.member)).toEqual([
            owners.get(task),
          ]);
      });
    }

    // The web UI of a member shows the group: every task with its owner, this member's in bold.
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(`${a.url}/`);
      await page.waitForSelector('#group-panel:not([hidden])');
      await expect.poll(() => page.locator('#group-tasks tbody tr').count()).toBe(PARTITIONS);
      expect(await page.locator('#group-tasks tbody tr.own-task').count()).toBe(
        views[0]!.tasks.length,
      );
      expect(await page.locator('#group-summary').textContent()).toContain('2 members');
      const shownOwners = await page
        .locator('#group-tasks tbody tr td:nth-child(2)')
        .allTextContents();
      expect(shownOwners.map((o) => o.replace(' (this)', '')).sort()).toEqual(
        tasks.map((t) => owners.get(t)).sort(),
      );
    } finally {
      await browser.close();
    }

    // b leaves: a takes its tasks, sees a rebalance begin and end, and answers for every task.
    const before = (await groupView(a)).rebalances;
    b.cli.child.kill('SIGTERM');
    await b.cli.done;
    await send(60);
    await waitFor(
      'a to hold every task, and every record out',
      async () => {
        const v = await groupView(a);
        if (v.members.length !== 1 || v.tasks.length !== PARTITIONS || v.unassigned.length > 0)
          return false;
        if (v.tasks.some((t) => t.position !== perPartition.get(Number(t.task.split(':')[1]))))
          return false;
        return (
          new Set((await readAll(output, json<{ id: number }>())).map((r) => r.id)).size === next
        );
      },
      150_000,
      diagnose,
    );
    const after = await groupView(a);
    expect(after.rebalances).toBeGreaterThan(before);
    expect(after.lastRebalanceMs).toBeGreaterThanOrEqual(0);
    expect(after.lastRebalanceAt).toBeGreaterThan(0);
    for (const task of tasks) {
      const answer = await position(a, task);
      expect(answer.status).toBe(200);
      expect(answer.body.member).toBe(after.member);
      expect(answer.body.value?.offset).toBe(perPartition.get(Number(task.split(':')[1])));
    }
    const sample = await metrics(a);
    expect(sample('weir_group_members')?.[0]?.value).toBe(1);
    expect(sample('weir_group_last_rebalance_duration_seconds')?.[0]?.value).toBe(
      after.lastRebalanceMs! / 1000,
    );
    a.cli.child.kill('SIGTERM');
    await a.cli.done;
  }, 240_000);
});
