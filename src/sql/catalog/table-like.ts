/**
 * `CREATE TABLE t (...) WITH (...) LIKE source (options)`: the new table's definition merged
 * with the source table's, by Flink's rules. Each feature of the source (computed columns,
 * metadata columns, watermarks, primary key, options, partitions) is included (a clash with
 * the new definition is an error), excluded, or overwritten by the new definition; physical
 * columns are always included, and one declared twice is an error. Without options the
 * default is INCLUDING ALL OVERWRITING OPTIONS. The source's columns come first.
 */
import type {
  ColumnDefinition,
  LikeFeature,
  Statement,
  TableLike,
  TableOption,
} from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import type { CatalogTable } from './catalog.js';

export type CreateTable = Extract<Statement, { kind: 'create-table' }>;
type Strategy = TableLike['options'][number]['strategy'];

/** Flink refuses OVERWRITING for these: there is nothing to overwrite piecewise. */
const NOT_OVERWRITABLE: ReadonlySet<LikeFeature> = new Set(['ALL', 'PARTITIONS', 'CONSTRAINTS']);

/** The strategy of each feature: the defaults, then ALL, then the features named. */
function strategies(like: TableLike): ReadonlyMap<LikeFeature, Strategy> {
  const named = new Set<LikeFeature>();
  for (const o of like.options) {
    if (named.has(o.feature)) sqlError('each LIKE option feature can be declared only once', o.at);
    named.add(o.feature);
    if (o.strategy === 'OVERWRITING' && NOT_OVERWRITABLE.has(o.feature))
      sqlError(`illegal merging strategy '${o.strategy}' for '${o.feature}' option`, o.at);
  }
  const result = new Map<LikeFeature, Strategy>([
    ['CONSTRAINTS', 'INCLUDING'],
    ['DISTRIBUTION', 'INCLUDING'],
    ['GENERATED', 'INCLUDING'],
    ['METADATA', 'INCLUDING'],
    ['OPTIONS', 'OVERWRITING'],
    ['PARTITIONS', 'INCLUDING'],
    ['WATERMARKS', 'INCLUDING'],
  ]);
  const all = like.options.find((o) => o.feature === 'ALL');
  if (all !== undefined) for (const f of result.keys()) result.set(f, all.strategy);
  for (const o of like.options) if (o.feature !== 'ALL') result.set(o.feature, o.strategy);
  return result;
}

/** A catalog column as the definition that would declare it. */
export function definitionOf(
  c: CatalogTable['columns'][number],
  source: CatalogTable,
): ColumnDefinition {
  const at = source.at;
  // The column keeps its COMMENT (through LIKE and ALTER TABLE), as in Flink.
  const comment = c.comment === undefined ? {} : { comment: c.comment };
  if (c.computed !== undefined)
    return {
      kind: 'computed',
      name: c.name,
      expr: c.computed,
      ...(c.computedText === undefined ? {} : { text: c.computedText }),
      ...comment,
      at,
    };
  if (c.metadata !== undefined)
    return {
      kind: 'metadata',
      name: c.name,
      type: c.type,
      key: c.metadata.key,
      virtual: c.metadata.virtual,
      ...comment,
      at,
    };
  return { kind: 'physical', name: c.name, type: c.type, ...comment, at };
}

const FEATURE_OF: Readonly<Record<ColumnDefinition['kind'], LikeFeature | undefined>> = {
  physical: undefined,
  'name-only': undefined,
  computed: 'GENERATED',
  metadata: 'METADATA',
};

/** `s` with the source table's definition merged in (and no LIKE clause left). */
export function mergeLike(s: CreateTable, source: CatalogTable): CreateTable {
  const like = s.like as TableLike;
  const strategy = strategies(like);
  // Columns by name, in order: the source's first; an overwrite keeps the source's position.
  const columns = new Map<string, ColumnDefinition>();
  for (const c of source.columns) {
    const feature =
      FEATURE_OF[c.computed !== undefined ? 'computed' : c.metadata ? 'metadata' : 'physical'];
    if (feature !== undefined && strategy.get(feature) === 'EXCLUDING') continue;
    columns.set(c.name, definitionOf(c, source));
  }
  for (const c of s.columns) {
    const had = columns.get(c.name);
    if (had !== undefined) {
      const feature = FEATURE_OF[c.kind];
      const overwrites =
        feature !== undefined && had.kind === c.kind && strategy.get(feature) === 'OVERWRITING';
      if (!overwrites) {
        const what = had.kind === 'physical' ? 'column' : `${had.kind} column`;
        const hint =
          feature === undefined || had.kind !== c.kind
            ? ''
            : ` (EXCLUDING ${feature} or OVERWRITING ${feature} would let this table declare it)`;
        sqlError(
          `a ${what} named '${c.name}' already exists in the LIKE clause's table '${like.table}'${hint}`,
          c.at,
        );
      }
    }
    columns.set(c.name, c);
  }

  let watermark = s.watermark;
  if (source.watermark !== undefined && strategy.get('WATERMARKS') !== 'EXCLUDING') {
    if (watermark === undefined)
      watermark = {
        column: source.watermark.column,
        expr: source.watermark.expr,
        ...(source.watermark.text === undefined ? {} : { text: source.watermark.text }),
        at: source.at,
      };
    else if (
      watermark.column === source.watermark.column &&
      strategy.get('WATERMARKS') === 'INCLUDING'
    )
      sqlError(
        `there already is a watermark for column '${watermark.column}' in the LIKE clause's table '${like.table}' (EXCLUDING WATERMARKS or OVERWRITING WATERMARKS would let this table declare it)`,
        watermark.at,
      );
    else if (watermark.column !== source.watermark.column)
      sqlError(
        `Weir SQL keeps one watermark per table: '${like.table}' has one for '${source.watermark.column}' (EXCLUDING WATERMARKS drops it)`,
        watermark.at,
      );
  }

  let primaryKey = s.primaryKey;
  if (source.primaryKey !== undefined && strategy.get('CONSTRAINTS') === 'INCLUDING') {
    if (primaryKey !== undefined)
      sqlError(
        `the LIKE clause's table '${like.table}' already has a primary key (EXCLUDING CONSTRAINTS drops it)`,
        s.at,
      );
    primaryKey = source.primaryKey;
  }

  let partitionedBy = s.partitionedBy;
  if (source.partitionKeys !== undefined && strategy.get('PARTITIONS') === 'INCLUDING') {
    if (partitionedBy !== undefined)
      sqlError(
        `the LIKE clause's table '${like.table}' already has partitions (EXCLUDING PARTITIONS drops them)`,
        s.at,
      );
    partitionedBy = source.partitionKeys;
  }

  const options = new Map<string, TableOption>();
  if (strategy.get('OPTIONS') !== 'EXCLUDING')
    for (const [key, o] of source.options) options.set(key, o);
  for (const o of s.options) {
    const had = options.get(o.key);
    if (had !== undefined && strategy.get('OPTIONS') === 'INCLUDING')
      sqlError(
        `the LIKE clause's table '${like.table}' already has option '${o.key}' = '${had.value}' (EXCLUDING OPTIONS or OVERWRITING OPTIONS would let this table set it)`,
        o.at,
      );
    options.set(o.key, o);
  }

  const { like: _like, ...rest } = s;
  return {
    ...rest,
    columns: [...columns.values()],
    watermark,
    primaryKey,
    options: [...options.values()],
    ...(partitionedBy === undefined ? {} : { partitionedBy }),
  };
}
