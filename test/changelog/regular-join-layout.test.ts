/**
 * Where a regular join keeps an insert-only side's rows: listed per key (rows and their event
 * times in two arrays of one value) on the heap backend without a TTL, in a map entry per row on the disk backend
 * or with a TTL. Both layouts must join alike (against a nested-loop join of the same rows),
 * the watermark's sweep (`retainUntil`) must empty the listed rows, and a snapshot of either layout
 * must restore into the other, also when an input's mode changed between the runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/core/snapshot.js';
import type { Change } from '../../src/index.js';
import {
  type JoinedRow,
  RegularJoinFunction,
  type RegularJoinSpec,
} from '../../src/runtime/operators/changelog/regular-join.js';
import { parseRow } from '../../src/state/rows.js';
import { type OperatorSnapshot, TwoInputHarness } from '../../src/testing/index.js';

interface Row {
  readonly k: number;
  readonly v: number;
}

type Backend = 'heap' | 'disk';

function spec(overrides: Partial<RegularJoinSpec<Row, Row>> = {}): RegularJoinSpec<Row, Row> {
  return {
    type: 'inner',
    where: undefined,
    leftTtl: undefined,
    rightTtl: undefined,
    leftInsertOnly: true,
    rightInsertOnly: true,
    ...overrides,
  };
}

function harness(
  joinSpec: RegularJoinSpec<Row, Row>,
  backend: Backend,
  restoreFrom?: OperatorSnapshot,
): TwoInputHarness<Change<Row>, Change<Row>, Change<JoinedRow<Row, Row>>> {
  return TwoInputHarness.forKeyedCoProcessFunction<
    number,
    Change<Row>,
    Change<Row>,
    Change<JoinedRow<Row, Row>>
  >(new RegularJoinFunction<number, Row, Row>(joinSpec), rowKey, rowKey, {
    stateBackend: { kind: backend },
    ...(restoreFrom === undefined ? {} : { restoreFrom }),
  });
}

const rowKey = (c: Change<Row>) => c.value.k;

const insert = (value: Row): Change<Row> => ({ kind: '+I', value });

/** Rows of each state in a snapshot: a map entry counts one, a key's listed rows each one. */
function rowsByState(snapshot: OperatorSnapshot): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entries of Object.values(snapshot.keyed ?? {}) as Json[][]) {
    for (const entry of entries) {
      const row = parseRow(entry, 'operator');
      const n = row.state.endsWith(' listed') ? (row.value as Json[][])[0]!.length : 1;
      counts.set(row.state, (counts.get(row.state) ?? 0) + n);
    }
  }
  return counts;
}

/** The joined pairs as text, sorted, a retraction prefixed with `-`. */
function pairs(changes: readonly Change<JoinedRow<Row, Row>>[]): string[] {
  return changes
    .map(({ kind, value: [l, r] }) => `${kind === '-D' ? '-' : ''}${JSON.stringify([l, r])}`)
    .sort();
}

/** What an inner, left, right or full join of the rows gives, as a nested loop over them. */
function nestedLoop(
  type: RegularJoinSpec<Row, Row>['type'],
  left: readonly Row[],
  right: readonly Row[],
): string[] {
  const out: string[] = [];
  for (const l of left) {
    const matches = right.filter((r) => r.k === l.k);
    for (const r of matches) out.push(JSON.stringify([l, r]));
    if (matches.length === 0 && (type === 'left' || type === 'full'))
      out.push(JSON.stringify([l, null]));
  }
  if (type === 'right' || type === 'full') {
    for (const r of right) if (!left.some((l) => l.k === r.k)) out.push(JSON.stringify([null, r]));
  }
  return out.sort();
}

/** The rows a join's changes leave: each `+I` adds its pair, each `-D` takes one away. */
function net(changes: readonly Change<JoinedRow<Row, Row>>[]): string[] {
  const counts = new Map<string, number>();
  for (const { kind, value } of changes) {
    const text = JSON.stringify(value);
    counts.set(text, (counts.get(text) ?? 0) + (kind === '-D' ? -1 : 1));
  }
  const out: string[] = [];
  for (const [text, n] of counts) {
    expect(n).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < n; i++) out.push(text);
  }
  return out.sort();
}

const rowArb = fc.record({ k: fc.integer({ min: 0, max: 4 }), v: fc.integer({ min: 0, max: 9 }) });
const inputArb = fc.array(fc.tuple(fc.boolean(), rowArb), { maxLength: 40 });

describe('regular join: where an insert-only side keeps its rows', () => {
  it('lists them on the heap and keeps them in map entries on the disk backend or with a TTL', async () => {
    const cases: [Backend, Partial<RegularJoinSpec<Row, Row>>, string, string][] = [
      ['heap', {}, 'left listed', 'left'],
      ['disk', {}, 'left', 'left listed'],
      ['heap', { leftTtl: { ttlMs: 60_000 } }, 'left', 'left listed'],
    ];
    for (const [backend, overrides, used, unused] of cases) {
      const h = harness(spec(overrides), backend);
      for (let i = 0; i < 6; i++) h.processElement1(insert({ k: i % 2, v: i }), i);
      const counts = rowsByState(h.snapshot());
      expect(counts.get(used), `${backend} ${JSON.stringify(overrides)}`).toBe(6);
      expect(counts.get(unused) ?? 0).toBe(0);
      await h.close();
    }
  });

  it('joins as a nested loop over the same rows, for every join type, on both backends', async () => {
    await fc.assert(
      fc.asyncProperty(
        inputArb,
        fc.constantFrom('inner', 'left', 'right', 'full' as const),
        async (input, type) => {
          const left = input.filter(([side]) => side).map(([, r]) => r);
          const right = input.filter(([side]) => !side).map(([, r]) => r);
          const expected = nestedLoop(type, left, right);
          for (const backend of ['heap', 'disk'] as const) {
            const h = harness(spec({ type }), backend);
            input.forEach(([side, row], i) => {
              if (side) h.processElement1(insert(row), i);
              else h.processElement2(insert(row), i);
            });
            expect(net(h.outputValues())).toEqual(expected);
            await h.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stamps each joined row with the later of its two rows event times', async () => {
    const h = harness(spec(), 'heap');
    h.processElement1(insert({ k: 1, v: 1 }), 500);
    h.processElement2(insert({ k: 1, v: 2 }), 200);
    h.processElement1(insert({ k: 1, v: 3 }), 100);
    expect(h.output().map((r) => r.timestamp)).toEqual([500, 200]);
    await h.close();
  });

  it('the watermark sweep drops the listed rows no later row can match', async () => {
    // Left rows can match right rows up to 100 ms after them: dropped once the watermark passes.
    const h = harness(spec({ leftRetainUntil: (r) => r.v + 100 }), 'heap');
    for (let t = 0; t < 50; t++) h.processElement1(insert({ k: t % 5, v: t * 100 }), t * 100);
    expect(rowsByState(h.snapshot()).get('left listed')).toBe(50);
    h.processWatermark1(3_000);
    h.processWatermark2(3_000);
    // Rows at 0..2900 have their last useful time at 100..3000: those up to the watermark go.
    expect(rowsByState(h.snapshot()).get('left listed')).toBe(20);
    h.processElement2(insert({ k: 0, v: -1 }), 3_050);
    // Key 0's kept rows: 3000, 3500, 4000, 4500.
    expect(h.outputValues().map((c) => c.value[0]!.v)).toEqual([3000, 3500, 4000, 4500]);
    h.processWatermark1(10_000);
    h.processWatermark2(10_000);
    expect(rowsByState(h.snapshot()).get('left listed') ?? 0).toBe(0);
    await h.close();
  });

  it('sweeps drop exactly the rows past their time, also after a restore into either backend', async () => {
    // Each left row is useful until 0-2.4 s after its time; whole-second watermarks sweep, and
    // one restore comes between (the sweeps' index of keys is rebuilt from the restored rows).
    const until = (r: Row) => r.v + (r.v % 7) * 400;
    const step = fc.oneof(
      fc.record({ k: fc.nat(4), v: fc.nat(12_000) }),
      fc.integer({ min: 1, max: 4 }).map((seconds) => ({ seconds })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 60 }),
        fc.nat(60),
        fc.constantFrom<[Backend, Backend]>(['heap', 'heap'], ['heap', 'disk'], ['disk', 'heap']),
        async (steps, restoreAt, [first, second]) => {
          const joinSpec = spec({ leftRetainUntil: until });
          let h = harness(joinSpec, first);
          let watermark = Number.NEGATIVE_INFINITY;
          const held: Row[] = [];
          for (let i = 0; i < steps.length; i++) {
            if (i === restoreAt) {
              const snapshot = h.snapshot();
              await h.close();
              h = harness(joinSpec, second, snapshot);
            }
            const s = steps[i]!;
            if ('k' in s) {
              h.processElement1(insert(s), s.v);
              if (until(s) > watermark) held.push(s);
              continue;
            }
            watermark = (Math.max(watermark, 0) / 1000 + s.seconds) * 1000;
            h.processWatermark1(watermark);
            h.processWatermark2(watermark);
            const kept = held.filter((r) => until(r) > watermark);
            held.length = 0;
            held.push(...kept);
            const counts = rowsByState(h.snapshot());
            expect((counts.get('left listed') ?? 0) + (counts.get('left') ?? 0)).toBe(held.length);
          }
          for (let k = 0; k <= 4; k++) h.processElement2(insert({ k, v: -1 }), watermark + 1);
          expect(pairs(h.outputValues())).toEqual(
            held.map((l) => JSON.stringify([l, { k: l.k, v: -1 }])).sort(),
          );
          await h.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a snapshot of either layout restores into the other with every row', async () => {
    const runs: [Backend, Backend][] = [
      ['heap', 'disk'],
      ['disk', 'heap'],
    ];
    for (const [first, second] of runs) {
      const a = harness(spec(), first);
      for (let i = 0; i < 8; i++) a.processElement1(insert({ k: i % 3, v: i }), i);
      const snapshot = a.snapshot();
      await a.close();
      const b = harness(spec(), second, snapshot);
      b.processElement1(insert({ k: 0, v: 100 }), 100);
      b.processElement2(insert({ k: 0, v: -1 }), 200);
      // Key 0's left rows: 0, 3, 6 restored and 100 added.
      expect(
        b
          .outputValues()
          .map((c) => c.value[0]!.v)
          .sort((x, y) => x - y),
      ).toEqual([0, 3, 6, 100]);
      await b.close();
    }
  });

  it('restored into a side with a TTL, listed rows move to its map and expire there', async () => {
    const a = harness(spec(), 'heap');
    for (let i = 0; i < 4; i++) a.processElement1(insert({ k: 1, v: i }), i);
    const snapshot = a.snapshot();
    await a.close();
    const b = harness(spec({ leftTtl: { ttlMs: 1_000 } }), 'heap', snapshot);
    const held = rowsByState(b.snapshot());
    expect(held.get('left')).toBe(4);
    expect(held.get('left listed') ?? 0).toBe(0);
    b.processElement1(insert({ k: 1, v: 9 }), 9);
    b.processElement2(insert({ k: 1, v: -1 }), 10);
    expect(b.outputValues().map((c) => c.value[0]!.v)).toEqual([0, 1, 2, 3, 9]);
    b.clearOutput();
    // Restored entries live the TTL from the restore, as any state restored into a TTL.
    b.setProcessingTime(b.processingTime + 1_001);
    b.processElement2(insert({ k: 1, v: -2 }), 11);
    expect(b.outputValues()).toEqual([]);
    await b.close();
  });

  it('restored with a changelog input, a retraction finds a row appended while it was insert-only', async () => {
    const a = harness(spec(), 'heap');
    a.processElement1(insert({ k: 1, v: 1 }), 1);
    a.processElement1(insert({ k: 1, v: 2 }), 2);
    const snapshot = a.snapshot();
    await a.close();
    for (const uniqueKey of [undefined, (r: Row) => r.v]) {
      const b = harness(
        spec({
          leftInsertOnly: false,
          ...(uniqueKey === undefined ? {} : { leftUniqueKey: uniqueKey }),
        }),
        'heap',
        snapshot,
      );
      b.processElement1({ kind: '-D', value: { k: 1, v: 1 } }, 3);
      b.processElement2(insert({ k: 1, v: 9 }), 4);
      expect(pairs(b.outputValues())).toEqual([
        JSON.stringify([
          { k: 1, v: 2 },
          { k: 1, v: 9 },
        ]),
      ]);
      await b.close();
    }
  });
});
