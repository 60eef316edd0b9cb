/** The tables and views a table environment knows, by name (Flink's temporary objects). */
import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { DataStream } from '../../api/streams.js';
import type { Expr, Query, TableOption } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';

/** A column of a table: physical (read from the connector) or computed from the others. */
export interface TableColumn {
  readonly name: string;
  readonly type: LogicalType;
  /** The expression of a computed column (`name AS expr`); undefined for a physical column. */
  readonly computed: Expr | undefined;
  /** A computed column's expression as written (SHOW CREATE TABLE). */
  readonly computedText?: string;
  /**
   * A METADATA column: the connector's metadata key it reads (`offset`, `timestamp`) and whether
   * it is VIRTUAL (read only, not written by INSERT INTO). Its value sits in the row like a
   * physical column's.
   */
  readonly metadata?: { readonly key: string; readonly virtual: boolean };
}

export interface CatalogTable {
  readonly kind: 'table';
  readonly name: string;
  /** Physical columns first, in declaration order, then computed ones (as Flink lays rows out). */
  readonly columns: readonly TableColumn[];
  readonly watermark:
    | { readonly column: string; readonly expr: Expr; readonly text?: string }
    | undefined;
  readonly primaryKey: readonly string[] | undefined;
  /** `PARTITIONED BY` columns (the filesystem connector writes a directory per value). */
  readonly partitionKeys?: readonly string[];
  readonly options: ReadonlyMap<string, TableOption>;
  readonly connector: string;
  /**
   * A table made from a DataStream of rows (`TableEnvironment.fromDataStream`): its rows come
   * from that stream, which belongs to one environment's job.
   */
  readonly dataStream?: { readonly env: StreamEnvironment; readonly stream: DataStream<unknown[]> };
  readonly at: SourcePosition;
}

export interface CatalogView {
  readonly kind: 'view';
  readonly name: string;
  readonly query: Query;
  readonly text: string;
}

export type CatalogObject = CatalogTable | CatalogView;

/** The one catalog and database Weir has (Flink's defaults, as SHOW CATALOGS lists them). */
export const DEFAULT_CATALOG = 'default_catalog';
export const DEFAULT_DATABASE = 'default_database';

/**
 * `name` without a leading `default_catalog.default_database.` or `default_database.`: the
 * objects of the one database are named either way, as in Flink.
 */
export function objectName(name: string): string {
  for (const prefix of [`${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.`, `${DEFAULT_DATABASE}.`])
    if (name.startsWith(prefix)) return name.slice(prefix.length);
  return name;
}

export class Catalog {
  private readonly objects = new Map<string, CatalogObject>();

  register(object: CatalogObject, ifNotExists: boolean, at: SourcePosition): void {
    const name = objectName(object.name);
    if (this.objects.has(name)) {
      if (ifNotExists) return;
      sqlError(`a table or view named '${name}' already exists`, at);
    }
    this.objects.set(name, name === object.name ? object : { ...object, name });
  }

  has(name: string): boolean {
    return this.objects.has(objectName(name));
  }

  get(name: string, at?: SourcePosition): CatalogObject {
    const object = this.objects.get(objectName(name));
    if (object === undefined) {
      const known = [...this.objects.keys()];
      sqlError(
        `table or view '${name}' not found${known.length === 0 ? '' : `; known: ${known.join(', ')}`}`,
        at,
      );
    }
    return object;
  }

  /** Replaces an object by a new definition of the same name (ALTER). */
  replace(object: CatalogObject): void {
    this.objects.set(objectName(object.name), object);
  }

  /** Removes an object; whether it was there. */
  drop(name: string): boolean {
    return this.objects.delete(objectName(name));
  }

  names(): string[] {
    return [...this.objects.keys()];
  }
}
