import {
  asDecimal,
  integerRank,
  isApproximate,
  isInteger,
  isNumeric,
  type LogicalType,
  MAX_PRECISION,
  T,
  withNullability,
} from '../types/logical-type.js';

/** Flink's result type of `a op b` for numbers (DECIMAL rules of LogicalTypeMerging). */
export function arithmeticType(
  op: '+' | '-' | '*' | '/',
  a: LogicalType,
  b: LogicalType,
): LogicalType | undefined {
  const nullable = a.nullable || b.nullable;
  if (!isNumeric(a) || !isNumeric(b)) return undefined;
  // FLOAT with FLOAT or an integer stays FLOAT; with a DOUBLE or a DECIMAL it is a DOUBLE.
  if (isApproximate(a) || isApproximate(b))
    return a.kind === 'DOUBLE' ||
      b.kind === 'DOUBLE' ||
      a.kind === 'DECIMAL' ||
      b.kind === 'DECIMAL'
      ? T.double(nullable)
      : { kind: 'FLOAT', nullable };
  if (isInteger(a) && isInteger(b))
    return { kind: integerRank(a.kind) >= integerRank(b.kind) ? a.kind : b.kind, nullable };
  const da = asDecimal(a) as { precision: number; scale: number };
  const db = asDecimal(b) as { precision: number; scale: number };
  switch (op) {
    case '+':
    case '-': {
      const scale = Math.max(da.scale, db.scale);
      const whole = Math.max(da.precision - da.scale, db.precision - db.scale) + 1;
      return adjusted(whole + scale, scale, nullable);
    }
    case '*':
      // One digit more than the factors' together, as Flink's (Hive's) rule has it.
      return adjusted(da.precision + db.precision + 1, da.scale + db.scale, nullable);
    case '/': {
      const whole = da.precision - da.scale + db.scale;
      let scale = Math.max(6, da.scale + db.precision + 1);
      let precision = whole + scale;
      if (precision > MAX_PRECISION) {
        scale = Math.max(6, MAX_PRECISION - whole);
        precision = MAX_PRECISION;
      }
      return T.decimal(precision, Math.min(scale, precision), nullable);
    }
  }
}

/**
 * Flink's type of MOD(a, b) and of `a % b` (Calcite's NULLABLE_MOD, FlinkTypeSystem's
 * deriveDecimalModType): b's type when both scales are 0 (an integer's is), else
 * LogicalTypeMerging.findModuloDecimalType; undefined unless both are exact numbers.
 */
export function moduloType(a: LogicalType, b: LogicalType): LogicalType | undefined {
  const da = asDecimal(a);
  const db = asDecimal(b);
  if (da === undefined || db === undefined) return undefined;
  const nullable = a.nullable || b.nullable;
  if (da.scale === 0 && db.scale === 0) return withNullability(b, nullable);
  // At most 38 digits: the smaller whole part plus the larger scale.
  const scale = Math.max(da.scale, db.scale);
  const whole = Math.min(da.precision - da.scale, db.precision - db.scale);
  return T.decimal(whole + scale, scale, nullable);
}

/**
 * Flink's type of ROUND and TRUNCATE of a DECIMAL(p, s) to r digits
 * (LogicalTypeMerging.findRoundDecimalType): DECIMAL(p, s) when r >= s, else one digit more
 * than the digits kept for the carry of rounding, at most 38.
 */
export function roundDecimalType(
  precision: number,
  scale: number,
  digits: number,
  nullable: boolean,
): LogicalType {
  if (digits >= scale) return T.decimal(precision, scale, nullable);
  const kept = Math.max(digits, 0);
  return T.decimal(Math.min(MAX_PRECISION, 1 + precision - scale + kept), kept, nullable);
}

/** Keeps a DECIMAL within 38 digits, giving up fraction digits (down to 6) first. */
function adjusted(precision: number, scale: number, nullable: boolean): LogicalType {
  if (precision <= MAX_PRECISION) return T.decimal(precision, scale, nullable);
  const whole = precision - scale;
  const newScale = Math.max(Math.min(scale, 6), MAX_PRECISION - whole);
  return T.decimal(MAX_PRECISION, Math.min(newScale, MAX_PRECISION), nullable);
}
