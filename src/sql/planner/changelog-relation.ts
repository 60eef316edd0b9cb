/**
 * Relations whose rows change: how a query's changelog mode is carried through the plan
 * (insert-only, upsert or retract, as Flink infers it), and the refusal of operators that
 * can only read rows that never change.
 */
import type { ChangelogStream, DataStream } from '../../api/streams.js';
import { acceptsChangelog, type ChangelogMode } from '../../core/changelog.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { noteUpsertKey, upsertKeyText } from './changelog-plan.js';
import type { Relation } from './relation.js';
import { ROW_SERIALIZER } from './row-serializer.js';

/**
 * A relation of changing rows; `what` names the operator that makes them (for errors),
 * `upsertKey` the positions of the columns that identify a row, if known.
 */
export function updatingRelation(
  changes: ChangelogStream<Row>,
  columns: readonly ScopeColumn[],
  what: string,
  upsertKey?: readonly number[],
): Relation {
  if (upsertKey !== undefined) noteUpsertKey(changes, upsertKeyText(upsertKey, columns));
  return {
    columns,
    changes,
    ...(upsertKey === undefined ? {} : { upsertKey }),
    get stream(): DataStream<Row> {
      return sqlError(
        `this operation reads an updating input (the ${changes.mode} changelog of ${what}), which Weir SQL does not support here yet`,
      );
    },
  };
}

/** Whether the relation's rows may change. */
export function isUpdating(relation: Relation): boolean {
  return relation.changes !== undefined && relation.changes.mode !== 'insert-only';
}

/** The relation's changelog mode. */
export function changelogModeOf(relation: Relation): ChangelogMode {
  return relation.changes?.mode ?? 'insert-only';
}

/** The relation as changes (`+I` for each row of an insert-only relation). */
export function changesOf(relation: Relation): ChangelogStream<Row> {
  return relation.changes ?? relation.stream.toChangelog();
}

/**
 * The changes with every update retracting the row it replaces: an upsert changelog (an
 * `upsert-kafka` or `postgres-cdc` table) passes through a view keyed by its upsert key, as
 * Flink's ChangelogNormalize, before an operator that changes its rows' columns (a
 * projection drops or rewrites the key); other modes pass as they are.
 */
export function retracting(changes: ChangelogStream<Row>): ChangelogStream<Row> {
  if (changes.mode !== 'upsert' || changes.upsertKey === undefined) return changes;
  return changes.materialize(changes.upsertKey, { serializer: ROW_SERIALIZER }).toRetractStream();
}

/** The same relation under other columns (another alias). */
export function withColumns(relation: Relation, columns: readonly ScopeColumn[]): Relation {
  if (relation.changes === undefined) return { ...relation, columns };
  return updatingRelation(relation.changes, columns, 'its input', relation.upsertKey);
}

/**
 * An upsert key through a projection: `sources[j]` is the input position output column `j`
 * passes on unchanged (undefined for a computed column). The key survives when each of its
 * columns is passed on; a computed column might map two keys to one value.
 */
export function projectedKey(
  key: readonly number[] | undefined,
  sources: readonly (number | undefined)[],
): number[] | undefined {
  if (key === undefined) return undefined;
  const out: number[] = [];
  for (const k of key) {
    const j = sources.indexOf(k);
    if (j < 0) return undefined;
    out.push(j);
  }
  return out;
}

/** Whether two upsert keys name the same columns (in any order). */
export function sameKey(a: readonly number[], b: readonly number[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((k) => set.has(k));
}

/** Refuses an updating relation where only insert-only rows can go. */
export function requireInsertOnly(relation: Relation, what: string, at?: SourcePosition): void {
  if (isUpdating(relation)) {
    sqlError(
      `${what} needs an insert-only input, but its input is a ${changelogModeOf(relation)} changelog (an updating query); Weir SQL does not support that yet`,
      at,
    );
  }
}

/**
 * Refuses, at plan time, an INSERT whose query emits changes the sink cannot apply (an
 * updating query into an append-only sink), as Flink does.
 */
export function refuseUnappliableChangelog(
  table: string,
  connector: string,
  accepted: ChangelogMode,
  mode: ChangelogMode,
  at?: SourcePosition,
): void {
  if (acceptsChangelog(accepted, mode)) return;
  sqlError(
    `INSERT INTO ${table}: the query is updating (it emits a ${mode} changelog, with ${mode === 'retract' ? 'update-before, update-after and delete' : 'update and delete'} changes), but connector '${connector}' accepts ${accepted === 'insert-only' ? 'only inserts' : `${accepted} changelogs`}; write to a table whose connector accepts updates`,
    at,
  );
}
