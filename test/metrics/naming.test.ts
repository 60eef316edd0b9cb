/**
 * The metrics a real job exports follow Prometheus' conventions: a job with a
 * Kafka source and sink, a PostgreSQL CDC source and upsert sink, an event-time
 * window and checkpoints is scraped, and its exposition is checked by
 * the stricter rules of docs/observability.md (test/helpers/exposition.ts),
 * and by `promtool check metrics` too where promtool is installed
 * (scripts/promtool.sh builds it from source, which takes minutes: CI does
 * not, and relies on the checker here).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaSink, KafkaSource } from '../../src/connectors/kafka/index.js';
import { PostgresUpsertSink, postgresCdc } from '../../src/connectors/postgres/index.js';
import {
  CollectSink,
  StreamEnvironment,
  Time,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { namingProblems, parseExposition } from '../helpers/exposition.js';
import { BROKERS, createTopic, json, produce, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { cleanup, dropSlots, freshSchema, PG_URL, sql, until } from '../postgres/helpers.js';

const SCHEMA = 'weir_metric_names';
const SLOT = 'weir_metric_names_slot';

/** Where scripts/promtool.sh installs promtool (WEIR_PROMTOOL overrides it). */
function promtoolPath(): string {
  if (process.env.WEIR_PROMTOOL !== undefined) return process.env.WEIR_PROMTOOL;
  const cache = process.env.WEIR_CACHE ?? join(process.env.HOME ?? '/tmp', '.cache', 'weir');
  return join(cache, 'promtool', 'promtool');
}

/** `promtool check metrics` on `text`: its exit code and what it printed. */
function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(promtoolPath(), ['check', 'metrics'], (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
    child.stdin?.end(text);
  });
}

interface Click {
  readonly user: string;
  readonly t: number;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-metric-names-'));
  await dropSlots([SLOT]);
  await freshSchema(SCHEMA);
  await sql(`CREATE TABLE ${SCHEMA}.src (id int PRIMARY KEY, n int NOT NULL)`);
  await sql(`CREATE TABLE ${SCHEMA}.dst (id int PRIMARY KEY, n int NOT NULL)`);
});
afterAll(async () => {
  await cleanup(SCHEMA, [SLOT]);
  await rm(dir, { recursive: true, force: true });
});

describe('metric names', () => {
  it.runIf(existsSync(promtoolPath()))(
    'promtool reports what breaks the conventions (so a clean report means something)',
    async () => {
      const bad = '# HELP weir_x_ms A time\n# TYPE weir_x_ms counter\nweir_x_ms{job_name="a"} 1\n';
      const { code, output } = await promtoolCheck(bad);
      expect(code).not.toBe(0);
      expect(output).toContain('counter metrics should have "_total" suffix');
    },
  );

  it('a job with Kafka, PostgreSQL, windows and checkpoints exports a clean exposition', async () => {
    const input = uniqueTopic('names-in');
    const output = uniqueTopic('names-out');
    await createTopic(input, 2);
    await createTopic(output, 1);
    await produce(
      input,
      Array.from({ length: 200 }, (_, i) => ({
        value: JSON.stringify({ user: `u${i % 7}`, t: 1_000 * i } satisfies Click),
        partition: i % 2,
      })),
    );
    const env = new StreamEnvironment({
      metrics: { port: 0 },
      checkpointing: { directory: join(dir, 'ckpt'), intervalMs: 200 },
    });
    const counts = new CollectSink<unknown>();
    const windowed = env
      .fromSource(
        new KafkaSource<Click>({
          brokers: BROKERS,
          topics: [input],
          format: json<Click>(),
          watermarks: WatermarkStrategy.forMonotonousTimestamps<Click>().withTimestampAssigner(
            (c) => c.t,
          ),
        }),
      )
      .uid('clicks')
      .keyBy((c) => c.user)
      .window(Windows.tumbling(Time.seconds(10)))
      .aggregate({
        createAccumulator: () => 0,
        add: (_c: Click, n: number) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      })
      .uid('counts');
    windowed.sinkTo(counts);
    windowed.sinkTo(new KafkaSink({ brokers: BROKERS, topic: output, format: json() })).uid('out');
    env
      .fromSource(
        postgresCdc({
          connection: PG_URL,
          name: 'names',
          tables: [`${SCHEMA}.src`],
          slotName: SLOT,
          slotLagIntervalMs: 100,
        }),
      )
      .uid('cdc')
      .map((change) => change.value?.after as { id: number; n: number })
      .filter((row) => row !== null && row !== undefined)
      .sinkTo(new PostgresUpsertSink({ connection: PG_URL, table: `${SCHEMA}.dst` }))
      .uid('rows');

    const client = env.executeAsync('metric names');
    let failure: unknown;
    client.result.catch((e: unknown) => {
      failure = e;
    });
    try {
      await until(
        async () =>
          (await sql('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [SLOT]))
            .length === 1 || failure !== undefined,
        60_000,
        'the slot to be active',
      );
      await sql(`INSERT INTO ${SCHEMA}.src SELECT i, i FROM generate_series(1, 50) i`);
      await until(
        async () =>
          (await sql(`SELECT 1 FROM ${SCHEMA}.dst`)).length === 50 || failure !== undefined,
        60_000,
        'the rows to be copied',
      );
      await waitFor(
        'windows and a checkpoint',
        () =>
          failure !== undefined ||
          (counts.values.length > 0 &&
            client.metrics.total('weir_checkpoints_completed_total') > 0),
        60_000,
      );
      expect(failure).toBeUndefined();
      await waitFor('the metrics endpoint', () => client.monitor.metricsUrl !== undefined, 30_000);
      const text = await (await fetch(client.monitor.metricsUrl!)).text();

      const { families, problems } = parseExposition(text);
      expect(problems).toEqual([]);
      expect(namingProblems(families)).toEqual([]);
      const names = new Set(families.map((f) => f.name));
      // The families this job must have produced, so the rules were applied to them.
      for (const name of [
        'weir_kafka_partition_watermark_timestamp_seconds',
        'weir_kafka_partition_lag',
        'weir_kafka_sink_records_total',
        'weir_postgres_slot_lag_bytes',
        'weir_postgres_sink_rows_total',
        'weir_operator_input_watermark_timestamp_seconds',
        'weir_end_to_end_latency_seconds',
        'weir_checkpoint_duration_seconds',
        'weir_window_late_records_total',
        'weir_job_uptime_seconds',
      ]) {
        expect(names, name).toContain(name);
      }
      const watermark = families.find(
        (f) => f.name === 'weir_kafka_partition_watermark_timestamp_seconds',
      )!;
      // Seconds, not milliseconds: the events span 0 to 199 s of event time.
      expect(Math.max(...watermark.samples.map((s) => s.value))).toBeLessThan(200);
      expect(watermark.samples[0]!.labels).toMatchObject({
        job_name: 'metric names',
        job_id: client.jobId,
        operator: 'clicks',
      });

      if (existsSync(promtoolPath())) {
        const promtool = await promtoolCheck(text);
        expect(promtool.output).toBe('');
        expect(promtool.code).toBe(0);
      }
    } finally {
      await client.cancel().catch(() => {});
    }
  }, 180_000);
});

describe('the exposition checker', () => {
  it('finds what breaks the format or the naming rules', () => {
    const bad = [
      '# HELP weir_x_ms A time in ms',
      '# TYPE weir_x_ms gauge',
      'weir_x_ms{job="j"} 5',
      '# HELP weir_records Records',
      '# TYPE weir_records counter',
      'weir_records{job_name="j",job_id="1"} x',
      '# HELP weir_h_seconds H',
      '# TYPE weir_h_seconds histogram',
      'weir_h_seconds_bucket{job_name="j",job_id="1",le="1"} 3',
      'weir_h_seconds_bucket{job_name="j",job_id="1",le="+Inf"} 2',
      'weir_h_seconds_sum{job_name="j",job_id="1"} 1',
      'weir_h_seconds_count{job_name="j",job_id="1"} 2',
      '',
    ].join('\n');
    const { families, problems } = parseExposition(bad);
    expect(problems).toEqual([
      'line 6: value \'x\' is not a number: weir_records{job_name="j",job_id="1"} x',
      'weir_h_seconds[["job_id","1"],["job_name","j"]]: bucket counts not cumulative',
    ]);
    expect(namingProblems(families)).toEqual([
      'weir_x_ms: not in a base unit',
      'weir_x_ms: labels job do not start with job_name, job_id',
      "weir_x_ms: label 'job'",
      'weir_records: a counter whose name does not end in _total',
    ]);
  });
});
