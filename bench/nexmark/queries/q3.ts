/**
 * q3, local item suggestion: the sellers in Oregon, Idaho or California of auctions in
 * category 10, by name, city and state, with the auction's id. A regular inner join of
 * auctions (by seller) with people (by id) keeping both inputs for the whole run, each side
 * filtered first (as Flink's planner pushes the filters below the join).
 */

import type { Auction, Person } from '../../../src/connectors/nexmark/index.js';
import { auctions, insertedRows, people } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q3. */
export interface Q3Row {
  readonly name: string;
  readonly city: string;
  readonly state: string;
  readonly id: number;
}

const STATES = new Set(['OR', 'ID', 'CA']);

export const q3: NexmarkQuery<Q3Row> = {
  name: 'q3',
  title: 'local item suggestion: sellers in OR/ID/CA of category-10 auctions (regular join)',
  deterministic: true,
  build: (events) =>
    insertedRows(
      auctions(events)
        .filter((a) => a.category === 10)
        .toChangelog()
        .regularJoin(
          people(events)
            .filter((p) => STATES.has(p.state))
            .toChangelog(),
          {
            leftKey: (a: Auction) => a.seller,
            rightKey: (p: Person) => p.id,
            unboundedState: true,
          },
        ),
    ).map(([a, p]): Q3Row => ({ name: p.name, city: p.city, state: p.state, id: a.id })),
  toRow: (r) => [r.name, r.city, r.state, r.id],
};
