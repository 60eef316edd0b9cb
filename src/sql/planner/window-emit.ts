/**
 * Flink's window emit strategies (its experimental `table.exec.emit.*` options) for legacy
 * group windows (`GROUP BY TUMBLE(...)`), as Flink 2.2 runs them:
 *
 * - `late-fire.enabled` / `late-fire.delay`: after the watermark passed the window, fire on each
 *   late row (delay 0) or at most once per delay of processing time, for as long as
 *   `allow-lateness` keeps the window after it fired (which late fires need);
 * - `early-fire.enabled` / `early-fire.delay`: before the window's end, fire on each row (delay
 *   0) or once per delay of processing time.
 *
 * With either, the aggregation emits a retract changelog, as Flink's window operator with
 * `produceUpdates`: a window's first firing inserts its row, a later firing whose row differs
 * retracts the row emitted before (`-U`) and emits the new one (`+U`), an unchanged one emits
 * nothing. An allowed lateness without late fires changes nothing (Flink emits no update then
 * either). Sessions take no early or late fires, and window TVF aggregations none at all:
 * refused, with Flink's reasons; a TVF ignores the allowed lateness, as Flink's does.
 */
import * as v from 'valibot';
import type { DataStream } from '../../api/streams.js';
import type { Change } from '../../core/changelog.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { ValueState } from '../../core/state.js';
import type { Trigger, TriggerContext, TriggerResult } from '../../core/triggers.js';
import type { WindowResult } from '../../core/window-result.js';
import { maxTimestamp, type Window } from '../../core/windows.js';
import { sameRow } from '../../runtime/operators/changelog/same-row.js';
import type { Row } from '../connectors/connector.js';
import { duration } from '../connectors/sql-options.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { ROW_SERIALIZER } from './row-serializer.js';

const PREFIX = 'table.exec.emit.';
export const ALLOW_LATENESS = `${PREFIX}allow-lateness`;
export const EARLY_FIRE_ENABLED = `${PREFIX}early-fire.enabled`;
export const EARLY_FIRE_DELAY = `${PREFIX}early-fire.delay`;
export const LATE_FIRE_ENABLED = `${PREFIX}late-fire.enabled`;
export const LATE_FIRE_DELAY = `${PREFIX}late-fire.delay`;

const DURATIONS = new Set([ALLOW_LATENESS, EARLY_FIRE_DELAY, LATE_FIRE_DELAY]);
const FLAGS = new Set([EARLY_FIRE_ENABLED, LATE_FIRE_ENABLED]);

/** Whether `key` is one of Flink's window emit options (all under `table.exec.emit.`). */
export function isWindowEmitOption(key: string): boolean {
  return key.startsWith(PREFIX);
}

/** Checks one SET of an emit option: a known key, and a value of its kind. */
export function checkWindowEmitOption(key: string, value: string, at?: SourcePosition): void {
  if (DURATIONS.has(key)) durationMs(key, value, at);
  else if (FLAGS.has(key)) flag(key, value, at);
  else
    sqlError(
      `SET '${key}': not an emit option; Flink's are '${[...DURATIONS, ...FLAGS].sort().join("', '")}'`,
      at,
    );
}

function durationMs(key: string, value: string, at: SourcePosition | undefined): number {
  const parsed = v.safeParse(duration(), value.trim());
  if (!parsed.success)
    sqlError(`'${key}' is '${value}'; it must be a duration such as '10 s' or '0 ms'`, at);
  return parsed.output as number;
}

function flag(key: string, value: string, at: SourcePosition | undefined): boolean {
  const text = value.trim().toLowerCase();
  if (text !== 'true' && text !== 'false')
    sqlError(`'${key}' is '${value}'; it must be 'true' or 'false'`, at);
  return text === 'true';
}

/** How a window aggregation emits when its results update (see the module comment). */
export interface WindowEmit {
  /** How long after a window fires late rows still update it (event time). */
  readonly allowLatenessMs: number;
  /** Early fires: every row (0) or once per this many ms of processing time. */
  readonly earlyDelayMs: number | undefined;
  /** Late fires: every late row (0) or once per this many ms of processing time. */
  readonly lateDelayMs: number | undefined;
}

/**
 * The emit strategy the options give a window aggregation, or undefined when its windows fire
 * once (Flink's default). Refuses what Flink refuses, naming the options.
 */
export function windowEmitOf(
  options: ReadonlyMap<string, string>,
  window: {
    readonly legacy: boolean;
    readonly session: boolean;
    readonly processingTime: boolean;
  },
  at: SourcePosition | undefined,
): WindowEmit | undefined {
  const read = (key: string): number | undefined => {
    const value = options.get(key);
    return value === undefined ? undefined : durationMs(key, value, at);
  };
  const enabled = (key: string): boolean => {
    const value = options.get(key);
    return value !== undefined && flag(key, value, at);
  };
  const early = enabled(EARLY_FIRE_ENABLED);
  const late = enabled(LATE_FIRE_ENABLED);
  const earlyDelayMs = early ? read(EARLY_FIRE_DELAY) : undefined;
  const lateDelayMs = late ? read(LATE_FIRE_DELAY) : undefined;
  if (early && earlyDelayMs === undefined)
    sqlError(`'${EARLY_FIRE_ENABLED}' is 'true', so '${EARLY_FIRE_DELAY}' must be set`, at);
  if (late && lateDelayMs === undefined)
    sqlError(`'${LATE_FIRE_ENABLED}' is 'true', so '${LATE_FIRE_DELAY}' must be set`, at);
  if (!window.legacy) {
    if (early || late)
      sqlError(
        `a window TVF aggregation takes no early or late fires ('${EARLY_FIRE_ENABLED}', '${LATE_FIRE_ENABLED}'), as in Flink; a legacy group window (GROUP BY TUMBLE(...)) does`,
        at,
      );
    return undefined;
  }
  if (window.session) {
    if (early || late)
      sqlError(
        `a session window takes no early or late fires ('${EARLY_FIRE_ENABLED}', '${LATE_FIRE_ENABLED}'), as in Flink`,
        at,
      );
    return undefined;
  }
  if (window.processingTime) {
    // No row is late for a processing-time window.
    return early ? { allowLatenessMs: 0, earlyDelayMs, lateDelayMs: undefined } : undefined;
  }
  const allowLatenessMs = read(ALLOW_LATENESS) ?? 0;
  if (late && allowLatenessMs <= 0)
    sqlError(`'${LATE_FIRE_ENABLED}' is 'true', so '${ALLOW_LATENESS}' must be positive`, at);
  if (lateDelayMs !== undefined && allowLatenessMs < lateDelayMs)
    sqlError(
      `'${ALLOW_LATENESS}' (${allowLatenessMs} ms) must not be below '${LATE_FIRE_DELAY}' (${lateDelayMs} ms)`,
      at,
    );
  if (!early && !late) return undefined;
  // Without late fires no late row fires its window: the lateness is as good as none.
  return { allowLatenessMs: late ? allowLatenessMs : 0, earlyDelayMs, lateDelayMs };
}

/** State of the emit trigger: the processing time its pending delayed fire is due at. */
const DUE = 'emit.due';

/**
 * Fires a window at its end (the watermark, or the wall clock for a processing-time window),
 * early and late as `emit` says (a late row comes only with late fires: the allowed lateness
 * is 0 otherwise).
 */
export function emitTrigger(emit: WindowEmit, processingTime: boolean): Trigger<Row> {
  const delayed = (delay: number | undefined, ctx: TriggerContext): TriggerResult => {
    if (delay === undefined) return 'continue';
    if (delay === 0) return 'fire';
    const due = ctx.getState<number>(DUE);
    if (due.value() === undefined) {
      const at = ctx.currentProcessingTime() + delay;
      due.update(at);
      ctx.registerProcessingTimeTimer(at);
    }
    return 'continue';
  };
  /** Event time at which the window's state goes: a fire still delayed then happens first. */
  const cleanup = (window: Window): number => maxTimestamp(window) + emit.allowLatenessMs;
  const end = (window: Window, ctx: TriggerContext): void => {
    if (processingTime) ctx.registerProcessingTimeTimer(maxTimestamp(window));
    else ctx.registerEventTimeTimer(maxTimestamp(window));
  };
  return {
    onElement(_row, _time, window, ctx) {
      if (!processingTime && maxTimestamp(window) <= ctx.currentWatermark()) {
        // The window goes when the watermark passes its lateness, perhaps before a delayed
        // fire is due (always at the end of the input): it fires then.
        if ((emit.lateDelayMs ?? 0) > 0) ctx.registerEventTimeTimer(cleanup(window));
        return delayed(emit.lateDelayMs ?? 0, ctx);
      }
      end(window, ctx);
      return delayed(emit.earlyDelayMs, ctx);
    },
    onEventTime(time, window, ctx) {
      if (processingTime) return 'continue';
      const due = ctx.getState<number>(DUE);
      const pending = due.value();
      if (time === maxTimestamp(window)) {
        // The end's fire emits what an early fire still due would: late rows start afresh.
        if (pending !== undefined) {
          ctx.deleteProcessingTimeTimer(pending);
          due.clear();
        }
        return 'fire';
      }
      if (time !== cleanup(window) || pending === undefined) return 'continue';
      due.clear();
      return 'fire';
    },
    onProcessingTime(time, window, ctx) {
      const due = ctx.getState<number>(DUE);
      if (due.value() === time) {
        due.clear();
        return 'fire';
      }
      return processingTime && time === maxTimestamp(window) ? 'fire' : 'continue';
    },
    clear(window, ctx) {
      const due = ctx.getState<number>(DUE).value();
      if (due !== undefined) ctx.deleteProcessingTimeTimer(due);
      if (processingTime) ctx.deleteProcessingTimeTimer(maxTimestamp(window));
      else {
        ctx.deleteEventTimeTimer(maxTimestamp(window));
        ctx.deleteEventTimeTimer(cleanup(window));
      }
    },
  };
}

/**
 * The key of a window's results for {@link windowChanges}: the window and the group key (a
 * group's results of different windows are different rows).
 */
export function windowResultKey(result: WindowResult<Key, unknown>): string {
  const { window, key } = result;
  return `${window.start},${window.end},${typeof key},${String(key)}`;
}

/**
 * Each firing of a window as changes of its row: the first inserts it, a later one that
 * differs retracts the row emitted before and emits the new one, and one with no row (`toRow`
 * undefined: a window of a changelog whose rows cancel out) retracts it. What a window emitted
 * is kept until the watermark passes the window's end and the allowed lateness.
 */
class WindowChanges implements KeyedProcessFunction<string, WindowResult<Key, Row>, Change<Row>> {
  private emitted!: ValueState<Row>;

  constructor(
    private readonly toRow: (result: WindowResult<Key, Row>) => Row | undefined,
    private readonly allowLatenessMs: number,
    private readonly processingTime: boolean,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.emitted = context.state.getValueState<Row>({
      name: 'window emitted row',
      serializer: ROW_SERIALIZER,
    });
  }

  processElement(
    result: WindowResult<Key, Row>,
    ctx: KeyedProcessContext<string>,
    out: Collector<Change<Row>>,
  ): void {
    const row = this.toRow(result);
    const before = this.emitted.value();
    if (before === undefined) {
      if (row === undefined) return;
      out.collect({ kind: '+I', value: row });
      this.emitted.update(row);
      const cleanup = maxTimestamp(result.window) + this.allowLatenessMs;
      if (this.processingTime) ctx.timerService.registerProcessingTimeTimer(cleanup);
      else ctx.timerService.registerEventTimeTimer(cleanup);
      return;
    }
    if (row === undefined) {
      out.collect({ kind: '-D', value: before });
      this.emitted.clear();
      return;
    }
    if (sameRow(before, row)) return;
    out.collect({ kind: '-U', value: before });
    out.collect({ kind: '+U', value: row });
    this.emitted.update(row);
  }

  onTimer(_time: number, _ctx: OnTimerContext<string>): void {
    this.emitted.clear();
  }
}

/** The window results as the changes of their rows (see {@link WindowChanges}). */
export function windowChanges(
  results: DataStream<WindowResult<Key, Row>>,
  toRow: (result: WindowResult<Key, Row>) => Row | undefined,
  emit: WindowEmit,
  processingTime: boolean,
): DataStream<Change<Row>> {
  return results
    .keyBy(windowResultKey, 'window and group key')
    .process(new WindowChanges(toRow, emit.allowLatenessMs, processingTime))
    .name('window changes');
}
