/**
 * Conventional connector metrics that the web UI and the REST API show as
 * bytes read and written. A connector counts once per batch (or fetch, or
 * chunk), without allocating per record, and only bytes it actually knows;
 * docs/observability.md lists which bytes each built-in connector counts.
 */
import type { Counter, MetricGroup } from './registry.js';

export const BYTES_METRICS = {
  read: 'weir_source_bytes_read_total',
  written: 'weir_sink_bytes_written_total',
} as const;

/** The bytes-read counter of a source subtask. */
export function bytesReadCounter(metrics: MetricGroup): Counter {
  return metrics.counter(BYTES_METRICS.read, 'Bytes the source read from its input');
}

/** The bytes-written counter of a sink subtask. */
export function bytesWrittenCounter(metrics: MetricGroup): Counter {
  return metrics.counter(BYTES_METRICS.written, 'Bytes the sink wrote to its output');
}
