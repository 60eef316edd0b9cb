import type { ClusterMetadata } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { StreamEnvironmentImpl } from '../../src/api/environment.js';
import { CollectSink } from '../../src/connectors/collection/sink/collect-sink.js';
import { leaderOwnsTask } from '../../src/connectors/kafka/group/single-owner.js';
import { KafkaFormats, KafkaSource } from '../../src/connectors/kafka/index.js';

const GROUP = { applicationId: 'orders-prod', brokers: ['127.0.0.1:9092'] };

function kafka(topic: string) {
  return new KafkaSource({
    brokers: GROUP.brokers,
    topics: [topic],
    format: KafkaFormats.json<{ id: number }>(),
  });
}

describe('placement of a job in a process group', () => {
  it('a job without Kafka sources is one single-owner task, keyed state included', () => {
    const env = new StreamEnvironmentImpl();
    env.runInProcessGroup(GROUP);
    env
      .fromArray([1, 2, 3])
      .keyBy((n) => n % 2)
      .reduce((a, b) => a + b)
      .sinkTo(new CollectSink());
    expect(env.processGroupPlacement()).toBe('single-owner');
  });

  it('a job of Kafka sources is partitioned', () => {
    const env = new StreamEnvironmentImpl();
    env.runInProcessGroup(GROUP);
    env.fromSource(kafka('in')).sinkTo(new CollectSink());
    expect(env.processGroupPlacement()).toBe('partitioned');
  });

  it('refuses a job mixing both, naming the source that cannot be shared', () => {
    const env = new StreamEnvironmentImpl();
    env.runInProcessGroup(GROUP);
    env
      .fromSource(kafka('in'))
      .union(env.fromArray([{ id: 1 }], 'lookup-file'))
      .sinkTo(new CollectSink());
    expect(() => env.processGroupPlacement()).toThrow(
      /source 'lookup-file' cannot run in process group 'orders-prod' next to Kafka source/,
    );
  });

  it('is undefined outside a group', () => {
    expect(new StreamEnvironmentImpl().processGroupPlacement()).toBeUndefined();
  });
});

describe('leaderOwnsTask', () => {
  it('gives every partition to the leader and none to the others', () => {
    const metadata = {
      topics: new Map([['t-owner', { partitionsCount: 1 }]]),
    } as unknown as ClusterMetadata;
    const members = new Map(
      ['m1', 'm2', 'm3'].map((memberId) => [memberId, { memberId, version: 0 }]),
    );
    const out = leaderOwnsTask('m2', members, new Set(['t-owner']), metadata);
    expect(out.map((m) => [m.memberId, [...m.assignments.values()]])).toEqual([
      ['m1', []],
      ['m2', [{ topic: 't-owner', partitions: [0] }]],
      ['m3', []],
    ]);
  });
});
