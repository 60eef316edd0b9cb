/**
 * JSON_OBJECTAGG and JSON_ARRAYAGG (ON NULL modes, nested JSON values, window and updating
 * aggregations, a changelog input, a duplicate key), ARRAY_AGG's IGNORE / RESPECT NULLS and ROW
 * equality. Queries whose answer depends on arrival order are named `agg-fn-ordered-*`, which
 * keeps them out of the parallelism-2 sample.
 */
import type { SuiteCase } from './families.js';

const COUNTS = 'SELECT k, COUNT(*) AS c FROM t GROUP BY k';

export function jsonAggregateCases(): SuiteCase[] {
  return [
    {
      name: 'agg-fn-json-objectagg-by-key',
      sql: 'SELECT k, JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE i) AS o, JSON_OBJECTAGG(CAST(id AS STRING) VALUE i ABSENT ON NULL) AS a FROM t GROUP BY k',
    },
    {
      name: 'agg-fn-json-objectagg-types',
      sql: "SELECT b, JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE s NULL ON NULL) AS os, JSON_OBJECTAGG(KEY 'm' || CAST(id AS STRING) VALUE m) AS om, JSON_OBJECTAGG(KEY 'x' || CAST(id AS STRING) VALUE JSON_OBJECT(KEY 'd' VALUE d, KEY 'l' VALUE l)) AS ox FROM t WHERE id < 30 GROUP BY b",
    },
    {
      name: 'agg-fn-json-objectagg-duplicate-key',
      sql: "SELECT JSON_OBJECTAGG(KEY COALESCE(k, '-') VALUE id) FROM t",
    },
    {
      name: 'agg-fn-json-objectagg-changelog',
      sql: `SELECT JSON_OBJECTAGG(KEY COALESCE(k, 'none') VALUE c) AS o FROM (${COUNTS})`,
    },
    {
      name: 'agg-fn-json-objectagg-tumble',
      sql: "SELECT window_start, JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE k) AS o FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
    },
    {
      name: 'agg-fn-ordered-json-arrayagg-by-key',
      sql: 'SELECT k, JSON_ARRAYAGG(i) AS a, JSON_ARRAYAGG(i NULL ON NULL) AS n, JSON_ARRAYAGG(s ABSENT ON NULL) AS s FROM t GROUP BY k',
    },
    {
      name: 'agg-fn-ordered-json-arrayagg-types',
      sql: 'SELECT b, JSON_ARRAYAGG(d) AS ad, JSON_ARRAYAGG(m) AS am, JSON_ARRAYAGG(ts) AS ats, JSON_ARRAYAGG(JSON_ARRAY(id, k NULL ON NULL)) AS aj FROM t WHERE id < 30 GROUP BY b',
    },
    {
      name: 'agg-fn-ordered-json-arrayagg-tumble',
      sql: "SELECT window_start, JSON_ARRAYAGG(id) AS a, JSON_ARRAYAGG(k NULL ON NULL) AS ak FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
    },
    {
      name: 'agg-fn-ordered-json-arrayagg-changelog',
      sql: `SELECT JSON_ARRAYAGG(c) AS a FROM (${COUNTS})`,
    },
    {
      name: 'agg-fn-json-arrayagg-filter',
      sql: 'SELECT k, JSON_ARRAYAGG(id) FILTER (WHERE id < 3) AS a FROM t GROUP BY k',
    },
    {
      name: 'agg-fn-ordered-array-agg-null-treatment',
      sql: 'SELECT k, ARRAY_AGG(i IGNORE NULLS) AS ig, ARRAY_AGG(i RESPECT NULLS) AS re, ARRAY_AGG(s IGNORE NULLS) AS si FROM t GROUP BY k',
    },
    {
      name: 'agg-fn-array-agg-ignore-nulls-filter',
      sql: 'SELECT k, ARRAY_AGG(s IGNORE NULLS) FILTER (WHERE id > 10) AS f FROM t GROUP BY k',
    },
    {
      name: 'agg-fn-ordered-array-agg-ignore-nulls-tumble',
      sql: "SELECT window_start, ARRAY_AGG(k IGNORE NULLS) AS ks FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
    },
    {
      name: 'agg-fn-array-agg-ignore-nulls-all-null',
      sql: 'SELECT k, ARRAY_AGG(CAST(NULL AS INT) IGNORE NULLS) AS n, ARRAY_AGG(DISTINCT b IGNORE NULLS) AS bs FROM t WHERE id < 10 GROUP BY k',
    },
    {
      name: 'row-equality',
      sql: "SELECT id, (i, k) = (i, k) AS same, (i, id) = (id, i) AS swapped, ROW(k, b) <> ROW('a', TRUE) AS differs, (i, 1) = (i, 2) AS decided, (i, l) <> (i, l) AS unequal FROM t",
    },
    {
      name: 'row-equality-where',
      sql: "SELECT id, k, b FROM t WHERE (k, b) = ('a', TRUE) OR ROW(k, id) = ROW('b', 3)",
    },
  ];
}
