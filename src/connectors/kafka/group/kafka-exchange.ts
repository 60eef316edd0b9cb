import { Admin } from '@platformatic/kafka';
import type { ExchangeSpec, GroupExchange, ProcessGroupSpec } from '../../../core/source.js';
import { RepartitionSource } from './repartition-reader.js';
import { ensureRepartitionTopic, repartitionTopicName } from './repartition-topic.js';
import { RepartitionSink } from './repartition-writer.js';

/** The keyed exchanges of a process group, and the creation of their topics. */
export interface KafkaExchange extends GroupExchange {
  /**
   * Creates the repartition topic of every exchange the job has been cut at,
   * where missing: the process's membership in the group subscribes to them
   * before any reader opens.
   */
  ensureTopics(): Promise<void>;
}

/**
 * Keyed exchanges of a process group through repartition topics on the
 * group's Kafka cluster; `tasks` are the tasks the process holds, whose
 * repartition partitions its readers read.
 */
export function kafkaExchange(
  group: ProcessGroupSpec,
  tasks: () => ReadonlySet<string>,
): KafkaExchange {
  const specs: ExchangeSpec[] = [];
  return {
    topic: (operatorUid) => repartitionTopicName(group.applicationId, operatorUid),
    writer: (spec, input, selectKey) =>
      new RepartitionSink(
        group.brokers,
        group.applicationId,
        spec,
        input,
        selectKey,
        group.transactionScope ?? (() => `p${process.pid}`),
      ),
    reader: (spec, observer) => {
      specs.push(spec);
      return new RepartitionSource(group.brokers, group.applicationId, spec, tasks, observer);
    },
    async ensureTopics(): Promise<void> {
      if (specs.length === 0) return;
      const admin = new Admin({
        clientId: `weir-${group.applicationId}-exchange-admin`,
        bootstrapBrokers: [...group.brokers],
      });
      try {
        for (const s of specs)
          await ensureRepartitionTopic(admin, s.topic, s.partitions, s.maxParallelism);
      } finally {
        await admin.close().catch(() => {});
      }
    },
  };
}
