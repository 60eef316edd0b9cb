/**
 * The operator harnesses of `weir/testing`: processing-time timers on the
 * manual clock, event-time timers on watermarks, side outputs, two inputs'
 * event time, and snapshot/restore into a fresh instance continuing exactly
 * as an uninterrupted run (same and other parallelism, heap and disk state).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyGroupOf } from '../../src/core/key-groups.js';
import { Operator } from '../../src/core/operator.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import type {
  Collector,
  KeyedProcessFunction,
  ListState,
  OperatorRuntimeContext,
  ProcessContext,
  ProcessFunction,
  StateBackendOptions,
  ValueState,
} from '../../src/index.js';
import { OutputTag } from '../../src/index.js';
import {
  KeyedOneInputHarness,
  OneInputHarness,
  type OperatorSnapshot,
  TwoInputHarness,
} from '../../src/testing/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function disk(): Promise<StateBackendOptions> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-harness-'));
  dirs.push(dir);
  return { kind: 'disk', workingDirectory: dir };
}

interface Click {
  readonly user: string;
  readonly t: number;
}

const small = new OutputTag<number>('small');

/** Emits every record seen so far, kept in operator list state. */
class Remembering implements ProcessFunction<number, number[]> {
  private seen!: ListState<number>;
  open(context: OperatorRuntimeContext): void {
    this.seen = context.operatorState.getListState<number>('seen');
  }
  processElement(n: number, _ctx: ProcessContext, out: Collector<number[]>): void {
    this.seen.add(n);
    out.collect([...this.seen.get()]);
  }
}

describe('OneInputHarness', () => {
  it('runs a process function: output with timestamps, side outputs, watermarks, end', () => {
    const h = OneInputHarness.forProcessFunction<number, string>({
      processElement(n, ctx, out) {
        if (n < 10) ctx.output(small, n);
        else out.collect(`${n}@${ctx.timestamp}`);
      },
    });
    h.processElement(3, 100);
    h.processElements([12, 40], (n) => n * 10);
    h.processWatermark(500);
    h.endInput();
    expect(h.output()).toEqual([
      { value: '12@120', timestamp: 120 },
      { value: '40@400', timestamp: 400 },
    ]);
    expect(h.sideOutput(small)).toEqual([{ value: 3, timestamp: 100 }]);
    expect(h.watermarks()).toEqual([500]);
    expect(h.emitted().map((e) => e.kind)).toEqual([
      'side',
      'record',
      'record',
      'watermark',
      'end',
    ]);
    h.clearOutput();
    expect(h.emitted()).toEqual([]);
  });

  it('gives a record without a timestamp none', () => {
    const h = OneInputHarness.forProcessFunction<number, number>({
      processElement: (n, ctx, out) => out.collect(ctx.timestamp === -Infinity ? n : -1),
    });
    h.processElement(7);
    expect(h.output()).toEqual([{ value: 7, timestamp: undefined }]);
  });

  it('restores operator list state into a fresh instance, also at another parallelism', () => {
    const fn = new Remembering();
    const first = OneInputHarness.forProcessFunction<number, number[]>(fn);
    first.processElements([1, 2, 3, 4]);
    const snapshot = first.snapshot();
    const again = OneInputHarness.forProcessFunction<number, number[]>(fn, {
      restoreFrom: snapshot,
    });
    again.processElement(5);
    expect(again.outputValues()).toEqual([[1, 2, 3, 4, 5]]);
    // Two subtasks share the entries round-robin.
    const halves = [0, 1].map((subtaskIndex) => {
      const h = OneInputHarness.forProcessFunction<number, number[]>(fn, {
        restoreFrom: [snapshot],
        subtaskIndex,
        parallelism: 2,
      });
      h.processElement(9);
      return h.outputValues()[0];
    });
    expect(halves).toEqual([
      [1, 3, 9],
      [2, 4, 9],
    ]);
  });
});

/** Counts clicks per user; reports the count 10 ms (event time) and 1 s (processing time) after a click. */
const counting: KeyedProcessFunction<string, Click, string> = {
  open(ctx) {
    (this as unknown as { count: ValueState<number> }).count =
      ctx.state.getValueState<number>('count');
  },
  processElement(click, ctx) {
    const count = (this as unknown as { count: ValueState<number> }).count;
    count.update((count.value() ?? 0) + 1);
    ctx.timerService.registerEventTimeTimer(click.t + 10);
    ctx.timerService.registerProcessingTimeTimer(ctx.timerService.currentProcessingTime() + 1000);
  },
  onTimer(time, ctx, out) {
    const count = (this as unknown as { count: ValueState<number> }).count;
    out.collect(`${ctx.key} ${count.value()} ${ctx.timeDomain} ${time}`);
  },
};

const byUser = (c: Click) => c.user;

/**
 * Timers due at the same time fire in registration order, which a restore
 * does not keep (they are rebuilt from state in key-group order): compare
 * the lines of one firing time as a set, everything else in order.
 */
function inTimerOrder(lines: readonly string[]): string[] {
  const firing = (line: string) => line.split(' ').slice(2).join(' ');
  const out: string[] = [];
  const group: string[] = [];
  for (const line of lines) {
    if (group.length > 0 && firing(group[0]!) !== firing(line)) out.push(...group.sort().splice(0));
    group.push(line);
  }
  out.push(...group.sort());
  return out;
}

describe('KeyedOneInputHarness', () => {
  it('fires processing-time timers when the manual clock reaches them, in time order', () => {
    const h = KeyedOneInputHarness.forProcessFunction(counting, byUser, { processingTime: 100 });
    h.processElement({ user: 'a', t: 1 }, 1); // timer at 1100
    h.setProcessingTime(200);
    h.processElement({ user: 'b', t: 2 }, 2); // timer at 1200
    h.setProcessingTime(300);
    h.processElement({ user: 'a', t: 3 }, 3); // timer at 1300
    expect(h.output()).toEqual([]);
    h.setProcessingTime(1_250);
    expect(h.outputValues()).toEqual(['a 2 processing-time 1100', 'b 1 processing-time 1200']);
    h.setProcessingTime(1_300);
    expect(h.outputValues().at(-1)).toBe('a 2 processing-time 1300');
    // Processing-time timers emit without a timestamp.
    expect(h.output()[0]!.timestamp).toBeUndefined();
    expect(() => h.setProcessingTime(5)).toThrow(/cannot go back/);
  });

  it('fires event-time timers when a watermark passes them, before forwarding it', () => {
    const h = KeyedOneInputHarness.forProcessFunction(counting, byUser);
    h.processElements(
      [
        { user: 'a', t: 1 },
        { user: 'b', t: 5 },
        { user: 'a', t: 30 },
      ],
      (c) => c.t,
    );
    h.processWatermark(15);
    h.processWatermark(100);
    expect(h.emitted()).toEqual([
      { kind: 'record', value: 'a 2 event-time 11', timestamp: 11 },
      { kind: 'record', value: 'b 1 event-time 15', timestamp: 15 },
      { kind: 'watermark', time: 15 },
      { kind: 'record', value: 'a 2 event-time 40', timestamp: 40 },
      { kind: 'watermark', time: 100 },
    ]);
    expect(h.metric('weir_state_entries')).toBeGreaterThan(0);
  });

  const clicks: Click[] = Array.from({ length: 40 }, (_, i) => ({
    user: `u${i % 7}`,
    t: i * 3,
  }));

  /** Feeds clicks in batches of 5, a watermark and a clock step after each batch. */
  function drive(h: KeyedOneInputHarness<string, Click, string>, from: number, to: number) {
    for (let i = from; i < to; i += 5) {
      h.processElements(clicks.slice(i, Math.min(i + 5, to)), (c) => c.t);
      h.processWatermark(i * 3);
      h.setProcessingTime(h.processingTime + 400);
    }
  }

  for (const backend of ['heap', 'disk'] as const) {
    it(`a fresh instance restored from a snapshot continues as an uninterrupted run (${backend})`, async () => {
      const stateBackend = backend === 'heap' ? { kind: 'heap' as const } : await disk();
      const whole = KeyedOneInputHarness.forProcessFunction(counting, byUser, { stateBackend });
      drive(whole, 0, 40);
      whole.processWatermark(Number.POSITIVE_INFINITY);
      await whole.close();

      const first = KeyedOneInputHarness.forProcessFunction(counting, byUser, { stateBackend });
      drive(first, 0, 20);
      const snapshot = first.snapshot(1);
      const before = first.outputValues();
      await first.close();
      const second = KeyedOneInputHarness.forProcessFunction(counting, byUser, {
        stateBackend: backend === 'heap' ? stateBackend : await disk(),
        restoreFrom: snapshot,
        processingTime: first.processingTime,
      });
      drive(second, 20, 40);
      second.processWatermark(Number.POSITIVE_INFINITY);
      await second.close();
      expect(inTimerOrder([...before, ...second.outputValues()])).toEqual(
        inTimerOrder(whole.outputValues()),
      );
    });
  }

  it('restored at a higher parallelism, each subtask continues with the keys of its key groups', () => {
    const whole = KeyedOneInputHarness.forProcessFunction(counting, byUser);
    drive(whole, 0, 40);
    whole.processWatermark(Number.POSITIVE_INFINITY);

    const first = KeyedOneInputHarness.forProcessFunction(counting, byUser);
    drive(first, 0, 20);
    const snapshot: OperatorSnapshot = first.snapshot();
    const before = first.outputValues();
    const parallelism = 3;
    const subtasks = Array.from({ length: parallelism }, (_, subtaskIndex) =>
      KeyedOneInputHarness.forProcessFunction(counting, byUser, {
        restoreFrom: [snapshot],
        subtaskIndex,
        parallelism,
        processingTime: first.processingTime,
      }),
    );
    // Each record goes to the subtask owning its key group, as the keyed exchange routes it.
    const owner = (c: Click) => Math.floor((keyGroupOf(c.user, 128) * parallelism) / 128);
    for (let i = 20; i < 40; i += 5) {
      const batch = clicks.slice(i, i + 5);
      subtasks.forEach((h, s) => {
        h.processElements(
          batch.filter((c) => owner(c) === s),
          (c) => c.t,
        );
        h.processWatermark(i * 3);
        h.setProcessingTime(h.processingTime + 400);
      });
    }
    for (const h of subtasks) h.processWatermark(Number.POSITIVE_INFINITY);
    const after = subtasks.flatMap((h) => h.outputValues());
    expect(new Set(subtasks.map((h) => h.outputValues().length > 0)).has(true)).toBe(true);
    expect([...before, ...after].sort()).toEqual([...whole.outputValues()].sort());
  });

  it('refuses to restore incremental state, naming what to restore from instead', async () => {
    const h = KeyedOneInputHarness.forProcessFunction(counting, byUser, {
      stateBackend: await disk(),
    });
    h.processElement({ user: 'a', t: 1 }, 1);
    h.snapshot(1);
    await h.notifyCheckpointComplete(1);
    h.processElement({ user: 'b', t: 2 }, 2);
    const delta = h.snapshot(2);
    expect(delta.keyedDelta?.base).toBe(1);
    expect(() =>
      KeyedOneInputHarness.forProcessFunction(counting, byUser, { restoreFrom: delta }),
    ).toThrow(/incremental state .* restore from a savepoint/);
    const savepoint = h.snapshot(3, 'savepoint');
    expect(savepoint.keyedDelta).toBeUndefined();
    await h.close();
  });
});

/** Forwards both inputs' records tagged by input; shows the watermarks it receives. */
class Tagging extends Operator<string, string> {
  processBatch(batch: RecordBatch<string>): void {
    this.output.emit({ ...batch, values: batch.values.map((v) => `1:${v}`) });
  }
  override processSecondBatch(batch: RecordBatch<unknown>): void {
    this.output.emit({ ...batch, values: batch.values.map((v) => `2:${String(v)}`) });
  }
}

describe('TwoInputHarness', () => {
  it('feeds both inputs; event time is the minimum of both, leaving out an idle input', () => {
    const h = new TwoInputHarness<string, number, string>(new Tagging());
    h.processElement1('x', 1);
    h.processElement2(7, 2);
    h.processWatermark1(20);
    expect(h.watermarks()).toEqual([]);
    h.processWatermark2(15);
    h.processWatermark2(30);
    expect(h.watermarks()).toEqual([15, 20]);
    h.processWatermark1(25);
    h.processIdle1();
    expect(h.watermarks()).toEqual([15, 20, 25, 30]);
    h.endInput2();
    expect(h.emitted().at(-1)?.kind).not.toBe('end');
    h.endInput1();
    expect(h.emitted().at(-1)).toEqual({ kind: 'end' });
    expect(h.outputValues()).toEqual(['1:x', '2:7']);
  });
});
