/**
 * What SHOW and DESCRIBE answer, as Flink's TableResult rows (its column names, one string per
 * cell), and the new definitions ALTER TABLE makes. The statements themselves run in
 * `table-environment.ts`; these are the pure parts.
 */
import type { ShowLike, Statement, TableOption } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { formatType, type LogicalType } from '../types/logical-type.js';
import type { CatalogTable, CatalogView, ObjectPath } from './catalog.js';

/** The result of a SHOW or DESCRIBE statement: a small table of text. */
export interface StatementResult {
  /** The statement, as `SHOW TABLES` or `DESCRIBE orders`. */
  readonly statement: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** The columns of DESCRIBE and SHOW COLUMNS, as Flink names them. */
export const DESCRIBE_COLUMNS = ['name', 'type', 'null', 'key', 'extras', 'watermark'] as const;

const quoted = (name: string): string => `\`${name.replaceAll('`', '``')}\``;
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** A test of names against `[NOT] LIKE` / `ILIKE` (`%` any run, `_` one character). */
export function likeTest(like: ShowLike | undefined): (name: string) => boolean {
  if (like === undefined) return () => true;
  const escaped = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let source = '';
  const chars = [...like.pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    // A backslash takes the next character literally (`big\_%`), as Flink's LIKE here.
    if (ch === '\\' && i + 1 < chars.length) source += escaped(chars[++i] as string);
    else source += ch === '%' ? '.*' : ch === '_' ? '.' : escaped(ch);
  }
  const pattern = new RegExp(`^${source}$`, like.caseInsensitive ? 'is' : 's');
  return (name) => pattern.test(name) !== like.not;
}

/** A type as DESCRIBE shows it: nullability in its own column. */
function typeWithoutNullability(type: LogicalType): string {
  return formatType({ ...type, nullable: true } as LogicalType);
}

/** DESCRIBE rows of a table: name, type, null, key, extras, watermark. */
export function describeTableRows(table: CatalogTable): string[][] {
  const key = table.primaryKey === undefined ? '' : `PRI(${table.primaryKey.join(', ')})`;
  return table.columns.map((c) => {
    const rowtime = table.watermark?.column === c.name;
    const proctime = c.computed?.kind === 'call' && c.computed.name === 'PROCTIME';
    const primary = table.primaryKey?.includes(c.name) === true;
    const extras =
      c.computed !== undefined
        ? `AS ${c.computedText ?? '<expression>'}`
        : c.metadata !== undefined
          ? `METADATA FROM ${literal(c.metadata.key)}${c.metadata.virtual ? ' VIRTUAL' : ''}`
          : '';
    return [
      c.name,
      `${typeWithoutNullability(c.type)}${rowtime ? ' *ROWTIME*' : proctime ? ' *PROCTIME*' : ''}`,
      c.type.nullable ? 'TRUE' : 'FALSE',
      primary ? key : '',
      extras,
      rowtime ? (table.watermark?.text ?? '<expression>') : '',
    ];
  });
}

/** DESCRIBE rows of a view's columns (name and type from its planned query). */
export function describeViewRows(
  columns: readonly {
    readonly name: string;
    readonly type: LogicalType;
    readonly rowtime: boolean;
    readonly proctime?: boolean;
  }[],
): string[][] {
  return columns.map((c) => [
    c.name,
    `${typeWithoutNullability(c.type)}${c.rowtime ? ' *ROWTIME*' : c.proctime === true ? ' *PROCTIME*' : ''}`,
    c.type.nullable ? 'TRUE' : 'FALSE',
    '',
    '',
    '',
  ]);
}

/** The CREATE TABLE statement that defines `table` now (after any ALTER). */
export function createTableText(table: CatalogTable, path: ObjectPath, temporary = false): string {
  // Each column's COMMENT, and the table's, as Flink's SHOW CREATE TABLE writes them.
  const comment = (text: string | undefined) =>
    text === undefined ? '' : ` COMMENT ${literal(text)}`;
  const parts = table.columns.map((c) => {
    if (c.computed !== undefined)
      return `  ${quoted(c.name)} AS ${c.computedText ?? '<expression>'}${comment(c.comment)}`;
    const metadata =
      c.metadata === undefined
        ? ''
        : ` METADATA${c.metadata.key === c.name ? '' : ` FROM ${literal(c.metadata.key)}`}${c.metadata.virtual ? ' VIRTUAL' : ''}`;
    return `  ${quoted(c.name)} ${formatType(c.type)}${metadata}${comment(c.comment)}`;
  });
  if (table.watermark !== undefined)
    parts.push(
      `  WATERMARK FOR ${quoted(table.watermark.column)} AS ${table.watermark.text ?? '<expression>'}`,
    );
  if (table.primaryKey !== undefined)
    parts.push(`  PRIMARY KEY (${table.primaryKey.map(quoted).join(', ')}) NOT ENFORCED`);
  const partitions =
    table.partitionKeys === undefined
      ? ''
      : `\nPARTITIONED BY (${table.partitionKeys.map(quoted).join(', ')})`;
  const options = [...table.options.values()].map(
    (o) => `  ${literal(o.key)} = ${literal(o.value)}`,
  );
  // A temporary table says so, as Flink's SHOW CREATE TABLE does.
  return `CREATE ${temporary ? 'TEMPORARY ' : ''}TABLE ${qualified(path)} (\n${parts.join(',\n')}\n)${comment(table.comment)}${partitions} WITH (\n${options.join(',\n')}\n)`;
}

/** The CREATE VIEW statement of `view`. */
export function createViewText(view: CatalogView, path: ObjectPath, temporary = false): string {
  const columns = view.columns === undefined ? '' : ` (${view.columns.map(quoted).join(', ')})`;
  return `CREATE ${temporary ? 'TEMPORARY ' : ''}VIEW ${qualified(path)}${columns} AS\n${view.text}`;
}

/** `catalog`.`database`.`name`, quoted. */
export const qualified = (path: ObjectPath): string =>
  `${quoted(path.catalog)}.${quoted(path.database)}.${quoted(path.name)}`;

/** `table` with options set (ALTER TABLE ... SET) or removed (RESET). */
export function withOptions(
  table: CatalogTable,
  set: readonly TableOption[],
  reset: readonly string[],
  at: Statement['at'],
): CatalogTable {
  const options = new Map(table.options);
  for (const o of set) options.set(o.key, o);
  for (const key of reset) {
    if (key === 'connector')
      sqlError("ALTER TABLE ... RESET cannot remove the 'connector' option", at);
    options.delete(key);
  }
  const connector = options.get('connector') as TableOption;
  return { ...table, options, connector: connector.value };
}
