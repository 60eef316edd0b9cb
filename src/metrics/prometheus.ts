/**
 * Prometheus text exposition (format 0.0.4) written straight from our
 * registries. The registry already holds labelled counters, gauges and
 * histograms and reads gauges on demand, which is all a scrape needs; a
 * client library would mean mirroring every series into a second registry.
 */
import { Histogram } from './histogram.js';
import type { MetricLabels, MetricRegistry, MetricSample } from './registry.js';

/** The Content-Type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Renders the metrics of one or more registries (several jobs) as one
 * exposition: each metric name once, with its HELP and TYPE, then its series.
 * Series with identical labels in different registries are summed.
 */
export function renderPrometheus(registries: readonly MetricRegistry[]): string {
  const byName = new Map<string, Map<string, MetricSample>>();
  for (const registry of registries) {
    for (const sample of registry.snapshot()) {
      let series = byName.get(sample.name);
      if (series === undefined) {
        series = new Map();
        byName.set(sample.name, series);
      }
      const key = labelText(sample.labels);
      const same = series.get(key);
      series.set(key, same === undefined ? sample : add(same, sample));
    }
  }
  const lines: string[] = [];
  for (const [name, series] of byName) {
    const samples = [...series.values()];
    const first = samples[0]!;
    lines.push(`# HELP ${name} ${escapeHelp(first.help)}`);
    lines.push(`# TYPE ${name} ${first.kind}`);
    for (const s of samples) {
      if (s.histogram === undefined) {
        lines.push(`${name}${labelText(s.labels)} ${formatValue(s.value)}`);
        continue;
      }
      const { buckets, counts, sum, count } = s.histogram;
      let cumulative = 0;
      for (let i = 0; i < buckets.length; i++) {
        cumulative += counts[i]!;
        lines.push(
          `${name}_bucket${labelText(s.labels, String(buckets[i]))} ${formatValue(cumulative)}`,
        );
      }
      lines.push(`${name}_bucket${labelText(s.labels, '+Inf')} ${formatValue(count)}`);
      lines.push(`${name}_sum${labelText(s.labels)} ${formatValue(sum)}`);
      lines.push(`${name}_count${labelText(s.labels)} ${formatValue(count)}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function add(a: MetricSample, b: MetricSample): MetricSample {
  const histogram =
    a.histogram !== undefined && b.histogram !== undefined
      ? Histogram.merge(a.histogram, b.histogram)
      : undefined;
  const sum = { ...a, value: a.value + b.value };
  return histogram === undefined ? sum : { ...sum, histogram };
}

/** A sample value: Prometheus spells the special values NaN, +Inf and -Inf. */
export function formatValue(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return '+Inf';
  if (n === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(n);
}

function labelText(labels: MetricLabels, le?: string): string {
  const parts = Object.keys(labels).map((k) => `${k}="${escapeLabel(labels[k]!)}"`);
  if (le !== undefined) parts.push(`le="${le}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
