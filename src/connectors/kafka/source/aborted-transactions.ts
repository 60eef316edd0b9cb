/**
 * read_committed filtering of fetch responses, by Kafka's own
 * consumer algorithm.
 *
 * @platformatic/kafka 1.35 filters aborted transactions itself, but its pass
 * throws (inside a socket callback, so the fetch never settles) on an abort
 * marker whose producer has no entry in the response's aborted list, which
 * happens when an aborted transaction wrote nothing to the partition, and it
 * folds a producer's several aborted transactions into one offset range. We
 * filter each response first and empty its aborted list, which turns the
 * library's pass into a no-op.
 */
import { type Base, type fetchV17, kGetApi, type RecordsBatch } from '@platformatic/kafka';

type FetchResponse = fetchV17.FetchResponse;
type FetchResponsePartition = fetchV17.FetchResponsePartition;

const IS_TRANSACTIONAL = 1 << 4;
export const IS_CONTROL = 1 << 5;
/** Control record type in a control batch's key: 0 = abort, 1 = commit. */
const ABORT_MARKER = 0;

/**
 * Empties the data batches of aborted transactions in a fetched partition
 * (their records go, their offsets stay) and empties its aborted list. The
 * batches themselves stay, like control batches, so that the reader's
 * position moves past them: a response may hold nothing but aborted data
 * (the broker sends a few batches at a time, and an aborted transaction can
 * be longer), and a reader that saw no batch would fetch the same offset
 * again for ever.
 */
export function dropAbortedBatches(partition: FetchResponsePartition): void {
  const batches: RecordsBatch[] | undefined = partition.records;
  const listed = partition.abortedTransactions;
  if (batches === undefined || listed.length === 0) {
    if (listed.length > 0) partition.abortedTransactions = [];
    return;
  }
  // A producer is aborting from its transaction's first offset until its abort marker.
  const pending = [...listed].sort((a, b) =>
    a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
  );
  let next = 0;
  const aborting = new Set<bigint>();
  partition.records = batches.map((batch) => {
    const last = batch.firstOffset + BigInt(batch.lastOffsetDelta);
    while (next < pending.length && pending[next]!.firstOffset <= last) {
      aborting.add(pending[next]!.producerId);
      next++;
    }
    if ((batch.attributes & IS_CONTROL) !== 0) {
      const key = batch.records[0]?.key;
      if (
        key !== undefined &&
        key !== null &&
        key.length >= 4 &&
        key.readInt16BE(2) === ABORT_MARKER
      )
        aborting.delete(batch.producerId);
      return batch;
    }
    const aborted = (batch.attributes & IS_TRANSACTIONAL) !== 0 && aborting.has(batch.producerId);
    return aborted ? { ...batch, records: [] } : batch;
  });
  partition.abortedTransactions = [];
}

/** Applies {@link dropAbortedBatches} to every partition of a fetch response. */
export function dropAbortedFromResponse(response: FetchResponse): void {
  for (const topic of response.responses) {
    for (const partition of topic.partitions) dropAbortedBatches(partition);
  }
}

type ApiCallback = (error: Error | null, api?: unknown) => void;
type GetApi = (name: string, callback: ApiCallback) => void;

/** Makes a client filter aborted transactions correctly before the library sees its fetch responses. */
export function filterAbortedTransactions(client: Base): void {
  const slots = client as unknown as Record<symbol, GetApi>;
  const original = slots[kGetApi]!;
  slots[kGetApi] = function getApi(this: unknown, name: string, callback: ApiCallback): void {
    original.call(this, name, (error, api) => {
      if (error !== null || name !== 'Fetch' || typeof api !== 'function') {
        callback(error, api);
        return;
      }
      const fetch = api as (...args: unknown[]) => void;
      callback(null, (...args: unknown[]) => {
        const done = args.pop() as (error: Error | null, response?: FetchResponse) => void;
        fetch(...args, (err: Error | null, response?: FetchResponse) => {
          if (err === null && response !== undefined) dropAbortedFromResponse(response);
          done(err, response);
        });
      });
    });
  };
}
