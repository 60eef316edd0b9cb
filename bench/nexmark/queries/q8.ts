/**
 * q8, monitor new users: the people who opened an auction in the same 10 s tumbling window in
 * which they registered, with the window's start. The SQL groups each side by key and window
 * (so several auctions of one seller count once) and joins the two per window; a window
 * co-group of people (by id) with auctions (by seller) does both in one operator: per window
 * and key, each distinct (id, name) when the seller side is not empty.
 */

import { Windows } from '../../../src/index.js';
import { auctions, people } from './common.js';
import type { NexmarkQuery } from './query.js';

/** Window size of q8. */
export const Q8_WINDOW_MS = 10_000;

/** A row of q8. */
export interface Q8Row {
  readonly id: number;
  readonly name: string;
  /** Start of the window (epoch ms). */
  readonly starttime: number;
}

export const q8: NexmarkQuery<Q8Row> = {
  name: 'q8',
  title: 'monitor new users: people who opened an auction in the window they registered in',
  deterministic: true,
  build: (events) =>
    // Only the columns the query reads cross the shuffle (Flink's planner prunes the rest).
    people(events)
      .map((p) => ({ id: p.id, name: p.name }))
      .coGroup(auctions(events).map((a) => a.seller))
      .where((p) => p.id)
      .equalTo((seller) => seller)
      .window(Windows.tumbling(Q8_WINDOW_MS))
      .apply<Q8Row>((persons, sold, out, { key, window }) => {
        if (sold.length === 0) return;
        const names = new Set<string>();
        for (const p of persons) names.add(p.name);
        for (const name of names) out.collect({ id: key, name, starttime: window.start });
      }),
  toRow: (r) => [r.id, r.name, r.starttime],
};
