/**
 * Log sequence numbers: positions in PostgreSQL's write-ahead log. They are
 * 64-bit, written `XXXXXXXX/XXXXXXXX` (high/low 32 bits in hex) by the
 * server; here they are bigints, and JSON-safe decimal strings in checkpoints.
 */
export type Lsn = bigint;

/** The zero position: "from wherever the slot is". */
export const ZERO_LSN: Lsn = 0n;

/** Parses the server's `X/Y` notation. */
export function parseLsn(text: string): Lsn {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (m === null) throw new Error(`not an LSN: '${text}'`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** Formats in the server's `X/Y` notation. */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The LSN as a JavaScript number (exact below 2^53 bytes of WAL, i.e. 8 PiB), as Debezium's `lsn` field. */
export function lsnToNumber(lsn: Lsn): number {
  return Number(lsn);
}

/** Larger of two LSNs. */
export function maxLsn(a: Lsn, b: Lsn): Lsn {
  return a > b ? a : b;
}
