import type { GroupExchange, ProcessGroupSpec } from '../../../core/source.js';
import { RepartitionSource } from './repartition-reader.js';
import { repartitionTopicName } from './repartition-topic.js';
import { RepartitionSink } from './repartition-writer.js';

/** Keyed exchanges of a process group through repartition topics on the group's Kafka cluster. */
export function kafkaExchange(group: ProcessGroupSpec): GroupExchange {
  return {
    topic: (operatorUid) => repartitionTopicName(group.applicationId, operatorUid),
    writer: (spec, input, selectKey) =>
      new RepartitionSink(group.brokers, group.applicationId, spec, input, selectKey),
    reader: (spec) => new RepartitionSource(group.brokers, group.applicationId, spec),
  };
}
