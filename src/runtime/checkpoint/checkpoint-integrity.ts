import { createHash } from 'node:crypto';
import { WeirError } from '../../core/errors.js';

/** Hex SHA-256 of a file's bytes (a string is hashed as UTF-8, as it is written). */
export function checksumOf(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Checksum of a metadata object without its own checksum field. JSON
 * serialization is deterministic for a parsed object (same key order, same
 * number rendering), so a reader recomputes it from what it parsed.
 */
export function metadataChecksumOf(body: object): string {
  return checksumOf(JSON.stringify(body));
}

/**
 * The error for a checkpoint that cannot be trusted: names the checkpoint
 * directory, the file, and what is wrong with it.
 */
export function checkpointDamaged(
  checkpointPath: string,
  file: string,
  problem: string,
  cause?: unknown,
): WeirError {
  return new WeirError(
    'CHECKPOINT_DAMAGED',
    `checkpoint '${checkpointPath}' is damaged: ${file} ${problem}`,
    { domain: 'external', ...(cause === undefined ? {} : { cause }) },
  );
}
