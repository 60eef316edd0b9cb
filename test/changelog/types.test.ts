/** The changelog API infers the row types a Flink user expects (checked by the type checker). */
import { describe, expectTypeOf, it } from 'vitest';
import {
  type Change,
  type ChangelogStream,
  type DataStream,
  type GroupResult,
  StreamEnvironment,
} from '../../src/index.js';

interface Bid {
  readonly auction: number;
  readonly price: number;
}
interface Auction {
  readonly id: number;
  readonly category: number;
}

describe('changelog API types', () => {
  it('joins pad the outer side with null, aggregations key their results', () => {
    const env = new StreamEnvironment();
    const bids = env.fromArray<Bid>([]).toChangelog();
    const auctions = env.fromArray<Auction>([]).toChangelog();
    const keys = {
      leftKey: (a: Auction) => a.id,
      rightKey: (b: Bid) => b.auction,
      unboundedState: true,
    } as const;
    expectTypeOf(auctions.regularJoin(bids, keys)).toEqualTypeOf<
      ChangelogStream<readonly [Auction, Bid]>
    >();
    expectTypeOf(auctions.regularJoin(bids, { ...keys, type: 'left' })).toEqualTypeOf<
      ChangelogStream<readonly [Auction, Bid | null]>
    >();
    expectTypeOf(auctions.regularJoin(bids, { ...keys, type: 'right' })).toEqualTypeOf<
      ChangelogStream<readonly [Auction | null, Bid]>
    >();
    expectTypeOf(auctions.regularJoin(bids, { ...keys, type: 'full' })).toEqualTypeOf<
      ChangelogStream<readonly [Auction | null, Bid | null]>
    >();
    const maxPrice = {
      createAccumulator: () => 0,
      add: (b: Bid, acc: number) => Math.max(acc, b.price),
      getResult: (acc: number) => acc,
    };
    expectTypeOf(
      env
        .fromArray<Bid>([])
        .keyBy((b) => b.auction)
        .updatingAggregate(maxPrice),
    ).toEqualTypeOf<ChangelogStream<GroupResult<number, number>>>();
    expectTypeOf(bids.groupBy((b) => String(b.auction)).updatingAggregate(maxPrice)).toEqualTypeOf<
      ChangelogStream<GroupResult<string, number>>
    >();
    const table = auctions.materialize((a) => a.id);
    const probes = env.fromArray<Bid>([]);
    expectTypeOf(probes.temporalJoin(table, { probeKey: (b) => b.auction })).toEqualTypeOf<
      DataStream<readonly [Bid, Auction]>
    >();
    expectTypeOf(
      probes.temporalJoin(table, { probeKey: (b) => b.auction, type: 'left' }),
    ).toEqualTypeOf<DataStream<readonly [Bid, Auction | null]>>();
    expectTypeOf(table.toUpsertStream()).toEqualTypeOf<ChangelogStream<Auction>>();
    expectTypeOf(
      env.fromArray<Change<Auction>>([]).asChangelog('upsert', (a) => a.id),
    ).toEqualTypeOf<ChangelogStream<Auction>>();
  });
});
