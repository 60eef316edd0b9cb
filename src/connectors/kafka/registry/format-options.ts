/** Options the registry formats share, declared once as valibot entries. */
import * as v from 'valibot';
import { nonEmptyString, oneOf, shaped } from '../../shared/config.js';
import type { SchemaRegistryClient } from './client.js';

/** Options every registry format takes (see `RegistryFormatOptions`). */
export const registryFormatEntries = {
  registry: shaped<SchemaRegistryClient>(
    (x) => typeof (x as { schemaById?: unknown }).schemaById === 'function',
    'must be a SchemaRegistryClient',
  ),
  subjectNameStrategy: v.optional(oneOf(['topic', 'record', 'topic-record']), 'topic'),
  subject: v.optional(nonEmptyString()),
  topic: v.optional(nonEmptyString()),
  autoRegister: v.optional(v.boolean('must be true or false'), true),
  useVersion: v.optional(
    v.union(
      [v.literal('latest'), v.pipe(v.number(), v.integer(), v.minValue(1))],
      "must be 'latest' or a version number >= 1",
    ),
  ),
};
