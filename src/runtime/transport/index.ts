/**
 * Moving record batches between threads: {@link encodeBatch} turns a batch into
 * a small header plus columnar ArrayBuffers to transfer with `postMessage`, and
 * {@link decodeBatch} rebuilds it on the receiving thread.
 */
export type { ColumnHeader, EncodedBatch } from './columns.js';
export { type DecodeOptions, decodeBatch, decodeBatchColumns } from './decode.js';
export { encodeBatch } from './encode.js';
