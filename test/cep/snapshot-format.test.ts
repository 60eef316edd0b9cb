/**
 * A snapshot written before the shared buffer was linked by reference (node
 * ids from a map, with gaps; records waiting for the watermark in the keys'
 * state) restores into the current operator and gives the matches of an
 * uninterrupted run. The fixture was written by that version from the input
 * below, cut after `f7`'s arrival.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Pattern } from '../../src/api/cep/pattern.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';
import { cepOperator, type Ev, resultOf, sorted } from './cep-harness.js';

const spec = Pattern.begin<Ev>('fail')
  .where((e) => e.type === 'f')
  .times(3)
  .followedBy('success')
  .where((e, ctx) => e.type === 's' && e.v !== ctx.eventsFor('fail')[0]!.v)
  .within(300)
  .toSpec();

const ev = (id: string, ts: number, v: number, key: string): Ev => ({
  id,
  type: id[0]!,
  ts,
  key,
  v,
});

/** Fed before the cut: a watermark at 4 in the middle, records after it still waiting. */
const before: readonly (Ev | number)[] = [
  ev('f1', 1, 0, 'a'),
  ev('f2', 2, 0, 'a'),
  ev('o3', 3, 0, 'b'),
  ev('f3', 3, 0, 'a'),
  ev('f4', 4, 1, 'b'),
  ev('f5', 5, 0, 'b'),
  ev('f6', 6, 0, 'b'),
  4,
  ev('f8', 8, 0, 'a'),
  ev('f7', 7, 2, 'a'),
  ev('s9', 9, 1, 'b'),
];
const after: readonly (Ev | number)[] = [
  ev('s10', 10, 1, 'a'),
  ev('s11', 11, 3, 'b'),
  9,
  ev('s12', 12, 5, 'a'),
  Number.POSITIVE_INFINITY,
];

function harness(restoreFrom?: OperatorSnapshot): KeyedOneInputHarness<string, Ev, string> {
  return new KeyedOneInputHarness<string, Ev, string>(cepOperator(spec), (e) => e.key, {
    operatorId: 'cep',
    ...(restoreFrom === undefined ? {} : { restoreFrom: [restoreFrom] }),
  });
}

function feed(h: KeyedOneInputHarness<string, Ev, string>, input: readonly (Ev | number)[]) {
  for (const x of input) {
    if (typeof x === 'number') h.processWatermark(x);
    else h.processElement(x, x.ts);
  }
}

describe('CEP snapshot format', () => {
  it('restores a snapshot of the previous version in the middle of partial matches', async () => {
    const whole = harness();
    feed(whole, [...before, ...after]);
    const expected = resultOf(whole);
    expect(expected.matches.length).toBeGreaterThan(3);

    const snapshot = JSON.parse(
      readFileSync(
        resolve(import.meta.dirname, 'fixtures', 'snapshot-before-linked-buffer.json'),
        'utf8',
      ),
    ) as OperatorSnapshot;
    const restored = harness(snapshot);
    feed(restored, after);
    // Matches up to the cut are those emitted before it (the watermark at 4 completes none).
    expect(sorted(resultOf(restored).matches)).toEqual(sorted(expected.matches));
    // Written again by this version before any record, and restored, it gives the same.
    const rewritten = harness(harness(snapshot).snapshot(2));
    feed(rewritten, after);
    expect(sorted(resultOf(rewritten).matches)).toEqual(sorted(expected.matches));
    for (const h of [whole, restored, rewritten]) await h.close();
  });
});
