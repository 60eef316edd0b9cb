/**
 * The entry point of a worker thread in worker mode: loads the job module,
 * builds the same graph as every other thread, creates the tasks of the
 * subtasks this worker owns, and runs them until the main thread says close.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../../core/clock.js';
import { isCollectingSink } from '../../core/sink.js';
import { MetricRegistry } from '../../metrics/registry.js';
import { buildTasks, taskSlots } from '../../runtime/execution/build-tasks.js';
import { LocalExecutor } from '../../runtime/execution/executor.js';
import { ProcessingTimeScheduler } from '../../runtime/task/timers.js';
import { channelId, PeerLink, Wakeup } from '../../runtime/workers/peer-link.js';
import {
  type CollectedRecords,
  type FromWorker,
  serializeError,
  type WorkerSetup,
  workerOf,
} from '../../runtime/workers/protocol.js';
import { WorkerAgent } from '../../runtime/workers/worker-agent.js';
import { StreamEnvironment } from '../environment.js';
import { loadJobModule } from './load-job-module.js';

async function main(parent: MessagePort, setup: WorkerSetup): Promise<void> {
  const post = (m: FromWorker) => parent.postMessage(m);
  const { options, index, count } = setup;
  const env = new StreamEnvironment({
    parallelism: options.parallelism,
    maxParallelism: options.maxParallelism,
    batchSize: options.batchSize,
    channelCapacity: options.channelCapacity,
    chaining: options.chaining,
    localAggregation: options.localAggregation,
    ...(options.stateBackend === undefined ? {} : { stateBackend: options.stateBackend }),
  });
  const definition = await loadJobModule(setup.modulePath, process.cwd(), {
    aliasWeir: setup.aliasWeir,
  });
  await definition(env, { args: setup.args });
  const plan = env.plan();

  const wakeup = new Wakeup();
  const links = new Map<number, PeerLink>();
  setup.peers.forEach((port, peer) => {
    if (port !== undefined) links.set(peer, new PeerLink(port, wakeup));
  });
  const owns = (subtask: number) => workerOf(subtask, count) === index;
  const metrics = new MetricRegistry();
  metrics
    .group({ job: setup.jobName, worker: String(index) })
    .gauge(
      'weir_worker_peak_in_flight_batches',
      'Most batches one channel to another worker had in flight (bounded by the channel capacity)',
      () => Math.max(0, ...[...links.values()].map((l) => l.peakInFlight())),
    );
  const timers = new ProcessingTimeScheduler(systemClock);
  const tasks = buildTasks(plan, {
    jobName: setup.jobName,
    batchSize: options.batchSize,
    channelCapacity: options.channelCapacity,
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
        const link = links.get(peer)!;
        const id = channelId(edge, from, to);
        return side === 'sender' ? link.sender(id, capacity) : link.receiver(id);
      },
    },
  });
  const slots = taskSlots(plan)
    .map((slot, i) => ({ slot, i }))
    .filter(({ slot }) => owns(slot.subtask))
    .map(({ i }) => i);
  const agent = new WorkerAgent(parent, [...links.values()], tasks, slots, wakeup);
  const executor = new LocalExecutor(tasks, timers, agent);
  agent.onStop = () => executor.stop();
  agent.reportStates();
  post({ t: 'started', slots });
  const reporter = setInterval(() => post({ t: 'metrics', metrics: metrics.snapshot() }), 500);
  reporter.unref();
  try {
    await executor.run();
  } finally {
    clearInterval(reporter);
  }

  // What the job's collecting sinks received here, for the main thread's copies of them.
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
  for (const link of links.values()) link.flush(true);
  post({ t: 'closed', metrics: metrics.snapshot(), collected });
}

if (parentPort !== null && (workerData as { weirWorker?: unknown } | null)?.weirWorker === true) {
  const parent = parentPort;
  main(parent, (workerData as { setup: WorkerSetup }).setup).catch((error: unknown) => {
    parent.postMessage({ t: 'failed', error: serializeError(error) } satisfies FromWorker);
  });
}
