/** The Nexmark queries implemented on Weir, by name. */

import { q0 } from './q0.js';
import { q1 } from './q1.js';
import { q2 } from './q2.js';
import { q3 } from './q3.js';
import { q4 } from './q4.js';
import { q5 } from './q5.js';
import { q7 } from './q7.js';
import { q8 } from './q8.js';
import { q9 } from './q9.js';
import { q11 } from './q11.js';
import { q12 } from './q12.js';
import { q13 } from './q13.js';
import { q14 } from './q14.js';
import { q15 } from './q15.js';
import { q16 } from './q16.js';
import { q17 } from './q17.js';
import { q18 } from './q18.js';
import { q19 } from './q19.js';
import { q20 } from './q20.js';
import { q21 } from './q21.js';
import { q22 } from './q22.js';
import { type AnyNexmarkQuery, eraseRowType } from './query.js';

export type { AnyNexmarkQuery, NexmarkQuery, SqlValue, UpdatingNexmarkQuery } from './query.js';

/** Every implemented query, in benchmark order. */
export const NEXMARK_QUERIES: readonly AnyNexmarkQuery[] = [
  eraseRowType(q0),
  eraseRowType(q1),
  eraseRowType(q2),
  eraseRowType(q3),
  eraseRowType(q4),
  eraseRowType(q5),
  eraseRowType(q7),
  eraseRowType(q8),
  eraseRowType(q9),
  eraseRowType(q11),
  eraseRowType(q12),
  eraseRowType(q13),
  eraseRowType(q14),
  eraseRowType(q15),
  eraseRowType(q16),
  eraseRowType(q17),
  eraseRowType(q18),
  eraseRowType(q19),
  eraseRowType(q20),
  eraseRowType(q21),
  eraseRowType(q22),
];

/**
 * Queries of the nexmark/nexmark suite not implemented yet: q6 (an over-window average of
 * winning bids, which Flink's streaming SQL does not run either), q10 (a partitioned file
 * sink), q23 (a multi-way join).
 */
export const PENDING_QUERIES: readonly string[] = ['q6', 'q10', 'q23'];

/** The query called `name`; throws with the known names otherwise. */
export function nexmarkQuery(name: string): AnyNexmarkQuery {
  const q = NEXMARK_QUERIES.find((x) => x.name === name);
  if (q === undefined) {
    const pending = PENDING_QUERIES.includes(name) ? ' (not implemented yet)' : '';
    throw new Error(
      `unknown Nexmark query '${name}'${pending}; known: ${NEXMARK_QUERIES.map((x) => x.name).join(', ')}`,
    );
  }
  return q;
}
