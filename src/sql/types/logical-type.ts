/**
 * Flink's logical types as data. Each type says whether it admits NULL. How values of each
 * type are held at run time is fixed (see {@link ../values.ts}): rows keep one shape per query.
 */

export type IntegerKind = 'TINYINT' | 'SMALLINT' | 'INTEGER' | 'BIGINT';

export type LogicalType =
  | { readonly kind: 'NULL'; readonly nullable: true }
  | { readonly kind: 'BOOLEAN'; readonly nullable: boolean }
  | { readonly kind: IntegerKind; readonly nullable: boolean }
  | { readonly kind: 'FLOAT' | 'DOUBLE'; readonly nullable: boolean }
  | {
      readonly kind: 'DECIMAL';
      readonly nullable: boolean;
      readonly precision: number;
      readonly scale: number;
    }
  | { readonly kind: 'CHAR' | 'VARCHAR'; readonly nullable: boolean; readonly length: number }
  | { readonly kind: 'BINARY' | 'VARBINARY'; readonly nullable: boolean; readonly length: number }
  | { readonly kind: 'DATE'; readonly nullable: boolean }
  | { readonly kind: 'TIME'; readonly nullable: boolean; readonly precision: number }
  | {
      readonly kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ';
      readonly nullable: boolean;
      readonly precision: number;
    }
  | { readonly kind: 'INTERVAL_DAY_TIME' | 'INTERVAL_YEAR_MONTH'; readonly nullable: boolean }
  | { readonly kind: 'ROW'; readonly nullable: boolean; readonly fields: readonly RowField[] }
  | { readonly kind: 'ARRAY'; readonly nullable: boolean; readonly element: LogicalType }
  /** Held as a Map from element to its multiplicity (an INT), as Flink's MapData of a MULTISET. */
  | { readonly kind: 'MULTISET'; readonly nullable: boolean; readonly element: LogicalType }
  | {
      readonly kind: 'MAP';
      readonly nullable: boolean;
      readonly key: LogicalType;
      readonly value: LogicalType;
    };

export interface RowField {
  readonly name: string;
  readonly type: LogicalType;
}

export type TypeKind = LogicalType['kind'];

/** VARCHAR's largest length: `STRING` is `VARCHAR(2147483647)`, `BYTES` is `VARBINARY(...)`. */
export const MAX_LENGTH = 2147483647;
/** DECIMAL's largest precision. */
export const MAX_PRECISION = 38;

export const T = {
  null: (): LogicalType => ({ kind: 'NULL', nullable: true }),
  boolean: (nullable = true): LogicalType => ({ kind: 'BOOLEAN', nullable }),
  int: (kind: IntegerKind = 'INTEGER', nullable = true): LogicalType => ({ kind, nullable }),
  bigint: (nullable = true): LogicalType => ({ kind: 'BIGINT', nullable }),
  double: (nullable = true): LogicalType => ({ kind: 'DOUBLE', nullable }),
  decimal: (precision: number, scale: number, nullable = true): LogicalType => ({
    kind: 'DECIMAL',
    nullable,
    precision,
    scale,
  }),
  string: (nullable = true): LogicalType => ({ kind: 'VARCHAR', nullable, length: MAX_LENGTH }),
  char: (length: number, nullable = true): LogicalType => ({ kind: 'CHAR', nullable, length }),
  date: (nullable = true): LogicalType => ({ kind: 'DATE', nullable }),
  timestamp: (precision = 3, nullable = true): LogicalType => ({
    kind: 'TIMESTAMP',
    nullable,
    precision,
  }),
  intervalDayTime: (nullable = false): LogicalType => ({ kind: 'INTERVAL_DAY_TIME', nullable }),
} as const;

const INTEGER_RANK: Readonly<Record<IntegerKind, number>> = {
  TINYINT: 1,
  SMALLINT: 2,
  INTEGER: 3,
  BIGINT: 4,
};

/** Decimal precision that holds every value of an integer type. */
export const INTEGER_PRECISION: Readonly<Record<IntegerKind, number>> = {
  TINYINT: 3,
  SMALLINT: 5,
  INTEGER: 10,
  BIGINT: 19,
};

export function isInteger(t: LogicalType): t is LogicalType & { kind: IntegerKind } {
  return t.kind in INTEGER_RANK;
}

export function isApproximate(t: LogicalType): boolean {
  return t.kind === 'FLOAT' || t.kind === 'DOUBLE';
}

export function isNumeric(t: LogicalType): boolean {
  return isInteger(t) || isApproximate(t) || t.kind === 'DECIMAL';
}

export function isCharacterString(
  t: LogicalType,
): t is LogicalType & { kind: 'CHAR' | 'VARCHAR'; length: number } {
  return t.kind === 'CHAR' || t.kind === 'VARCHAR';
}

export function isTimestamp(
  t: LogicalType,
): t is LogicalType & { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ'; precision: number } {
  return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ';
}

/** A TIMESTAMP(p) or TIMESTAMP_LTZ(p) above p = 3, whose values are epoch nanoseconds (bigints). */
export function isPreciseTimestamp(
  t: LogicalType,
): t is LogicalType & { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ'; precision: number } {
  return isTimestamp(t) && t.precision > 3;
}

export function integerRank(kind: IntegerKind): number {
  return INTEGER_RANK[kind];
}

/** The same type, nullable or not. */
export function withNullability(t: LogicalType, nullable: boolean): LogicalType {
  if (t.kind === 'NULL' || t.nullable === nullable) return t;
  return { ...t, nullable } as LogicalType;
}

/** `t` as a DECIMAL: integers become DECIMAL(p, 0) with enough digits; decimals stay. */
export function asDecimal(t: LogicalType): { precision: number; scale: number } | undefined {
  if (t.kind === 'DECIMAL') return { precision: t.precision, scale: t.scale };
  if (isInteger(t)) return { precision: INTEGER_PRECISION[t.kind], scale: 0 };
  return undefined;
}

/**
 * A MULTISET as Flink casts, compares and writes it: a MAP of each element to its multiplicity
 * (an INT NOT NULL), the same Map value.
 */
export function multisetAsMap(
  t: LogicalType & { kind: 'MULTISET' },
): LogicalType & { kind: 'MAP' } {
  return { kind: 'MAP', nullable: t.nullable, key: t.element, value: T.int('INTEGER', false) };
}

/** Flink's rendering of a type, e.g. `DECIMAL(24, 3) NOT NULL`, `VARCHAR(2147483647)` as `STRING`. */
export function formatType(t: LogicalType): string {
  const notNull = t.kind !== 'NULL' && !t.nullable ? ' NOT NULL' : '';
  switch (t.kind) {
    case 'DECIMAL':
      return `DECIMAL(${t.precision}, ${t.scale})${notNull}`;
    case 'CHAR':
      return `CHAR(${t.length})${notNull}`;
    case 'VARCHAR':
      return `${t.length === MAX_LENGTH ? 'STRING' : `VARCHAR(${t.length})`}${notNull}`;
    case 'BINARY':
      return `BINARY(${t.length})${notNull}`;
    case 'VARBINARY':
      return `${t.length === MAX_LENGTH ? 'BYTES' : `VARBINARY(${t.length})`}${notNull}`;
    case 'TIME':
      return `TIME(${t.precision})${notNull}`;
    case 'TIMESTAMP':
      return `TIMESTAMP(${t.precision})${notNull}`;
    case 'TIMESTAMP_LTZ':
      return `TIMESTAMP_LTZ(${t.precision})${notNull}`;
    case 'INTERVAL_DAY_TIME':
      return `INTERVAL SECOND(3)${notNull}`;
    case 'INTERVAL_YEAR_MONTH':
      return `INTERVAL MONTH${notNull}`;
    case 'ROW':
      return `ROW<${t.fields.map((f) => `\`${f.name}\` ${formatType(f.type)}`).join(', ')}>${notNull}`;
    case 'ARRAY':
      return `ARRAY<${formatType(t.element)}>${notNull}`;
    case 'MULTISET':
      return `MULTISET<${formatType(t.element)}>${notNull}`;
    case 'MAP':
      return `MAP<${formatType(t.key)}, ${formatType(t.value)}>${notNull}`;
    case 'INTEGER':
      return `INT${notNull}`;
    default:
      return `${t.kind}${notNull}`;
  }
}

/**
 * The common type of several (for CASE, COALESCE, comparisons, UNION): Flink's widening among
 * numbers (integers < DECIMAL < DOUBLE; an integer with a FLOAT is a FLOAT, a DECIMAL with one a
 * DOUBLE), the longer string, the finer timestamp; undefined when they have none.
 */
export function commonType(types: readonly LogicalType[]): LogicalType | undefined {
  let acc: LogicalType | undefined;
  for (const t of types) {
    acc = acc === undefined ? t : commonOfTwo(acc, t);
    if (acc === undefined) return undefined;
  }
  return acc;
}

function commonOfTwo(a: LogicalType, b: LogicalType): LogicalType | undefined {
  const nullable = a.nullable || b.nullable;
  if (a.kind === 'NULL') return withNullability(b, true);
  if (b.kind === 'NULL') return withNullability(a, true);
  if (isNumeric(a) && isNumeric(b)) {
    if (isApproximate(a) || isApproximate(b)) {
      return {
        kind:
          a.kind === 'DOUBLE' || b.kind === 'DOUBLE' || a.kind === 'DECIMAL' || b.kind === 'DECIMAL'
            ? 'DOUBLE'
            : 'FLOAT',
        nullable,
      };
    }
    if (isInteger(a) && isInteger(b)) {
      return { kind: integerRank(a.kind) >= integerRank(b.kind) ? a.kind : b.kind, nullable };
    }
    const da = asDecimal(a);
    const db = asDecimal(b);
    if (da === undefined || db === undefined) return undefined;
    const scale = Math.max(da.scale, db.scale);
    const whole = Math.max(da.precision - da.scale, db.precision - db.scale);
    return T.decimal(Math.min(MAX_PRECISION, whole + scale), scale, nullable);
  }
  if (isCharacterString(a) && isCharacterString(b)) {
    const length = Math.max(a.length, b.length);
    if (a.kind === 'CHAR' && b.kind === 'CHAR' && a.length === b.length) return { ...a, nullable };
    return { kind: 'VARCHAR', length, nullable };
  }
  if (isTimestamp(a) && isTimestamp(b)) {
    // A TIMESTAMP meets a TIMESTAMP_LTZ as the instant it names in the session zone, as in Flink.
    const kind = a.kind === b.kind ? a.kind : 'TIMESTAMP_LTZ';
    return { kind, precision: Math.max(a.precision, b.precision), nullable };
  }
  if ((a.kind === 'DATE' && isTimestamp(b)) || (b.kind === 'DATE' && isTimestamp(a))) {
    return withNullability(isTimestamp(a) ? a : b, nullable);
  }
  if (
    a.kind === b.kind &&
    (a.kind === 'BOOLEAN' ||
      a.kind === 'DATE' ||
      a.kind === 'INTERVAL_DAY_TIME' ||
      a.kind === 'INTERVAL_YEAR_MONTH')
  ) {
    return withNullability(a, nullable);
  }
  if (a.kind === 'TIME' && b.kind === 'TIME')
    return { kind: 'TIME', precision: Math.max(a.precision, b.precision), nullable };
  return commonOfCollections(a, b, nullable);
}

/**
 * Arrays of a common element type, maps of common keys and values, rows of as many fields
 * with common types (named as the first's, as Calcite's least restrictive row type), BYTES of
 * any length.
 */
function commonOfCollections(
  a: LogicalType,
  b: LogicalType,
  nullable: boolean,
): LogicalType | undefined {
  if ((a.kind === 'ARRAY' || a.kind === 'MULTISET') && a.kind === b.kind) {
    const element = commonType([a.element, b.element]);
    return element === undefined ? undefined : { kind: a.kind, nullable, element };
  }
  if (a.kind === 'ROW' && b.kind === 'ROW') {
    if (a.fields.length !== b.fields.length) return undefined;
    const fields: RowField[] = [];
    for (let i = 0; i < a.fields.length; i++) {
      const fa = a.fields[i] as RowField;
      const type = commonType([fa.type, (b.fields[i] as RowField).type]);
      if (type === undefined) return undefined;
      fields.push({ name: fa.name, type });
    }
    return { kind: 'ROW', nullable, fields };
  }
  if (a.kind === 'MAP' && b.kind === 'MAP') {
    const key = commonType([a.key, b.key]);
    const value = commonType([a.value, b.value]);
    return key === undefined || value === undefined
      ? undefined
      : { kind: 'MAP', nullable, key, value };
  }
  if (
    (a.kind === 'BINARY' || a.kind === 'VARBINARY') &&
    (b.kind === 'BINARY' || b.kind === 'VARBINARY')
  ) {
    if (a.kind === 'BINARY' && b.kind === 'BINARY' && a.length === b.length)
      return { ...a, nullable };
    return { kind: 'VARBINARY', nullable, length: Math.max(a.length, b.length) };
  }
  return undefined;
}
