/** Options of the print sink, declared once: the schema gives the type and the validation. */
import * as v from 'valibot';
import { fn, type OptionsOf, shaped } from '../shared/config.js';

/** Schema of {@link PrintSinkOptions}. */
export const printSinkSchema = v.object({
  /** Printed before each record, e.g. a stream name. */
  prefix: v.optional(v.string('must be a string')),
  /** How a record is rendered; JSON by default. */
  format: v.optional(fn<(value: unknown) => string>()),
  /** Where lines go; standard output by default. */
  stream: v.optional(
    shaped<NodeJS.WritableStream>(
      (x) => typeof (x as { write?: unknown }).write === 'function',
      'must be a writable stream',
    ),
  ),
});

// `@interface`: the API reference lists every option rather than the inferred type.
/**
 * Options of `PrintSink`.
 * @interface
 */
export type PrintSinkOptions = OptionsOf<typeof printSinkSchema>;
