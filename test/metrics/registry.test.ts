import { describe, expect, it } from 'vitest';
import { estimateQuantile, Histogram } from '../../src/metrics/histogram.js';
import { formatValue, renderPrometheus } from '../../src/metrics/prometheus.js';
import { jobLabels, MetricRegistry } from '../../src/metrics/registry.js';

describe('MetricRegistry', () => {
  it('shares a counter registered twice with the same name and labels', () => {
    const registry = new MetricRegistry();
    const a = registry.group({ job_name: 'j', operator: 'op' }).counter('weir_x_total', 'x');
    const b = registry.group({ operator: 'op', job_name: 'j' }).counter('weir_x_total', 'x');
    a.inc(2);
    b.inc(3);
    expect(a).toBe(b);
    expect(registry.total('weir_x_total')).toBe(5);
    expect(registry.snapshot()).toHaveLength(1);
  });

  it('puts the constant labels of a job registry first, and refuses the labels a scrape sets', () => {
    const registry = new MetricRegistry(jobLabels('orders', 'abc123'));
    registry.group({ operator: 'op' }).counter('weir_x_total', 'x').inc();
    expect(renderPrometheus([registry])).toContain(
      'weir_x_total{job_name="orders",job_id="abc123",operator="op"} 1',
    );
    for (const label of ['job', 'instance']) {
      expect(() =>
        new MetricRegistry().group({ [label]: 'j' }).counter('weir_y_total', 'y'),
      ).toThrow(`label '${label}' on metric 'weir_y_total' is one Prometheus sets`);
    }
  });

  it('reads gauges on demand; a gauge registered again replaces the first; series can go', () => {
    const registry = new MetricRegistry();
    let n = 1;
    const group = registry.group({ topic: 't', partition: '0' });
    group.gauge('weir_kafka_partition_lag', 'lag', () => 10);
    expect(registry.total('weir_kafka_partition_lag')).toBe(10);
    group.gauge('weir_kafka_partition_lag', 'lag', () => n);
    n = 5;
    expect(registry.samples('weir_kafka_partition_lag')).toEqual([
      expect.objectContaining({ kind: 'gauge', value: 5, labels: { topic: 't', partition: '0' } }),
    ]);
    expect(group.remove('weir_kafka_partition_lag')).toBe(true);
    expect(registry.snapshot()).toEqual([]);
  });

  it('keeps one kind per name and checks names', () => {
    const registry = new MetricRegistry();
    const group = registry.group({ operator: 'a' });
    group.counter('weir_thing_total', 'thing');
    expect(() => registry.group({ operator: 'b' }).gauge('weir_thing_total', 'x', () => 1)).toThrow(
      /already registered as a counter/,
    );
    expect(() => group.counter('weir-bad', 'bad')).toThrow(/invalid metric name/);
    expect(() => registry.group({ le: '1' }).counter('weir_ok_total', 'ok')).toThrow(
      /invalid label name/,
    );
  });

  it('selects series by labels and sums or lists them', () => {
    const registry = new MetricRegistry();
    for (const subtask of ['0', '1']) {
      registry
        .group({ job_name: 'j', operator: 'op', subtask })
        .counter('weir_r_total', 'r')
        .inc(7);
    }
    registry
      .group({ job_name: 'j', operator: 'other', subtask: '0' })
      .counter('weir_r_total', 'r')
      .inc(1);
    expect(registry.total('weir_r_total', { operator: 'op' })).toBe(14);
    expect(registry.samples('weir_r_total', { subtask: '0' }).map((s) => s.value)).toEqual([7, 1]);
  });

  it('merges histograms of a metric across label sets', () => {
    const registry = new MetricRegistry();
    const a = registry.group({ subtask: '0' }).histogram('weir_h_seconds', 'h', [1, 10]);
    const b = registry.group({ subtask: '1' }).histogram('weir_h_seconds', 'h', [1, 10]);
    a.observe(0.5);
    b.observe(5);
    b.observe(50);
    expect(registry.histogram('weir_h_seconds')).toEqual({
      buckets: [1, 10],
      counts: [1, 1, 1],
      sum: 55.5,
      count: 3,
    });
    expect(registry.total('weir_h_seconds')).toBe(3);
  });
});

describe('Histogram', () => {
  it('counts observations into buckets of "less than or equal"', () => {
    const h = new Histogram([1, 2, 5]);
    for (const v of [0, 1, 1.5, 2, 4, 9, Number.NaN]) h.observe(v);
    expect(h.snapshot()).toEqual({ buckets: [1, 2, 5], counts: [2, 2, 1, 1], sum: 17.5, count: 6 });
    expect(() => new Histogram([2, 1])).toThrow(/ascending/);
  });

  it('estimates quantiles by interpolating within buckets', () => {
    const h = new Histogram([10, 20, 40]);
    for (let i = 0; i < 10; i++) h.observe(15);
    for (let i = 0; i < 10; i++) h.observe(30);
    const s = h.snapshot();
    expect(estimateQuantile(s, 0.5)).toBe(20);
    expect(estimateQuantile(s, 0.25)).toBe(15);
    expect(estimateQuantile(s, 0.75)).toBe(30);
    expect(estimateQuantile(new Histogram([1]).snapshot(), 0.5)).toBeUndefined();
    h.observe(1000);
    expect(estimateQuantile(h.snapshot(), 1)).toBe(40);
  });
});

describe('Prometheus exposition', () => {
  it('writes HELP and TYPE once per name, labels escaped, histograms cumulative', () => {
    const registry = new MetricRegistry();
    const group = registry.group({ job_name: 'say "hi"\\now', operator: 'a\nb' });
    group.counter('weir_records_total', 'Records\nseen').inc(3);
    registry.group({ job_name: 'j' }).counter('weir_records_total', 'Records').inc(1);
    registry
      .group({ job_name: 'j' })
      .gauge('weir_wm_seconds', 'Watermark', () => Number.NEGATIVE_INFINITY);
    const h = registry.group({ job_name: 'j' }).histogram('weir_lat_seconds', 'Latency', [0.1, 1]);
    h.observe(0.05);
    h.observe(0.5);
    h.observe(3);
    expect(renderPrometheus([registry])).toBe(
      [
        '# HELP weir_records_total Records\\nseen',
        '# TYPE weir_records_total counter',
        'weir_records_total{job_name="say \\"hi\\"\\\\now",operator="a\\nb"} 3',
        'weir_records_total{job_name="j"} 1',
        '# HELP weir_wm_seconds Watermark',
        '# TYPE weir_wm_seconds gauge',
        'weir_wm_seconds{job_name="j"} -Inf',
        '# HELP weir_lat_seconds Latency',
        '# TYPE weir_lat_seconds histogram',
        'weir_lat_seconds_bucket{job_name="j",le="0.1"} 1',
        'weir_lat_seconds_bucket{job_name="j",le="1"} 2',
        'weir_lat_seconds_bucket{job_name="j",le="+Inf"} 3',
        'weir_lat_seconds_sum{job_name="j"} 3.55',
        'weir_lat_seconds_count{job_name="j"} 3',
        '',
      ].join('\n'),
    );
  });

  it('merges the registries of several jobs, summing identical series', () => {
    const a = new MetricRegistry();
    const b = new MetricRegistry();
    a.group({ job_name: 'x' }).counter('weir_n_total', 'n').inc(1);
    b.group({ job_name: 'x' }).counter('weir_n_total', 'n').inc(2);
    b.group({ job_name: 'y' }).counter('weir_n_total', 'n').inc(5);
    const text = renderPrometheus([a, b]);
    expect(text.match(/# TYPE weir_n_total/g)).toHaveLength(1);
    expect(text).toContain('weir_n_total{job_name="x"} 3\n');
    expect(text).toContain('weir_n_total{job_name="y"} 5\n');
  });

  it('spells special values as Prometheus does', () => {
    expect([Number.NaN, Number.POSITIVE_INFINITY, -Infinity, 0.25].map(formatValue)).toEqual([
      'NaN',
      '+Inf',
      '-Inf',
      '0.25',
    ]);
  });
});
