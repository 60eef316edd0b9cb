/**
 * The PostgreSQL CDC source's checkpoint position: it round-trips, keeps the
 * watermark reached (so a restored reader that sees no new commit does not
 * hold event time back), and reads positions written before it had one.
 */
import { describe, expect, it } from 'vitest';
import { decodePosition, encodePosition } from '../../../src/connectors/postgres/cdc/position.js';

describe('CDC checkpoint position', () => {
  it('round-trips with its watermark', () => {
    const position = {
      slot: 's',
      lsn: 0x16b3748n,
      lastCommitLsn: 0x16b3700n,
      partial: { finalLsn: 0x16b3800n, emitted: 3 },
      watermark: 1_700_000_000_123,
    };
    const json = JSON.parse(JSON.stringify(encodePosition(position)));
    expect(decodePosition(json, 's')).toEqual(position);
  });

  it('without a watermark yet (or from an older checkpoint), restores none', () => {
    const none = encodePosition({
      slot: 's',
      lsn: 1n,
      lastCommitLsn: undefined,
      partial: undefined,
      watermark: Number.NEGATIVE_INFINITY,
    });
    expect(none).not.toHaveProperty('watermark');
    expect(decodePosition(none, 's').watermark).toBe(Number.NEGATIVE_INFINITY);
    const older = { v: 1, slot: 's', lsn: '1', lastCommitLsn: null, tx: null };
    expect(decodePosition(older, 's').watermark).toBe(Number.NEGATIVE_INFINITY);
  });
});
