/**
 * How the changes of an updating query reach a sink, as Flink's planner decides it: a sink
 * that applies upserts by its PRIMARY KEY gets no UPDATE_BEFORE when the key is the query's
 * upsert key; when the keys differ, the changes keep their UPDATE_BEFORE up to a view keyed
 * by the sink's key (where Flink puts its SinkUpsertMaterializer).
 */
import type { ChangelogStream } from '../../api/streams.js';
import type { ChangelogMode } from '../../core/changelog.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { noteChangelogRole, upsertKeyText } from './changelog-plan.js';
import { sameKey } from './changelog-relation.js';
import { ROW_SERIALIZER } from './row-serializer.js';

/** A changelog mode in Flink's EXPLAIN notation. */
export function flinkChangelogMode(mode: ChangelogMode): string {
  return mode === 'insert-only' ? '[I]' : mode === 'upsert' ? '[I,UA,D]' : '[I,UB,UA,D]';
}

/** What goes into the sink, and the EXPLAIN line that says why. */
export interface SinkChanges {
  readonly changes: ChangelogStream<Row>;
  readonly explain: string;
}

/**
 * The changes a sink that accepts `accepted` gets. `sinkKey` is its PRIMARY KEY (positions and
 * the row's key), `upsertKey` the query's, `columns` the sink's columns (for EXPLAIN).
 */
export function changesForSink(
  table: string,
  changes: ChangelogStream<Row>,
  accepted: ChangelogMode,
  upsertKey: readonly number[] | undefined,
  sinkKey: { readonly positions: readonly number[]; readonly of: (row: Row) => Key } | undefined,
  columns: readonly { readonly name: string }[],
  stateTtl?: StateTtlConfig,
): SinkChanges {
  const line = (c: ChangelogStream<Row>, extra = '') =>
    `sink ${table}: changelogMode=${flinkChangelogMode(c.mode)}, upsertKey=${upsertKeyText(upsertKey, columns)}${extra}`;
  if (accepted !== 'upsert' || changes.mode !== 'retract' || sinkKey === undefined)
    return { changes, explain: line(changes) };
  const primaryKey = upsertKeyText(sinkKey.positions, columns);
  if (upsertKey !== undefined && sameKey(upsertKey, sinkKey.positions)) {
    // Every update replaces the row of the same key: the sink needs only the new row.
    // The inference lets the operators above leave out the -U this drops where they can.
    const dropped = changes.filter((c) => c.kind !== '-U');
    noteChangelogRole(dropped, { kind: 'drop-update-before' });
    const upserts = dropped.asChangelog('upsert', sinkKey.of);
    return { changes: upserts, explain: line(upserts, `, the PRIMARY KEY ${primaryKey}`) };
  }
  // An update may move a row to another sink key: the update-before deletes the old key's row
  // in a view by the sink's key, which then sends the sink upserts.
  // Its state is idle state like any relational operator's (`table.exec.state.ttl`).
  const upserts = changes
    .materialize(sinkKey.of, {
      serializer: ROW_SERIALIZER,
      ...(stateTtl === undefined ? {} : { ttl: stateTtl }),
    })
    .toUpsertStream();
  noteChangelogRole(upserts, { kind: 'materialize' });
  return {
    changes: upserts,
    explain: line(
      changes,
      `, not the PRIMARY KEY ${primaryKey}: materialized by it, then changelogMode=${flinkChangelogMode(upserts.mode)}`,
    ),
  };
}
