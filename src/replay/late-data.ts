import { isReconcilableSink, type WrittenRow } from '../core/replay.js';
import type { WindowAssigner } from '../core/windows.js';
import { canonicalJson } from './canonical-json.js';
import { windowOf } from './compare.js';
import type { CapturedLateData } from './replay-graph.js';
import type { ReplayRun } from './run-replay.js';

/** Late records of one window operator, as the report shows them. */
export interface LateRecordCounts {
  readonly operator: string;
  /** Records the replay found late (dropped, or sent to the late side output). */
  readonly replay: number;
  /**
   * Records the streaming run sent to its late-data side output, read back
   * from the sink that side output feeds; undefined when the job has no such
   * sink (records dropped beyond the allowed lateness leave no trace to read).
   */
  readonly streaming: number | undefined;
  /** Where the streaming run's late records were read from. */
  readonly streamingSource?: string;
}

type Run = 'replay' | 'streaming';

/**
 * Which window results late records touched: a difference in such a result
 * is the expected effect of late data (the two runs saw the record at
 * different points of event time), not a divergence.
 */
export class LateDataIndex {
  private readonly byKey = new Map<string, { times: number[]; slack: number; run: Run }[]>();
  readonly counts: LateRecordCounts[] = [];

  add(keyText: string, timestamp: number, slack: number, run: Run): void {
    let list = this.byKey.get(keyText);
    if (list === undefined) {
      list = [];
      this.byKey.set(keyText, list);
    }
    let entry = list.find((e) => e.slack === slack && e.run === run);
    if (entry === undefined) {
      entry = { times: [], slack, run };
      list.push(entry);
    }
    entry.times.push(timestamp);
  }

  /** Why a difference at `row` is expected, if a late record falls into its window. */
  explain(row: WrittenRow): string | undefined {
    const window = windowOf(row.value);
    if (window === undefined) return undefined;
    const list = this.byKey.get(canonicalJson(window.key));
    if (list === undefined) return undefined;
    const runs = new Set<Run>();
    for (const { times, slack, run } of list) {
      if (times.some((t) => t >= window.start - slack && t < window.end + slack)) runs.add(run);
    }
    if (runs.size === 0) return undefined;
    return `late data in this window (${[...runs].join(' and ')} run)`;
  }
}

/** Indexes the replay's late records and, where the job sinks them, the streaming run's. */
export async function indexLateData(run: ReplayRun): Promise<LateDataIndex> {
  const index = new LateDataIndex();
  for (const [i, late] of run.graph.lateData.entries()) {
    const replayed = run.late[i]!;
    const slack = sessionSlack(late.assigner);
    for (let r = 0; r < replayed.values.length; r++) {
      const key = keyOf(late, replayed.values[r]);
      if (key !== undefined) index.add(key, replayed.timestamps[r]!, slack, 'replay');
    }
    const streaming = await indexStreamingLate(run, late, index, slack);
    index.counts.push({
      operator: replayed.name,
      replay: replayed.values.length,
      streaming: streaming?.count,
      ...(streaming === undefined ? {} : { streamingSource: streaming.source }),
    });
  }
  return index;
}

async function indexStreamingLate(
  run: ReplayRun,
  late: CapturedLateData,
  index: LateDataIndex,
  slack: number,
): Promise<{ count: number; source: string } | undefined> {
  for (const nodeId of late.jobSinks) {
    const sink = run.graph.sinks.find((s) => s.nodeId === nodeId)?.original;
    if (sink === undefined || !isReconcilableSink(sink)) continue;
    const target = await sink.reconcileTarget();
    let count = 0;
    try {
      for await (const row of target.written()) {
        count++;
        const key = keyOf(late, row.value);
        if (key !== undefined && row.timestamp !== undefined)
          index.add(key, row.timestamp, slack, 'streaming');
      }
    } finally {
      await target.close();
    }
    return { count, source: target.description };
  }
  return undefined;
}

function keyOf(late: CapturedLateData, value: unknown): string | undefined {
  if (late.selectKey === undefined) return undefined;
  try {
    return canonicalJson(late.selectKey(value as never));
  } catch {
    // A late record read back from a sink may not have the shape the key selector wants.
    return undefined;
  }
}

/** A late record can join, or bridge, sessions up to one gap away from it. */
function sessionSlack(assigner: WindowAssigner<unknown>): number {
  return assigner.kind === 'session' && typeof assigner.gap === 'number' ? assigner.gap : 0;
}
