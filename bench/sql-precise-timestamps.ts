/**
 * How to hold a TIMESTAMP(p > 3): a bigint of epoch nanoseconds (what Weir SQL does) against a
 * small immutable object of epoch ms plus the nanoseconds of that ms (Flink's TimestampData),
 * and the millisecond number a TIMESTAMP(3) is, over the work a query does with such values:
 * parse from text, compare (a filter), sort (ORDER BY), build a grouping key, format as text.
 *
 *   npx tsx bench/sql-precise-timestamps.ts [values=200000] [rounds=3]
 *
 * Rounds alternate the three forms so that a busy machine slows them alike; the CPU ms of each
 * (user + system of this process) are printed per round.
 */
import {
  formatTimestampNanos,
  parseTimestampNanos,
} from '../src/sql/expressions/functions/precise-time.js';
import { timeRuntime } from '../src/sql/expressions/functions/time-runtime.js';

const n = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 3);

const texts = Array.from({ length: n }, (_, i) => {
  const micros = String((i * 7919) % 1_000_000).padStart(6, '0');
  const second = String(i % 60).padStart(2, '0');
  const minute = String(Math.floor(i / 60) % 60).padStart(2, '0');
  return `2024-01-01 10:${minute}:${second}.${micros}`;
});

interface Precise {
  readonly ms: number;
  readonly nanos: number;
}

interface Form<V> {
  readonly name: string;
  parse(text: string): V;
  less(a: V, b: V): boolean;
  key(v: V): unknown;
  format(v: V): string;
}

const bigintForm: Form<bigint> = {
  name: 'bigint ns',
  parse: (t) => parseTimestampNanos(t) as bigint,
  less: (a, b) => a < b,
  key: (v) => v,
  format: (v) => formatTimestampNanos(v, 6),
};

const objectForm: Form<Precise> = {
  name: 'object ms+ns',
  parse: (t) => {
    const ms = timeRuntime.parseTimestamp(t) as number;
    const fraction = /\.(\d+)$/.exec(t)?.[1] ?? '';
    return { ms, nanos: Number(fraction.padEnd(9, '0').slice(3, 9)) };
  },
  less: (a, b) => a.ms < b.ms || (a.ms === b.ms && a.nanos < b.nanos),
  // An object is no Map key by value: the key is built as text.
  key: (v) => `${v.ms}:${v.nanos}`,
  format: (v) =>
    `${timeRuntime.formatTimestampDefault(v.ms, 3)}${String(v.nanos).padStart(6, '0')}`,
};

const millisForm: Form<number> = {
  name: 'number ms (p <= 3)',
  parse: (t) => timeRuntime.parseTimestamp(t) as number,
  less: (a, b) => a < b,
  key: (v) => v,
  format: (v) => timeRuntime.formatTimestampDefault(v, 3),
};

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function run<V>(form: Form<V>): Record<string, number> {
  const times: Record<string, number> = {};
  let t = cpuMs();
  const lap = (what: string) => {
    const now = cpuMs();
    times[what] = Math.round(now - t);
    t = now;
  };
  const values = texts.map((s) => form.parse(s));
  lap('parse');
  const pivot = values[n >> 1] as V;
  let kept = 0;
  for (let r = 0; r < 10; r++) for (const v of values) if (form.less(v, pivot)) kept++;
  lap('compare x10');
  const sorted = [...values].sort((a, b) => (form.less(a, b) ? -1 : form.less(b, a) ? 1 : 0));
  lap('sort');
  const groups = new Map<unknown, number>();
  for (const v of values) {
    const k = form.key(v);
    groups.set(k, (groups.get(k) ?? 0) + 1);
  }
  lap('group');
  let length = 0;
  for (const v of sorted) length += form.format(v).length;
  lap('format');
  if (kept < 0 || length < 0 || groups.size < 0) console.log('unreachable');
  return times;
}

for (let round = 1; round <= rounds; round++) {
  for (const form of [bigintForm, objectForm, millisForm] as Form<unknown>[]) {
    console.log(`round ${round} ${form.name}: ${JSON.stringify(run(form))} (CPU ms)`);
  }
}
