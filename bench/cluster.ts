/**
 * Process groups on one machine (`weir run --group`), against the shared
 * Kafka on 127.0.0.1:9092, with every process a real `weir run` child:
 *
 * 1. throughput of a per-record Kafka job (parse, tag, write) on 1 and 2
 *    members of a group, against the machine's ceiling: two independent
 *    processes (two groups), each reading half of the input;
 * 2. failover of a single-owner task (a generator job: not Kafka, so one
 *    member runs it): SIGKILL of the owner -> the standby owns the task ->
 *    its first record in the output;
 * 3. pause of a partitioned job's tasks while a member joins and while one
 *    leaves (SIGTERM), and failover after a SIGKILL, under a steady input;
 * 4. restore rate: reading and verifying a checkpoint from a local directory
 *    and from S3.
 *
 * 5. a keyed exchange through a repartition topic (`repartition-topic.ts`:
 *    encode, produce, fetch, decode) against one inside a process;
 * 6. pause of a keyed job's tasks while a member joins and while one leaves
 *    (SIGTERM): its keyed state moves with the tasks (final snapshots, then
 *    every affected member restarts its job restored from them), with the
 *    members' time-stamped hand-over phases per event, and its failover
 *    after a SIGKILL, `--failovers` rounds.
 * 7. state that moves with a task, two ways, for the same keyed state
 *    (`--state-keys` keys of about 100 bytes): a changelog topic (one
 *    record produced per state update; a new owner reads the compacted
 *    topic back) against task snapshots (nothing per update; the state
 *    written at a checkpoint, read and verified by a new owner).
 *
 *   npm run bench:cluster -- [--records N] [--failovers K] [--restore-mb M] [--exchange-records N]
 *     [--skip-partitioned-failover] [--only 1,2,3,4,5,6,7] [--session-timeout S] [--state-keys N]
 *     [--owner-s3] [--owner-state-keys N] [--keyed-s3] [--keyed-state-bytes B] [--standby-replicas N]
 *
 * `--session-timeout` is every member's `weir run --session-timeout` (the
 * broker of scripts/kafka.sh accepts 1 s and more).
 *
 * Times come from the clock of this process; CPU seconds of each member
 * from /proc/<pid>/stat (user + system), read at the start and end of the
 * measured window. S3 needs the test server's environment (scripts/s3.sh).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Admin, Consumer, Producer } from '@platformatic/kafka';
import { decodeEntry, sendToRepartition } from '../src/connectors/kafka/group/repartition-topic.js';
import { DiscardingSink, StreamEnvironment } from '../src/index.js';
import { checkpointStorageAt } from '../src/runtime/checkpoint/checkpoint-storage.js';
import type { ClusterRecord } from './jobs/cluster-job.js';
import { syntheticCheckpoint } from './shared/synthetic-checkpoint.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '400000' },
    failovers: { type: 'string', default: '3' },
    'restore-mb': { type: 'string', default: '64' },
    'skip-partitioned-failover': { type: 'boolean', default: false },
    'exchange-records': { type: 'string', default: '200000' },
    /** Sections to run, e.g. `2,3` (all by default). */
    only: { type: 'string' },
    s3: { type: 'string', default: `s3://weir-test/bench-cluster-${Date.now()}` },
    'session-timeout': { type: 'string' },
    'state-keys': { type: 'string', default: '500000' },
    /** Section 2: keyed state of this many keys in the single-owner job (none by default). */
    'owner-state-keys': { type: 'string', default: '0' },
    /** Section 2: the task's checkpoints in S3 (under --s3) instead of a local directory. */
    'owner-s3': { type: 'boolean', default: false },
    /** Section 6: the tasks' snapshots in S3 (under --s3) instead of a shared local directory. */
    'keyed-s3': { type: 'boolean', default: false },
    /** Section 6: bytes of state each of the 64 keys holds besides its count (0 by default). */
    'keyed-state-bytes': { type: 'string', default: '0' },
    /** Every member's `weir run --standby-replicas` (none by default). */
    'standby-replicas': { type: 'string' },
    /** Every member's `weir run --checkpoint-interval`, in seconds (the floor of an exactly-once output's delay). */
    'checkpoint-interval': { type: 'string', default: '1' },
  },
});
const RECORDS = Number(values.records);
const BROKERS = ['127.0.0.1:9092'];
const PARTITIONS = 4;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const JOB = fileURLToPath(new URL('./jobs/cluster-job.js', import.meta.url));
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100;
const run = randomUUID().slice(0, 8);
const SESSION = values['session-timeout'];
const SESSION_FLAGS = SESSION === undefined ? [] : ['--session-timeout', SESSION];
const STANDBY = values['standby-replicas'];
const STANDBY_FLAGS = STANDBY === undefined ? [] : ['--standby-replicas', STANDBY];
const scratch = mkdtempSync(join(tmpdir(), 'weir-bench-cluster-'));
const members: Member[] = [];

function say(line: string): void {
  console.log(line);
}

// ---------- processes ----------

interface Member {
  readonly name: string;
  readonly child: ChildProcess;
  /** stderr lines with the time (performance.now()) each arrived. */
  readonly lines: { at: number; text: string }[];
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<number>;
}

function startMember(
  group: string,
  name: string,
  jobArgs: string[],
  checkpointDir: string,
  flags: readonly string[] = [],
): Member {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'run',
      JOB,
      '--group',
      group,
      '--bootstrap',
      BROKERS.join(','),
      '--checkpoint-dir',
      checkpointDir,
      '--checkpoint-interval',
      values['checkpoint-interval'],
      ...SESSION_FLAGS,
      ...STANDBY_FLAGS,
      ...flags,
      '--',
      ...jobArgs,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      // A temporary directory of its own, as on a machine of its own: local copies of
      // checkpoints in S3 are not shared between members.
      env: { ...process.env, NO_COLOR: '1', TMPDIR: mkdtempSync(join(scratch, `tmp-${name}-`)) },
    },
  );
  const lines: { at: number; text: string }[] = [];
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const text of parts) lines.push({ at: performance.now(), text });
  });
  const member: Member = {
    name,
    child,
    lines,
    async waitForLine(pattern, timeoutMs = 120_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const hit = lines.find((l) => pattern.test(l.text));
        if (hit !== undefined) return hit.at;
        if (child.exitCode !== null)
          throw new Error(`${name} exited: ${lines.map((l) => l.text).join('\n')}`);
        if (performance.now() > deadline)
          throw new Error(`${name}: no line matching ${pattern} in ${timeoutMs} ms`);
        await sleep(20);
      }
    },
  };
  members.push(member);
  return member;
}

/**
 * The task snapshot write time of `count` checkpoints in a row on a member's
 * /metrics (one sample per new checkpoint), in seconds.
 */
async function sampleMetric(port: number, count: number): Promise<number[]> {
  const seen = new Map<number, number>();
  const deadline = performance.now() + 30_000;
  // The first checkpoint seen may be the run's first, slowed by its start: left out.
  while (seen.size < count + 1 && performance.now() < deadline) {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    const value = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1]);
    const checkpoint = value('weir_group_last_task_snapshot_checkpoint');
    const seconds = value('weir_group_last_task_snapshot_duration_seconds');
    if (checkpoint > 0 && !seen.has(checkpoint) && Number.isFinite(seconds))
      seen.set(checkpoint, seconds);
    await sleep(200);
  }
  return [...seen.values()].slice(1);
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

async function stop(member: Member, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (member.child.exitCode !== null || member.child.signalCode !== null) return;
  const exited = new Promise((resolve) => member.child.once('exit', resolve));
  member.child.kill(signal);
  await exited;
}

// ---------- Kafka ----------

const admin = new Admin({ clientId: `bench-cluster-${run}`, bootstrapBrokers: BROKERS });
const producer = new Producer({ clientId: `bench-cluster-${run}`, bootstrapBrokers: BROKERS });

const created: string[] = [];

async function topic(name: string, partitions: number): Promise<string> {
  const full = `bench-cluster-${run}-${name}`;
  await admin.createTopics({ topics: [full], partitions, replicas: 1 });
  created.push(full);
  return full;
}

const PAYLOAD = 'x'.repeat(100);

/** Records `from` to `to - 1`, record `id` to partition `id % partitions`. */
async function produceRange(target: string, from: number, to: number, partitions: number) {
  for (let start = from; start < to; start += 2000) {
    const end = Math.min(to, start + 2000);
    await producer.send({
      messages: Array.from({ length: end - start }, (_, i) => ({
        topic: target,
        partition: (start + i) % partitions,
        value: Buffer.from(JSON.stringify({ id: start + i, payload: PAYLOAD })),
      })),
    });
  }
}

/** Reads a topic from the start as records arrive, keeping each record's arrival time. */
class OutputWatcher {
  count = 0;
  readonly arrivals: { at: number; id: number; member: string }[] = [];
  private readonly consumer: Consumer;
  private stream: Awaited<ReturnType<Consumer['consume']>> | undefined;
  /** The stream's failure: an 'error' event with no listener would end the process at once, with no cleanup. */
  private failure: unknown;

  constructor(private readonly target: string) {
    this.consumer = new Consumer({
      clientId: `bench-cluster-${run}-watch`,
      groupId: `bench-cluster-${run}-watch-${target}`,
      bootstrapBrokers: BROKERS,
    });
  }

  async start(): Promise<this> {
    this.stream = await this.consumer.consume({
      topics: [this.target],
      mode: 'earliest',
      autocommit: false,
      maxWaitTime: 20,
    });
    this.stream.on('data', (m) => {
      const r = JSON.parse(m.value!.toString('utf8')) as ClusterRecord;
      this.count++;
      this.arrivals.push({ at: performance.now(), id: r.id, member: r.member });
    });
    this.stream.on('error', (error: unknown) => {
      this.failure ??= error;
    });
    return this;
  }

  async until(what: string, check: () => boolean, timeoutMs = 300_000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (!check()) {
      if (this.failure !== undefined)
        throw new Error(`reading ${this.target} failed while waiting for ${what}`, {
          cause: this.failure,
        });
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(5);
    }
    return performance.now();
  }

  async close(): Promise<void> {
    await this.stream?.close().catch(() => {});
    await Promise.resolve(this.consumer.close(true)).catch(() => {});
  }
}

// ---------- 1. throughput ----------

interface Throughput {
  readonly recordsPerSecond: number;
  readonly cpuMicrosPerRecord: number;
}

/**
 * Rate over the output between 20% and 90% of `total` (past start-up and
 * the first assignment, before the tail), with the members' CPU in it.
 */
async function measureThroughput(
  groups: { group: string; input: string; members: number }[],
  total: number,
): Promise<Throughput> {
  const output = await topic(`out-${randomUUID().slice(0, 6)}`, 1);
  const watcher = await new OutputWatcher(output).start();
  const started: Member[] = [];
  for (const g of groups)
    for (let m = 0; m < g.members; m++) {
      const dir = join(scratch, `${g.group}-${m}`);
      started.push(startMember(g.group, `m${m}`, ['kafka', g.input, output, `m${m}`], dir));
    }
  const from = Math.floor(total * 0.2);
  const to = Math.floor(total * 0.9);
  const t0 = await watcher.until('20% of the output', () => watcher.count >= from);
  const cpu0 = started.map((m) => cpuSeconds(m.child.pid!));
  const n0 = watcher.count;
  const t1 = await watcher.until('90% of the output', () => watcher.count >= to);
  const cpu1 = started.map((m) => cpuSeconds(m.child.pid!));
  const n1 = watcher.count;
  await Promise.all(started.map((m) => stop(m)));
  await watcher.close();
  const cpu = cpu1.reduce((a, c, i) => a + c - cpu0[i]!, 0);
  return {
    recordsPerSecond: ((n1 - n0) * 1000) / (t1 - t0),
    cpuMicrosPerRecord: (cpu * 1e6) / (n1 - n0),
  };
}

async function throughput(): Promise<void> {
  say(
    `\n## 1. Throughput: per-record Kafka job, ${RECORDS} records of ~130 bytes, ${PARTITIONS} partitions`,
  );
  const input = await topic('in', PARTITIONS);
  const halves = [await topic('half-a', PARTITIONS / 2), await topic('half-b', PARTITIONS / 2)];
  await produceRange(input, 0, RECORDS, PARTITIONS);
  await produceRange(halves[0]!, 0, RECORDS / 2, PARTITIONS / 2);
  await produceRange(halves[1]!, 0, RECORDS / 2, PARTITIONS / 2);
  const one = await measureThroughput([{ group: `bench-${run}-one`, input, members: 1 }], RECORDS);
  const two = await measureThroughput([{ group: `bench-${run}-two`, input, members: 2 }], RECORDS);
  const ceiling = await measureThroughput(
    halves.map((h, i) => ({ group: `bench-${run}-ceiling-${i}`, input: h, members: 1 })),
    RECORDS,
  );
  say('setup | records/s | CPU µs/record | of the ceiling');
  for (const [name, t] of [
    ['1 process (group of 1)', one],
    ['2 processes (group of 2)', two],
    ['ceiling: 2 independent processes', ceiling],
  ] as const) {
    say(
      `${name} | ${Math.round(t.recordsPerSecond)} | ${t.cpuMicrosPerRecord.toFixed(1)} | ${((100 * t.recordsPerSecond) / ceiling.recordsPerSecond).toFixed(0)}%`,
    );
  }
  const perRecord = two.cpuMicrosPerRecord;
  say(
    `projection (16 machines of 2 cores, 2 processes each, from the CPU cost of the group of 2: ${perRecord.toFixed(1)} µs/record): ${Math.round((16 * 2 * 1e6) / perRecord)} records/s if the brokers keep up`,
  );
}

// ---------- 2. single-owner failover ----------

async function singleOwnerFailover(rounds: number): Promise<void> {
  say('\n## 2. Failover of a single-owner task (generator job), SIGKILL of the owner');
  const group = `bench-${run}-single`;
  const output = await topic('single-out', 1);
  const watcher = await new OutputWatcher(output).start();
  const dir = values['owner-s3']
    ? `${values.s3}/single-owner`
    : join(scratch, 'single-owner-checkpoints');
  const stateKeys = values['owner-state-keys']!;
  // With state, records come fast enough to touch every key within seconds.
  const rate = stateKeys === '0' ? '2000' : '20000';
  const args = (name: string) => ['generator', output, name, rate, stateKeys];
  say(`checkpoints in ${dir}; ${stateKeys} keys of state; ${rate} records/s`);
  let owner = startMember(group, 'owner-0', args('owner-0'), dir);
  await owner.waitForLine(/this member owns task/);
  say(
    'round | SIGKILL -> standby owns the task (s) | SIGKILL -> first output of the new owner (s) | CPU s of the new owner from owning to its first output',
  );
  const owned: number[] = [];
  const restored: number[] = [];
  const firsts: number[] = [];
  for (let r = 1; r <= rounds; r++) {
    const standby = startMember(group, `owner-${r}`, args(`owner-${r}`), dir);
    await standby.waitForLine(/waiting until the group/);
    // Steady state: the owner writes, every key of its state is there, and a checkpoint or two completes.
    await watcher.until('the owner to write', () =>
      watcher.arrivals.some((a) => a.member === owner.name),
    );
    await sleep(3_000 + (1_000 * Number(stateKeys)) / Number(rate));
    const killedAt = performance.now();
    await stop(owner, 'SIGKILL');
    const ownsAt = await standby.waitForLine(/this member owns task/);
    const cpuAtOwning = cpuSeconds(standby.child.pid!);
    const firstAt = await watcher.until('the new owner to write', () =>
      watcher.arrivals.some((a) => a.member === standby.name),
    );
    const firstOutput = watcher.arrivals.find((a) => a.member === standby.name)!.at;
    owned.push((ownsAt - killedAt) / 1000);
    // The CPU the new owner spent starting the task: on a loaded machine, the wall time it took is mostly waiting for a core.
    restored.push(cpuSeconds(standby.child.pid!) - cpuAtOwning);
    firsts.push((Math.min(firstAt, firstOutput) - killedAt) / 1000);
    say(
      `${r} | ${owned.at(-1)!.toFixed(2)} | ${firsts.at(-1)!.toFixed(2)} | ${restored.at(-1)!.toFixed(2)}`,
    );
    owner = standby;
  }
  say(
    `median | ${median(owned).toFixed(2)} | ${median(firsts).toFixed(2)} | ${median(restored).toFixed(2)}`,
  );
  await stop(owner);
  await watcher.close();
}

// ---------- 3. planned rebalance and partitioned failover ----------

/**
 * The members' hand-over lines (`weir: hand-over: ...`) that arrived in
 * [from, to], each at its time since `from` by this process's clock: where
 * a keyed job's pause went, phase by phase.
 */
function sayPhases(event: string, from: number, to: number): void {
  say(`  phases of '${event}' (s after the event, member: line):`);
  const lines = members.flatMap((m) =>
    m.lines
      .filter((l) => l.at >= from && l.at <= to)
      .flatMap((l) => {
        // The hand-over's phases, and where the restore's state files came from.
        const files = /state files: .*/.exec(l.text)?.[0];
        if (files !== undefined) return [{ at: l.at, text: `${m.name}: restored; ${files}` }];
        if (!l.text.includes('hand-over:')) return [];
        return [
          { at: l.at, text: `${m.name}: ${l.text.slice(l.text.indexOf('hand-over:') + 11)}` },
        ];
      }),
  );
  for (const l of lines.sort((x, y) => x.at - y.at))
    say(`  ${((l.at - from) / 1000).toFixed(2).padStart(6)}  ${l.text}`);
}

/** The longest time any partition of the input went without output in [from, to]. */
function longestGap(watcher: OutputWatcher, from: number, to: number): number {
  let worst = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    let last = from;
    for (const a of watcher.arrivals) {
      if (a.id % PARTITIONS !== p || a.at < from) continue;
      if (a.at > to) break;
      worst = Math.max(worst, a.at - last);
      last = a.at;
    }
    worst = Math.max(worst, to - last);
  }
  return worst / 1000;
}

async function partitioned(withFailover: boolean, keyed = false): Promise<void> {
  say(
    keyed
      ? `\n## 6. Keyed job (a count per key, state moving with its tasks) under a steady input (1000 records/s over ${PARTITIONS} partitions): pauses`
      : `\n## 3. Partitioned job under a steady input (1000 records/s over ${PARTITIONS} partitions): pauses`,
  );
  const group = `bench-${run}-${keyed ? 'keyed' : 'partitioned'}`;
  const input = await topic(keyed ? 'keyed-in' : 'steady-in', PARTITIONS);
  const output = await topic(keyed ? 'keyed-out' : 'steady-out', 1);
  const watcher = await new OutputWatcher(output).start();
  let next = 0;
  let producing = true;
  const feeder = (async () => {
    while (producing) {
      await produceRange(input, next, next + 50, PARTITIONS);
      next += 50;
      await sleep(50);
    }
  })();
  // Said at once (the section may be waiting on something else), and thrown again where awaited.
  feeder.catch((e: unknown) =>
    console.error(`bench:cluster: the input feeder failed: ${String(e)}`),
  );
  const args = (name: string) =>
    keyed
      ? ['keyed', input, output, name, values['keyed-state-bytes']!]
      : ['kafka', input, output, name];
  // A keyed job's members share their checkpoint location: the tasks' snapshots are there.
  const dir = (name: string) =>
    keyed && values['keyed-s3']
      ? `${values.s3}/${group}-shared`
      : join(scratch, keyed ? `${group}-shared` : `p-${name}`);
  if (keyed)
    say(
      `tasks' snapshots in ${dir('a')}; ${values['keyed-state-bytes']} bytes of state per key besides its count; standby replicas: ${STANDBY ?? 'none'}`,
    );
  const metricsPort = 61_990;
  const a = startMember(group, 'a', args('a'), dir('a'), ['--metrics-port', String(metricsPort)]);
  await watcher.until('a to write', () => watcher.arrivals.some((x) => x.member === 'a'));
  const steadyCpu = cpuSeconds(a.child.pid!);
  const steadyFrom = performance.now();
  // A keyed job's steady cost of moving state: how long writing its task snapshots takes.
  const snapshotWrites = keyed ? await sampleMetric(metricsPort, 5) : [];
  if (snapshotWrites.length < 5) await sleep(5_000);
  const quiet = longestGap(watcher, performance.now() - 4_000, performance.now());
  if (keyed)
    say(
      `steady: member a used ${((cpuSeconds(a.child.pid!) - steadyCpu) / ((performance.now() - steadyFrom) / 1000)).toFixed(2)} CPU-s per second; writing the task snapshots of a checkpoint took ${snapshotWrites.map((x) => x.toFixed(2)).join(', ')} s`,
    );
  const joinAt = performance.now();
  const b = startMember(group, 'b', args('b'), dir('b'));
  // A keyed job's output is tagged by the member of its keyed stage, which b may not hold.
  if (keyed) await b.waitForLine(/this member holds [1-9]/);
  else await watcher.until('b to take tasks', () => watcher.arrivals.some((x) => x.member === 'b'));
  await sleep(5_000);
  const joinPause = longestGap(watcher, joinAt, performance.now());
  const joinEnd = performance.now();
  const leaveAt = performance.now();
  await stop(b, 'SIGTERM');
  await sleep(8_000);
  const leavePause = longestGap(watcher, leaveAt, performance.now());
  say('event | longest time a partition went without output (s)');
  say(`steady, no change (baseline) | ${quiet.toFixed(2)}`);
  say(`a member joins (its start-up included) | ${joinPause.toFixed(2)}`);
  say(`a member leaves (SIGTERM) | ${leavePause.toFixed(2)}`);
  if (keyed) {
    sayPhases('a member joins', joinAt, joinEnd);
    sayPhases('a member leaves', leaveAt, performance.now());
  }
  // A keyed job's failover is measured over several rounds (--failovers), each killing a fresh member.
  const rounds = withFailover ? (keyed ? Number(values.failovers) : 1) : 0;
  for (let r = 1; r <= rounds; r++) {
    const name = r === 1 ? 'c' : `c${r}`;
    const c = startMember(group, name, args(name), dir(name));
    // A keyed job's output is tagged by the member of its keyed stage, which c may not hold.
    if (keyed) await c.waitForLine(/this member holds [1-9]/);
    else
      await watcher.until('c to take tasks', () => watcher.arrivals.some((x) => x.member === name));
    await sleep(3_000);
    const killedAt = performance.now();
    // Keyed, only records produced after the kill count: one the killed member read and
    // committed before it died is still on its way through the keyed stage of the survivor.
    const firstNew = keyed ? next : 0;
    await stop(c, 'SIGKILL');
    // Failover ends when every input partition (and, keyed, every key) has output again
    // from a survivor: the slowest of them is the killed member's.
    const slots = (id: number) =>
      keyed ? [`p${id % PARTITIONS}`, `k${id % 64}`] : [`p${id % PARTITIONS}`];
    const expected = PARTITIONS + (keyed ? 64 : 0);
    const resumed = new Map<string, number>();
    const back = await watcher.until(
      'output again on every partition and key',
      () => {
        for (const x of watcher.arrivals) {
          if (x.at <= killedAt || x.member === name || x.id < firstNew) continue;
          for (const s of slots(x.id)) if (!resumed.has(s)) resumed.set(s, x.at);
        }
        return resumed.size === expected;
      },
      180_000,
    );
    say(
      `a member is killed (SIGKILL)${keyed ? `, round ${r}` : ''}: every input partition${keyed ? ' and key has output of records produced after the kill' : ' has output again'} | ${((back - killedAt) / 1000).toFixed(2)}`,
    );
    if (keyed) sayPhases(`a member is killed (round ${r})`, killedAt, back);
    // The survivor settles before the next round's member joins.
    if (r < rounds) await sleep(3_000);
  }
  producing = false;
  await feeder;
  await stop(a);
  await watcher.close();
}

// ---------- 4. restore rate ----------

function bytesUnder(path: string): number {
  let total = 0;
  for (const e of readdirSync(path, { withFileTypes: true, recursive: true }))
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  return total;
}

async function restoreRate(mb: number): Promise<void> {
  say(`\n## 4. Restore rate: reading and verifying a ${mb} MB checkpoint (16 state files)`);
  const data = syntheticCheckpoint(1, 16, Math.round((mb * 1024) / 16));
  const localDir = join(scratch, 'restore');
  const local = checkpointStorageAt(localDir);
  await local.write(data);
  const bytes = bytesUnder(localDir);
  say('storage | MB | seconds | MB/s');
  for (const [name, storage] of [
    ['local directory', local],
    ['S3 (scripts/s3.sh on this machine)', checkpointStorageAt(values.s3!)],
  ] as const) {
    if (storage !== local) await storage.write(data);
    const start = performance.now();
    const latest = await storage.findLatest();
    const seconds = (performance.now() - start) / 1000;
    if (latest.intact?.checkpoint.checkpointId !== 1) throw new Error(`${name}: nothing read back`);
    say(
      `${name} | ${(bytes / 1e6).toFixed(1)} | ${seconds.toFixed(2)} | ${(bytes / 1e6 / seconds).toFixed(0)}`,
    );
  }
}

// ---------- 7. state moving with a task: a changelog topic against snapshots ----------

/** A count per key as keyed state holds it: `[state, key, value]`, about 100 bytes as JSON. */
function stateEntry(key: number): [string, string, { count: number; last: string }] {
  return ['per-key', `key-${key}`, { count: key % 1000, last: PAYLOAD.slice(0, 60) }];
}

async function stateTransfer(keys: number): Promise<void> {
  say(
    `\n## 7. State moving with a task: ${keys} keys of about 100 bytes, a changelog topic against task snapshots`,
  );
  // Changelog: each state update is a record (key, value) in a compacted topic, produced as the
  // updates happen (batched as a writer's thread batches them); a new owner reads the topic back.
  const changelog = `bench-cluster-${run}-changelog`;
  await admin.createTopics({
    topics: [changelog],
    partitions: 1,
    replicas: 1,
    configs: [{ name: 'cleanup.policy', value: 'compact' }],
  });
  created.push(changelog);
  let changelogBytes = 0;
  const write = await timed(async () => {
    for (let start = 0; start < keys; start += 2000) {
      const messages = [];
      for (let k = start; k < Math.min(keys, start + 2000); k++) {
        const [, key, value] = stateEntry(k);
        const bytes = { key: Buffer.from(key), value: Buffer.from(JSON.stringify(value)) };
        changelogBytes += bytes.key.length + bytes.value.length;
        messages.push({ topic: changelog, partition: 0, ...bytes });
      }
      await producer.send({ messages });
    }
  });
  const consumer = new Consumer({
    clientId: `bench-cluster-${run}-changelog`,
    groupId: `bench-cluster-${run}-changelog`,
    bootstrapBrokers: BROKERS,
  });
  const restored = new Map<string, unknown>();
  const read = await timed(async () => {
    const stream = await consumer.consume({
      topics: [changelog],
      mode: 'earliest',
      autocommit: false,
      maxWaitTime: 20,
    });
    await new Promise<void>((resolve) => {
      stream.on('data', (m) => {
        restored.set(m.key!.toString('utf8'), JSON.parse(m.value!.toString('utf8')));
        if (restored.size === keys) resolve();
      });
    });
    await stream.close();
  });
  await Promise.resolve(consumer.close(true)).catch(() => {});
  // Snapshots: the same entries as one operator's keyed state in a checkpoint (128 key groups),
  // written whole at a checkpoint, then read and verified as a new owner does.
  const groups: Record<string, unknown[]> = {};
  for (let k = 0; k < keys; k++) {
    const group = String(k % 128);
    const list = groups[group] ?? [];
    list.push(stateEntry(k));
    groups[group] = list;
  }
  const data = syntheticCheckpoint(1, 1, 0);
  const checkpoint = {
    ...data,
    operators: [{ ...data.operators[0]!, subtasks: [{ keyed: groups }] }],
  } as typeof data;
  const snapshots = join(scratch, 'state-transfer');
  const storage = checkpointStorageAt(snapshots);
  const snapshotWrite = await timed(() => storage.write(checkpoint).then(() => {}));
  const snapshotBytes = bytesUnder(snapshots);
  const snapshotRead = await timed(async () => {
    const latest = await storage.findLatest();
    if (latest.intact === undefined) throw new Error('the snapshot did not read back');
  });
  const mb = (b: number) => (b / 1e6).toFixed(1);
  say('way | step | MB | CPU s (this process) | wall s | CPU µs per key');
  const row = (way: string, step: string, bytes: number, t: { cpu: number; wall: number }) =>
    say(
      `${way} | ${step} | ${mb(bytes)} | ${t.cpu.toFixed(2)} | ${t.wall.toFixed(2)} | ${((t.cpu * 1e6) / keys).toFixed(2)}`,
    );
  row('changelog topic', 'write: one record per update, produced', changelogBytes, write);
  row('changelog topic', 'restore: read back into a map', changelogBytes, read);
  row('task snapshot', 'write: the whole state at a checkpoint', snapshotBytes, snapshotWrite);
  row('task snapshot', 'restore: read, verify and parse', snapshotBytes, snapshotRead);
}

// ---------- 5. repartition through Kafka against an in-process exchange ----------

/** CPU seconds of this process (user + system) while `work` runs, and its wall seconds. */
async function timed(work: () => Promise<void>): Promise<{ cpu: number; wall: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await work();
  const used = process.cpuUsage(cpu0);
  return { cpu: (used.user + used.system) / 1e6, wall: (performance.now() - t0) / 1000 };
}

async function repartitionCost(n: number): Promise<void> {
  say(`\n## 5. A keyed exchange of ${n} records: through a repartition topic against in-process`);
  const maxParallelism = 128;
  const records = Array.from({ length: n }, (_, id) => ({
    key: id,
    value: { id, payload: PAYLOAD },
    timestamp: id,
  }));
  const target = await topic('repartition', 2);
  const send = await timed(async () => {
    for (let i = 0; i < n; i += 1000)
      await sendToRepartition(
        producer,
        target,
        'bench',
        records.slice(i, i + 1000),
        { kind: 'watermark', watermark: i },
        maxParallelism,
        2,
      );
  });
  const consumer = new Consumer({
    clientId: `bench-cluster-${run}-repartition`,
    groupId: `bench-cluster-${run}-repartition`,
    bootstrapBrokers: BROKERS,
  });
  let decoded = 0;
  const receive = await timed(async () => {
    const stream = await consumer.consume({
      topics: [target],
      mode: 'earliest',
      autocommit: false,
      maxWaitTime: 20,
    });
    await new Promise<void>((resolve) => {
      stream.on('data', (m) => {
        const entry = decodeEntry(m.value, m.headers, `${m.topic}/${m.partition}/${m.offset}`);
        if (entry.kind === 'record' && ++decoded === n) resolve();
      });
    });
    await stream.close();
  });
  await Promise.resolve(consumer.close(true)).catch(() => {});
  // The same records over a keyed exchange between two subtasks of one process, and without one.
  const local = async (keyed: boolean) =>
    timed(async () => {
      const env = new StreamEnvironment({ parallelism: keyed ? 2 : 1 });
      const stream = env.fromArray(records).setParallelism(1);
      (keyed ? stream.keyBy((r) => r.key).map((r) => r) : stream.map((r) => r)).sinkTo(
        new DiscardingSink(),
      );
      await env.execute('exchange');
    });
  const forward = await local(false);
  const keyed = await local(true);
  const us = (cpu: number) => ((cpu * 1e6) / n).toFixed(2);
  say('path | CPU µs/record (this process) | wall s');
  say(
    `repartition topic: encode + produce (sendToRepartition) | ${us(send.cpu)} | ${send.wall.toFixed(2)}`,
  );
  say(
    `repartition topic: fetch + decode (decodeEntry) | ${us(receive.cpu)} | ${receive.wall.toFixed(2)}`,
  );
  say(
    `in process: job with a keyed exchange (2 subtasks, one thread) | ${us(keyed.cpu)} | ${keyed.wall.toFixed(2)}`,
  );
  say(
    `in process: the same job without the exchange | ${us(forward.cpu)} | ${forward.wall.toFixed(2)}`,
  );
  say(
    `through Kafka, per record: ${us(send.cpu + receive.cpu)} µs in Weir's processes (the broker's CPU not counted); in process, the exchange adds ${us(keyed.cpu - forward.cpu)} µs`,
  );
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const only = new Set((values.only ?? '1,2,3,4,5,6,7').split(','));
/** What the benchmark is doing: named when it ends without finishing. */
let doing = 'starting';
let finished = false;

/** The last lines of every member, where a section failed. */
function sayMembers(): void {
  for (const m of members)
    console.error(
      `${m.name} (exit ${m.child.exitCode ?? m.child.signalCode ?? 'running'}): ${m.lines
        .slice(-8)
        .map((l) => l.text)
        .join('\n  ')}`,
    );
}

async function sections(): Promise<void> {
  say(
    `# bench:cluster, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at start`,
  );
  if (SESSION !== undefined) say(`every member runs with --session-timeout ${SESSION}`);
  const steps: [string, string, () => Promise<void>][] = [
    ['1', 'section 1 (throughput)', throughput],
    ['2', 'section 2 (single-owner failover)', () => singleOwnerFailover(Number(values.failovers))],
    ['3', 'section 3 (partitioned job)', () => partitioned(!values['skip-partitioned-failover'])],
    ['4', 'section 4 (restore rate)', () => restoreRate(Number(values['restore-mb']))],
    [
      '5',
      'section 5 (repartition cost)',
      () => repartitionCost(Number(values['exchange-records'])),
    ],
    ['6', 'section 6 (keyed job)', () => partitioned(!values['skip-partitioned-failover'], true)],
    ['7', 'section 7 (state transfer)', () => stateTransfer(Number(values['state-keys']))],
  ];
  for (const [id, name, step] of steps) {
    if (!only.has(id)) continue;
    doing = name;
    await step();
  }
  say(
    `\nload average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end`,
  );
}

/** Runs `work`, reporting (not throwing) a failure or a hang past `ms`: cleanup never hides the benchmark's own error. */
async function bounded(what: string, work: () => Promise<unknown>, ms = 30_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.error(`bench:cluster: ${what} did not finish in ${ms / 1000} s`);
      resolve();
    }, ms);
  });
  try {
    await Promise.race([work(), late]);
  } catch (error) {
    console.error(`bench:cluster: ${what} failed: ${String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

// A promise that never settles, with nothing left that could settle it, ends Node quietly
// (exit code 13 and at most a warning): say what was being waited for, and fail.
process.on('beforeExit', () => {
  if (finished) return;
  finished = true;
  console.error(
    `bench:cluster: ended while ${doing} was waiting on something that can no longer happen (an unsettled promise with no timer, socket or child left)`,
  );
  sayMembers();
  process.exitCode = 1;
});

try {
  await sections();
} catch (error) {
  // Reported before the cleanup, which could itself fail or hang.
  console.error(`bench:cluster: ${doing} failed:`, error);
  sayMembers();
  process.exitCode = 1;
} finally {
  doing = 'the cleanup';
  for (const m of members) await bounded(`stopping ${m.name}`, () => stop(m, 'SIGKILL'));
  await bounded('closing the producer', () => producer.close());
  await bounded('deleting the topics', () => admin.deleteTopics({ topics: created }));
  await bounded('closing the admin client', () => admin.close());
  rmSync(scratch, { recursive: true, force: true });
  finished = true;
}
