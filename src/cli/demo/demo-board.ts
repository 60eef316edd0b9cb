import type {
  Collector,
  ProcessContext,
  ProcessFunction,
  RecordBatch,
  RuntimeContext,
  Sink,
  SinkWriter,
} from '../../index.js';
import type { Click } from './click-stream.js';
import type { ClickDemoOutputs, PageCount, UserSession } from './demo-job.js';
import { distinctPages } from './demo-job.js';

/** The latest result of one page's window; updates overwrite it, as WindowResult asks. */
export interface WindowRow {
  readonly page: string;
  readonly start: number;
  readonly end: number;
  count: number;
  /** How many times a late straggler changed this window after it first fired. */
  updates: number;
}

export interface SessionRow {
  readonly user: string;
  readonly first: number;
  readonly last: number;
  readonly clicks: number;
  readonly pages: number;
}

export interface LateClickRow {
  readonly click: Click;
  /** Wall-clock time the click reached the side output. */
  readonly arrivedAt: number;
}

/** All page counts of one window period, as reported by the plain (log) view. */
export interface WindowPeriod {
  readonly start: number;
  readonly end: number;
  readonly rows: readonly WindowRow[];
}

const KEPT_PERIODS = 20;
const KEPT_SESSIONS = 50;

/**
 * The demo's in-memory result store: sinks write into it, views read from it.
 * Everything runs on the executor's thread, so no synchronisation is needed.
 * It keeps only recent results, so memory stays flat however long the demo runs.
 */
export class DemoBoard {
  /** Window rows by period start, then page. */
  private readonly periods = new Map<number, Map<string, WindowRow>>();
  private readonly reportedPeriods = new Set<number>();
  private readonly sessions: SessionRow[] = [];
  private readonly watermarks: number[] = [];

  windowResults = 0;
  windowUpdates = 0;
  sessionsClosed = 0;
  lateClicks = 0;
  latestLate: LateClickRow | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Sinks and the watermark probe to hand to `buildClickDemo`. */
  outputs(): ClickDemoOutputs {
    return {
      pageCounts: memorySink('page counts', (r: PageCount) => this.addWindowResult(r)),
      sessions: memorySink('sessions', (r: UserSession) => this.addSession(r)),
      lateClicks: memorySink('late clicks', (c: Click) => this.addLateClick(c)),
      watermarkProbe: new WatermarkProbe(this.watermarks),
    };
  }

  /** Event time of the job: the lowest watermark over the source subtasks (-Infinity before the first). */
  currentWatermark(): number {
    if (this.watermarks.length === 0) return Number.NEGATIVE_INFINITY;
    let min = Number.POSITIVE_INFINITY;
    for (const w of this.watermarks) if (w < min) min = w;
    return min;
  }

  /** The most recent window rows: newest period first, then by count. */
  recentWindows(limit: number): WindowRow[] {
    const rows: WindowRow[] = [];
    for (const start of [...this.periods.keys()].sort((a, b) => b - a)) {
      rows.push(...byCount(this.periods.get(start)!));
      if (rows.length >= limit) break;
    }
    return rows.slice(0, limit);
  }

  /** Window periods with results that no earlier call returned, oldest first. */
  takeNewPeriods(): WindowPeriod[] {
    const fresh: WindowPeriod[] = [];
    for (const start of [...this.periods.keys()].sort((a, b) => a - b)) {
      if (this.reportedPeriods.has(start)) continue;
      this.reportedPeriods.add(start);
      const rows = byCount(this.periods.get(start)!);
      fresh.push({ start, end: rows[0]!.end, rows });
    }
    return fresh;
  }

  /** Most recently closed sessions, newest first. */
  recentSessions(limit: number): SessionRow[] {
    return this.sessions.slice(-limit).reverse();
  }

  private addWindowResult(result: PageCount): void {
    const { start, end } = result.window;
    let period = this.periods.get(start);
    if (period === undefined) {
      period = new Map();
      this.periods.set(start, period);
      this.prunePeriods();
    }
    const row = period.get(result.key);
    if (row === undefined) {
      period.set(result.key, {
        page: result.key,
        start,
        end,
        count: result.value,
        updates: result.isUpdate ? 1 : 0,
      });
    } else {
      row.count = result.value;
      if (result.isUpdate) row.updates++;
    }
    if (result.isUpdate) this.windowUpdates++;
    else this.windowResults++;
  }

  private prunePeriods(): void {
    if (this.periods.size <= KEPT_PERIODS) return;
    const oldest = Math.min(...this.periods.keys());
    this.periods.delete(oldest);
    this.reportedPeriods.delete(oldest);
  }

  private addSession(result: UserSession): void {
    const { value } = result;
    this.sessions.push({
      user: result.key,
      first: value.first,
      last: value.last,
      clicks: value.clicks,
      pages: distinctPages(value),
    });
    if (this.sessions.length > KEPT_SESSIONS) this.sessions.shift();
    this.sessionsClosed++;
  }

  private addLateClick(click: Click): void {
    this.lateClicks++;
    this.latestLate = { click, arrivedAt: this.now() };
  }
}

function byCount(period: Map<string, WindowRow>): WindowRow[] {
  return [...period.values()].sort((a, b) => b.count - a.count || a.page.localeCompare(b.page));
}

/** A sink handing every record to a callback on the job's thread. */
function memorySink<T>(name: string, add: (value: T) => void): Sink<T> {
  return {
    name,
    createWriter(): SinkWriter<T> {
      return {
        write(batch: RecordBatch<T>) {
          for (const value of batch.values) add(value);
        },
        close() {},
      };
    },
  };
}

/**
 * A pass-through that notes the watermark its subtask has seen. Watermarks
 * are not metrics in Weir, and a sink never sees them, so this is how the
 * view learns how far event time has progressed. The runtime derives one
 * instance per subtask from this object, so `subtask` is per subtask.
 */
class WatermarkProbe implements ProcessFunction<Click, Click> {
  private subtask = 0;

  /** `watermarks` is shared by all subtasks: one slot each. */
  constructor(private readonly watermarks: number[]) {}

  open(context: RuntimeContext): void {
    this.subtask = context.subtaskIndex;
    while (this.watermarks.length < context.parallelism) {
      this.watermarks.push(Number.NEGATIVE_INFINITY);
    }
  }

  processElement(click: Click, context: ProcessContext, out: Collector<Click>): void {
    this.watermarks[this.subtask] = context.timerService.currentWatermark();
    out.collect(click);
  }
}
