import { describeRecord, WeirError } from '../../core/errors.js';
import { hashKey, type Key, subtaskForKeyGroup } from '../../core/key-groups.js';
import { END_MESSAGE, IDLE_MESSAGE } from '../../core/messages.js';
import type { Output } from '../../core/operator.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { ChannelEnd } from './channel.js';

/**
 * The producing end of an exchange between tasks: decides which consumer
 * subtask gets each record. Control messages go to every channel.
 */
abstract class ExchangeWriter<T> implements Output<T> {
  constructor(protected readonly channels: readonly ChannelEnd<T>[]) {}

  abstract emit(batch: RecordBatch<T>): void;

  hasRoom(): boolean {
    for (const c of this.channels) if (!c.hasRoom()) return false;
    return true;
  }

  emitWatermark(time: number): void {
    for (const c of this.channels) c.push({ kind: 'watermark', time });
  }
  emitIdle(): void {
    for (const c of this.channels) c.push(IDLE_MESSAGE);
  }
  /** Barriers go to every consumer, after everything written before them. */
  emitBarrier(checkpointId: number, savepoint: boolean, stop: boolean): void {
    for (const c of this.channels) c.push({ kind: 'barrier', checkpointId, savepoint, stop });
  }
  emitSide<S>(_tag: OutputTag<S>, _batch: RecordBatch<S>): void {
    throw new Error('side outputs are routed by OperatorOutput');
  }
  end(): void {
    for (const c of this.channels) c.push(END_MESSAGE);
  }
}

/** One-to-one: subtask i feeds subtask i. */
export class ForwardWriter<T> extends ExchangeWriter<T> {
  emit(batch: RecordBatch<T>): void {
    this.channels[0]!.push({ kind: 'batch', batch });
  }
}

/** Whole batches round-robin over the consumers: balances load without per-record work. */
export class RebalanceWriter<T> extends ExchangeWriter<T> {
  private next: number;
  constructor(channels: readonly ChannelEnd<T>[], start: number) {
    super(channels);
    this.next = start % channels.length;
  }
  emit(batch: RecordBatch<T>): void {
    this.channels[this.next]!.push({ kind: 'batch', batch });
    this.next = (this.next + 1) % this.channels.length;
  }
}

/** Every consumer gets every record. */
export class BroadcastWriter<T> extends ExchangeWriter<T> {
  emit(batch: RecordBatch<T>): void {
    for (const c of this.channels) c.push({ kind: 'batch', batch });
  }
}

/**
 * Batches round-robin over this producer's share of the consumer subtasks (Flink's
 * `rescale()`): with m producers and n consumers, producer i feeds consumers floor(i n / m)
 * to floor((i + 1) n / m) - 1 when m <= n, and consumer floor(i n / m) when m > n, so each
 * consumer hears from a few neighbouring producers rather than from all of them.
 */
export class RescaleWriter<T> extends ExchangeWriter<T> {
  private readonly targets: readonly number[];
  private next = 0;
  constructor(channels: readonly ChannelEnd<T>[], producer: number, producers: number) {
    super(channels);
    const n = channels.length;
    const from = Math.floor((producer * n) / producers);
    const to = Math.max(from + 1, Math.floor(((producer + 1) * n) / producers));
    this.targets = Array.from({ length: to - from }, (_, k) => from + k);
  }
  emit(batch: RecordBatch<T>): void {
    this.channels[this.targets[this.next] as number]!.push({ kind: 'batch', batch });
    this.next = (this.next + 1) % this.targets.length;
  }
}

/** Every record to the first consumer subtask (Flink's `global()`); the others get none. */
export class GlobalWriter<T> extends ExchangeWriter<T> {
  emit(batch: RecordBatch<T>): void {
    this.channels[0]!.push({ kind: 'batch', batch });
  }
}

/** Splits a batch by the consumer subtask chosen for each record; empty parts are not sent. */
function routeByTarget<T>(
  channels: readonly ChannelEnd<T>[],
  batch: RecordBatch<T>,
  targets: Uint16Array,
): void {
  const { values, timestamps } = batch;
  const outValues: T[][] = channels.map(() => []);
  const outTimestamps: number[][] = channels.map(() => []);
  for (let i = 0; i < values.length; i++) {
    const t = targets[i]!;
    outValues[t]!.push(values[i] as T);
    outTimestamps[t]!.push(timestamps[i]!);
  }
  for (let p = 0; p < channels.length; p++) {
    if (outValues[p]!.length === 0) continue;
    channels[p]!.push({
      kind: 'batch',
      batch: { values: outValues[p]!, timestamps: outTimestamps[p]!, keys: undefined },
    });
  }
}

/** Each record to a consumer subtask drawn at random (Flink's `shuffle()`). */
export class ShuffleWriter<T> extends ExchangeWriter<T> {
  emit(batch: RecordBatch<T>): void {
    const n = this.channels.length;
    if (n === 1) {
      this.channels[0]!.push({ kind: 'batch', batch });
      return;
    }
    const targets = new Uint16Array(batch.values.length);
    for (let i = 0; i < targets.length; i++) targets[i] = Math.floor(Math.random() * n);
    routeByTarget(this.channels, batch, targets);
  }
}

/**
 * Each record to the subtask a user's partitioner picks for its key
 * (Flink's `partitionCustom`). The partitioner must return a whole number
 * from 0 to the consumer's parallelism - 1; anything else fails the job.
 */
export class CustomPartitionWriter<T> extends ExchangeWriter<T> {
  constructor(
    channels: readonly ChannelEnd<T>[],
    private readonly selectKey: (value: T) => unknown,
    private readonly partition: (key: unknown, numPartitions: number) => number,
    private readonly operatorId: string,
  ) {
    super(channels);
  }

  emit(batch: RecordBatch<T>): void {
    const n = this.channels.length;
    const targets = new Uint16Array(batch.values.length);
    for (let i = 0; i < targets.length; i++) {
      const value = batch.values[i] as T;
      let target: number;
      try {
        target = this.partition(this.selectKey(value), n);
      } catch (cause) {
        throw new WeirError(
          'USER_FUNCTION_FAILED',
          `custom partitioner of '${this.operatorId}' threw on record ${describeRecord(value)}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { operatorId: this.operatorId, record: describeRecord(value), cause },
        );
      }
      if (!Number.isInteger(target) || target < 0 || target >= n) {
        throw new WeirError(
          'INVALID_ARGUMENT',
          `custom partitioner of '${this.operatorId}' returned ${describeRecord(target)} for record ${describeRecord(value)}: it must return a whole number from 0 to ${n - 1} (the number of partitions is ${n})`,
          { operatorId: this.operatorId, record: describeRecord(value) },
        );
      }
      targets[i] = target;
    }
    routeByTarget(this.channels, batch, targets);
  }
}

/**
 * Routes each record to the subtask owning its key group, and attaches the
 * computed keys to the batch so the keyed operator downstream need not
 * run the key selector again.
 */
export class KeyedWriter<T> extends ExchangeWriter<T> {
  constructor(
    channels: readonly ChannelEnd<T>[],
    private readonly selectKey: (value: T) => Key,
    private readonly maxParallelism: number,
    private readonly operatorId: string,
  ) {
    super(channels);
  }

  emit(batch: RecordBatch<T>): void {
    const { values, timestamps } = batch;
    const n = values.length;
    const parallelism = this.channels.length;
    const keys = new Array<unknown>(n);
    const targets = parallelism === 1 ? undefined : new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const value = values[i] as T;
      let key: Key;
      try {
        key = this.selectKey(value);
      } catch (cause) {
        throw new WeirError(
          'USER_FUNCTION_FAILED',
          `key selector of '${this.operatorId}' threw on record ${describeRecord(value)}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { operatorId: this.operatorId, record: describeRecord(value), cause },
        );
      }
      keys[i] = key;
      if (!isValidKey(key)) {
        throw new WeirError(
          'INVALID_ARGUMENT',
          `key selector of '${this.operatorId}' returned ${describeRecord(key)} for record ${describeRecord(value)}: keys must be a string, a number (not NaN), a bigint or a boolean`,
          { operatorId: this.operatorId, record: describeRecord(value) },
        );
      }
      if (targets !== undefined) {
        targets[i] = subtaskForKeyGroup(
          hashKey(key) % this.maxParallelism,
          this.maxParallelism,
          parallelism,
        );
      }
    }
    if (targets === undefined) {
      this.channels[0]!.push({ kind: 'batch', batch: { values, timestamps, keys } });
      return;
    }
    const outValues: T[][] = [];
    const outTimestamps: number[][] = [];
    const outKeys: unknown[][] = [];
    for (let p = 0; p < parallelism; p++) {
      outValues.push([]);
      outTimestamps.push([]);
      outKeys.push([]);
    }
    for (let i = 0; i < n; i++) {
      const t = targets[i]!;
      outValues[t]!.push(values[i] as T);
      outTimestamps[t]!.push(timestamps[i]!);
      outKeys[t]!.push(keys[i]);
    }
    for (let p = 0; p < parallelism; p++) {
      if (outValues[p]!.length === 0) continue;
      this.channels[p]!.push({
        kind: 'batch',
        batch: { values: outValues[p]!, timestamps: outTimestamps[p]!, keys: outKeys[p]! },
      });
    }
  }
}

function isValidKey(key: unknown): boolean {
  const t = typeof key;
  return (
    t === 'string' || t === 'bigint' || t === 'boolean' || (t === 'number' && !Number.isNaN(key))
  );
}

export type { ExchangeWriter };
