/**
 * A query's aggregate calls folded by one generated function per query instead of a closure per
 * call: the FILTER conditions and the arguments are inlined, and COUNT, MIN, MAX, SUM and AVG
 * over plain numbers and strings update their slot in place. Every other call (and every case
 * a fast path does not cover, such as a BIGINT beyond 2^53) calls its own `add`, so the
 * accumulator keeps the form aggregates.ts gives it and checkpoints are unchanged. Only for
 * insert-only input: over a changelog the closures' retracting states are kept.
 */
import type { Row } from '../connectors/connector.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compile } from '../expressions/compile.js';
import type { Scope } from '../expressions/scope.js';
import { userAggregate } from '../functions/user-functions.js';
import type { Expr } from '../parser/ast.js';
import { isPreciseTimestamp, type LogicalType } from '../types/logical-type.js';
import type { AccState, AggregateCallAst, AggregateSpec } from './aggregate-spec.js';

/** An accumulator of all of a query's aggregates (see aggregates.ts). */
export interface FusedAccumulator {
  k: unknown[] | null;
  s: AccState[];
}

/** What the fused function is built from. */
export interface FusedAddInput {
  readonly calls: readonly AggregateCallAst[];
  /** Call i's slot; `at` is set for a slot several calls share. */
  readonly of: readonly { readonly slot: number; readonly at: number | undefined }[];
  readonly specs: readonly AggregateSpec[];
  /** The distinct FILTER conditions, and the cells the slots' own `add`s read them from. */
  readonly filters: readonly Expr[];
  readonly holds: boolean[];
  /** The index in `filters` of a call's FILTER condition. */
  readonly filterOf: (call: AggregateCallAst) => number;
  readonly scope: Scope;
  /** Records the group's key values from its first row. */
  readonly keep: (row: Row, acc: FusedAccumulator) => void;
}

/** Running sums whose values JavaScript numbers hold exactly as Flink computes them. */
const SUMMED = new Set(['DOUBLE', 'FLOAT', 'INTEGER', 'SMALLINT', 'TINYINT', 'BIGINT']);

/** The code of SUM's running sum `a + v` in the argument's width (Java's wrapping addition). */
function sumInWidth(kind: string, a: string, v: string): string {
  switch (kind) {
    case 'INTEGER':
      return `((${a} + ${v}) | 0)`;
    case 'SMALLINT':
      return `(((${a} + ${v}) << 16) >> 16)`;
    case 'TINYINT':
      return `(((${a} + ${v}) << 24) >> 24)`;
    case 'FLOAT':
      return `Math.fround(${a} + ${v})`;
    default:
      return `(${a} + ${v})`;
  }
}

const NESTED = new Set(['ROW', 'ARRAY', 'MAP', 'MULTISET']);

/** Whether a value of `type` sits in MIN's or MAX's accumulator as it is (no text form). */
function keptAsIs(type: LogicalType): boolean {
  return (
    type.kind !== 'DECIMAL' &&
    type.kind !== 'BIGINT' &&
    !isPreciseTimestamp(type) &&
    !NESTED.has(type.kind)
  );
}

/**
 * The statement folding a row into slot `slot` (`s[slot]`) for `call`, or undefined when the
 * call has no fast path. `fallback` is the code of the slot's own `add`, for the cases the fast
 * path leaves to it.
 */
function inlineAdd(
  call: AggregateCallAst,
  slot: number,
  g: CodeGen,
  scope: Scope,
  fallback: string,
): string | undefined {
  if (userAggregate(call.name) !== undefined) return undefined;
  const s = `s[${slot}]`;
  if (call.name === 'COUNT' && (call.star || call.args.length === 0))
    return call.distinct ? undefined : `${s} = ${s} + 1;`;
  if (call.args.length !== 1) return undefined;
  const arg = compile(call.args[0] as Expr, { scope, g });
  const { type } = arg;
  const v = g.temp();
  switch (call.name) {
    case 'COUNT':
      // A ROW, ARRAY or MAP is counted by its encoded contents (aggregates.ts).
      if (call.distinct || NESTED.has(type.kind)) return undefined;
      return `if ((${v} = ${arg.code}) !== null) ${s} = ${s} + 1;`;
    case 'MIN':
    case 'MAX': {
      const op = call.name === 'MIN' ? '<' : '>';
      if (keptAsIs(type))
        return `if ((${v} = ${arg.code}) !== null && (${s} === null || ${v} ${op} ${s})) ${s} = ${v};`;
      if (type.kind !== 'BIGINT') return undefined;
      // A BIGINT beyond 2^53 is a bigint, kept as text: the slot's own add.
      return `if ((${v} = ${arg.code}) !== null) { if (typeof ${v} === 'number' && typeof ${s} !== 'string') { if (${s} === null || ${v} ${op} ${s}) ${s} = ${v}; } else ${s} = ${fallback}(${s}, r); }`;
    }
    case 'SUM':
    case 'AVG': {
      if (call.distinct || !SUMMED.has(type.kind)) return undefined;
      const p = g.temp();
      if (type.kind === 'BIGINT') {
        // While the sum stays a safe integer; past it (or for the first value) the slot's own add.
        const t = g.temp();
        return `if ((${v} = ${arg.code}) !== null) { ${p} = ${s}; if (${p} !== null && typeof ${v} === 'number' && typeof ${p}[0] === 'number' && Number.isSafeInteger(${t} = ${p}[0] + ${v})) { ${p}[0] = ${t}; ${p}[1]++; } else ${s} = ${fallback}(${p}, r); }`;
      }
      // Flink's AVG sums in a wider type: only SUM wraps in the argument's width.
      const kind = call.name === 'SUM' ? type.kind : 'DOUBLE';
      return `if ((${v} = ${arg.code}) !== null) { if ((${p} = ${s}) === null) ${s} = [${sumInWidth(kind, '0', v)}, 1]; else { ${p}[0] = ${sumInWidth(kind, `${p}[0]`, v)}; ${p}[1]++; } }`;
    }
    default:
      return undefined;
  }
}

/** The call that has slot `slot` to itself; undefined for a slot several calls share. */
function ownCall(
  calls: readonly AggregateCallAst[],
  of: FusedAddInput['of'],
  slot: number,
): AggregateCallAst | undefined {
  const own = calls.findIndex((_, i) => of[i]?.slot === slot && of[i]?.at === undefined);
  return own < 0 ? undefined : calls[own];
}

/**
 * The generated `add(row, acc)` of all of `input`'s calls, or undefined when no call has a fast
 * path (the closures are then as quick).
 */
export function fusedAdd(
  input: FusedAddInput,
): ((row: Row, acc: FusedAccumulator) => FusedAccumulator) | undefined {
  const { calls, of, specs, filters, scope } = input;
  const g = new CodeGen();
  const lines: string[] = [
    `const s = acc.s;`,
    `if (acc.k === null) ${g.constant(input.keep)}(r, acc);`,
  ];
  // Every condition once per row, as before: the slots' own adds read them from `holds`.
  const holds = g.constant(input.holds);
  const tests = filters.map((f, i) => {
    const c = compile(f, { scope, g });
    const t = g.temp();
    lines.push(`${t} = (${c.code}) === true; ${holds}[${i}] = ${t};`);
    return t;
  });
  let inlined = 0;
  specs.forEach((spec, slot) => {
    const call = ownCall(calls, of, slot);
    if (call === undefined && spec.addDistinct !== undefined) {
      lines.push(sharedDistinctAdd(input, slot, spec.addDistinct, tests, g));
      inlined++;
      return;
    }
    const fallback = g.constant(spec.add);
    const fast = call === undefined ? undefined : inlineAdd(call, slot, g, scope, fallback);
    if (fast === undefined) {
      // The slot's own add applies the FILTER itself (from `holds`).
      lines.push(`s[${slot}] = ${fallback}(s[${slot}], r);`);
      return;
    }
    inlined++;
    const filter = call === undefined ? -1 : input.filterOf(call);
    lines.push(filter < 0 ? fast : `if (${tests[filter]}) { ${fast} }`);
  });
  if (inlined === 0) return undefined;
  lines.push('return acc;');
  return g.function(lines.join('\n'), 'r, acc');
}

/**
 * The code of a shared COUNT(DISTINCT) slot's add (aggregates.ts's sharedCountDistinct): the
 * mask of its calls whose FILTER holds and its argument inline; a value within the state's
 * dense array of ids counted there, inline; any other value (or a state read back from a
 * checkpoint, not yet live) by the state's own `addDistinct`. The inline part reads a live
 * state's fields as distinct-seen.ts lays them out (`dense`, `base`, the counts `n`; its
 * non-enumerable `toJSON` marks it live), and does what `addDistinct` does with them.
 */
function sharedDistinctAdd(
  input: FusedAddInput,
  slot: number,
  addDistinct: NonNullable<AggregateSpec['addDistinct']>,
  tests: readonly string[],
  g: CodeGen,
): string {
  const { calls, of, scope } = input;
  const members = calls
    .map((call, i) => ({ call, at: of[i]?.slot === slot ? of[i]?.at : undefined }))
    .filter((m): m is { call: AggregateCallAst; at: number } => m.at !== undefined)
    .sort((a, b) => a.at - b.at);
  const [m, v, d, dense, at, had, added, n] = Array.from({ length: 8 }, () => g.temp());
  let always = 0;
  const filtered: string[] = [];
  for (const { call, at: bit } of members) {
    const filter = input.filterOf(call);
    if (filter < 0) always |= 1 << bit;
    else filtered.push(`if (${tests[filter]}) ${m} |= ${1 << bit};`);
  }
  const arg = compile((members[0] as { call: AggregateCallAst }).call.args[0] as Expr, {
    scope,
    g,
  });
  const counts = members.map(
    ({ at: bit }) => `if ((${added} & ${1 << bit}) !== 0) ${n}[${bit}]++;`,
  );
  const fallback = g.constant(addDistinct);
  return [
    `${m} = ${always}; ${filtered.join(' ')}`,
    `if (${m} !== 0 && (${v} = ${arg.code}) !== null) {`,
    `  ${d} = s[${slot}];`,
    `  if (${d}.toJSON !== undefined && (${dense} = ${d}.dense) !== null && typeof ${v} === 'number' && (${at} = ${v} - ${d}.base) >= 0 && ${at} < ${dense}.length && (${at} | 0) === ${at}) {`,
    `    ${had} = ${dense}[${at}];`,
    `    if ((${added} = ${m} & ~${had}) !== 0) { ${dense}[${at}] = ${had} | ${m}; ${n} = ${d}.n; ${counts.join(' ')} }`,
    `  } else s[${slot}] = ${fallback}(${d}, ${v}, ${m});`,
    `}`,
  ].join('\n');
}

/** What the fused result row is built from. */
export interface FusedResultInput {
  readonly calls: readonly AggregateCallAst[];
  readonly of: FusedAddInput['of'];
  readonly specs: readonly AggregateSpec[];
  /** How each grouping key value is read back from the accumulator; undefined: as it is. */
  readonly keyDecoders: readonly (((v: unknown) => unknown) | undefined)[];
}

/**
 * The generated `getResult(acc)`: the row `[...keys, ...results]` built as one array literal,
 * with the results that are the slot itself (COUNT, MIN and MAX of plain values, distinct counts)
 * read inline. An updating GROUP BY asks for it twice per group and bundle (before and after).
 */
export function fusedResult(
  input: FusedResultInput,
  /** Trailing slots left in the row (null) for columns its consumer writes after them. */
  room = 0,
): (acc: FusedAccumulator) => unknown[] {
  const { calls, of, specs } = input;
  const g = new CodeGen();
  const values = input.keyDecoders.map((decode, i) => {
    const k = `(k === null ? null : k[${i}])`;
    if (decode === undefined) return k;
    const t = g.temp();
    return `((${t} = ${k}) === null ? null : ${g.constant(decode)}(${t}))`;
  });
  calls.forEach((call, i) => {
    const { slot, at } = of[i] as { slot: number; at: number | undefined };
    const s = `s[${slot}]`;
    // Shared COUNT(DISTINCT) state: each call's count (aggregates.ts's sharedCountDistinct).
    if (at !== undefined) values.push(`${s}.n[${at}]`);
    else
      values.push(
        countResult(call, s) ?? `${g.constant((specs[slot] as AggregateSpec).result)}(${s})`,
      );
  });
  for (let i = 0; i < room; i++) values.push('null');
  return g.function(`const k = acc.k, s = acc.s; return [${values.join(', ')}];`, 'acc');
}

/** The code of a COUNT's result from its slot `s`: the count, or a DISTINCT state's count. */
function countResult(call: AggregateCallAst, s: string): string | undefined {
  if (call.name !== 'COUNT' || userAggregate(call.name) !== undefined) return undefined;
  return call.distinct ? `${s}.n` : s;
}

/**
 * The generated `createAccumulator()`, `merge(a, b)` and `mergeInto(a, b)`: a new accumulator's
 * slots written as literals where a call's initial state is a plain value (a count's 0, a MIN's
 * null), and counts merged inline; window slices and their merges make one accumulator per key
 * and slice. `mergeInto` writes the merge into `a` (which its caller owns) instead of a new
 * accumulator: a sliding window's firing merges its slices into one fresh accumulator.
 */
export function fusedCreateAndMerge(input: Pick<FusedResultInput, 'calls' | 'of' | 'specs'>): {
  create: () => FusedAccumulator;
  merge: (a: FusedAccumulator, b: FusedAccumulator) => FusedAccumulator;
  mergeInto: (a: FusedAccumulator, b: FusedAccumulator) => FusedAccumulator;
} {
  const { calls, of, specs } = input;
  const g = new CodeGen();
  const callOf = (slot: number) => ownCall(calls, of, slot);
  const inits = specs.map((spec, slot) => {
    const call = callOf(slot);
    // A TypeScript aggregate's createAccumulator runs per accumulator, as the user wrote it.
    const v = call === undefined || userAggregate(call.name) !== undefined ? {} : spec.init();
    return v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'
      ? JSON.stringify(v)
      : `${g.constant(spec.init)}()`;
  });
  const create = g.function<() => FusedAccumulator>(
    `return { k: null, s: [${inits.join(', ')}] };`,
    '',
  );
  const counted = (slot: number): boolean => {
    const call = callOf(slot);
    return (
      call !== undefined &&
      call.name === 'COUNT' &&
      !call.distinct &&
      userAggregate(call.name) === undefined
    );
  };
  const m = new CodeGen();
  const merges = specs.map((spec, slot) =>
    counted(slot)
      ? `a.s[${slot}] + b.s[${slot}]`
      : `${m.constant(spec.merge)}(a.s[${slot}], b.s[${slot}])`,
  );
  const merge = m.function<(a: FusedAccumulator, b: FusedAccumulator) => FusedAccumulator>(
    `return { k: a.k ?? b.k, s: [${merges.join(', ')}] };`,
    'a, b',
  );
  const into = new CodeGen();
  const mergesInto = specs.map((spec, slot) =>
    counted(slot)
      ? `s[${slot}] += t[${slot}];`
      : `s[${slot}] = ${into.constant(spec.mergeInto ?? spec.merge)}(s[${slot}], t[${slot}]);`,
  );
  const mergeInto = into.function<(a: FusedAccumulator, b: FusedAccumulator) => FusedAccumulator>(
    `const s = a.s, t = b.s; a.k ??= b.k; ${mergesInto.join(' ')} return a;`,
    'a, b',
  );
  return { create, merge, mergeInto };
}
