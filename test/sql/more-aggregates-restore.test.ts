/**
 * The variances, FIRST_VALUE, LAST_VALUE, LISTAGG and ARRAY_AGG through a savepoint: stopped
 * part-way over inserts and over a changing input and restored, the job ends with the final
 * rows of an uninterrupted run and of a batch computation. Parallelism 1, so the arrival order
 * the order-dependent aggregates follow is the generation order in every run.
 */
import { describe, expect, it } from 'vitest';
import { changesJob, throughSavepoint } from './savepoint-helpers.js';

const EVENTS = 300;
/** Records per second in the run that is stopped: far longer than a first checkpoint takes. */
const FIRST_RUN_RATE = 60;
const eventAt = (i: number): [number, number] => [i % 4, ((i * 7) % 23) - 11];

const QUERIES = [
  `SELECT k, VAR_POP(v), STDDEV_SAMP(v), FIRST_VALUE(v), LAST_VALUE(v),
     LISTAGG(CAST(v AS STRING), ' ') FILTER (WHERE v > 5), ARRAY_AGG(v) FILTER (WHERE v < -9)
   FROM t GROUP BY k`,
  // Each key's count changes as rows arrive: the outer aggregates take the old counts out.
  `SELECT VAR_SAMP(c), LAST_VALUE(c), LISTAGG(CAST(k AS STRING))
   FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)`,
];

function moments(values: readonly number[], sample: boolean, root: boolean): number | null {
  const n = values.length;
  const d = sample ? n - 1 : n;
  if (d <= 0) return null;
  const s = values.reduce((a, b) => a + b, 0);
  const s2 = values.reduce((a, b) => a + b * b, 0);
  const v = Math.trunc((s2 - Math.trunc((s * s) / n)) / d);
  return root ? Math.trunc(Math.sqrt(v)) : v;
}

/** Each query's final rows computed in batch, as sorted JSON texts. */
function oracle(): string[][] {
  const rows = Array.from({ length: EVENTS }, (_, i) => eventAt(i));
  const byKey = new Map<number, number[]>();
  for (const [k, v] of rows) byKey.set(k, [...(byKey.get(k) ?? []), v]);
  const first = [...byKey].map(([k, vs]) => {
    const big = vs.filter((v) => v > 5);
    const small = vs.filter((v) => v < -9);
    return JSON.stringify([
      k,
      moments(vs, false, false),
      moments(vs, true, true),
      vs[0],
      vs[vs.length - 1],
      big.length === 0 ? null : big.join(' '),
      small.length === 0 ? null : small,
    ]);
  });
  // The last update is the last row's key: its count comes last, the others in the order
  // their last update left them.
  const lastOf = new Map<number, number>();
  rows.forEach(([k], i) => {
    lastOf.set(k, i);
  });
  const order = [...lastOf].sort((a, b) => a[1] - b[1]).map(([k]) => k);
  const counts = order.map((k) => (byKey.get(k) as number[]).length);
  const second = [
    JSON.stringify([moments(counts, true, false), counts[counts.length - 1], order.join(',')]),
  ];
  return [first.sort(), second];
}

describe('the aggregates beyond COUNT, SUM, MIN, MAX and AVG through a savepoint', () => {
  it('restored part-way, end as an uninterrupted run and a batch computation', async () => {
    const restored = await throughSavepoint(
      'weir-more-aggregates-',
      QUERIES.length,
      (out, checkpoints, rate) =>
        changesJob({
          out,
          checkpoints,
          rate,
          parallelism: 1,
          events: EVENTS,
          eventAt,
          queries: QUERIES,
        }),
      FIRST_RUN_RATE,
    );
    expect(restored).toEqual(oracle());
  }, 120_000);
});
