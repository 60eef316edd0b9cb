/**
 * What sinks accept, checked when the job is built: a changelog (or a union
 * containing one) is refused by an append-only sink with a message saying
 * why; side outputs and mapped records are plain streams.
 */
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import { JsonLinesSink } from '../../src/connectors/files/sink/json-lines-sink.js';
import { KafkaFormats, KafkaSink } from '../../src/connectors/kafka/index.js';
import {
  PostgresTransactionalSink,
  PostgresUpsertSink,
} from '../../src/connectors/postgres/index.js';
import {
  type Change,
  CollectSink,
  type KeyedProcessFunction,
  OutputTag,
  PrintSink,
  type RetractableAggregateFunction,
  type Sink,
  StreamEnvironment,
} from '../../src/index.js';

const count: RetractableAggregateFunction<number, number, number> = {
  createAccumulator: () => 0,
  add: (_v, n) => n + 1,
  retract: (_v, n) => n - 1,
  getResult: (n) => n,
};

/** An append-only sink (declares nothing). */
function appendOnly<T>(): Sink<T> {
  return { name: 'append', createWriter: () => ({ write() {}, close() {} }) };
}

function counts(env: StreamEnvironment, mode: 'retract' | 'upsert' = 'retract') {
  return env
    .fromArray([1, 2, 3])
    .keyBy((n) => n % 2)
    .updatingAggregate(count, { mode });
}

describe('sinks and changelog modes at build time', () => {
  it('refuses an updating aggregation into an append-only sink', () => {
    const env = new StreamEnvironment();
    expect(() => counts(env).sinkTo(appendOnly())).toThrow(
      "sink 'append' accepts insert-only streams, but this stream is a retract changelog (it carries update-before, update-after and delete changes); use a sink that accepts retract, or turn the changes into plain records first",
    );
    expect(() => counts(env, 'upsert').sinkTo(appendOnly())).toThrow(
      /accepts insert-only streams, but this stream is a upsert changelog \(it carries updates and deletes changes\)/,
    );
  });

  it('refuses a union of a changelog and an insert stream into an append-only sink, and takes a union of inserts', () => {
    const env = new StreamEnvironment();
    const inserts = env.fromArray([{ key: 9, value: 9 }]).toChangelog();
    const union = counts(env).union(inserts);
    expect(union.mode).toBe('retract');
    expect(() => union.sinkTo(appendOnly())).toThrow(/this stream is a retract changelog/);
    const upsertUnion = inserts.union(counts(env, 'upsert'));
    expect(upsertUnion.mode).toBe('upsert');
    expect(() => upsertUnion.sinkTo(appendOnly())).toThrow(/this stream is a upsert changelog/);
    const insertsOnly = inserts.union(env.fromArray([{ key: 1, value: 1 }]).toChangelog());
    expect(insertsOnly.mode).toBe('insert-only');
    expect(() => insertsOnly.sinkTo(appendOnly())).not.toThrow();
  });

  it('side outputs and mapped records are plain streams', () => {
    const env = new StreamEnvironment();
    const tag = new OutputTag<string>('notes');
    const fn: KeyedProcessFunction<number, Change<{ key: number; value: number }>, number> = {
      processElement(change, ctx, out) {
        ctx.output(tag, change.kind);
        out.collect(change.value.value);
      },
    };
    const processed = counts(env)
      .keyBy((c) => c.value.key)
      .process(fn);
    expect(() => processed.getSideOutput(tag).sinkTo(appendOnly())).not.toThrow();
    expect(() => processed.sinkTo(appendOnly())).not.toThrow();
    expect(() =>
      counts(env)
        .map((c) => `${c.kind} ${c.value.key}`)
        .sinkTo(appendOnly()),
    ).not.toThrow();
  });

  it('refuses an updating aggregation over keyBy() of a changelog, pointing to groupBy()', () => {
    const env = new StreamEnvironment();
    expect(() =>
      counts(env)
        .keyBy((c) => c.value.key)
        .updatingAggregate(count as never),
    ).toThrow(
      'updatingAggregate() after keyBy() of a retract changelog would fold its changes in as plain records; use changelog.groupBy((row) => key).updatingAggregate(fn), which retracts -U and -D rows',
    );
  });

  it('row transformations keep the mode', () => {
    const env = new StreamEnvironment();
    const filtered = counts(env).filterRows((r) => r.value > 1);
    expect(filtered.mode).toBe('retract');
    expect(counts(env).filter((c) => c.kind !== '-U').mode).toBe('retract');
    const mapped = counts(env, 'upsert').mapRows(
      (r) => ({ id: r.key, n: r.value }),
      (r) => r.id,
    );
    expect(mapped.mode).toBe('upsert');
    expect(() => mapped.sinkTo(appendOnly())).toThrow(/upsert changelog/);
    expect(() => counts(env, 'upsert').mapRows((r) => r.value)).toThrow(
      /mapRows\(\) on an upsert changelog needs the upsert key of the mapped rows/,
    );
  });

  it('connectors declare what they accept', () => {
    const env = new StreamEnvironment();
    const pg = new PostgresUpsertSink<Change<{ key: number; value: number }>>({
      connection: 'postgres://u@127.0.0.1:1/db',
      table: 't',
    });
    expect(pg.accepts).toBe('upsert');
    expect(new CollectSink().accepts).toBe('retract');
    expect(() => counts(env, 'upsert').sinkTo(pg)).not.toThrow();
    expect(() => counts(env).sinkTo(pg)).toThrow(
      /sink 'postgres upsert public.t' accepts upsert streams, but this stream is a retract changelog/,
    );
    const file = new ExactlyOnceFileSink<Change<{ key: number; value: number }>>({
      directory: '/tmp/never',
    });
    expect(() => counts(env, 'upsert').sinkTo(file)).toThrow(/accepts insert-only streams/);
    const lines = new JsonLinesSink<Change<{ key: number; value: number }>>('/tmp/never.jsonl');
    expect(() => counts(env).sinkTo(lines)).toThrow(/accepts insert-only streams/);
    const kafka = new KafkaSink<Change<{ key: number; value: number }>>({
      brokers: ['127.0.0.1:9092'],
      topic: 'never',
      format: KafkaFormats.json(),
    });
    expect(() => counts(env).sinkTo(kafka)).toThrow(/accepts insert-only streams/);
    const transactional = new PostgresTransactionalSink<Change<{ key: number; value: number }>>({
      connection: 'postgres://u@127.0.0.1:1/db',
      table: 't',
    });
    // The exactly-once sink applies upserts and deletes by key as the upsert sink does.
    expect(transactional.accepts).toBe('upsert');
    expect(() => counts(env, 'upsert').sinkTo(transactional)).not.toThrow();
    expect(() => counts(env).sinkTo(transactional)).toThrow(
      /sink 'postgres transactional public.t' accepts upsert streams, but this stream is a retract changelog/,
    );
    expect(new PrintSink().accepts).toBe('retract');
  });
});
