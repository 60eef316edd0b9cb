/**
 * JSON text as Flink's JSON functions read and write it (Jackson underneath): a parser that
 * keeps each number's text, a compact writer (integers as written, fractions as Java doubles,
 * object keys in order), and the SQL/JSON path language's common subset: `[lax|strict] $`
 * (strict without a mode) followed by `.name`, `."name"`, `['name']`, `[n]`, `[*]` and `.*`; and
 * the loose (Jayway) paths of JSON_TYPE and JSON_LENGTH.
 */

/** A JSON number, as its text; `exact` when written from a SQL value, never re-read as a double. */
export class JsonNumber {
  constructor(
    readonly text: string,
    readonly exact = false,
  ) {}
}

export type JsonNode = null | boolean | string | JsonNumber | JsonNode[] | JsonObject;
export type JsonObject = Map<string, JsonNode>;

export class JsonSyntaxError extends Error {}

/** Parses one JSON value (surrounding white space allowed); a JsonSyntaxError otherwise. */
export function parseJson(text: string): JsonNode {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at offset ${i}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const value = (): JsonNode => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const object: JsonObject = new Map();
      space();
      if (text[i] === '}') {
        i++;
        return object;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        space();
        if (text[i++] !== ':') fail("expected ':'");
        object.set(key, value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return object;
        } else fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const array: JsonNode[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return array;
      }
      for (;;) {
        array.push(value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return array;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m !== null) {
      i += m[0].length;
      return new JsonNumber(m[0]);
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail('expected a value');
  };
  const string = (): string => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids them unescaped in strings
    const m = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/.exec(text.slice(i));
    if (m === null) return fail('a broken string');
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const result = value();
  space();
  if (i < text.length) fail('text after the value');
  return result;
}

export function isScalar(node: JsonNode): boolean {
  return !(Array.isArray(node) || node instanceof Map);
}

/**
 * A number's text as Flink writes it back: integers as they are, other numbers as Java's
 * BigDecimal prints them (Flink reads JSON numbers as BigDecimal): `2.50` stays `2.50`, `1e2`
 * becomes `1E+2`, `0.0000001` becomes `1E-7`.
 */
export function numberText(n: JsonNumber): string {
  if (n.exact) return n.text;
  if (!/[.eE]/.test(n.text)) return BigInt(n.text).toString();
  return bigDecimalText(n.text);
}

/** `BigDecimal.toString()` of a JSON number's text. */
export function bigDecimalText(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = m;
  const digits = BigInt(whole + fraction).toString();
  const scale = fraction.length - Number(exponent);
  if (scale === 0) return sign + digits;
  const adjusted = -scale + (digits.length - 1);
  if (scale > 0 && adjusted >= -6) {
    const padded = digits.padStart(scale + 1, '0');
    return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}

/** Compact JSON text of a node. */
export function writeJson(node: JsonNode): string {
  if (node === null) return 'null';
  if (typeof node === 'boolean') return String(node);
  if (typeof node === 'string') return JSON.stringify(node);
  if (node instanceof JsonNumber) return numberText(node);
  if (Array.isArray(node)) return `[${node.map(writeJson).join(',')}]`;
  return `{${[...node].map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`).join(',')}}`;
}

type Step =
  | { readonly kind: 'member'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' };

export interface JsonPath {
  readonly strict: boolean;
  readonly steps: readonly Step[];
  /** Whether the path may select several items (a wildcard): its result is then an array. */
  readonly indefinite: boolean;
}

/** Parses a path; a JsonSyntaxError for one outside the supported subset. */
export function parseJsonPath(text: string): JsonPath {
  const m = /^\s*(?:(lax|strict)\s+)?\$/i.exec(text);
  if (m === null)
    throw new JsonSyntaxError(`a JSON path starts with '$' (after lax or strict): '${text}'`);
  // Without a mode the path is strict (as in Calcite, whose JSON functions Flink's are).
  const strict = m[1]?.toLowerCase() !== 'lax';
  const steps: Step[] = [];
  let rest = text.slice(m[0].length).trim();
  while (rest.length > 0) {
    const step =
      /^\.([A-Za-z_$][\w$]*)/.exec(rest) ??
      /^\."((?:[^"\\]|\\.)*)"/.exec(rest) ??
      // `$.['a b']` as `$['a b']` (Jayway's reading, which Flink's paths follow).
      /^\.?\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest) ??
      /^\.?\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest);
    if (step !== null) {
      steps.push({ kind: 'member', name: step[1] as string });
      rest = rest.slice(step[0].length);
      continue;
    }
    const index = /^\[\s*(\d+)\s*\]/.exec(rest);
    if (index !== null) {
      steps.push({ kind: 'index', index: Number(index[1]) });
      rest = rest.slice(index[0].length);
      continue;
    }
    const wildcard = /^(\[\s*\*\s*\]|\.\*)/.exec(rest);
    if (wildcard !== null) {
      steps.push({ kind: 'wildcard' });
      rest = rest.slice(wildcard[0].length);
      continue;
    }
    throw new JsonSyntaxError(`unsupported JSON path step at '${rest}'`);
  }
  return { strict, steps, indefinite: steps.some((s) => s.kind === 'wildcard') };
}

/** A strict path that does not match, or a lax one on a broken document. */
export class JsonPathError extends Error {}

/**
 * The items a path selects. Lax mode gives nothing where a member or an element is missing;
 * strict mode fails there.
 */
export function selectJson(root: JsonNode, path: JsonPath): JsonNode[] {
  let items: JsonNode[] = [root];
  for (const step of path.steps) {
    const next: JsonNode[] = [];
    for (const item of items) {
      if (step.kind === 'member') {
        if (item instanceof Map && item.has(step.name)) next.push(item.get(step.name) as JsonNode);
        else if (path.strict) throw new JsonPathError(`no member '${step.name}'`);
      } else if (step.kind === 'index') {
        if (Array.isArray(item) && step.index < item.length)
          next.push(item[step.index] as JsonNode);
        else if (path.strict) throw new JsonPathError(`no element [${step.index}]`);
      } else if (Array.isArray(item)) next.push(...item);
      else if (item instanceof Map) next.push(...item.values());
      else if (path.strict) throw new JsonPathError('a wildcard needs an array or an object');
    }
    items = next;
  }
  return items;
}

type LooseStep = Step | { readonly kind: 'deep'; readonly name: string };

/**
 * A path as JSON_TYPE and JSON_LENGTH read it (Jayway's syntax, which Flink uses there): no
 * lax/strict mode, a path not starting with `$` is a member of the root (`a.b` is `$.a.b`), and
 * `..name` finds the members of that name at any depth.
 */
export interface LoosePath {
  readonly steps: readonly LooseStep[];
}

/** Parses a loose path; undefined for text that is not one (such a path finds nothing). */
export function parseLoosePath(text: string): LoosePath | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let rest = trimmed.startsWith('$') ? trimmed.slice(1) : `.${trimmed}`;
  const steps: LooseStep[] = [];
  while (rest.length > 0) {
    const deep = /^\.\.([A-Za-z_$][\w$-]*)/.exec(rest);
    const member =
      /^\.([A-Za-z_$][\w$-]*)/.exec(rest) ??
      /^\.?\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest) ??
      /^\.?\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest);
    const index = /^\[\s*(-?\d+)\s*\]/.exec(rest);
    const wildcard = /^(\[\s*\*\s*\]|\.\*)/.exec(rest);
    const m = deep ?? member ?? index ?? wildcard;
    if (m === null) return undefined;
    if (m === deep) steps.push({ kind: 'deep', name: m[1] as string });
    else if (m === member) steps.push({ kind: 'member', name: m[1] as string });
    else if (m === index) steps.push({ kind: 'index', index: Number(m[1]) });
    else steps.push({ kind: 'wildcard' });
    rest = rest.slice(m[0].length);
  }
  return { steps };
}

/** The one item a loose path selects; undefined when it selects none or several. */
export function selectOne(root: JsonNode, path: LoosePath): JsonNode | undefined {
  let items: JsonNode[] = [root];
  for (const step of path.steps) {
    const next: JsonNode[] = [];
    const scan = (node: JsonNode, name: string): void => {
      if (node instanceof Map) {
        if (node.has(name)) next.push(node.get(name) as JsonNode);
        for (const v of node.values()) scan(v, name);
      } else if (Array.isArray(node)) for (const e of node) scan(e, name);
    };
    for (const item of items) {
      if (step.kind === 'deep') scan(item, step.name);
      else if (step.kind === 'member') {
        if (item instanceof Map && item.has(step.name)) next.push(item.get(step.name) as JsonNode);
      } else if (step.kind === 'index') {
        if (!Array.isArray(item)) continue;
        // A negative index counts from the end.
        const i = step.index < 0 ? item.length + step.index : step.index;
        if (i >= 0 && i < item.length) next.push(item[i] as JsonNode);
      } else if (Array.isArray(item)) next.push(...item);
      else if (item instanceof Map) next.push(...item.values());
    }
    items = next;
  }
  return items.length === 1 ? items[0] : undefined;
}
