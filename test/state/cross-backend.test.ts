import { afterEach, describe, expect, it } from 'vitest';
import { restoredStateFor } from '../../src/runtime/checkpoint/restore.js';
import { createKeyedStateBackend } from '../../src/state/create-backend.js';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.js';
import {
  checkpointOf,
  MAX_PARALLELISM,
  ManualClock,
  OPERATOR,
  snapshotContext,
  throughJson,
} from './conformance.js';

describe('heap and disk backends share one snapshot format', () => {
  const made: KeyedStateBackend[] = [];
  afterEach(() => {
    for (const b of made.splice(0)) b.dispose();
  });
  const make = (kind: 'heap' | 'disk') => {
    const b = createKeyedStateBackend(
      { kind },
      {
        operatorId: OPERATOR,
        subtaskIndex: 0,
        maxParallelism: MAX_PARALLELISM,
        clock: new ManualClock(),
      },
    );
    made.push(b);
    return b;
  };

  for (const [from, to] of [
    ['heap', 'disk'],
    ['disk', 'heap'],
  ] as const) {
    it(`${from} -> ${to}`, () => {
      const a = make(from);
      a.currentKey = 'k';
      a.getValueState<number>('v').update(1);
      a.getMapState<string, number>('m').put('x', 2);
      a.setCurrentNamespace('w');
      a.getListState<number>('l').add(3);
      const b = make(to);
      b.restore(
        restoredStateFor(
          checkpointOf([throughJson(a.snapshot(snapshotContext(1)))]),
          OPERATOR,
          0,
          1,
        )!,
      );
      b.currentKey = 'k';
      expect(b.getValueState<number>('v').value()).toBe(1);
      expect(b.getMapState<string, number>('m').get('x')).toBe(2);
      b.setCurrentNamespace('w');
      expect(b.getListState<number>('l').get()).toEqual([3]);
      expect(b.entryCount()).toBe(3);
    });
  }

  it('an unknown backend kind fails', () => {
    expect(() =>
      createKeyedStateBackend({ kind: 'rocks' } as unknown as { kind: 'heap' }, {
        operatorId: OPERATOR,
        subtaskIndex: 0,
        maxParallelism: MAX_PARALLELISM,
        clock: new ManualClock(),
      }),
    ).toThrow(/unknown state backend kind 'rocks'/);
  });
});
