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
