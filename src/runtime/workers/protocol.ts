import { isRestartable } from '../../core/errors.js';
import type { Key } from '../../core/key-groups.js';
import type { StateQueryAnswer } from '../../core/queryable-state.js';
import type { MetricSample } from '../../metrics/registry.js';
import type { StateBackendOptions } from '../../state/create-backend.js';
import type { CheckpointData } from '../checkpoint/checkpoint-data.js';
import type { TaskSnapshot } from '../task/task.js';
import type { PeerLink } from './peer-channels.js';

/** Subtask `s` of every operator runs on worker `s mod workers`. */
export function workerOf(subtask: number, workers: number): number {
  return subtask % workers;
}

/** Environment options a worker rebuilds the job with (all plain data). */
export interface WorkerEnvironmentOptions {
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly batchSize: number;
  readonly channelCapacity: number;
  /** Buffer debloating target (ms); off when absent. */
  readonly debloatTargetMs?: number;
  readonly chaining: boolean;
  readonly fusion: boolean;
  readonly localAggregation: boolean;
  /** The environment's auto-watermark interval, which the plan's watermark steps are built with. */
  readonly autoWatermarkIntervalMs?: number;
  readonly stateBackend?: StateBackendOptions;
  readonly instrumentation: boolean;
}

/** What a worker is started with. */
export interface WorkerSetup {
  readonly modulePath: string;
  /** The job module imports `weir`: map it to this copy (see `loadJobModule`). */
  readonly aliasWeir: boolean;
  readonly args: readonly string[];
  readonly jobName: string;
  readonly index: number;
  readonly count: number;
  readonly options: WorkerEnvironmentOptions;
  readonly restore: CheckpointData | undefined;
  /** Links to the other workers (rings and a doorbell port), by worker index (undefined for itself). */
  readonly peers: readonly (PeerLink | undefined)[];
}

/** Commands from the main thread; those with `req` are answered with a `reply`. */
export type ToWorker =
  | {
      readonly t: 'trigger';
      readonly slot: number;
      readonly id: number;
      readonly savepoint: boolean;
      /** The savepoint of a stop: the source emits nothing after its barrier. */
      readonly stop: boolean;
    }
  /** A stop's savepoint failed: tasks halted at its barrier go on. */
  | { readonly t: 'resume' }
  | { readonly t: 'complete'; readonly req: number; readonly id: number }
  | { readonly t: 'final-snapshot'; readonly req: number; readonly id: number }
  | { readonly t: 'precommit'; readonly req: number; readonly id: number }
  /** After the final checkpoint (or a stop): close the tasks and report. */
  | { readonly t: 'close' }
  | { readonly t: 'stop' }
  /** The job failed: send the current metrics now, for the failure summary. */
  | { readonly t: 'report-metrics' }
  /** Reads queryable state of operator `uid` in the task at `slot` for `key`. */
  | {
      readonly t: 'query';
      readonly req: number;
      readonly slot: number;
      readonly uid: string;
      readonly key: Key;
    };

/** An error as it crosses threads. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string | undefined;
  readonly code?: string | undefined;
  readonly domain?: string | undefined;
  readonly operatorId?: string | undefined;
  readonly record?: string | undefined;
  readonly retriable?: boolean | undefined;
  /** False when no restart may follow (`WeirError.restartable`). */
  readonly restartable?: boolean | undefined;
  /** The error's `cause`, so the main thread can show the whole chain. */
  readonly cause?: SerializedError | undefined;
}

/** Records a worker's collecting sinks received, by the sink's operator id. */
export interface CollectedRecords {
  readonly operatorId: string;
  readonly values: unknown[];
  readonly timestamps: number[];
}

/** Reports and replies from a worker to the main thread. */
export type FromWorker =
  | { readonly t: 'started'; readonly slots: readonly number[] }
  | {
      readonly t: 'source-state';
      readonly slot: number;
      readonly finished: boolean;
      readonly checkpointable: boolean;
    }
  | {
      readonly t: 'ack';
      readonly slot: number;
      readonly id: number;
      readonly snapshot: TaskSnapshot;
      readonly alignmentMs: number;
    }
  | { readonly t: 'decline'; readonly id: number; readonly reason: string }
  | { readonly t: 'task-finished'; readonly slot: number }
  | { readonly t: 'finished' }
  | {
      readonly t: 'reply';
      readonly req: number;
      readonly snapshots?: [number, TaskSnapshot][];
      /** The answer to a `query` (null: the task has no such operator), or why it failed. */
      readonly state?: StateQueryAnswer | null;
      readonly error?: SerializedError;
    }
  | { readonly t: 'failed'; readonly error: SerializedError }
  /** The worker's current metrics, sent twice a second while it runs. */
  | { readonly t: 'metrics'; readonly metrics: MetricSample[] }
  | {
      readonly t: 'closed';
      readonly metrics: MetricSample[];
      readonly collected: CollectedRecords[];
    };

/** An error as a worker sends it: plain data, with its code, operator, record and causes. */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const e = error as Error & Partial<Record<'code' | 'domain' | 'operatorId' | 'record', string>>;
  return {
    name: e.name,
    message: e.message,
    stack: e.stack,
    code: typeof e.code === 'string' ? e.code : undefined,
    domain: typeof e.domain === 'string' ? e.domain : undefined,
    operatorId: typeof e.operatorId === 'string' ? e.operatorId : undefined,
    record: typeof e.record === 'string' ? e.record : undefined,
    retriable: (error as { retriable?: unknown }).retriable === true,
    ...(isRestartable(error) ? {} : { restartable: false }),
    cause: error.cause === undefined ? undefined : serializeError(error.cause),
  };
}
