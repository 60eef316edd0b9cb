import { WeirError } from '../core/errors.js';
import { isReconcilableSink, type ReplayedValue, type ReplayRange } from '../core/replay.js';
import { MetricRegistry } from '../metrics/registry.js';
import { type ComparisonResult, compareOutputs } from './compare.js';
import { indexLateData, type LateRecordCounts } from './late-data.js';
import { matchesNode } from './replay-graph.js';
import { type ReplayOptions, type ReplayRun, replayJob } from './run-replay.js';

export interface ReconcileOptions extends Omit<ReplayOptions, 'productionSinks'> {
  /** The sink whose output is compared, by uid or name; default: the job's only sink that can be read back. */
  readonly against?: string;
  /** See `CompareOptions.keyFields`. */
  readonly keyFields?: readonly string[];
  /** See `CompareOptions.tolerance`. */
  readonly tolerance?: number;
  /** How many differences the report keeps in full. Default 20. */
  readonly maxShown?: number;
  /** Called with the finished replay, before the comparison (to write its output, say). */
  readonly onReplayed?: (run: ReplayRun) => Promise<void> | void;
}

/** What `weir reconcile` found; also its JSON report. */
export interface ReconcileReport {
  readonly job: string;
  /** The sink compared and what it writes to. */
  readonly sink: {
    readonly name: string;
    readonly target: string;
    readonly mode: 'append' | 'upsert';
  };
  readonly range: ReplayRange;
  readonly replay: { readonly durationMs: number; readonly rows: number };
  readonly comparison: ComparisonResult;
  readonly lateRecords: readonly LateRecordCounts[];
  /** True when some difference has no known cause. */
  readonly divergent: boolean;
  readonly startedAt: string;
  readonly durationMs: number;
}

/**
 * Replays a job over a range of its input and compares what the replay
 * computed for one sink with what the streaming job wrote there. Differences
 * in window results that late records fell into are reported as explained.
 */
export async function reconcileJob(options: ReconcileOptions): Promise<ReconcileReport> {
  const started = Date.now();
  const run = await replayJob({ ...options, productionSinks: false });
  await options.onReplayed?.(run);
  const chosen = chooseSink(run, options.against);
  const output = run.outputs.find((o) => o.nodeId === chosen.nodeId)!;
  const target = await chosen.sink.reconcileTarget();
  try {
    const late = await indexLateData(run);
    const range = options.range ?? {};
    const comparison = await compareOutputs(target.expected(replayed(output)), target.written(), {
      mode: target.mode,
      ...(options.keyFields === undefined ? {} : { keyFields: options.keyFields }),
      ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
      ...(options.maxShown === undefined ? {} : { maxShown: options.maxShown }),
      ...(range.from === undefined ? {} : { from: range.from }),
      ...(range.to === undefined ? {} : { to: range.to }),
      explain: (row) => late.explain(row),
    });
    return {
      job: run.jobName,
      sink: { name: chosen.uid ?? chosen.name, target: target.description, mode: target.mode },
      range,
      replay: { durationMs: run.result.durationMs, rows: output.values.length },
      comparison,
      lateRecords: late.counts,
      divergent: comparison.divergent > 0,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    };
  } finally {
    await target.close();
  }
}

async function* replayed(output: {
  readonly values: readonly unknown[];
  readonly timestamps: readonly number[];
}): AsyncIterable<ReplayedValue<unknown>> {
  for (let i = 0; i < output.values.length; i++) {
    yield { value: output.values[i], timestamp: output.timestamps[i]! };
  }
}

function chooseSink(run: ReplayRun, against: string | undefined) {
  const readable = run.graph.sinks.filter((s) => isReconcilableSink(s.original));
  const describe = (list: typeof run.graph.sinks) =>
    list.map((s) => `'${s.uid ?? s.name}'`).join(', ') || 'none';
  let chosen: (typeof run.graph.sinks)[number] | undefined;
  if (against !== undefined) {
    chosen = run.graph.sinks.find((s) => matchesNode(s, against));
    if (chosen === undefined) {
      throw new WeirError(
        'INVALID_ARGUMENT',
        `the job has no sink '${against}'; its sinks: ${describe(run.graph.sinks)}`,
      );
    }
    if (!isReconcilableSink(chosen.original)) {
      throw new WeirError(
        'INVALID_ARGUMENT',
        `sink '${against}' (${chosen.original.name}) cannot be read back; sinks that can: ${describe(readable)}`,
      );
    }
  } else {
    // Sinks fed by a late-data side output hold input records, not results.
    const results = readable.filter(
      (s) => !run.graph.lateData.some((l) => l.jobSinks.includes(s.nodeId)),
    );
    if (results.length !== 1) {
      throw new WeirError(
        'INVALID_ARGUMENT',
        results.length === 0
          ? `the job has no sink whose output can be read back (its sinks: ${describe(run.graph.sinks)})`
          : `the job has ${results.length} sinks that can be read back (${describe(results)}); choose one with --against`,
      );
    }
    chosen = results[0]!;
  }
  const sink = chosen.original;
  if (!isReconcilableSink(sink)) throw new WeirError('INTERNAL', 'unreachable');
  return { name: chosen.name, uid: chosen.uid, nodeId: chosen.nodeId, sink };
}

/**
 * The report as Prometheus metrics (`weir_reconcile_*`), for a textfile
 * collector or a push: a nightly run's outcome stays visible until the next.
 */
export function reconcileMetrics(report: ReconcileReport): MetricRegistry {
  const registry = new MetricRegistry();
  const labels = { job_name: report.job, sink: report.sink.name };
  const c = report.comparison;
  const gauge = (name: string, help: string, value: number, extra = {}) =>
    registry.registerGauge(name, help, { ...labels, ...extra }, () => value);
  gauge(
    'weir_reconcile_expected_rows',
    'Rows the replay computed, within the range.',
    c.expectedRows,
  );
  gauge(
    'weir_reconcile_written_rows',
    'Rows the streaming job wrote, within the range.',
    c.writtenRows,
  );
  gauge('weir_reconcile_matched_rows', 'Rows equal in both.', c.matched);
  for (const [kind, value] of [
    ['missing', c.missing],
    ['extra', c.extra],
    ['differing', c.differing],
  ] as const) {
    gauge('weir_reconcile_difference_rows', 'Rows that differ, by kind.', value, { kind });
  }
  gauge(
    'weir_reconcile_explained_rows',
    'Differences with a known cause (late data).',
    c.explained,
  );
  gauge('weir_reconcile_divergent_rows', 'Differences without a known cause.', c.divergent);
  gauge(
    'weir_reconcile_divergent',
    '1 when the outputs diverge, else 0.',
    report.divergent ? 1 : 0,
  );
  for (const late of report.lateRecords) {
    gauge('weir_reconcile_late_records', 'Late records, by run and window operator.', late.replay, {
      operator: late.operator,
      run: 'replay',
    });
    if (late.streaming !== undefined) {
      gauge(
        'weir_reconcile_late_records',
        'Late records, by run and window operator.',
        late.streaming,
        { operator: late.operator, run: 'streaming' },
      );
    }
  }
  gauge(
    'weir_reconcile_duration_seconds',
    'Time the reconciliation took.',
    report.durationMs / 1000,
  );
  gauge(
    'weir_reconcile_last_run_timestamp_seconds',
    'When the reconciliation started (Unix time).',
    Date.parse(report.startedAt) / 1000,
  );
  return registry;
}
