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
  readonly watermark: { readonly column: string; readonly expr: Expr } | undefined;
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

export class Catalog {
  private readonly objects = new Map<string, CatalogObject>();

  register(object: CatalogObject, ifNotExists: boolean, at: SourcePosition): void {
    if (this.objects.has(object.name)) {
      if (ifNotExists) return;
      sqlError(`a table or view named '${object.name}' already exists`, at);
    }
    this.objects.set(object.name, object);
  }

  get(name: string, at?: SourcePosition): CatalogObject {
    const object = this.objects.get(name);
    if (object === undefined) {
      const known = [...this.objects.keys()];
      sqlError(
        `table or view '${name}' not found${known.length === 0 ? '' : `; known: ${known.join(', ')}`}`,
        at,
      );
    }
    return object;
  }

  names(): string[] {
    return [...this.objects.keys()];
  }
}
