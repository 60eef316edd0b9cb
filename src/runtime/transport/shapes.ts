/**
 * Per-shape functions generated once and cached: reading the fields of many
 * objects of one shape, and building objects of one shape. Generated code uses
 * fixed property names, so V8 compiles each access to a monomorphic load or a
 * literal with one hidden class instead of a generic keyed access per field.
 * Keys enter the source only as JSON string literals, so any key text is safe.
 */

/** Copies field `k` of `records[i]` into `columns[k][i]` for every record and field. */
export type Extractor = (records: readonly unknown[], columns: unknown[][]) => void;

/**
 * Reads the fields of records of one shape in one pass, checking the shape as
 * it goes: a field marked `n` in the signature must hold a number and goes
 * into a Float64Array column, any other field into an array column. Returns
 * the index of the first record that is not a plain object with exactly the
 * shape's keys (in order) or holds a non-number in an `n` field, or the
 * number of records when all fit.
 */
export type ShapeReader = (
  records: readonly unknown[],
  columns: readonly (Float64Array | unknown[])[],
  keys: readonly string[],
) => number;

/** A column the assembler reads by index: a decoded array or a typed-array view of numbers. */
export type FieldColumn = { readonly [i: number]: unknown };

/** Builds `n` objects whose field `k` is `fields[k][i]`. */
export type Assembler = (fields: readonly FieldColumn[], n: number) => unknown[];

/** Bounded, so a stream of ever-new shapes cannot grow the caches forever. */
const MAX_CACHED = 1024;
const extractors = new Map<string, Extractor>();
const readers = new Map<string, ShapeReader | null>();
const assemblers = new Map<string, Assembler>();

/**
 * `signature` separates functions of one shape that see different column
 * types, so each keeps monomorphic element loads and stores.
 */
function cached<F>(
  cache: Map<string, F>,
  keys: readonly string[],
  make: () => F,
  signature = '',
): F {
  const id = signature + JSON.stringify(keys);
  let found = cache.get(id);
  if (found === undefined) {
    found = make();
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(id, found);
  }
  return found;
}

function columnLocals(keys: readonly string[], from: string): string {
  return keys.map((_, k) => `const c${k} = ${from}[${k}];`).join('\n');
}

export function extractor(keys: readonly string[]): Extractor {
  return cached(extractors, keys, () => {
    // Reading `r["__proto__"]` finds an own property first, so reads need no special case.
    const reads = keys.map((key, k) => `c${k}[i] = r[${JSON.stringify(key)}];`).join('\n');
    const body = `${columnLocals(keys, 'columns')}
for (let i = 0; i < records.length; i++) {
  const r = records[i];
  ${reads}
}`;
    return compile<Extractor>(['records', 'columns'], body) ?? genericExtractor(keys);
  });
}

/**
 * The {@link ShapeReader} for `keys` with field kinds `signature` (one
 * character per key, `n` for number); undefined where code generation from
 * strings is disabled (the caller then takes its generic path).
 */
export function shapeReader(keys: readonly string[], signature: string): ShapeReader | undefined {
  const read = cached(
    readers,
    keys,
    () => {
      const fields = keys
        .map((key, k) => {
          const read = `r[${JSON.stringify(key)}]`;
          return signature[k] === 'n'
            ? `const v${k} = ${read};\n  if (typeof v${k} !== 'number') return i;\n  c${k}[i] = v${k};`
            : `c${k}[i] = ${read};`;
        })
        .join('\n  ');
      // The key check is the one `for...in` of the generic path, fused with reading the fields.
      const body = `${columnLocals(keys, 'columns')}
const count = keys.length;
const objectPrototype = Object.prototype;
for (let i = 0; i < records.length; i++) {
  const r = records[i];
  if (typeof r !== 'object' || r === null) return i;
  const proto = Object.getPrototypeOf(r);
  if (proto !== objectPrototype && proto !== null) return i;
  let k = 0;
  for (const key in r) {
    if (key !== keys[k]) return i;
    k++;
  }
  if (k !== count) return i;
  ${fields}
}
return records.length;`;
      return compile<ShapeReader>(['records', 'columns', 'keys'], body) ?? null;
    },
    signature,
  );
  return read ?? undefined;
}

function genericExtractor(keys: readonly string[]): Extractor {
  return (records, columns) => {
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as string;
      const column = columns[k] as unknown[];
      for (let i = 0; i < records.length; i++) {
        column[i] = (records[i] as Record<string, unknown>)[key];
      }
    }
  };
}

/**
 * Compiles generated source; undefined where code generation from strings is
 * disabled (`--disallow-code-generation-from-strings`), so callers fall back
 * to generic loops.
 */
function compile<F>(parameters: readonly string[], body: string): F | undefined {
  try {
    return new Function(...parameters, body) as F;
  } catch (error) {
    if (error instanceof EvalError) return undefined;
    throw error;
  }
}

/**
 * The assembler for `keys`; `signature` names the column types it will be
 * given (e.g. one character per field: array, Int32Array, Float64Array).
 */
export function assembler(keys: readonly string[], signature = ''): Assembler {
  return cached(
    assemblers,
    keys,
    () => {
      // A quoted `"__proto__": v` in a literal would set the prototype; build such shapes key by key.
      if (keys.includes('__proto__')) return definingAssembler(keys);
      const literal = keys.map((key, k) => `${JSON.stringify(key)}: c${k}[i]`).join(', ');
      const body = `${columnLocals(keys, 'fields')}
const out = new Array(n);
for (let i = 0; i < n; i++) out[i] = { ${literal} };
return out;`;
      return compile<Assembler>(['fields', 'n'], body) ?? definingAssembler(keys);
    },
    signature,
  );
}

function definingAssembler(keys: readonly string[]): Assembler {
  return (fields, n) => {
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const record: Record<string, unknown> = {};
      for (let k = 0; k < keys.length; k++) {
        Object.defineProperty(record, keys[k] as string, {
          value: (fields[k] as FieldColumn)[i],
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
      out[i] = record;
    }
    return out;
  };
}
