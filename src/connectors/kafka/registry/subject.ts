/**
 * Subject naming strategies, as Confluent's serializers name them: which
 * registry subject a writer's schema is registered (or looked up) under.
 */
import { invalidArgument } from '../../../core/errors.js';

/**
 * - `'topic'` (TopicNameStrategy, the default): `<topic>-value`; one schema
 *   (and its evolutions) per topic.
 * - `'record'` (RecordNameStrategy): the record's full name (Avro:
 *   namespace and name; Protobuf: package and message; JSON Schema: `title`);
 *   several record types per topic, each evolving on its own.
 * - `'topic-record'` (TopicRecordNameStrategy): `<topic>-<record name>`.
 */
export type SubjectNameStrategy = 'topic' | 'record' | 'topic-record';

/** The subject of a schema; throws naming what is missing. */
export function subjectOf(
  strategy: SubjectNameStrategy,
  topic: string | undefined,
  recordName: string | undefined,
  format: string,
): string {
  if (strategy !== 'record' && topic === undefined) {
    throw invalidArgument(
      `${format}: subject name strategy '${strategy}' needs the topic: write to one fixed topic, or give the format a 'topic' or a 'subject'`,
    );
  }
  if (strategy !== 'topic' && (recordName === undefined || recordName === '')) {
    throw invalidArgument(
      `${format}: subject name strategy '${strategy}' needs a record name, and the schema has none`,
    );
  }
  switch (strategy) {
    case 'topic':
      return `${topic}-value`;
    case 'record':
      return recordName!;
    case 'topic-record':
      return `${topic}-${recordName}`;
  }
}
