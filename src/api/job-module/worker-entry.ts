/**
 * The entry point of a worker thread in worker mode: loads the job module and
 * builds the same plan as every other thread, with the environment options
 * the main thread sent, then hands it to the runtime, which runs the
 * subtasks this worker owns.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { ExecutionPlan } from '../../runtime/execution/execution-plan.js';
import type { WorkerSetup } from '../../runtime/workers/protocol.js';
import { reportFailure, runWorkerThread } from '../../runtime/workers/worker-main.js';
import { StreamEnvironmentImpl } from '../environment.js';
import { loadJobModule } from './load-job-module.js';

/** Builds the job's plan on this thread, as the main thread built it. */
async function buildPlan(setup: WorkerSetup): Promise<ExecutionPlan> {
  const { options } = setup;
  const env = new StreamEnvironmentImpl({
    parallelism: options.parallelism,
    maxParallelism: options.maxParallelism,
    batchSize: options.batchSize,
    channelCapacity: options.channelCapacity,
    chaining: options.chaining,
    fusion: options.fusion,
    localAggregation: options.localAggregation,
    ...(options.autoWatermarkIntervalMs === undefined
      ? {}
      : { autoWatermarkIntervalMs: options.autoWatermarkIntervalMs }),
    ...(options.stateBackend === undefined ? {} : { stateBackend: options.stateBackend }),
  });
  const definition = await loadJobModule(setup.modulePath, process.cwd(), {
    aliasWeir: setup.aliasWeir,
  });
  await definition(env, { args: setup.args });
  return env.plan();
}

async function main(parent: MessagePort, setup: WorkerSetup): Promise<void> {
  let plan: ExecutionPlan;
  try {
    plan = await buildPlan(setup);
  } catch (error) {
    reportFailure(parent, error);
    return;
  }
  await runWorkerThread(plan, setup, parent);
}

if (parentPort !== null && (workerData as { weirWorker?: unknown } | null)?.weirWorker === true) {
  void main(parentPort, (workerData as { setup: WorkerSetup }).setup);
}
