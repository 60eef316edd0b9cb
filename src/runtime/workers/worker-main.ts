/**
 * What a worker thread does once it has the job's plan: it builds the tasks
 * of the subtasks it owns, connects their channels to the other workers, and
 * runs them until the main thread says close, reporting metrics on the way
 * and what its collecting sinks received at the end.
 */
import type { MessagePort } from 'node:worker_threads';
import { systemClock } from '../../core/clock.js';
import { isCollectingSink } from '../../core/sink.js';
import { MetricRegistry } from '../../metrics/registry.js';
import { buildTasks, taskSlots } from '../execution/build-tasks.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import { LocalExecutor } from '../execution/executor.js';
import { ProcessingTimeScheduler } from '../task/timers.js';
import { CoordinatorLink } from './coordinator-link.js';
import { channelId, PeerChannels } from './peer-channels.js';
import {
  type CollectedRecords,
  type FromWorker,
  serializeError,
  type WorkerSetup,
  workerOf,
} from './protocol.js';
import { Wakeup } from './wakeup.js';

/** How often a running worker sends its metric samples to the main thread (ms). */
const METRICS_REPORT_MS = 500;

/**
 * Runs this worker's share of the job built from `plan` (which the worker
 * built itself, as every thread does) until the main thread says close. A
 * failure is reported to the main thread, not thrown.
 */
export async function runWorkerThread(
  plan: ExecutionPlan,
  setup: WorkerSetup,
  parent: MessagePort,
): Promise<void> {
  try {
    await runSubtasks(plan, setup, parent);
  } catch (error) {
    reportFailure(parent, error);
  }
}

/** Tells the main thread this worker failed (also for failures before it has a plan). */
export function reportFailure(parent: MessagePort, error: unknown): void {
  parent.postMessage({ t: 'failed', error: serializeError(error) } satisfies FromWorker);
}

async function runSubtasks(
  plan: ExecutionPlan,
  setup: WorkerSetup,
  parent: MessagePort,
): Promise<void> {
  const post = (m: FromWorker) => parent.postMessage(m);
  const { options, index, count } = setup;
  const wakeup = new Wakeup();
  const peers = new Map<number, PeerChannels>();
  setup.peers.forEach((link, peer) => {
    if (link !== undefined) peers.set(peer, new PeerChannels(link, wakeup));
  });
  const owns = (subtask: number) => workerOf(subtask, count) === index;
  const metrics = new MetricRegistry();
  const workerMetrics = metrics.group({ worker: String(index) });
  workerMetrics.gauge(
    'weir_worker_peak_in_flight_batches',
    'Most batches one channel to another worker had in flight (bounded by the channel capacity)',
    () => Math.max(0, ...[...peers.values()].map((l) => l.peakInFlight())),
  );
  workerMetrics.gauge(
    'weir_worker_ring_full_total',
    'Times a write to another worker found the shared ring full (the frames waited for room)',
    () => [...peers.values()].reduce((n, l) => n + l.ringFullCount(), 0),
  );
  const timers = new ProcessingTimeScheduler(systemClock);
  const tasks = buildTasks(plan, {
    jobName: setup.jobName,
    batchSize: options.batchSize,
    channelCapacity: options.channelCapacity,
    debloatTargetMs: options.debloatTargetMs,
    clock: systemClock,
    timers,
    metrics,
    ...(options.stateBackend === undefined ? {} : { stateBackend: options.stateBackend }),
    ...(setup.restore === undefined ? {} : { restoreFrom: setup.restore }),
    instrumentation: options.instrumentation,
    placement: {
      owns,
      remoteEnd(edge, from, to, side, capacity) {
        const peer = workerOf(side === 'sender' ? to : from, count);
        const channels = peers.get(peer)!;
        const id = channelId(edge, from, to);
        // With debloating the receiver starts by admitting one batch (see buffer-debloat.ts).
        const initialLimit = options.debloatTargetMs === undefined ? Number.POSITIVE_INFINITY : 1;
        return side === 'sender'
          ? channels.sender(id, capacity, initialLimit)
          : channels.receiver(id);
      },
    },
  });
  const slots = taskSlots(plan)
    .map((slot, i) => ({ slot, i }))
    .filter(({ slot }) => owns(slot.subtask))
    .map(({ i }) => i);
  const coordinator = new CoordinatorLink(parent, [...peers.values()], tasks, slots, wakeup);
  const executor = new LocalExecutor(tasks, timers, coordinator);
  const reportMetrics = () => post({ t: 'metrics', metrics: metrics.snapshot() });
  coordinator.onStop = () => executor.stop();
  coordinator.onReportMetrics = reportMetrics;
  coordinator.reportStates();
  post({ t: 'started', slots });
  const reporter = setInterval(reportMetrics, METRICS_REPORT_MS);
  reporter.unref();
  try {
    await executor.run();
  } catch (error) {
    // Before the failure (messages keep their order): the summary counts what this worker did.
    reportMetrics();
    throw error;
  } finally {
    clearInterval(reporter);
  }
  for (const channels of peers.values()) channels.flush(true);
  post({ t: 'closed', metrics: metrics.snapshot(), collected: collectedRecords(plan) });
}

/** What the job's collecting sinks received on this worker, for the main thread's copies of them. */
function collectedRecords(plan: ExecutionPlan): CollectedRecords[] {
  const collected: CollectedRecords[] = [];
  for (const vertex of plan.vertices) {
    if (vertex.kind === 'operator' && isCollectingSink(vertex.sink)) {
      collected.push({
        operatorId: vertex.operatorId,
        values: vertex.sink.values,
        timestamps: vertex.sink.timestamps,
      });
    }
  }
  return collected;
}
