/**
 * q3, local item suggestion: the sellers in Oregon, Idaho or California of auctions in
 * category 10, by name, city and state, with the auction's id. A regular inner join of
 * auctions (by seller) with people (by id), each side filtered first (as Flink's planner
 * pushes the filters below the join).
 */

import type { Auction, NexmarkEvent, Person } from '../../../src/connectors/nexmark/index.js';
import { innerJoin } from './inner-join.js';
import type { NexmarkQuery } from './query.js';

/** A row of q3. */
export interface Q3Row {
  readonly name: string;
  readonly city: string;
  readonly state: string;
  readonly id: number;
}

const STATES = new Set(['OR', 'ID', 'CA']);

function relevant(e: NexmarkEvent): boolean {
  if (e.type === 'person') return STATES.has(e.person.state);
  return e.type === 'auction' && e.auction.category === 10;
}

function sellerIdOf(e: NexmarkEvent): number {
  if (e.type === 'person') return e.person.id;
  if (e.type === 'auction') return e.auction.seller;
  throw new Error(`expected a person or an auction, got a bid on ${e.bid.auction}`);
}

const sellerJoin = innerJoin<NexmarkEvent, Auction, Person, Q3Row>({
  left: (e) => (e.type === 'auction' ? e.auction : undefined),
  right: (e) => (e.type === 'person' ? e.person : undefined),
  join: (a, p) => ({ name: p.name, city: p.city, state: p.state, id: a.id }),
});

export const q3: NexmarkQuery<Q3Row> = {
  name: 'q3',
  title: 'local item suggestion: sellers in OR/ID/CA of category-10 auctions (regular join)',
  deterministic: true,
  build: (events) =>
    events
      .filter(relevant)
      .name('category 10 auctions, people in OR/ID/CA')
      .keyBy(sellerIdOf, 'seller')
      .process(sellerJoin)
      .name('auction ⋈ person'),
  toRow: (r) => [r.name, r.city, r.state, r.id],
};
