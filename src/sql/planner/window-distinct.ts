/**
 * A window aggregation that only groups: no aggregate function, no HAVING, and a SELECT list
 * of exactly its GROUP BY columns and window columns (each side of Nexmark q8: every person,
 * and every seller, once per window). Its rows are the distinct rows of each window, so a
 * window join can take the input rows themselves, each with its window, and keep every
 * distinct row of a window once: one keyed window operator instead of three, and one
 * exchange per side instead of two, with the same rows out. Any other consumer reads
 * `stream`, the aggregation. Each is built on first use, so only what is read becomes
 * part of the job.
 */
import type { DataStream } from '../../api/streams.js';
import type { Key } from '../../core/key-groups.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import type { Relation, WindowProperties } from './relation.js';

export interface WindowDistinctPlan {
  /** The aggregation's rows. */
  readonly aggregated: () => DataStream<Row>;
  /** Each input row in the aggregation's output columns, once per window it falls in. */
  readonly rows: () => DataStream<Row>;
  /** Equal for two rows of one window that the aggregation makes one. */
  readonly distinctKey: (row: Row) => Key;
}

export class WindowDistinctRelation implements Relation {
  constructor(
    readonly columns: readonly ScopeColumn[],
    readonly windowed: WindowProperties,
    readonly plan: WindowDistinctPlan,
    /** Built streams, shared with copies under other aliases. */
    private readonly built: { stream?: DataStream<Row>; rows?: DataStream<Row> } = {},
  ) {}

  withColumns(columns: readonly ScopeColumn[]): WindowDistinctRelation {
    return new WindowDistinctRelation(columns, this.windowed, this.plan, this.built);
  }

  /** The rows that pass `test` (which reads only the SELECT's columns, so it commutes with the deduplication). */
  filter(test: (row: Row) => boolean): WindowDistinctRelation {
    return new WindowDistinctRelation(this.columns, this.windowed, {
      aggregated: () => this.stream.filter(test).name('join input filter'),
      rows: () => this.rows.filter(test).name('join input filter'),
      distinctKey: this.plan.distinctKey,
    });
  }

  get stream(): DataStream<Row> {
    this.built.stream ??= this.plan.aggregated();
    return this.built.stream;
  }

  /** The rows before the deduplication (see {@link WindowDistinctPlan.rows}). */
  get rows(): DataStream<Row> {
    this.built.rows ??= this.plan.rows();
    return this.built.rows;
  }
}

/** Each window's rows once, by `key`, in their order of arrival. */
export function distinctRows(rows: readonly Row[], key: (row: Row) => Key): Row[] {
  if (rows.length < 2) return rows as Row[];
  const seen = new Set<Key>();
  const out: Row[] = [];
  for (const row of rows) {
    const k = key(row);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(row);
  }
  return out;
}
