/** The CDC source's position in a checkpoint, as JSON. */
import { WeirError } from '../../../core/errors.js';
import type { Json } from '../../../core/snapshot.js';
import type { PartialTransaction } from './change-decoder.js';
import type { Lsn } from './lsn.js';

interface PositionJson {
  readonly v: 1;
  readonly slot: string;
  /** Decimal LSN to restart from: the end of the last transaction emitted completely. */
  readonly lsn: string;
  readonly lastCommitLsn: string | null;
  /** A transaction emitted in part: the first `emitted` records of it are skipped on restart. */
  readonly tx: { readonly finalLsn: string; readonly emitted: number } | null;
  /** The watermark reached (absent before any commit, and in older checkpoints). */
  readonly watermark?: number;
}

/** Where a restored reader resumes. */
export interface CdcPosition {
  readonly slot: string;
  readonly lsn: Lsn;
  readonly lastCommitLsn: Lsn | undefined;
  readonly partial: PartialTransaction | undefined;
  /**
   * The watermark reached: a restored reader that sees no new commit still
   * holds event time where the uninterrupted one would.
   */
  readonly watermark: number;
}

export function encodePosition(p: CdcPosition): Json {
  const json: PositionJson = {
    v: 1,
    slot: p.slot,
    lsn: p.lsn.toString(),
    lastCommitLsn: p.lastCommitLsn === undefined ? null : p.lastCommitLsn.toString(),
    tx:
      p.partial === undefined
        ? null
        : { finalLsn: p.partial.finalLsn.toString(), emitted: p.partial.emitted },
    ...(Number.isFinite(p.watermark) ? { watermark: p.watermark } : {}),
  };
  return { ...json };
}

export function decodePosition(json: Json, slot: string): CdcPosition {
  const p = json as Partial<PositionJson> | null;
  if (p === null || typeof p !== 'object' || p.v !== 1 || typeof p.lsn !== 'string') {
    throw new WeirError(
      'INVALID_JOB',
      `the checkpoint holds no PostgreSQL CDC position: ${JSON.stringify(json)}`,
    );
  }
  if (p.slot !== slot) {
    throw new WeirError(
      'INVALID_JOB',
      `the checkpoint was taken reading slot '${p.slot}', but the source now reads slot '${slot}'`,
    );
  }
  return {
    slot,
    lsn: BigInt(p.lsn),
    lastCommitLsn:
      p.lastCommitLsn === null || p.lastCommitLsn === undefined
        ? undefined
        : BigInt(p.lastCommitLsn),
    partial:
      p.tx === null || p.tx === undefined
        ? undefined
        : { finalLsn: BigInt(p.tx.finalLsn), emitted: p.tx.emitted },
    watermark: typeof p.watermark === 'number' ? p.watermark : Number.NEGATIVE_INFINITY,
  };
}
