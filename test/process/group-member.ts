import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll } from 'vitest';
import { type RunningCli, startWeir } from '../cli/run-cli.js';
import { bundledCli } from '../helpers/bundled-fixture.js';
import { waitFor } from '../kafka/helpers.js';
import { groupMemberArgs } from './group-member-args.js';

/** The job module of the process group tests: reads one topic, writes another, names the member. */
export const GROUP_FIXTURE = 'test/cli/fixtures/group-member.ts';

/** The checkpoint location of each group: every member of a group shares it, as it must. */
const locations = new Map<string, string>();

/**
 * Starts `weir run <fixture> --group <app>` on the test Kafka (the CLI and the fixture bundled), with the
 * group's shared checkpoint location and a checkpoint every 0.2 s; `flags` go
 * before `--`, `args` to the job. Tests stop their members; the hard limit
 * only ends one left running, and is as long as the longest test of these
 * files: a member it killed mid-test (one that outlived 400 s on a busy
 * machine) would leave its group short of a member for good.
 */
export function startGroupMember(
  fixture: string,
  app: string,
  name: string,
  args: readonly string[],
  flags: readonly string[] = [],
): RunningCli {
  let dir = locations.get(app);
  if (dir === undefined) {
    dir = join(mkdtempSync(join(tmpdir(), `weir-group-${name}-`)), 'checkpoints');
    locations.set(app, dir);
  }
  // Members start often (each kill is replaced): from one bundle of the CLI and the fixture.
  const { cli, job } = bundledCli(fixture);
  return startWeir(groupMemberArgs(job, app, dir, args, flags), 900_000, { cli });
}

/** A member started with `--ui-port`: its REST API's address. */
export interface UiMember {
  readonly name: string;
  readonly cli: RunningCli;
  readonly url: string;
}

/**
 * The members a test file starts (push each one): any still running after
 * the file, a failed test's, are killed with SIGKILL.
 */
export function membersOfFile(): RunningCli[] {
  const running: RunningCli[] = [];
  afterAll(() => {
    for (const r of running) r.child.kill('SIGKILL');
  });
  return running;
}

/** Tasks (partitions) a member holds now, per reader (a line of `weir_kafka_source_partitions` on its /metrics). */
export async function heldTasks(port: number): Promise<number[]> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith('weir_kafka_source_partitions'))
      .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
  } catch {
    return [];
  }
}

/** A member started with `--metrics-port`: its process and the port of its /metrics. */
export interface MetricsMember {
  readonly cli: RunningCli;
  readonly port: number;
}

/** Whether a member has run with tasks (killing one that never did tests little). */
const hasHeldTasks = (m: MetricsMember): boolean =>
  /this member holds [1-9]/.test(m.cli.output('stderr'));

/**
 * Kills a member that has held tasks with SIGKILL, at a random moment up to `gapMs` after one
 * has (the survivors and replacements may all be restoring still), while records are produced
 * and read, checkpoints sealed and tasks moved; replaces it in `members` with `replacement()` at
 * once, without waiting for the group to recover. Returns the victim.
 */
export async function killHeldMember<M extends MetricsMember>(
  members: M[],
  next: () => number,
  replacement: () => M,
  diagnose: () => string,
  gapMs: number,
): Promise<M> {
  await waitFor(
    'a member that has held tasks',
    async () => members.some(hasHeldTasks),
    90_000,
    diagnose,
  );
  await sleep(Math.floor(next() * gapMs));
  const held = members.filter(hasHeldTasks);
  const victim = held[Math.floor(next() * held.length)]!;
  members.splice(members.indexOf(victim), 1);
  victim.cli.child.kill('SIGKILL');
  members.push(replacement());
  return victim;
}

/**
 * Starts members of the group job `fixture` on a test's topics `t` (the
 * job's args from `jobArgs`), with /metrics on ports from `firstPort` on
 * (one range per test file), and kills any still running after the file.
 */
export function metricsMembers<T extends { readonly app: string }>(
  fixture: string,
  jobArgs: (t: T) => string[],
  firstPort: number,
  flags: readonly string[] = [],
): (t: T, name: string) => MetricsMember {
  let next = firstPort;
  const running = membersOfFile();
  return (t, name) => {
    const port = next++;
    const cli = startGroupMember(fixture, t.app, name, jobArgs(t), [
      '--metrics-port',
      String(port),
      ...flags,
    ]);
    running.push(cli);
    return { cli, port };
  };
}

/** The end of each member's stderr, for a test's failure message. */
export function stderrOf(members: readonly MetricsMember[]): () => string {
  return () => members.map((m) => m.cli.output('stderr').slice(-800)).join(' | ');
}

/** Stops the members with SIGTERM and waits for them. */
export async function stopAll(members: readonly MetricsMember[]): Promise<void> {
  for (const m of members) m.cli.child.kill('SIGTERM');
  await Promise.all(members.map((m) => m.cli.done));
}
