/** In-memory connectors: a source from an array, collecting sinks and an in-memory lookup table. */
export {
  InMemoryLookupTable,
  type InMemoryLookupTableOptions,
  type LookupTableStats,
} from './lookup/in-memory-lookup-table.js';
export { CollectSink, DiscardingSink } from './sink/collect-sink.js';
export { ArraySource } from './source/array-source.js';
