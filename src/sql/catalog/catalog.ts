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
  /** The column's `COMMENT '...'` (SHOW CREATE TABLE). */
  readonly comment?: string;
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
  /** The table's `COMMENT '...'` (SHOW CREATE TABLE). */
  readonly comment?: string;
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
  /** Names the view gives its query's columns (`CREATE VIEW v (a, b) AS ...`). */
  readonly columns?: readonly string[];
}

export type CatalogObject = CatalogTable | CatalogView;

interface CatalogInfo {
  comment: string;
  /** The WITH options, `type` among them. */
  readonly options: Map<string, string>;
}

interface DatabaseInfo {
  readonly comment: string;
  readonly properties: Map<string, string>;
}

/** What ALTER CATALOG changes. */
export type CatalogChange =
  | { readonly kind: 'set'; readonly options: readonly (readonly [string, string])[] }
  | { readonly kind: 'reset'; readonly keys: readonly string[] }
  | { readonly kind: 'comment'; readonly comment: string };

const byKey = ([a]: readonly [string, string], [b]: readonly [string, string]): number =>
  a < b ? -1 : a > b ? 1 : 0;

/** The one catalog and database Weir has (Flink's defaults, as SHOW CATALOGS lists them). */
export const DEFAULT_CATALOG = 'default_catalog';
export const DEFAULT_DATABASE = 'default_database';

/**
 * `name` without a leading `default_catalog.default_database.` or `default_database.`: the
 * objects of the default database are named either way, as in Flink.
 */
export function objectName(name: string): string {
  for (const prefix of [`${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.`, `${DEFAULT_DATABASE}.`])
    if (name.startsWith(prefix)) return name.slice(prefix.length);
  return name;
}

/** Where an object lives: its catalog, its database and its own name. */
export interface ObjectPath {
  readonly catalog: string;
  readonly database: string;
  readonly name: string;
}

/**
 * An object's key: its name in the default database, `db.name` in another database of the
 * default catalog, `catalog.db.name` elsewhere (what the object's `name` field holds).
 */
function keyOf({ catalog, database, name }: ObjectPath): string {
  if (catalog === DEFAULT_CATALOG)
    return database === DEFAULT_DATABASE ? name : `${database}.${name}`;
  return `${catalog}.${database}.${name}`;
}

/**
 * The tables and views a table environment knows (Flink's temporary objects and in-memory
 * catalogs): `default_catalog` with `default_database` to start with, and the catalogs and
 * databases CREATE CATALOG and CREATE DATABASE add. A name resolves against the current
 * catalog and database (USE), as in Flink: `t`, `db.t`, `catalog.db.t`.
 */
export class Catalog {
  private readonly objects = new Map<string, CatalogObject>();
  /**
   * Temporary tables and views (CREATE TEMPORARY ...): as in Flink, one may share its name with
   * a permanent object, which it hides until it is dropped.
   */
  private readonly temporaries = new Map<string, CatalogObject>();
  private readonly paths = new Map<string, ObjectPath>();
  private readonly databases = new Map<string, Set<string>>([
    [DEFAULT_CATALOG, new Set([DEFAULT_DATABASE])],
  ]);
  private current = { catalog: DEFAULT_CATALOG, database: DEFAULT_DATABASE };
  /** What CREATE / ALTER CATALOG said of each catalog (DESCRIBE CATALOG shows it). */
  private readonly catalogInfo = new Map<string, CatalogInfo>([
    [DEFAULT_CATALOG, { comment: '', options: new Map([['type', 'generic_in_memory']]) }],
  ]);
  /** Each database's comment and properties (CREATE / ALTER DATABASE), by `catalog.database`. */
  private readonly databaseInfo = new Map<string, DatabaseInfo>();

  get currentCatalog(): string {
    return this.current.catalog;
  }

  get currentDatabase(): string {
    return this.current.database;
  }

  /** The path `name` stands for (`t`, `db.t`, `catalog.db.t`), its catalog and database checked. */
  resolve(name: string, at?: SourcePosition): ObjectPath {
    const parts = name.split('.');
    if (parts.length > 3) sqlError(`'${name}' has more parts than catalog.database.name`, at);
    const leaf = parts[parts.length - 1] as string;
    const database =
      parts.length >= 2 ? (parts[parts.length - 2] as string) : this.current.database;
    const catalog = parts.length === 3 ? (parts[0] as string) : this.current.catalog;
    this.checkDatabase(catalog, database, at);
    return { catalog, database, name: leaf };
  }

  register(
    object: CatalogObject,
    ifNotExists: boolean,
    at: SourcePosition,
    temporary = false,
  ): void {
    const path = this.resolve(object.name, at);
    const key = keyOf(path);
    const layer = temporary ? this.temporaries : this.objects;
    if (layer.has(key)) {
      if (ifNotExists) return;
      sqlError(`a ${temporary ? 'temporary ' : ''}table or view named '${key}' already exists`, at);
    }
    layer.set(key, key === object.name ? object : { ...object, name: key });
    this.paths.set(key, path);
  }

  /** Whether a temporary object named `name` hides a permanent one. */
  hidesPermanent(name: string): boolean {
    if (!this.has(name)) return false;
    const key = keyOf(this.resolve(name));
    return this.temporaries.has(key) && this.objects.has(key);
  }

  /** Whether the object `name` stands for is a temporary one (hiding any permanent one). */
  isTemporary(name: string): boolean {
    return this.has(name) && this.temporaries.has(keyOf(this.resolve(name)));
  }

  has(name: string): boolean {
    const parts = name.split('.');
    const database = parts.length >= 2 ? parts[parts.length - 2] : this.current.database;
    const catalog = parts.length === 3 ? parts[0] : this.current.catalog;
    const leaf = parts[parts.length - 1] as string;
    if (catalog === undefined || database === undefined) return false;
    const key = keyOf({ catalog, database, name: leaf });
    return this.temporaries.has(key) || this.objects.has(key);
  }

  get(name: string, at?: SourcePosition): CatalogObject {
    const key = this.has(name) ? keyOf(this.resolve(name, at)) : undefined;
    const object =
      key === undefined ? undefined : (this.temporaries.get(key) ?? this.objects.get(key));
    if (object === undefined) {
      const known = this.names();
      sqlError(
        `table or view '${name}' not found${known.length === 0 ? '' : `; known: ${known.join(', ')}`}`,
        at,
      );
    }
    return object;
  }

  /** The catalog, database and name of an object held (by its `name`). */
  pathOf(object: CatalogObject): ObjectPath {
    return (
      this.paths.get(object.name) ?? {
        catalog: DEFAULT_CATALOG,
        database: DEFAULT_DATABASE,
        name: object.name,
      }
    );
  }

  /** Replaces an object by a new definition of the same name (ALTER). */
  replace(object: CatalogObject): void {
    const path = this.resolve(object.name);
    const key = keyOf(path);
    const layer = this.temporaries.has(key) ? this.temporaries : this.objects;
    layer.set(key, key === object.name ? object : { ...object, name: key });
    this.paths.set(key, path);
  }

  /**
   * Removes an object; whether it was there. `temporary` (DROP TEMPORARY ...) removes only a
   * temporary one; otherwise the permanent one, which a temporary one of the same name keeps
   * from being dropped (as in Flink), or a temporary one that is alone.
   */
  drop(name: string, temporary = false, at?: SourcePosition): boolean {
    if (!this.has(name)) return false;
    const key = keyOf(this.resolve(name));
    let dropped: boolean;
    if (temporary) dropped = this.temporaries.delete(key);
    else if (this.objects.has(key)) {
      if (this.temporaries.has(key))
        sqlError(
          `a temporary ${(this.temporaries.get(key) as CatalogObject).kind} named '${key}' exists: drop it first (DROP TEMPORARY ...) before the permanent one`,
          at,
        );
      dropped = this.objects.delete(key);
    } else dropped = this.temporaries.delete(key);
    if (!this.temporaries.has(key) && !this.objects.has(key)) this.paths.delete(key);
    return dropped;
  }

  /** The names of the objects of a database (the current one by default), as SHOW TABLES lists them. */
  names(database?: string, at?: SourcePosition): string[] {
    const parts = database?.split('.') ?? [];
    const db = parts.length === 0 ? this.current.database : (parts[parts.length - 1] as string);
    const catalog = parts.length === 2 ? (parts[0] as string) : this.current.catalog;
    if (parts.length > 2) sqlError(`'${database}' is not a database name`, at);
    this.checkDatabase(catalog, db, at);
    return [...this.paths.values()]
      .filter((p) => p.catalog === catalog && p.database === db)
      .map((p) => p.name);
  }

  catalogs(): string[] {
    return [...this.databases.keys()];
  }

  /** The databases of a catalog (the current one by default). */
  databasesOf(catalog = this.current.catalog, at?: SourcePosition): string[] {
    const databases = this.databases.get(catalog);
    if (databases === undefined) return sqlError(`catalog '${catalog}' does not exist`, at);
    return [...databases];
  }

  /**
   * An in-memory catalog; its first database is named by the `default-database` option
   * (`default_database` without it), where USE CATALOG lands.
   */
  createCatalog(
    name: string,
    ifNotExists: boolean,
    at: SourcePosition,
    options: ReadonlyMap<string, string> = new Map([['type', 'generic_in_memory']]),
    comment = '',
  ): void {
    if (this.databases.has(name)) {
      if (ifNotExists) return;
      sqlError(`catalog '${name}' already exists`, at);
    }
    this.databases.set(name, new Set([options.get('default-database') ?? DEFAULT_DATABASE]));
    this.catalogInfo.set(name, { comment, options: new Map(options) });
  }

  /** DESCRIBE CATALOG [EXTENDED]: name, type and comment, and with EXTENDED the other options. */
  describeCatalog(name: string, extended: boolean, at: SourcePosition): string[][] {
    const info = this.catalogInfo.get(name);
    if (info === undefined || !this.databases.has(name))
      return sqlError(`catalog '${name}' does not exist`, at);
    const rows = [
      ['name', name],
      ['type', info.options.get('type') ?? ''],
      ['comment', info.comment],
    ];
    if (!extended) return rows;
    const options = [...info.options].filter(([k]) => k !== 'type').sort(byKey);
    return [...rows, ...options.map(([k, v]) => [`option:${k}`, v])];
  }

  /** ALTER CATALOG c SET (...) / RESET (...) / COMMENT '...', as Flink 2.0 takes them. */
  alterCatalog(name: string, change: CatalogChange, at: SourcePosition): void {
    const info = this.catalogInfo.get(name);
    if (info === undefined || !this.databases.has(name))
      sqlError(`catalog '${name}' does not exist`, at);
    if (change.kind === 'comment') {
      info.comment = change.comment;
      return;
    }
    const keys = change.kind === 'set' ? change.options.map(([k]) => k) : change.keys;
    if (keys.length === 0 || keys.some((k) => k.trim() === ''))
      sqlError(`ALTER CATALOG ${change.kind.toUpperCase()} does not take an empty key`, at);
    if (
      keys.includes('type') &&
      (change.kind === 'reset' ||
        change.options.some(([k, v]) => k === 'type' && v !== info.options.get('type')))
    )
      sqlError(`ALTER CATALOG ${name} does not support changing 'type'`, at);
    if (change.kind === 'set') for (const [k, v] of change.options) info.options.set(k, v);
    else for (const k of change.keys) info.options.delete(k);
  }

  /** ALTER DATABASE db SET (...): the database's properties, set or replaced one by one. */
  alterDatabase(
    name: string,
    properties: readonly (readonly [string, string])[],
    at: SourcePosition,
  ): void {
    const { catalog, database } = this.databasePath(name, at);
    this.checkDatabase(catalog, database, at);
    const info = this.infoOf(catalog, database);
    for (const [k, v] of properties) info.properties.set(k, v);
  }

  /** A database's comment and properties. */
  databaseDetails(
    name: string,
    at: SourcePosition,
  ): { comment: string; properties: [string, string][] } {
    const { catalog, database } = this.databasePath(name, at);
    this.checkDatabase(catalog, database, at);
    const info = this.infoOf(catalog, database);
    return { comment: info.comment, properties: [...info.properties].sort(byKey) };
  }

  private infoOf(catalog: string, database: string): DatabaseInfo {
    const key = `${catalog}.${database}`;
    let info = this.databaseInfo.get(key);
    if (info === undefined) {
      info = { comment: '', properties: new Map() };
      this.databaseInfo.set(key, info);
    }
    return info;
  }

  dropCatalog(name: string, ifExists: boolean, at: SourcePosition): void {
    if (!this.databases.has(name)) {
      if (ifExists) return;
      sqlError(`catalog '${name}' does not exist`, at);
    }
    if (name === this.current.catalog)
      sqlError(
        `cannot drop catalog '${name}': it is the current one (USE CATALOG another first)`,
        at,
      );
    for (const [key, path] of this.paths)
      if (path.catalog === name) {
        this.paths.delete(key);
        this.objects.delete(key);
        this.temporaries.delete(key);
      }
    this.databases.delete(name);
    this.catalogInfo.delete(name);
    for (const key of [...this.databaseInfo.keys()])
      if (key.startsWith(`${name}.`)) this.databaseInfo.delete(key);
  }

  createDatabase(
    name: string,
    ifNotExists: boolean,
    at: SourcePosition,
    comment = '',
    properties: readonly (readonly [string, string])[] = [],
  ): void {
    const { catalog, database } = this.databasePath(name, at);
    const databases = this.databases.get(catalog) as Set<string>;
    if (databases.has(database)) {
      if (ifNotExists) return;
      sqlError(`database '${database}' already exists in catalog '${catalog}'`, at);
    }
    databases.add(database);
    this.databaseInfo.set(`${catalog}.${database}`, { comment, properties: new Map(properties) });
  }

  dropDatabase(name: string, ifExists: boolean, cascade: boolean, at: SourcePosition): void {
    const { catalog, database } = this.databasePath(name, at);
    const databases = this.databases.get(catalog) as Set<string>;
    if (!databases.has(database)) {
      if (ifExists) return;
      sqlError(`database '${database}' does not exist in catalog '${catalog}'`, at);
    }
    if (catalog === this.current.catalog && database === this.current.database)
      sqlError(`cannot drop database '${database}': it is the current one (USE another first)`, at);
    const held = [...this.paths].filter(
      ([, p]) => p.catalog === catalog && p.database === database,
    );
    if (held.length > 0 && !cascade)
      sqlError(
        `database '${database}' is not empty (${held.map(([, p]) => p.name).join(', ')}): DROP DATABASE ... CASCADE drops it with its tables and views`,
        at,
      );
    for (const [key] of held) {
      this.paths.delete(key);
      this.objects.delete(key);
      this.temporaries.delete(key);
    }
    databases.delete(database);
    this.databaseInfo.delete(`${catalog}.${database}`);
  }

  useCatalog(name: string, at: SourcePosition): void {
    const databases = this.databases.get(name);
    if (databases === undefined) sqlError(`catalog '${name}' does not exist`, at);
    // As Flink's in-memory catalogs: each has its default database, where USE CATALOG lands.
    const preferred =
      this.catalogInfo.get(name)?.options.get('default-database') ?? DEFAULT_DATABASE;
    this.current = {
      catalog: name,
      database: databases.has(preferred) ? preferred : ([...databases][0] ?? ''),
    };
  }

  useDatabase(name: string, at: SourcePosition): void {
    const { catalog, database } = this.databasePath(name, at);
    this.checkDatabase(catalog, database, at);
    this.current = { catalog, database };
  }

  /** `db` or `catalog.db`, the catalog checked. */
  private databasePath(name: string, at: SourcePosition): { catalog: string; database: string } {
    const parts = name.split('.');
    if (parts.length > 2) sqlError(`'${name}' is not a database name (catalog.database)`, at);
    const catalog = parts.length === 2 ? (parts[0] as string) : this.current.catalog;
    if (!this.databases.has(catalog)) sqlError(`catalog '${catalog}' does not exist`, at);
    return { catalog, database: parts[parts.length - 1] as string };
  }

  private checkDatabase(catalog: string, database: string, at?: SourcePosition): void {
    const databases = this.databases.get(catalog);
    if (databases === undefined) sqlError(`catalog '${catalog}' does not exist`, at);
    if (!databases.has(database))
      sqlError(`database '${database}' does not exist in catalog '${catalog}'`, at);
  }
}
