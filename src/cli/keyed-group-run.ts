import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import type { StreamEnvironmentImpl } from '../api/environment.js';
import {
  AssignmentDebounce,
  planRestore,
  type RestorePlan,
  taskChange,
} from '../api/task-handover.js';
import type { TaskLayout } from '../api/task-snapshots.js';
import {
  abortAfterFinal,
  abortFencedRunTransactions,
} from '../connectors/kafka/group/fenced-run.js';
import type { GroupMembers } from '../connectors/kafka/group/group-members.js';
import { groupTimeoutsFor } from '../connectors/kafka/group/group-timeouts.js';
import type { KafkaExchange } from '../connectors/kafka/group/kafka-exchange.js';
import {
  fenceCrashedRuns,
  isTransactionCommittable,
} from '../connectors/kafka/sink/transaction-recovery.js';
import { reasonOf } from '../connectors/shared/bad-records.js';
import type { Json } from '../core/snapshot.js';
import type { ExecuteOptions, JobClient } from '../index.js';
import { GROUP_METRICS, registerGroupMetrics } from '../metrics/group-metrics.js';
import type { CheckpointData } from '../runtime/checkpoint/checkpoint-data.js';
import { checkpointStorageAt } from '../runtime/checkpoint/checkpoint-storage.js';
import { isProcessAlive } from '../util/process-alive.js';
import { HandoverPhases } from './handover-phases.js';
import type { Observers } from './observe.js';
import { type RunRecord, RunSeals } from './run-seals.js';
import { StandbyReplicas } from './standby-replicas.js';
import {
  type HeldSignals,
  holdStopSignals,
  type SupervisedRun,
  type SuperviseOptions,
  superviseJob,
} from './supervise.js';
import { TaskHandovers } from './task-handovers.js';
import { TaskSnapshotStorage, TaskSnapshotWriter } from './task-snapshot-writer.js';

/**
 * A burst of assignment changes is acted on once none has come for this
 * long: the broker hands out each step of a rebalance in a heartbeat's
 * answer, so two heartbeats (0.5 s by default), and at most a second.
 */
function quietMs(sessionTimeoutMs: number | undefined): number {
  return Math.min(1_000, 2 * groupTimeoutsFor(sessionTimeoutMs).heartbeatIntervalMs);
}
/** ... or once its first change is this old. */
const MAX_WAIT_MS = 5_000;
/** How long a first assignment may take before the job starts with none (it restarts when one comes). */
const FIRST_ASSIGNMENT_MS = 15_000;
/** The transaction timeout of the InitProducerId that aborts a fenced run's transactions (nothing is written under it). */
const FENCED_ABORT_TIMEOUT_MS = 60_000;
/** How long a member given a task waits for its previous owner's final snapshot. */
const HANDOVER_TIMEOUT_MS = 30_000;
/** How long a fenced member waits for a heartbeat to tell whether the group still knows it (the longest interval brokers allow by default). */
const MEMBERSHIP_CHECK_MS = 15_000;

/** The tasks the process holds now, which its readers read (see ProcessGroupSpec.tasks). */
export interface HeldTaskSet {
  current: ReadonlySet<string>;
  /** The member's current run of the job, which its transactional ids carry. */
  run: string;
}

export interface KeyedGroupOptions {
  readonly env: StreamEnvironmentImpl;
  readonly jobName: string;
  readonly brokers: readonly string[];
  readonly applicationId: string;
  /** `--session-timeout`, if given. */
  readonly sessionTimeoutMs: number | undefined;
  /** `--standby-replicas`: copies of each task's snapshots other members keep (0: none). */
  readonly standbyReplicas: number;
  readonly exchange: KafkaExchange;
  readonly taskSet: HeldTaskSet;
  /** The job's shared checkpoint location. */
  readonly checkpointDir: string;
  /** This member's own checkpoints (`<checkpoint dir>/members/<member>`). */
  readonly memberDirectory: string;
  readonly observers: Observers;
  readonly group: GroupMembers | undefined;
  readonly held: HeldSignals;
  readonly execute: ExecuteOptions;
  /** How each run is supervised, but for the stop (a hand-over) and the signal held before it. */
  readonly supervise: (client: JobClient) => Omit<SuperviseOptions, 'stop' | 'pendingSignal'>;
  /** Called with each run of the job once it has started. */
  readonly started: (client: JobClient, plan: RestorePlan) => void;
  readonly say: (line: string) => void;
  readonly warn: (line: string) => void;
}

/** Restores of tasks by this member, for `/metrics` (they outlive each run of the job). */
interface RestoreStats {
  readonly byTask: Map<string, { restores: number; bytes: number; entries: number }>;
  lastDurationMs: number;
  /** State files of the restores read from local copies (a standby's), and downloaded. */
  readonly files: { local: number; downloaded: number };
}

/**
 * Runs a job whose keyed state moves with its tasks as one member of its
 * process group. One membership per process (KIP-848) owns the assignment;
 * the job reads its tasks on fixed partitions. On a settled change of the
 * task set, the member stops its job with a final savepoint (nothing is
 * processed after it), writes every task's snapshot from it, says that the
 * tasks it gave up are released, and starts the job again on the new task
 * set, restored from the merge of the tasks' newest snapshots (a rescale
 * restore: each keyed operator gets exactly the key groups of its tasks,
 * each reader its tasks' offsets). A task with no snapshot starts empty from
 * the group's committed offset. A stop signal stops the same way, then
 * leaves the group. Returns the last run.
 */
export async function runKeyedGroup(
  o: KeyedGroupOptions,
): Promise<{ client: JobClient; run: SupervisedRun; fenced: boolean }> {
  const { env, jobName } = o;
  const topics = env.processGroupTopics();
  const layout: TaskLayout = env.processGroupLayout() ?? { keyedOperators: new Map() };
  await o.exchange.ensureTopics();
  const { ProcessMembership } = await import('../connectors/kafka/group/process-membership.js');
  const join = () =>
    ProcessMembership.join({
      brokers: o.brokers,
      applicationId: o.applicationId,
      sessionTimeoutMs: o.sessionTimeoutMs,
      topics,
      warn: o.warn,
    });
  let membership = await join();
  const quiet = quietMs(o.sessionTimeoutMs);
  const member = o.memberDirectory.slice(o.memberDirectory.lastIndexOf('/') + 1);
  const handovers = new TaskHandovers(o.checkpointDir, member, HANDOVER_TIMEOUT_MS);
  const seals = new RunSeals(o.checkpointDir);
  // Run names are unique in the group even when a host reuses a process id.
  const runPrefix = `${member}-${randomBytes(3).toString('hex')}`;
  let runNumber = 0;
  const stats: RestoreStats = {
    byTask: new Map(),
    lastDurationMs: 0,
    files: { local: 0, downloaded: 0 },
  };
  /** Fenced runs' clean-ups (they never reject): the process waits for them before it leaves. */
  const cleanups: Promise<void>[] = [];
  const phases = new HandoverPhases(o.say);
  const standby = startStandby(o);
  await removeStaleRestores();
  try {
    let running: ReadonlySet<string> = new Set();
    /** Tasks this member lost and has not released yet: marked at once, before the debounce. */
    const marked = new Set<string>();
    let debounce: AssignmentDebounce | undefined;
    const listen = (m: typeof membership): void =>
      m.onChange((tasks) => {
        const change = taskChange(running, tasks);
        if (change.revoked.length + change.assigned.length > 0)
          phases.begin(
            `tasks changed: given up ${change.revoked.join(', ') || 'none'}; given ${change.assigned.join(', ') || 'none'}`,
          );
        const lost = change.revoked.filter((t) => !marked.has(t));
        for (const t of lost) marked.add(t);
        if (lost.length > 0)
          handovers
            .handingOver(lost)
            .catch((e: unknown) =>
              o.warn(`cannot mark tasks ${lost.join(', ')} as handed over: ${String(e)}`),
            );
        debounce?.update(tasks);
      });
    listen(membership);
    let tasks = await firstAssignment(membership, quiet);
    let gap = o.held;
    let nextId = 1;
    let previousClient: JobClient | undefined;
    for (;;) {
      const given = taskChange(running, tasks).assigned;
      // From here on a revocation concerns the tasks this run is about to hold: the restore
      // below takes a while, and a task taken away meanwhile must be marked as being handed
      // over at once, or its next owner starts it afresh while this run still processes it.
      running = tasks;
      const late = await handovers.awaitReleased(given, () => gap.first() !== undefined);
      if (late.length > 0)
        o.warn(
          `tasks ${late.join(', ')} were being handed over by a member that stopped saying it is alive, or has not finished in ${HANDOVER_TIMEOUT_MS / 1000} s; restoring their last snapshots`,
        );
      if (given.length > 0) phases.mark('previous owners released the tasks given');
      const runName = `${runPrefix}-r${++runNumber}`;
      let handing: Promise<void> | undefined;
      let stopping = false;
      let next: ReadonlySet<string> | undefined;
      let nextGap: HeldSignals | undefined;
      // The run's job, once started: the writer reports a fence only from its checkpoints.
      let client: JobClient | undefined;
      const writer = new TaskSnapshotWriter({
        checkpointDir: o.checkpointDir,
        layout,
        run: runName,
        tasks: [...tasks].sort(),
        seals,
        // Its tasks moved on while it could not tell (paused, cut off, too slow to hand
        // over): it ends at once. A hand-over or stop under way ends it already.
        onFenced: () => {
          if (handing !== undefined) return;
          nextGap = holdStopSignals();
          handing = abandonRun(client, handovers, marked, o);
        },
      });
      // Said before the restore reads anything: a member that takes any of these tasks
      // over while this one restores them fences this run too, so it never commits them.
      await writer.started();
      const plan = await restorePlan(o, handovers, seals, runName, [...tasks], nextId, stats);
      phases.mark('snapshots read and merged');
      const restorePath =
        plan.checkpoint === undefined ? undefined : await writeRestore(o, plan.checkpoint);
      o.taskSet.current = tasks;
      o.taskSet.run = runName;
      const copies = handovers.lastCopyReads;
      if (copies !== undefined) {
        stats.files.local += copies.local;
        stats.files.downloaded += copies.fetched;
      }
      o.say(restoreLine(tasks, plan, copies));
      phases.mark('restore written, run recorded');
      // Task snapshots are written and sealed before any sink commits a checkpoint.
      env.useCheckpointStorage(
        new TaskSnapshotStorage(checkpointStorageAt(o.memberDirectory), writer),
      );
      const job = env.executeAsync(jobName, {
        ...o.execute,
        ...(restorePath === undefined
          ? {}
          : { restoreFrom: restorePath, allowDuplicateOutput: true }),
      });
      client = job;
      phases.mark('job submitted');
      phases.watch(job);
      o.group?.setJobId(job.jobId);
      o.observers.attach(job, o.group);
      if (previousClient !== undefined) o.observers.detach(previousClient);
      previousClient = job;
      const stopGroupMetrics = o.group && registerGroupMetrics(job.metrics.group({}), o.group);
      registerRestoreMetrics(job, stats, standby);
      writer.attach(job);
      o.started(job, plan);

      const handOver = (): Promise<void> =>
        (handing ??= handOverRun(job, writer, o, handovers, marked, phases));
      debounce = new AssignmentDebounce(
        tasks,
        (settled) => {
          if (handing !== undefined) return;
          next = settled;
          phases.mark('settled: final savepoint of the run');
          // Signals between this run's end and the next one's start are held for it.
          nextGap = holdStopSignals();
          void handOver();
        },
        quiet,
        MAX_WAIT_MS,
      );
      const pending = membership.tasks();
      if (!sameSet(pending, tasks)) debounce.update(pending);
      const supervised = superviseJob(job, {
        ...o.supervise(job),
        ...(gap.first() === undefined ? {} : { pendingSignal: gap.first()! }),
        stop: () => {
          stopping = true;
          return handOver();
        },
      });
      gap.release();
      const run = await supervised;
      debounce.close();
      debounce = undefined;
      stopGroupMetrics?.();
      // A fenced run ends whatever its job's outcome (a checkpoint it could not seal
      // may have failed the job): the member goes on unless it was asked to stop.
      if (writer.fenced) {
        await handing;
        // Nothing of the run is left to hand over: a task it loses now needs no release.
        running = new Set();
        await releaseMarked(handovers, marked, o);
        o.warn(
          `run ${runName} of this member was fenced: another member took its tasks over (this process was paused, cut off or too slow to hand them over); it committed nothing after its final seal, and the member ${stopping ? 'stops' : 'goes on with the tasks the group gives it now'}`,
        );
        // In the background: the next run needs none of it (its restore fences this run too).
        const cleanup = cleanUpFencedRun(o, seals, runName, writer);
        cleanups.push(cleanup);
        if (stopping) {
          await cleanup;
          nextGap?.release();
          return { client: job, run, fenced: true };
        }
        nextId = lastCheckpointId(job, nextId) + 1;
        gap = nextGap ?? holdStopSignals();
        if (await membership.nextHeartbeat(MEMBERSHIP_CHECK_MS)) tasks = membership.tasks();
        else {
          // No heartbeat of it succeeded (the group dropped it meanwhile, or cannot be
          // reached): join again as a new member.
          await membership.close();
          membership = await join();
          listen(membership);
          tasks = await firstAssignment(membership, quiet);
        }
        continue;
      }
      // A hand-over goes on to the next run even if the job failed meanwhile (its final
      // savepoint timed out on a loaded machine, failing it): its tasks are released all
      // the same, and a member that ended here would leave the group a member short for good.
      if (stopping || next === undefined || run.outcome.kind === 'finished') {
        nextGap?.release();
        return { client: job, run, fenced: false };
      }
      await handing;
      if (run.outcome.kind === 'failed')
        o.warn(
          `the job failed while this member handed its tasks over (${reasonOf(run.outcome.error)}); it goes on with the tasks the group gives it now`,
        );
      nextId = lastCheckpointId(job, nextId) + 1;
      tasks = membership.tasks();
      gap = nextGap!;
    }
  } finally {
    await rm(joinPath(localRestoreRoot(), String(process.pid)), { recursive: true, force: true });
    await standby?.stop();
    await Promise.all(cleanups);
    handovers.close();
    // Leaving only now: the tasks' final snapshots are written, so the next owners restore them.
    await membership.close();
  }
}

/**
 * The member's standby replicas, if asked for: only with checkpoints in
 * object storage, where a copy on local disk saves a download at take-over.
 */
function startStandby(o: KeyedGroupOptions): StandbyReplicas | undefined {
  if (o.standbyReplicas <= 0) return undefined;
  const group = o.group;
  if (group === undefined) return undefined;
  if (checkpointStorageAt(o.checkpointDir).localCopies === undefined) {
    o.warn(
      `--standby-replicas ${o.standbyReplicas} does nothing with checkpoints in ${o.checkpointDir}: every member reads the same files there; standby copies are for checkpoints in object storage (s3://)`,
    );
    return undefined;
  }
  return new StandbyReplicas({
    checkpointDir: o.checkpointDir,
    replicas: o.standbyReplicas,
    member: group.member,
    members: () => group.view().members,
    say: o.say,
  });
}

/** The tasks the group gives this process first: once settled, or none after a while (the job restarts when some come). */
function firstAssignment(
  membership: {
    tasks(): ReadonlySet<string>;
    onChange(l: (t: ReadonlySet<string>) => void): void;
  },
  quiet: number,
): Promise<ReadonlySet<string>> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (tasks: ReadonlySet<string>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      debounce.close();
      resolve(tasks);
    };
    const debounce = new AssignmentDebounce(new Set(), finish, quiet, MAX_WAIT_MS);
    const timer = setTimeout(() => finish(membership.tasks()), FIRST_ASSIGNMENT_MS);
    membership.onChange((tasks) => {
      if (!done) debounce.update(tasks);
    });
    const now = membership.tasks();
    if (now.size > 0) debounce.update(now);
  });
}

/**
 * Ends a run so that its tasks' snapshots are exactly what it processed: a
 * final savepoint halts the job at its barrier (sources emit nothing after
 * it), every task's snapshot is written from it and sealed before its
 * transactions commit (see {@link TaskSnapshotStorage}), the run is recorded
 * as ended (nothing to fence), the tasks given up are released to their
 * next owners, and the job is cancelled. If the savepoint fails, the tasks'
 * snapshots are those of the last sealed checkpoint, and their next owners
 * fence what the run wrote after it.
 */
async function handOverRun(
  client: JobClient,
  writer: TaskSnapshotWriter,
  o: KeyedGroupOptions,
  handovers: TaskHandovers,
  marked: Set<string>,
  phases: HandoverPhases,
): Promise<void> {
  let final = false;
  try {
    await client.triggerSavepoint(`${o.memberDirectory}-handover`, { final: true });
    phases.mark('final savepoint taken, task snapshots written');
    await writer.ended();
    final = true;
  } catch (error) {
    o.warn(
      `cannot take the final snapshots of this member's tasks: ${error instanceof Error ? error.message : String(error)}; their next owners restore their last snapshots`,
    );
  } finally {
    // Without a final savepoint the job is not halted: it stops before the tasks are
    // released, or it could open transactions after their next owners fenced the run.
    if (!final) await client.cancel().catch(() => {});
    await releaseMarked(handovers, marked, o);
    phases.mark('tasks given up released');
    await client.cancel().catch(() => {});
    phases.mark('run stopped');
  }
}

/** Says that the tasks this member marked as being handed over are released. */
async function releaseMarked(
  handovers: TaskHandovers,
  marked: Set<string>,
  o: KeyedGroupOptions,
): Promise<void> {
  const released = [...marked];
  marked.clear();
  if (released.length === 0) return;
  await handovers
    .released(released)
    .catch((e: unknown) => o.warn(`cannot release tasks ${released.join(', ')}: ${String(e)}`));
}

/**
 * Ends a run that was fenced: its job is cancelled at once, with no
 * savepoint (it could not be sealed), and the tasks it was told it lost are
 * released (their next owners need nothing more from it).
 */
async function abandonRun(
  client: JobClient | undefined,
  handovers: TaskHandovers,
  marked: Set<string>,
  o: KeyedGroupOptions,
): Promise<void> {
  // Cancelled first: a restart of the failed job would find the fence again.
  const cancelled = client?.cancel().catch(() => {});
  await releaseMarked(handovers, marked, o);
  await cancelled;
}

/**
 * After a fenced run's job has stopped: makes sure its final seal exists
 * (the fencer may not have written it yet) and aborts the transactions the
 * run opened after it, so none holds read_committed readers back.
 */
async function cleanUpFencedRun(
  o: KeyedGroupOptions,
  seals: RunSeals,
  run: string,
  writer: TaskSnapshotWriter,
): Promise<void> {
  try {
    const final = await seals.fence(run, run);
    const from = abortAfterFinal(
      writer.unsealedCommittables,
      final.committables.filter(isTransactionCommittable),
    );
    await abortFencedRunTransactions(
      o.brokers,
      `weir-${o.applicationId}-fenced-run`,
      from,
      FENCED_ABORT_TIMEOUT_MS,
    );
  } catch (error) {
    o.warn(
      `cannot abort the transactions run ${run} left open after it was fenced: ${error instanceof Error ? error.message : String(error)}; the broker aborts them after their transaction timeout`,
    );
  }
}

/**
 * The restore of `tasks` by `run`: first every run that held any of the
 * tasks and did not end cleanly is fenced (see {@link RunSeals.fence}), then
 * each task is restored from its newest sealed snapshot, whose committables
 * its writers commit; the fenced runs' transactions after their final seals
 * are aborted, also those of runs whose snapshots are not restored.
 */
async function restorePlan(
  o: KeyedGroupOptions,
  handovers: TaskHandovers,
  seals: RunSeals,
  run: string,
  tasks: readonly string[],
  checkpointId: number,
  stats: RestoreStats,
): Promise<RestorePlan> {
  const started = performance.now();
  // Fence first, then read: a fenced run commits nothing it had not sealed
  // before the fence, and its final seal says what that was.
  const crashed = new Map<string, RunRecord>();
  for (const r of (await seals.crashedRunsHolding(tasks, run)).keys())
    crashed.set(r, await seals.fence(r, run));
  const sealedByRun = new Map<string, Promise<number>>();
  const sealed = (r: string): Promise<number> => {
    const final = crashed.get(r);
    if (final !== undefined) return Promise.resolve(final.sealed);
    let s = sealedByRun.get(r);
    if (s === undefined) {
      s = seals.sealed(r);
      sealedByRun.set(r, s);
    }
    return s;
  };
  const snapshots = await handovers.snapshots(tasks, sealed);
  const restored = planRestore(tasks, snapshots, {
    checkpointId,
    jobName: o.jobName,
    maxParallelism: o.env.maxParallelism,
    createdAt: new Date().toISOString(),
  });
  const plan =
    restored.checkpoint === undefined || crashed.size === 0
      ? restored
      : { ...restored, checkpoint: withCrashedRunsFenced(restored.checkpoint, crashed) };
  for (const [task, snapshot] of snapshots) {
    const s = stats.byTask.get(task) ?? { restores: 0, bytes: 0, entries: 0 };
    s.restores++;
    s.bytes += Buffer.byteLength(JSON.stringify(snapshot.operators));
    s.entries += keyedEntries(snapshot);
    stats.byTask.set(task, s);
  }
  stats.lastDurationMs = performance.now() - started;
  return plan;
}

/** Adds, to each transactional writer's restored committables, what fences the crashed runs. */
function withCrashedRunsFenced(
  checkpoint: CheckpointData,
  crashed: ReadonlyMap<string, RunRecord>,
): CheckpointData {
  const runs = [...crashed].map(([run, record]) => ({
    run,
    committables: record.committables.filter(isTransactionCommittable),
  }));
  return {
    ...checkpoint,
    operators: checkpoint.operators.map((op) => {
      const union = op.subtasks.flatMap((s) => s.union ?? []);
      const added: Json[] = fenceCrashedRuns(union.filter(isTransactionCommittable), runs).map(
        (c) => ({ ...c }),
      );
      if (added.length === 0) return op;
      const [first, ...rest] = op.subtasks;
      return {
        ...op,
        subtasks: [{ ...first, union: [...(first?.union ?? []), ...added] }, ...rest],
      };
    }),
  };
}

/** Writes the merged checkpoint a run restores from, keeping the last two. */
async function writeRestore(o: KeyedGroupOptions, checkpoint: CheckpointData): Promise<string> {
  const storage = checkpointStorageAt(restoreDirectory(o));
  const path = await storage.write(checkpoint);
  await storage.prune(2);
  return path;
}

/**
 * Where a run's merged restore is written: beside the member's checkpoints,
 * or, when those are in object storage, in a directory of this process on
 * local disk. The job reads it once, as it starts, so uploading the whole
 * state only to download it again would add both to every take-over; a
 * crash loses nothing, as the tasks' snapshots are what the next run reads.
 */
function restoreDirectory(o: KeyedGroupOptions): string {
  if (checkpointStorageAt(o.memberDirectory).localCopies === undefined)
    return `${o.memberDirectory}-restore`;
  return joinPath(localRestoreRoot(), String(process.pid));
}

function localRestoreRoot(): string {
  return joinPath(tmpdir(), 'weir-group-restore');
}

/** Removes the local restores of processes that are gone (killed before they could). */
async function removeStaleRestores(): Promise<void> {
  const entries = await readdir(localRestoreRoot()).catch(() => [] as string[]);
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    await rm(joinPath(localRestoreRoot(), entry), { recursive: true, force: true }).catch(() => {});
  }
}

function keyedEntries(snapshot: CheckpointData): number {
  let n = 0;
  for (const op of snapshot.operators)
    for (const s of op.subtasks)
      for (const entries of Object.values(s.keyed ?? {}) as Json[][]) n += entries.length;
  return n;
}

function registerRestoreMetrics(
  client: JobClient,
  stats: RestoreStats,
  standby: StandbyReplicas | undefined,
): void {
  const metrics = client.metrics.group({});
  metrics.gauge(
    GROUP_METRICS.lastTaskRestoreDuration,
    'How long reading and merging the snapshots of the last restore took',
    () => stats.lastDurationMs / 1000,
  );
  metrics.counterFrom(
    GROUP_METRICS.restoredFromLocalCopies,
    'State files of task snapshots (in object storage) restored from local copies',
    () => stats.files.local,
  );
  metrics.counterFrom(
    GROUP_METRICS.restoredDownloaded,
    'State files of task snapshots (in object storage) downloaded to restore them',
    () => stats.files.downloaded,
  );
  if (standby !== undefined) {
    metrics.gauge(
      GROUP_METRICS.standbyTasks,
      "Other members' tasks whose snapshots this member copies (--standby-replicas)",
      () => standby.tasks().length,
    );
    metrics.counterFrom(
      GROUP_METRICS.standbyCopies,
      'Task snapshots this member copied to local disk as a standby',
      () => standby.copies,
    );
  }
  for (const [task, s] of stats.byTask) {
    const m = metrics.child({ task });
    m.counterFrom(
      GROUP_METRICS.taskRestores,
      'Restores of the task from its snapshot by this member',
      () => s.restores,
    );
    m.counterFrom(
      GROUP_METRICS.taskRestoredBytes,
      'Bytes of task snapshots restored by this member',
      () => s.bytes,
    );
    m.counterFrom(
      GROUP_METRICS.taskRestoredEntries,
      'Keyed state entries of task snapshots restored by this member',
      () => s.entries,
    );
  }
}

function restoreLine(
  tasks: ReadonlySet<string>,
  plan: RestorePlan,
  copies: { local: number; fetched: number } | undefined,
): string {
  if (tasks.size === 0) return 'this member holds no task of the group yet';
  const restored = [...plan.restored].map(
    ([t, id]) => `${t} (snapshot ${id}, offset ${plan.offsets.get(t) ?? '-'})`,
  );
  const files =
    copies === undefined || restored.length === 0
      ? ''
      : `; state files: ${copies.local} from local copies, ${copies.fetched} downloaded`;
  return `this member holds ${tasks.size} task(s); restored: ${restored.length === 0 ? 'none' : restored.join(', ')}; without a snapshot: ${plan.fresh.length === 0 ? 'none' : plan.fresh.join(', ')}${files}`;
}

function lastCheckpointId(client: JobClient, floor: number): number {
  let max = floor;
  for (const e of client.monitor.checkpoints.entries()) if (e.id > max) max = e.id;
  return max;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
