import type { fetchV17, RecordsBatch } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { forEachRecord } from '../../src/connectors/kafka/records.js';
import { dropAbortedBatches } from '../../src/connectors/kafka/source/aborted-transactions.js';

const TRANSACTIONAL = 1 << 4;
const CONTROL = 1 << 5;

/** A data batch of `count` records at `first` from producer `pid`. */
function data(pid: number, first: number, count = 1): RecordsBatch {
  return {
    firstOffset: BigInt(first),
    lastOffsetDelta: count - 1,
    producerId: BigInt(pid),
    attributes: TRANSACTIONAL,
    records: Array.from({ length: count }, (_, i) => ({ offsetDelta: i, key: null })),
  } as unknown as RecordsBatch;
}

/** A control batch: an abort (type 0) or commit (type 1) marker. */
function marker(pid: number, offset: number, type: 0 | 1): RecordsBatch {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(type, 2);
  return {
    firstOffset: BigInt(offset),
    lastOffsetDelta: 0,
    producerId: BigInt(pid),
    attributes: TRANSACTIONAL | CONTROL,
    records: [{ offsetDelta: 0, key }],
  } as unknown as RecordsBatch;
}

function partition(
  records: RecordsBatch[],
  aborted: readonly [pid: number, first: number][],
): fetchV17.FetchResponsePartition {
  return {
    records,
    abortedTransactions: aborted.map(([pid, first]) => ({
      producerId: BigInt(pid),
      firstOffset: BigInt(first),
    })),
  } as unknown as fetchV17.FetchResponsePartition;
}

/** The batches whose records a reader sees (aborted ones stay, empty, for their offsets). */
const kept = (p: fetchV17.FetchResponsePartition) =>
  (p.records ?? [])
    .filter((b) => b.records.length > 0)
    .map((b) => `${b.producerId}@${b.firstOffset}`);

describe('read_committed filtering', () => {
  it('drops aborted data, keeps committed data and every marker', () => {
    const p = partition(
      [data(1, 0, 3), data(2, 3), marker(1, 4, 0), marker(2, 5, 1), data(3, 6)],
      [[1, 0]],
    );
    dropAbortedBatches(p);
    expect(kept(p)).toEqual(['2@3', '1@4', '2@5', '3@6']);
    expect(p.abortedTransactions).toEqual([]);
  });

  it('copes with an abort marker of a transaction that wrote nothing here (not in the aborted list)', () => {
    const p = partition([data(1, 0), marker(1, 1, 0), marker(9, 2, 0), data(2, 3)], [[1, 0]]);
    dropAbortedBatches(p);
    expect(kept(p)).toEqual(['1@1', '9@2', '2@3']);
  });

  it('keeps a committed transaction between two aborted ones of the same producer', () => {
    const p = partition(
      [data(1, 0), marker(1, 1, 0), data(1, 2), marker(1, 3, 1), data(1, 4), marker(1, 5, 0)],
      // The broker's list is not promised in order.
      [
        [1, 4],
        [1, 0],
      ],
    );
    dropAbortedBatches(p);
    expect(kept(p)).toEqual(['1@1', '1@2', '1@3', '1@5']);
  });

  it('treats a transaction that began before the fetched range as aborting from the start', () => {
    const p = partition([data(1, 10), data(2, 11), marker(1, 12, 0)], [[1, 7]]);
    dropAbortedBatches(p);
    expect(kept(p)).toEqual(['2@11', '1@12']);
  });

  it('leaves non-transactional data alone', () => {
    const plain = { ...data(1, 0), attributes: 0 } as RecordsBatch;
    const p = partition([plain, marker(1, 1, 0)], [[1, 0]]);
    dropAbortedBatches(p);
    expect(kept(p)).toEqual(['1@0', '1@1']);
  });

  it('moves the position past a response that holds nothing but aborted data', () => {
    // The broker sends a few batches at a time: the abort marker may come in a later response.
    const p = partition([data(1, 4, 4), data(1, 8, 4)], [[1, 4]]);
    dropAbortedBatches(p);
    const seen: number[] = [];
    const next = forEachRecord(p, 4, (_record, offset) => seen.push(offset));
    expect(seen).toEqual([]);
    expect(next).toBe(12);
  });
});
