/**
 * Replay and reconciliation against the real broker: a streaming job over
 * out-of-order and late orders, killed with SIGKILL and restored several
 * times, reconciles over its whole range without divergence; records deleted
 * from its output topic are named, and only they; and replays at parallelism
 * 1 and 4 write the same bytes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment, type WindowResult } from '../../src/index.js';
import type { Difference } from '../../src/replay/compare.js';
import { type ReconcileReport, reconcileJob } from '../../src/replay/reconcile.js';
import { replayJob, writeReplayOutput } from '../../src/replay/run-replay.js';
import type { Order, Totals } from './fixtures/reconcile-job.js';
import { BROKERS, createTopic, produce, uniqueTopic } from './helpers.js';
import { transactionReport } from './transaction-diagnostics.js';

const ROOT = join(import.meta.dirname, '../..');
const JOB = join(import.meta.dirname, 'fixtures/reconcile-job.ts');
const PARTITIONS = 4;
const ORDERS = 6000;
/** An hour ago, on a second: older log timestamps would fall to the broker's retention (7 days). */
const BASE = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
/** The last order's time: the windows before it are what the streaming job must have closed. */
const END = BASE + (ORDERS / 4) * 10;

/** Order i: 8 accounts, 4 orders per 10 ms, up to 400 ms out of order; every 150th is 3 s late. */
function order(i: number): { order: Order; partition: number } {
  const late = i % 150 === 149 ? 3000 : 0;
  const t = BASE + Math.floor(i / 4) * 10 - ((i * 7919) % 400) - late;
  return {
    order: { account: `acct-${(i * 13) % 8}`, amount: (i % 50) + 1, t },
    partition: i % PARTITIONS,
  };
}

const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function readTopic(
  topic: string,
): Promise<{ value: WindowResult<string, Totals>; partition: number; offset: number }[]> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<{
    value: WindowResult<string, Totals>;
    partition: number;
    offset: number;
  }>();
  env
    .fromSource(
      new KafkaSource({
        brokers: BROKERS,
        topics: [topic],
        stopAt: 'latest',
        isolationLevel: 'read_committed',
        deserializer: (r) => ({
          value: JSON.parse(r.value!.toString()) as WindowResult<string, Totals>,
          partition: r.partition,
          offset: Number(r.offset),
        }),
      }),
    )
    .sinkTo(sink);
  await env.execute('read output');
  return sink.values;
}

describe('reconcile a Kafka job', () => {
  it('agrees after kills and restores, names deleted output records, and replays the same bytes at any parallelism', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-reconcile-kafka-'));
    dirs.push(dir);
    const [input, output, late] = [
      uniqueTopic('rc-in'),
      uniqueTopic('rc-out'),
      uniqueTopic('rc-late'),
    ];
    await createTopic(input, PARTITIONS);
    await createTopic(output, 3);
    await createTopic(late, 1);
    const jobArgs = [input, output, late, uniqueTopic('rc-tx')];
    const checkpoints = join(dir, 'checkpoints');

    let stderr = '';
    const start = (): ChildProcess => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/main.ts',
          'run',
          JOB,
          '--workers',
          '0',
          '-p',
          '2',
          '--checkpoint-dir',
          checkpoints,
          '--checkpoint-interval',
          '0.3',
          '--from',
          'latest',
          '--',
          ...jobArgs,
        ],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      children.add(child);
      child.on('exit', () => children.delete(child));
      return child;
    };
    const kill = (child: ChildProcess) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }
      });
    const checkpointCount = async () =>
      (await readdir(checkpoints).catch(() => [] as string[])).filter((n) => n.startsWith('chk-'))
        .length;

    // The orders arrive in slices while the job is killed and restored.
    let written = 0;
    const producing = (async () => {
      while (written < ORDERS) {
        const n = Math.min(200, ORDERS - written);
        await produce(
          input,
          Array.from({ length: n }, (_, j) => {
            const { order: o, partition } = order(written + j);
            return { value: JSON.stringify(o), partition, timestamp: o.t };
          }),
        );
        written += n;
        await new Promise((r) => setTimeout(r, 150));
      }
      // One order per partition far ahead closes every window up to END, and a
      // marker account whose window, once written, shows the job got that far.
      await produce(input, [
        ...Array.from({ length: PARTITIONS }, (_, p) => ({
          value: JSON.stringify({ account: 'zz-marker', amount: 0, t: END + 1 }),
          partition: p,
          timestamp: END + 1,
        })),
        ...Array.from({ length: PARTITIONS }, (_, p) => ({
          value: JSON.stringify({ account: 'zz-closer', amount: 0, t: END + 60_000 }),
          partition: p,
          timestamp: END + 60_000,
        })),
      ]);
    })();

    let kills = 0;
    while (kills < 4) {
      const child = start();
      const before = await checkpointCount();
      const deadline = Date.now() + 60_000;
      while ((await checkpointCount()) <= before && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200 + ((kills * 577) % 900)));
      await kill(child);
      kills++;
    }
    await producing;
    const last = start();
    // Generous: on a loaded machine the restored job may take long to start.
    const deadline = Date.now() + 300_000;
    let rows = await readTopic(output);
    while (
      !rows.some((r) => r.value.key === 'zz-marker') &&
      last.exitCode === null &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 500));
      rows = await readTopic(output);
    }
    const exited = last.exitCode;
    const marked = rows.some((r) => r.value.key === 'zz-marker');
    // Without the marker: what holds a read_committed reader back, before the kill changes it.
    const held = marked ? '' : await transactionReport([output], [jobArgs[3]!]);
    await kill(last);
    expect(stderr).not.toMatch(/job failed|Error:/);
    expect(
      marked,
      `no marker in ${rows.length} output rows (last run exit code ${exited}); ${held}; job stderr:\n${stderr.slice(-3000)}`,
    ).toBe(true);

    // Over everything before the marker: no divergence.
    const report = await reconcileJob({
      module: JOB,
      args: jobArgs,
      range: { to: END },
      maxShown: 1000,
    });
    console.log(
      `rows ${report.comparison.expectedRows}, late ${JSON.stringify(report.lateRecords)}, explained ${report.comparison.explained}`,
    );
    expect(report.comparison.expectedRows).toBeGreaterThan(100);
    expect(report.lateRecords[0]!.replay).toBeGreaterThan(0);
    expect(report.lateRecords[0]!.streaming).toBeDefined();
    const unexplainedBefore = report.comparison.differences.filter(
      (d) => d.explainedBy === undefined,
    );
    expect(unexplainedBefore, JSON.stringify(unexplainedBefore, null, 1)).toEqual([]);
    expect(report.comparison.divergent).toBe(0);
    expect(report.divergent).toBe(false);

    const windowOf = (d: Difference) => {
      const v = (d.expected ?? d.written)!.value as unknown as WindowResult<string, Totals>;
      return `${v.key}@${v.window.start}`;
    };
    const differing = (r: ReconcileReport) => new Set(r.comparison.differences.map(windowOf));
    const before = differing(report);

    // Delete the first three committed records of an output partition: exactly they go
    // missing. (Not offsets 0-2: a killed run's aborted transaction may hold those.) The
    // partition is one where a deleted window did not already differ (a late record's
    // explained update), so that something new must show.
    const firstThree = (partition: number) =>
      rows
        .filter((r) => r.partition === partition)
        .sort((a, b) => a.offset - b.offset)
        .slice(0, 3);
    const partition =
      [0, 1, 2].find((p) =>
        firstThree(p).some(
          ({ value: v }) => v.window.end <= END && !before.has(`${v.key}@${v.window.start}`),
        ),
      ) ?? 1;
    const three = firstThree(partition);
    const deleted = three.map((r) => r.value);
    const upTo = BigInt(three.at(-1)!.offset + 1);
    const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
    try {
      await admin.deleteRecords({
        topics: [{ name: output, partitions: [{ partition, offset: upTo }] }],
      });
    } finally {
      await admin.close();
    }
    const after = await reconcileJob({
      module: JOB,
      args: jobArgs,
      range: { to: END },
      maxShown: 1000,
    });
    const inRange = deleted
      .filter((r) => r.window.end <= END)
      .map((v) => `${v.key}@${v.window.start}`);
    expect(inRange.length).toBeGreaterThan(0);
    const now = after.comparison.differences;
    // What changed is exactly the deleted records, now missing. A deleted window
    // that already differed (a late record's update, explained) is not new.
    const appeared = now
      .filter((d) => !before.has(windowOf(d)))
      .map(windowOf)
      .sort();
    expect(appeared.length).toBeGreaterThan(0);
    expect(appeared).toEqual(inRange.filter((w) => !before.has(w)).sort());
    for (const d of now.filter((d) => inRange.includes(windowOf(d))))
      expect(d.kind).toBe('missing');
    const unexplained = now
      .filter((d) => d.explainedBy === undefined)
      .map(windowOf)
      .sort();
    expect(unexplained.every((w) => inRange.includes(w))).toBe(true);
    expect(after.divergent).toBe(unexplained.length > 0);
    expect(unexplained.length).toBeGreaterThan(0);

    // Replays at parallelism 1 and 4 write the same bytes.
    const [one, four] = [join(dir, 'p1'), join(dir, 'p4')];
    await writeReplayOutput(await replayJob({ module: JOB, args: jobArgs, parallelism: 1 }), one);
    await writeReplayOutput(await replayJob({ module: JOB, args: jobArgs, parallelism: 4 }), four);
    const names = (await readdir(one, { recursive: true })).sort();
    expect(names).toEqual((await readdir(four, { recursive: true })).sort());
    for (const name of names.filter((n) => n.endsWith('.jsonl') || n.endsWith('.json'))) {
      expect(await readFile(join(four, name), 'utf8'), name).toBe(
        await readFile(join(one, name), 'utf8'),
      );
    }
  }, 600_000);
});
