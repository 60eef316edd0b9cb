import { availableParallelism } from 'node:os';
import { basename, extname, resolve } from 'node:path';
import { StreamEnvironmentImpl } from '../api/environment.js';
import { loadJobModule } from '../api/job-module/load-job-module.js';
import type { GroupMembers } from '../connectors/kafka/group/group-members.js';
import type { KafkaExchange } from '../connectors/kafka/group/kafka-exchange.js';
import type { JobClient, ProcessGroupSpec } from '../index.js';
import { registerGroupMetrics } from '../metrics/group-metrics.js';
import {
  DirectoryCheckpointStorage,
  type SkippedCheckpoint,
} from '../runtime/checkpoint/checkpoint-storage.js';
import { openStore, resolveLocation } from '../runtime/checkpoint/store/open-store.js';
import { defaultRestartStrategy } from '../runtime/job/restart-strategy.js';
import type { RunOptions } from './args.js';
import { describeFailure, EXIT_FAILURE, EXIT_OK, UsageError } from './failure.js';
import { formatCount, formatDuration } from './format.js';
import { checkpointFields, JobStatusSampler, statusFields, statusLineText } from './job-status.js';
import { JsonLog, type LogLevel, shownAt } from './json-log.js';
import { keepsUi, waitForStop } from './keep-serving.js';
import type { HeldTaskSet } from './keyed-group-run.js';
import { type Observers, startObservers } from './observe.js';
import {
  describeRestorePoint,
  isRestoreFailure,
  type RestorePoint,
  resolveRestorePoint,
  restoreHint,
} from './restore.js';
import {
  memberCheckpointDirectory,
  type OwnedTask,
  takeSingleOwnerTask,
} from './single-owner-run.js';
import { LiveStatusLine } from './status-line.js';
import {
  type HeldSignals,
  holdStopSignals,
  type SupervisedRun,
  startedByNpm,
  stopReasonText,
  superviseJob,
} from './supervise.js';

/** Where the CLI talks to; injectable so commands can be run against fake streams. */
export interface CliIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly cwd: string;
}

const SOURCE_RECORDS = 'weir_source_records_total';
/** Records a source could not read and skipped or sent to its dead letter (bad-records.ts). */
const BAD_RECORDS = 'weir_source_bad_records_total';
/** How often the live status line is redrawn. */
const STATUS_LINE_MS = 250;

/** What became of the savepoint `--savepoint-on-stop` asked for. */
type SavepointOutcome =
  | { readonly kind: 'taken'; readonly path: string }
  | { readonly kind: 'failed'; readonly error: unknown };

/**
 * `weir run`: loads a job module, builds it on an environment configured from
 * the flags, runs it until its input ends or the user stops it, and reports.
 * The job's output owns stdout; the CLI's status, summary and errors go to
 * stderr so `weir run job.ts > out.jsonl` captures only records. On a
 * terminal a live status line shows progress; with `--log-format json`,
 * stderr gets one JSON object per line instead.
 */
export async function runCommand(options: RunOptions, io: CliIO): Promise<number> {
  const held = holdStopSignals();
  try {
    return await runJob(options, io, held);
  } finally {
    held.release();
  }
}

async function runJob(options: RunOptions, io: CliIO, held: HeldSignals): Promise<number> {
  const env = createEnvironment(options, io.cwd);
  const checkpointDir =
    options.checkpointDir === undefined
      ? undefined
      : resolveLocation(io.cwd, options.checkpointDir);
  const savepointDir =
    options.savepointOnStop === undefined
      ? undefined
      : resolveLocation(io.cwd, options.savepointOnStop);
  // Checked before the module loads: a mistyped --from fails at once.
  let passedOver: readonly SkippedCheckpoint[] = [];
  let restore =
    options.restoreFrom === undefined
      ? undefined
      : await resolveRestorePoint(
          options.restoreFrom,
          options.checkpointDir,
          io.cwd,
          options.allowDuplicateOutput === true,
          (skipped) => {
            passedOver = skipped;
          },
        );
  const jobName = options.name ?? basename(options.module, extname(options.module));
  let groupSpec: ProcessGroupSpec | undefined;
  /** The tasks this process holds, when its job's keyed state moves with them. */
  const taskSet: HeldTaskSet = { current: new Set(), run: '' };
  let exchange: KafkaExchange | undefined;
  if (options.processGroup !== undefined) {
    const { kafkaExchange } = await import('../connectors/kafka/group/kafka-exchange.js');
    exchange = kafkaExchange(
      { ...options.processGroup, transactionScope: () => taskSet.run },
      () => taskSet.current,
    );
    groupSpec = { ...options.processGroup, exchange };
    env.runInProcessGroup(groupSpec);
  }
  if (options.language === 'sql') {
    const { buildSqlJob, sqlJobModulePath } = await import('./sql-job.js');
    const script = resolve(io.cwd, options.module);
    // Worker threads build the same job from the script through a job module of their own.
    env.setJobModule(sqlJobModulePath(), [script]);
    for (const plan of await buildSqlJob(env, script)) io.stdout.write(`${plan}\n`);
    // A SET 'parallelism.default' in the script wins over --parallelism; `auto` workers follow it.
    if (options.workers === 'auto') env.limitWorkers(env.parallelism);
  } else {
    const definition = await loadJobModule(options.module, io.cwd);
    env.setJobModule(resolve(io.cwd, options.module), options.jobArgs);
    await definition(env, { args: options.jobArgs });
  }
  let owned: OwnedTask | undefined;
  /** Before the job's log exists: the ownership steps, as text or as JSON records. */
  const ownerLog = (event: string, line: string): void => {
    if (options.logFormat === 'json')
      new JsonLog(io.stderr, { job: jobName }).write('info', event, line);
    else io.stderr.write(`weir: ${line}\n`);
  };
  if (options.processGroup !== undefined && env.processGroupPlacement() === 'single-owner') {
    owned = await takeSingleOwnerTask({
      group: options.processGroup,
      // args.ts makes --group need --checkpoint-dir.
      checkpointDir: checkpointDir!,
      task: jobName,
      cwd: io.cwd,
      explicitRestore: restore,
      allowDuplicateOutput: options.allowDuplicateOutput === true,
      held,
      say: (line) => ownerLog('single_owner', line),
      prepareStandby: () => env.prepareStandby(),
    });
    if (owned === undefined) {
      ownerLog('single_owner_stopped', `stopped before this member owned task '${jobName}'`);
      return EXIT_OK;
    }
    env.moveCheckpoints(owned.directory);
    restore = owned.restore;
  }
  let memberDirectory: string | undefined;
  let keyedGroup = false;
  if (options.processGroup !== undefined && env.processGroupPlacement() === 'partitioned') {
    // The shared location holds the tasks' snapshots; each member checkpoints under a path of its own.
    memberDirectory = memberCheckpointDirectory(checkpointDir!);
    env.moveCheckpoints(memberDirectory);
    if (env.processGroupKeepsKeyedState()) {
      // The process's membership holds the tasks; its readers read them on fixed partitions.
      keyedGroup = true;
      groupSpec = {
        ...groupSpec!,
        tasks: () => taskSet.current,
        transactionScope: () => taskSet.run,
      };
      env.runInProcessGroup(groupSpec);
    }
  }

  const observers = await startObservers(options, {
    cwd: io.cwd,
    defaultSavepointDirs: [checkpointDir, savepointDir].filter((d) => d !== undefined),
  });
  const group = await joinGroupMetadata(groupSpec, env, observers);
  if (keyedGroup)
    return runKeyedGroupJob({
      options,
      io,
      env,
      jobName,
      held,
      observers,
      group,
      exchange: exchange!,
      taskSet,
      checkpointDir: checkpointDir!,
      memberDirectory: memberDirectory!,
      say: (line) => ownerLog('process_group', line),
    });
  const client = env.executeAsync(jobName, {
    ...(restore === undefined ? {} : { restoreFrom: restore.path }),
    ...(options.allowNonRestoredState ? { allowNonRestoredState: true } : {}),
    ...(options.allowDuplicateOutput === true ? { allowDuplicateOutput: true } : {}),
  });
  group?.setJobId(client.jobId);
  observers.attach(client, group);
  const stopGroupMetrics = group && registerGroupMetrics(client.metrics.group({}), group);
  let taskLost = false;
  owned?.owner.onLost(() => {
    // Another member owns the task now (this one missed its heartbeats): stop at once.
    taskLost = true;
    client.cancel().catch(() => {});
  });
  const least = options.logLevel ?? 'info';
  const json =
    options.logFormat === 'json'
      ? new JsonLog(io.stderr, { job: jobName }).atLeast(least)
      : undefined;
  const log = json?.with({ jobId: client.jobId });
  /** A `weir:` line of the text log, at `level` for `--log-level`. */
  const say = (line: string, level: LogLevel = 'info'): void => {
    if (shownAt(level, least)) io.stderr.write(`weir: ${line}\n`);
  };
  const announce = (event: string, what: string, url: string | undefined): void => {
    if (url === undefined) return;
    if (log !== undefined) log.write('info', event, `${what} at ${url}`, { url });
    else say(`${what} at ${url}`);
  };
  if (options.configFile !== undefined) {
    if (log !== undefined) {
      log.write('info', 'config_file', `settings from ${options.configFile}`, {
        file: options.configFile,
      });
    } else say(`settings from ${options.configFile}`);
  }
  log?.write('info', 'job_started', `job '${jobName}' started`, {
    parallelism: env.parallelism,
    workers: env.workerCount ?? 0,
    operators: client.monitor.graph.operators.length,
    ...(options.restoreFrom === undefined && owned === undefined
      ? {}
      : { restoredFrom: restoreFields(restore) }),
  });
  /** Damaged checkpoints a restore from the newest one passed over: a warning each. */
  const reportPassedOver = (
    skipped: readonly SkippedCheckpoint[],
    restoredFrom: number | undefined,
  ): void => {
    for (const c of skipped) {
      const instead =
        restoredFrom === undefined
          ? 'no older checkpoint is left: the job starts without state'
          : `restoring checkpoint ${restoredFrom} instead`;
      const text = `checkpoint ${c.checkpointId} is damaged and was passed over (${c.reason}; ${c.path}); ${instead}`;
      if (log !== undefined) {
        log.write('warn', 'checkpoint_passed_over', text, {
          checkpointId: c.checkpointId,
          path: c.path,
          reason: c.reason,
          restoredFrom: restoredFrom ?? null,
        });
      } else say(text, 'warn');
    }
  };
  reportPassedOver(passedOver, restore?.checkpointId);
  client.monitor.onPassedOver(({ skipped, restoredFrom }) =>
    reportPassedOver(skipped, restoredFrom),
  );
  if (log === undefined && (options.restoreFrom !== undefined || owned !== undefined)) {
    say(restoreText(jobName, restore, checkpointDir));
  }
  client.monitor.onRestart(({ restart, cause, delayMs }) => {
    const [message] = describeFailure(cause, false);
    const text = `job '${jobName}' failed: ${message}; restart ${restart} in ${formatDuration(delayMs)}`;
    if (log !== undefined) {
      log.write('warn', 'job_restarting', text, {
        restart,
        delayMs,
        error: errorFields(cause, options.verbose),
      });
    } else say(text, 'warn');
  });
  announce('ui_started', 'web UI', observers.uiUrl);
  announce('metrics_started', 'Prometheus metrics', observers.metricsUrl);
  // Where, never what: the token itself stays out of every log.
  for (const file of observers.tokenFiles) {
    if (log !== undefined) {
      log.write('info', 'rest_token', `REST token (for savepoints) in ${file}`, { file });
    } else say(`REST token (for savepoints) in ${file}`);
  }

  const live = log === undefined && io.stdout.isTTY === true && io.stderr.isTTY === true;
  const status = live ? new LiveStatusLine(io.stderr, [io.stdout, io.stderr]) : undefined;
  const sampler = new JobStatusSampler(client);
  let onTick: (() => void) | undefined;
  if (status !== undefined) onTick = () => status.update(statusLineText(jobName, sampler.sample()));
  else if (log !== undefined) onTick = jsonTicker(log, sampler, options.statusIntervalMs);

  let savepoint: SavepointOutcome | undefined;
  /**
   * `--savepoint-on-stop`: what `JobClient.stopWithSavepoint` does (savepoint,
   * then stop), in two steps so that the path is known even if the job then
   * fails while closing, and a failed savepoint still stops the job.
   */
  const stopWithSavepoint = async (directory: string): Promise<void> => {
    try {
      const path = await client.triggerSavepoint(directory, { final: true });
      savepoint = { kind: 'taken', path };
      if (log !== undefined) {
        log.write('info', 'savepoint_completed', `savepoint written to ${path}`, { path });
      } else {
        say(`savepoint written to ${path}`);
      }
    } catch (error) {
      savepoint = { kind: 'failed', error };
      const [message] = describeFailure(error, false);
      if (log !== undefined) {
        log.write('error', 'savepoint_failed', `savepoint failed: ${message}`, {
          error: errorFields(error, options.verbose),
        });
      } else {
        say(`savepoint failed: ${message}; cancelling the job without one`, 'error');
      }
    }
    await client.cancel();
  };

  const pendingSignal = held.first();
  const supervised = superviseJob(client, {
    watchParent: startedByNpm(),
    parentPid: held.parentPid,
    ...(pendingSignal === undefined ? {} : { pendingSignal }),
    ...(onTick === undefined ? {} : { onTick, tickMs: STATUS_LINE_MS }),
    ...(savepointDir === undefined ? {} : { stop: () => stopWithSavepoint(savepointDir) }),
    onStopRequested: (reason) => {
      const why = stopReasonText(reason);
      const how = savepointDir === undefined ? '' : ` with a savepoint into ${savepointDir}`;
      if (log !== undefined) {
        log.write('info', 'job_stopping', `stopping '${jobName}'${how} (${why})`, {
          reason: why,
          ...(savepointDir === undefined ? {} : { savepointDirectory: savepointDir }),
        });
      } else {
        say(`stopping '${jobName}'${how} (${why}); press Ctrl-C again to force`);
      }
    },
    onForcedExit: () => {
      status?.close();
      if (log !== undefined) log.write('error', 'forced_exit', 'forced exit');
      else say('forced exit');
    },
  });
  // Its handlers are in place (it installs them before its first await).
  held.release();
  const run = await supervised;
  status?.close();
  await owned?.owner.close();
  if (taskLost) {
    say(`job '${jobName}' stopped: the group gave task '${jobName}' to another member`, 'error');
    await observers.close();
    return EXIT_FAILURE;
  }
  const interactive = io.stderr.isTTY === true && process.stdin.isTTY === true;
  const keep = observers.uiUrl !== undefined && keepsUi(options, run.outcome, interactive);
  try {
    return reportRun(run);
  } finally {
    if (keep) {
      const text = `job '${jobName}' ended; the web UI stays at ${observers.uiUrl} until Ctrl-C or SIGTERM`;
      if (log !== undefined) log.write('info', 'ui_kept', text, { url: observers.uiUrl });
      else say(text);
      await waitForStop({ watchParent: startedByNpm(), parentPid: held.parentPid });
    }
    stopGroupMetrics?.();
    // Leaves the group's metadata: the others stop routing queries here.
    await group?.close();
    await observers.close();
  }

  /** The summary of the run (stderr or the JSON log) and the exit status. */
  function reportRun(run: SupervisedRun): number {
    const { outcome } = run;
    const checkpointLine =
      checkpointDir === undefined
        ? []
        : [
            // A group member's own checkpoints are under the shared location.
            `  last checkpoint: ${lastCheckpointText(client, memberDirectory ?? owned?.directory ?? checkpointDir)}`,
          ];
    if (outcome.kind === 'failed') {
      const read = recordsRead(client);
      if (restore !== undefined && isRestoreFailure(outcome.error, read)) {
        return reportRestoreFailure(outcome.error, restore, jobName, options.verbose, io, json);
      }
      if (log !== undefined) {
        const [message] = describeFailure(outcome.error, false);
        log.write('error', 'job_failed', `job '${jobName}' failed: ${message}`, {
          durationMs: Math.round(outcome.durationMs),
          recordsRead: read,
          badRecords: client.metrics.total(BAD_RECORDS),
          error: errorFields(outcome.error, options.verbose),
          ...lastCheckpointFields(client, savepointDir, savepoint),
        });
        return EXIT_FAILURE;
      }
      const [message, ...details] = describeFailure(outcome.error, options.verbose);
      io.stderr.write(
        `✗ job '${jobName}' failed after ${formatDuration(outcome.durationMs)}: ${message}\n`,
      );
      for (const line of details) io.stderr.write(`${line}\n`);
      io.stderr.write(`  records read: ${formatCount(read)}\n`);
      for (const line of badRecordsLine(client, true)) io.stderr.write(`${line}\n`);
      for (const line of checkpointLine) io.stderr.write(`${line}\n`);
      for (const line of restartLine(client)) io.stderr.write(`${line}\n`);
      return EXIT_FAILURE;
    }
    const { result } = outcome;
    const read = result.metric(SOURCE_RECORDS);
    const perSecond = result.durationMs > 0 ? (read * 1000) / result.durationMs : 0;
    // A stop that was asked to take a savepoint and could not fails the run.
    const savepointFailed = savepoint?.kind === 'failed' && outcome.kind === 'cancelled';
    if (log !== undefined) {
      log.write('info', `job_${outcome.kind}`, `job '${jobName}' ${outcome.kind}`, {
        durationMs: Math.round(result.durationMs),
        recordsRead: read,
        badRecords: client.metrics.total(BAD_RECORDS),
        recordsPerSecond: Math.round(perSecond),
        ...lastCheckpointFields(client, savepointDir, savepoint),
      });
      return savepointFailed ? EXIT_FAILURE : EXIT_OK;
    }
    const mark = outcome.kind === 'finished' ? '✓' : '■';
    const what =
      outcome.kind === 'cancelled' && savepoint?.kind === 'taken'
        ? 'stopped with a savepoint'
        : outcome.kind;
    io.stderr.write(
      `${mark} job '${jobName}' ${what} in ${formatDuration(result.durationMs)} · ` +
        `${formatCount(read)} ${read === 1 ? 'record' : 'records'} read (${formatCount(perSecond)}/s)\n`,
    );
    for (const line of badRecordsLine(client, false)) io.stderr.write(`${line}\n`);
    // A savepoint taken was announced when written (the job may take a while to close after it).
    if (savepointDir !== undefined && run.stopReason !== undefined && savepoint?.kind !== 'taken') {
      io.stderr.write(
        savepoint === undefined
          ? '  savepoint: none (the job ended before one could be taken)\n'
          : `  savepoint: failed (${describeFailure(savepoint.error, false)[0]})\n`,
      );
    }
    for (const line of checkpointLine) io.stderr.write(`${line}\n`);
    for (const line of restartLine(client)) io.stderr.write(`${line}\n`);
    return savepointFailed ? EXIT_FAILURE : EXIT_OK;
  }
}

/**
 * A member of a process group whose job keeps keyed state: runs it as
 * {@link runKeyedGroup} does (again on every change of its tasks, with their
 * state) and reports the last run.
 */
async function runKeyedGroupJob(a: {
  readonly options: RunOptions;
  readonly io: CliIO;
  readonly env: StreamEnvironmentImpl;
  readonly jobName: string;
  readonly held: HeldSignals;
  readonly observers: Observers;
  readonly group: GroupMembers | undefined;
  readonly exchange: KafkaExchange;
  readonly taskSet: HeldTaskSet;
  readonly checkpointDir: string;
  readonly memberDirectory: string;
  readonly say: (line: string) => void;
}): Promise<number> {
  const { options, io, jobName, say } = a;
  const { runKeyedGroup } = await import('./keyed-group-run.js');
  for (const [what, url] of [
    ['web UI', a.observers.uiUrl],
    ['Prometheus metrics', a.observers.metricsUrl],
  ] as const)
    if (url !== undefined) say(`${what} at ${url}`);
  try {
    const { client, run, fenced } = await runKeyedGroup({
      env: a.env,
      jobName,
      brokers: options.processGroup!.brokers,
      applicationId: options.processGroup!.applicationId,
      sessionTimeoutMs: options.processGroup!.sessionTimeoutMs,
      standbyReplicas: options.processGroup!.standbyReplicas ?? 0,
      exchange: a.exchange,
      taskSet: a.taskSet,
      checkpointDir: a.checkpointDir,
      memberDirectory: a.memberDirectory,
      observers: a.observers,
      group: a.group,
      held: a.held,
      execute: options.allowNonRestoredState ? { allowNonRestoredState: true } : {},
      supervise: () => ({
        watchParent: startedByNpm(),
        parentPid: a.held.parentPid,
        onStopRequested: (reason) =>
          say(
            `stopping '${jobName}' (${stopReasonText(reason)}): the final snapshots of its tasks first, then it leaves the group`,
          ),
      }),
      started: (client) =>
        client.monitor.onRestart(({ restart, cause, delayMs }) =>
          say(
            `job '${jobName}' failed: ${describeFailure(cause, false)[0]}; restart ${restart} in ${formatDuration(delayMs)}`,
          ),
        ),
      say,
      warn: say,
    });
    const { outcome } = run;
    if (fenced) {
      // Stopped while its tasks were with other members already: nothing of it is left to commit.
      io.stderr.write(`■ job '${jobName}' stopped · its last run was fenced\n`);
      return EXIT_OK;
    }
    if (outcome.kind === 'failed') {
      const [message, ...details] = describeFailure(outcome.error, options.verbose);
      io.stderr.write(`✗ job '${jobName}' failed: ${message}\n`);
      for (const line of details) io.stderr.write(`${line}\n`);
      return EXIT_FAILURE;
    }
    io.stderr.write(
      `■ job '${jobName}' ${outcome.kind} · ${formatCount(recordsRead(client))} records read in its last run\n`,
    );
    return EXIT_OK;
  } finally {
    await a.group?.close();
    await a.observers.close();
  }
}

/** The restore announced on stderr: where from, or why from nowhere. */
function restoreText(
  jobName: string,
  restore: RestorePoint | undefined,
  checkpointDir: string | undefined,
): string {
  if (restore === undefined) {
    return `no checkpoint in ${checkpointDir ?? 'the checkpoint directory'} yet; starting '${jobName}' without state`;
  }
  const written =
    restore.jobName === undefined || restore.jobName === jobName
      ? ''
      : ` (written by job '${restore.jobName}')`;
  const final = restore.final
    ? '; it was taken after all input had ended, so the job finishes at once'
    : '';
  return `restoring '${jobName}' from ${describeRestorePoint(restore)}${written}${final}`;
}

/** The restore as JSON log fields; null when `--from latest` found no checkpoint. */
function restoreFields(restore: RestorePoint | undefined): Record<string, unknown> | null {
  if (restore === undefined) return null;
  return {
    path: restore.path,
    kind: restore.kind,
    checkpointId: restore.checkpointId,
    final: restore.final,
  };
}

/**
 * A restore the engine refused (renamed operators, another max parallelism,
 * a rescaled source, incompatible state): said as such, with what to do.
 */
function reportRestoreFailure(
  error: unknown,
  restore: RestorePoint,
  jobName: string,
  verbose: boolean,
  io: CliIO,
  json: JsonLog | undefined,
): number {
  const [message, ...details] = describeFailure(error, verbose);
  const headline = `cannot restore job '${jobName}' from ${describeRestorePoint(restore)}: ${message}`;
  const hint = restoreHint(error, restore);
  // The restore was refused before anything ran: a stack trace helps no one unless asked for.
  const lines = [
    ...details.filter((d) => !d.includes('--verbose')),
    ...(hint === undefined ? [] : [`  hint:     ${hint}`]),
  ];
  if (json !== undefined) {
    json.write('error', 'run_failed', headline, {
      details: lines.map((d) => d.trim()),
      error: errorFields(error, verbose),
    });
    return EXIT_FAILURE;
  }
  io.stderr.write(`✗ ${headline}\n`);
  for (const line of lines) io.stderr.write(`${line}\n`);
  return EXIT_FAILURE;
}

/** The newest checkpoint this run completed (savepoints aside): "12 (/ckpt/chk-0000000012)". */
function lastCheckpointText(client: JobClient, checkpointDir: string): string {
  const last = lastCompletedCheckpoint(client);
  if (last === undefined) return 'none';
  return `${last} (${openStore(checkpointDir).locate(DirectoryCheckpointStorage.nameOf(last, 'checkpoint'))})`;
}

function lastCompletedCheckpoint(client: JobClient): number | undefined {
  return client.monitor.checkpoints
    .entries()
    .find((e) => e.kind === 'checkpoint' && e.status === 'completed')?.id;
}

/** `lastCheckpoint` (checkpoint or savepoint) and, with `--savepoint-on-stop`, `savepoint` for the final JSON record. */
function lastCheckpointFields(
  client: JobClient,
  savepointDir: string | undefined,
  savepoint: SavepointOutcome | undefined,
): Record<string, unknown> {
  const last = client.monitor.lastCheckpoint();
  return {
    restarts: client.monitor.restarts(),
    lastCheckpoint: last === undefined ? null : checkpointFields(last),
    ...(savepointDir === undefined
      ? {}
      : { savepoint: savepoint?.kind === 'taken' ? savepoint.path : null }),
  };
}

/**
 * The JSON logger's tick: a `status` record every `intervalMs`, and a
 * `checkpoint_completed` record for each checkpoint that completed since the
 * last tick (the monitor keeps the recent history).
 */
function jsonTicker(log: JsonLog, sampler: JobStatusSampler, intervalMs: number): () => void {
  let lastStatus = performance.now();
  let lastCheckpointId = 0;
  return () => {
    const sample = sampler.sample();
    const cp = sample.lastCheckpoint;
    if (cp !== undefined && cp.id > lastCheckpointId) {
      lastCheckpointId = cp.id;
      log.write('info', 'checkpoint_completed', `${cp.kind} ${cp.id} completed`, {
        checkpoint: checkpointFields(cp),
      });
    }
    const now = performance.now();
    if (now - lastStatus >= intervalMs) {
      lastStatus = now;
      log.write('info', 'status', 'status', statusFields(sample));
    }
  };
}

/** A failure as JSON fields: message, and the WeirError details where present. */
function errorFields(error: unknown, verbose: boolean): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const key of ['code', 'operatorId', 'record']) {
    const value: unknown = Reflect.get(error, key);
    if (typeof value === 'string' && value.length > 0) fields[key] = value;
  }
  if (verbose && error.stack !== undefined) fields.stack = error.stack;
  return fields;
}

function createEnvironment(options: RunOptions, cwd: string): StreamEnvironmentImpl {
  try {
    // auto: one worker per core, but no more than the parallelism asked for: subtask s runs on
    // worker s mod N, so a worker beyond the parallelism would hold nothing and only load the job.
    const count =
      options.workers === 'auto'
        ? Math.min(availableParallelism(), options.parallelism ?? Number.POSITIVE_INFINITY)
        : options.workers;
    const workers = count === 0 ? undefined : count;
    const parallelism = options.parallelism ?? workers;
    // Flink's rule: a job that takes checkpoints restarts from them unless told otherwise.
    const restartStrategy =
      options.restartStrategy ?? defaultRestartStrategy(options.checkpointDir !== undefined);
    return new StreamEnvironmentImpl({
      restartStrategy,
      ...(parallelism === undefined ? {} : { parallelism }),
      ...(workers === undefined ? {} : { workers }),
      ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      ...(options.checkpointDir === undefined
        ? {}
        : {
            checkpointing: {
              directory: resolveLocation(cwd, options.checkpointDir),
              ...(options.checkpointIntervalMs === undefined
                ? {}
                : { intervalMs: options.checkpointIntervalMs }),
              ...(options.checkpointTimeoutMs === undefined
                ? {}
                : { timeoutMs: options.checkpointTimeoutMs }),
              ...(options.checkpointMinPauseMs === undefined
                ? {}
                : { minPauseMs: options.checkpointMinPauseMs }),
              ...(options.checkpointsRetained === undefined
                ? {}
                : { retained: options.checkpointsRetained }),
            },
          }),
      ...(options.stateBackend === undefined
        ? {}
        : {
            stateBackend:
              options.stateBackend === 'heap'
                ? { kind: 'heap' }
                : {
                    kind: 'disk',
                    ...(options.stateDir === undefined
                      ? {}
                      : { workingDirectory: resolve(cwd, options.stateDir) }),
                  },
          }),
    });
  } catch (error) {
    // The environment rejects inconsistent settings (parallelism above max parallelism).
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The summary's restart count, shown only when the job restarted. */
function restartLine(client: JobClient): string[] {
  const restarts = client.monitor.restarts();
  return restarts === 0 ? [] : [`  restarts: ${restarts}`];
}

function recordsRead(client: JobClient): number {
  return client.metrics.total(SOURCE_RECORDS);
}

/**
 * The summary's count of bad input records, shown only when there were some:
 * under 'skip' or a dead letter the job goes on, and a count seen only in
 * the metrics would make the run look clean. The metric also counts a record
 * that failed the job (onError 'fail'), so only a run that neither failed nor
 * restarted says its bad records were all skipped or dead-lettered.
 */
function badRecordsLine(client: JobClient, failed: boolean): string[] {
  const bad = client.metrics.total(BAD_RECORDS);
  if (bad === 0) return [];
  const fate =
    failed || client.monitor.restarts() > 0
      ? "including any that failed the job under the sources' onError 'fail'"
      : "skipped or sent to the dead letter, by the sources' onError policy";
  return [`  bad records: ${formatCount(bad)} (${fate}; metric ${BAD_RECORDS})`];
}

/**
 * For a member of a process group: joins the group's metadata (the members
 * topic) with this process's REST address, and lets the job's group readers
 * report their tasks to it.
 */
async function joinGroupMetadata(
  spec: ProcessGroupSpec | undefined,
  env: StreamEnvironmentImpl,
  observers: Observers,
): Promise<GroupMembers | undefined> {
  if (spec === undefined) return undefined;
  let members: GroupMembers;
  try {
    // Loaded here: a job outside a group never loads the Kafka client for it.
    const { GroupMembers } = await import('../connectors/kafka/group/group-members.js');
    members = await GroupMembers.start({
      brokers: spec.brokers,
      applicationId: spec.applicationId,
      url: observers.apiUrl,
    });
  } catch (error) {
    await observers.close();
    throw error;
  }
  env.runInProcessGroup({ ...spec, observer: members });
  // The layout exists once the job is cut into stages (when it starts).
  members.routeKeys(() => env.processGroupLayout()?.keyedOperators, env.maxParallelism);
  return members;
}
