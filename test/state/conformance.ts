/**
 * The conformance suite every keyed state backend must pass. A backend's
 * test file calls `keyedStateBackendConformance` with a factory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { WeirError } from '../../src/core/errors.js';
import { type Key, keyGroupOf, keyGroupRange } from '../../src/core/key-groups.js';
import {
  EMPTY_RESTORED_STATE,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../src/core/snapshot.js';
import type { StateSerializer } from '../../src/core/state.js';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';
import { restoredStateFor } from '../../src/runtime/checkpoint/restore.js';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.js';
import { Serializers } from '../../src/state/serializers.js';

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(public time = 1_000_000) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** How the suite makes backends. */
export interface BackendFactoryOptions {
  readonly clock: Clock;
  readonly operatorId: string;
  readonly subtaskIndex: number;
  readonly maxParallelism: number;
  readonly ttlCleanupPerAccess?: number;
}

export type BackendFactory = (options: BackendFactoryOptions) => KeyedStateBackend;

export const MAX_PARALLELISM = 16;
export const OPERATOR = 'op-under-test';

/** A checkpoint holding one operator's subtask snapshots. */
export function checkpointOf(
  subtasks: readonly OperatorSnapshot[],
  checkpointId = 1,
  maxParallelism = MAX_PARALLELISM,
): CheckpointData {
  return {
    format: 'weir-checkpoint',
    version: 2,
    kind: 'checkpoint',
    checkpointId,
    jobName: 'test',
    createdAt: new Date(0).toISOString(),
    maxParallelism,
    final: false,
    operators: [{ uid: OPERATOR, name: OPERATOR, parallelism: subtasks.length, subtasks }],
  };
}

export function snapshotContext(checkpointId: number, kind?: 'checkpoint' | 'savepoint') {
  return {
    checkpointId,
    keyGroupOf: (k: Key) => keyGroupOf(k, MAX_PARALLELISM),
    ...(kind === undefined ? {} : { kind }),
  };
}

/** A JSON round trip: what storage does to a snapshot. */
export function throughJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Runs the suite against `factory`. */
export function keyedStateBackendConformance(name: string, factory: BackendFactory): void {
  describe(`${name} keyed state backend conformance`, () => {
    const created: KeyedStateBackend[] = [];
    let clock: ManualClock;

    const make = (over: Partial<BackendFactoryOptions> = {}): KeyedStateBackend => {
      const b = factory({
        clock,
        operatorId: OPERATOR,
        subtaskIndex: 0,
        maxParallelism: MAX_PARALLELISM,
        ...over,
      });
      created.push(b);
      return b;
    };

    /** Snapshot, JSON round trip, restore at parallelism 1 into a new backend. */
    const roundTrip = (b: KeyedStateBackend, over: Partial<BackendFactoryOptions> = {}) => {
      const snap = throughJson(b.snapshot(snapshotContext(1)));
      const restored = restoredStateFor(checkpointOf([snap]), OPERATOR, 0, 1)!;
      const fresh = make(over);
      fresh.restore(restored);
      return fresh;
    };

    clock = new ManualClock();
    afterEach(() => {
      for (const b of created.splice(0)) b.dispose();
      clock = new ManualClock();
    });

    describe('state types', () => {
      it('value state: per key, absent until set, cleared', () => {
        const b = make();
        const v = b.getValueState<{ n: number }>('v');
        b.currentKey = 'a';
        expect(v.value()).toBeUndefined();
        v.update({ n: 1 });
        expect(v.value()).toEqual({ n: 1 });
        b.currentKey = 'b';
        expect(v.value()).toBeUndefined();
        v.update({ n: 2 });
        b.currentKey = 'a';
        expect(v.value()).toEqual({ n: 1 });
        v.clear();
        expect(v.value()).toBeUndefined();
        b.currentKey = 'b';
        expect(v.value()).toEqual({ n: 2 });
      });

      it('a bare name and a descriptor declare the same state', () => {
        const b = make();
        b.currentKey = 1;
        b.getValueState<number>('count').update(5);
        expect(b.getValueState<number>({ name: 'count' }).value()).toBe(5);
      });

      it('declaring one name as two kinds fails naming the state and operator', () => {
        const b = make();
        b.getValueState('s');
        expect(() => b.getListState('s')).toThrow(WeirError);
        expect(() => b.getListState('s')).toThrow(/'s'.*'op-under-test'.*value and list/);
      });

      it('using state without a current key fails with a WeirError', () => {
        const b = make();
        const v = b.getValueState<number>('v');
        expect(() => v.value()).toThrow(/outside of processing a keyed record/);
      });

      it('list state: add, get, update, clear', () => {
        const b = make();
        const l = b.getListState<string>('l');
        b.currentKey = 'k';
        expect(l.get()).toEqual([]);
        l.add('x');
        l.add('y');
        expect(l.get()).toEqual(['x', 'y']);
        l.update(['z']);
        expect(l.get()).toEqual(['z']);
        l.update([]);
        expect(l.get()).toEqual([]);
        l.add('w');
        l.clear();
        expect(l.get()).toEqual([]);
        expect(b.entryCount()).toBe(0);
      });

      it('map state: put, get, has, remove, entries, size, clear', () => {
        const b = make();
        const m = b.getMapState<string, number>('m');
        b.currentKey = 'k';
        expect(m.size()).toBe(0);
        expect([...m.entries()]).toEqual([]);
        m.put('a', 1);
        m.put('b', 2);
        m.put('a', 3);
        expect(m.get('a')).toBe(3);
        expect(m.has('b')).toBe(true);
        expect(m.has('c')).toBe(false);
        expect(m.get('c')).toBeUndefined();
        expect(m.size()).toBe(2);
        expect(new Map(m.entries())).toEqual(
          new Map([
            ['a', 3],
            ['b', 2],
          ]),
        );
        b.currentKey = 'other';
        expect(m.size()).toBe(0);
        m.put('a', 9);
        b.currentKey = 'k';
        m.remove('a');
        expect(m.has('a')).toBe(false);
        expect(m.size()).toBe(1);
        m.clear();
        expect(m.size()).toBe(0);
        b.currentKey = 'other';
        expect(m.get('a')).toBe(9);
        expect(b.entryCount()).toBe(1);
      });

      it('map state: numbers and strings are different map keys', () => {
        const b = make();
        const m = b.getMapState<number | string, string>('m');
        b.currentKey = 'k';
        m.put(1, 'number');
        m.put('1', 'string');
        expect(m.get(1)).toBe('number');
        expect(m.get('1')).toBe('string');
        expect(m.size()).toBe(2);
      });

      it('reducing state folds added values', () => {
        const b = make();
        const r = b.getReducingState<number>({ name: 'sum', reduce: (a, x) => a + x });
        b.currentKey = 'k';
        expect(r.get()).toBeUndefined();
        r.add(2);
        r.add(5);
        expect(r.get()).toBe(7);
        b.currentKey = 'j';
        r.add(1);
        expect(r.get()).toBe(1);
        b.currentKey = 'k';
        r.clear();
        expect(r.get()).toBeUndefined();
      });

      it('aggregating state keeps an accumulator and returns the result', () => {
        const b = make();
        const avg = b.getAggregatingState<number, [number, number], number>({
          name: 'avg',
          aggregate: {
            createAccumulator: () => [0, 0],
            add: (x, [sum, n]) => [sum + x, n + 1],
            getResult: ([sum, n]) => sum / n,
          },
        });
        b.currentKey = 'k';
        expect(avg.get()).toBeUndefined();
        avg.add(2);
        avg.add(4);
        expect(avg.get()).toBe(3);
        avg.clear();
        expect(avg.get()).toBeUndefined();
      });

      it('keys of every primitive type are distinct', () => {
        const b = make();
        const v = b.getValueState<string>('v');
        const keys: Key[] = [1, '1', 1n, true, 'true', 0, -1, 'a\u0001b', 'é'];
        for (const k of keys) {
          b.currentKey = k;
          v.update(`${typeof k}:${String(k)}`);
        }
        for (const k of keys) {
          b.currentKey = k;
          expect(v.value()).toBe(`${typeof k}:${String(k)}`);
        }
        expect(b.entryCount()).toBe(keys.length);
      });

      it('entryCount counts one entry per key and namespace, one per map entry', () => {
        const b = make();
        const v = b.getValueState<number>('v');
        const m = b.getMapState<string, number>('m');
        b.currentKey = 'a';
        v.update(1);
        m.put('x', 1);
        m.put('y', 2);
        b.setCurrentNamespace('w1');
        v.update(2);
        expect(b.entryCount()).toBe(4);
      });
    });

    describe('namespaces', () => {
      it('scope state below the key', () => {
        const b = make();
        const v = b.getValueState<number>('acc');
        const l = b.getListState<number>('items');
        b.currentKey = 'k';
        expect(b.currentNamespace).toBe('');
        v.update(0);
        b.setCurrentNamespace('0:10');
        v.update(10);
        l.add(1);
        b.setCurrentNamespace('10:20');
        expect(v.value()).toBeUndefined();
        expect(l.get()).toEqual([]);
        v.update(20);
        b.setCurrentNamespace('0:10');
        expect(v.value()).toBe(10);
        expect(l.get()).toEqual([1]);
        b.setCurrentNamespace('');
        expect(v.value()).toBe(0);
        expect(b.namespacesOf('acc').sort()).toEqual(['', '0:10', '10:20']);
        b.setCurrentNamespace('0:10');
        v.clear();
        expect(b.namespacesOf('acc').sort()).toEqual(['', '10:20']);
      });

      it('forEachKeyAndNamespace visits every pair once', () => {
        const b = make();
        const m = b.getMapState<string, number>('m');
        for (const key of ['a', 'b']) {
          b.currentKey = key;
          for (const ns of ['w1', 'w2']) {
            b.setCurrentNamespace(ns);
            m.put('x', 1);
            m.put('y', 2);
          }
        }
        const seen: string[] = [];
        b.forEachKeyAndNamespace('m', (k, ns) => seen.push(`${String(k)}/${ns}`));
        expect(seen.sort()).toEqual(['a/w1', 'a/w2', 'b/w1', 'b/w2']);
        b.forEachKeyAndNamespace('unknown', () => {
          throw new Error('no state, no calls');
        });
      });

      it('survive snapshot and restore', () => {
        const b = make();
        const v = b.getValueState<number>('v');
        b.currentKey = 'k';
        b.setCurrentNamespace('w');
        v.update(7);
        const r = roundTrip(b);
        const rv = r.getValueState<number>('v');
        r.currentKey = 'k';
        expect(rv.value()).toBeUndefined();
        r.setCurrentNamespace('w');
        expect(rv.value()).toBe(7);
      });
    });

    describe('TTL', () => {
      it('on-create-and-write: expires ttlMs after the last write; reads do not extend it', () => {
        const b = make();
        const v = b.getValueState<number>({ name: 'v', ttl: { ttlMs: 100 } });
        b.currentKey = 'k';
        v.update(1);
        clock.advance(60);
        expect(v.value()).toBe(1);
        clock.advance(39);
        expect(v.value()).toBe(1);
        clock.advance(1);
        expect(v.value()).toBeUndefined();
        v.update(2);
        clock.advance(99);
        v.update(3);
        clock.advance(99);
        expect(v.value()).toBe(3);
      });

      it('on-read-and-write: reads restart the lifetime', () => {
        const b = make();
        const v = b.getValueState<number>({
          name: 'v',
          ttl: { ttlMs: 100, update: 'on-read-and-write' },
        });
        b.currentKey = 'k';
        v.update(1);
        for (let i = 0; i < 5; i++) {
          clock.advance(90);
          expect(v.value()).toBe(1);
        }
        clock.advance(100);
        expect(v.value()).toBeUndefined();
      });

      it('expired state is never returned, by any state type', () => {
        const b = make();
        const ttl = { ttlMs: 10 };
        const v = b.getValueState<number>({ name: 'v', ttl });
        const l = b.getListState<number>({ name: 'l', ttl });
        const m = b.getMapState<string, number>({ name: 'm', ttl });
        const r = b.getReducingState<number>({ name: 'r', ttl, reduce: (a, x) => a + x });
        const a = b.getAggregatingState<number, number, number>({
          name: 'a',
          ttl,
          aggregate: {
            createAccumulator: () => 0,
            add: (x, acc) => acc + x,
            getResult: (acc) => acc,
          },
        });
        b.currentKey = 'k';
        v.update(1);
        l.add(1);
        m.put('x', 1);
        r.add(1);
        a.add(1);
        clock.advance(5);
        m.put('y', 2);
        clock.advance(5);
        expect(v.value()).toBeUndefined();
        expect(l.get()).toEqual([]);
        expect(m.get('x')).toBeUndefined();
        expect(m.has('x')).toBe(false);
        expect(m.get('y')).toBe(2);
        expect([...m.entries()]).toEqual([['y', 2]]);
        expect(m.size()).toBe(1);
        expect(r.get()).toBeUndefined();
        expect(a.get()).toBeUndefined();
        r.add(4);
        expect(r.get()).toBe(4);
        a.add(3);
        expect(a.get()).toBe(3);
        clock.advance(5);
        expect(m.size()).toBe(0);
        expect(b.namespacesOf('v')).toEqual([]);
      });

      it('expired entries are cleaned incrementally, a bounded number per access', () => {
        const perAccess = 3;
        const b = make({ ttlCleanupPerAccess: perAccess });
        const v = b.getValueState<number>({ name: 'v', ttl: { ttlMs: 10 } });
        for (let i = 0; i < 30; i++) {
          b.currentKey = i;
          v.update(i);
        }
        expect(b.entryCount()).toBe(30);
        clock.advance(10);
        b.currentKey = 'reader';
        let previous = b.entryCount();
        let accesses = 0;
        while (previous > 0) {
          v.value();
          accesses++;
          const now = b.entryCount();
          expect(previous - now).toBeLessThanOrEqual(perAccess);
          previous = now;
          expect(accesses).toBeLessThan(100);
        }
        expect(accesses).toBeGreaterThanOrEqual(30 / perAccess);
      });

      it('incremental cleanup leaves live entries alone', () => {
        const b = make({ ttlCleanupPerAccess: 50 });
        const v = b.getValueState<number>({ name: 'v', ttl: { ttlMs: 10 } });
        for (let i = 0; i < 20; i++) {
          b.currentKey = i;
          v.update(i);
        }
        clock.advance(5);
        for (let i = 20; i < 30; i++) {
          b.currentKey = i;
          v.update(i);
        }
        // (On the disk backend this also writes its buffer: cleanup examines stored rows.)
        expect(b.entryCount()).toBe(30);
        clock.advance(5);
        b.currentKey = 'reader';
        v.value();
        v.value();
        expect(b.entryCount()).toBe(10);
        for (let i = 20; i < 30; i++) {
          b.currentKey = i;
          expect(v.value()).toBe(i);
        }
      });

      it('snapshots leave expired entries out and remove them', () => {
        const b = make({ ttlCleanupPerAccess: 0 });
        const v = b.getValueState<number>({ name: 'v', ttl: { ttlMs: 10 } });
        const keep = b.getValueState<number>('keep');
        for (let i = 0; i < 10; i++) {
          b.currentKey = i;
          v.update(i);
          keep.update(i);
        }
        clock.advance(10);
        const snap = b.snapshot(snapshotContext(1));
        const rows = Object.values(snap.keyed ?? {}).flat() as Json[][];
        expect(rows.filter((r) => r[0] === 'v')).toEqual([]);
        expect(rows.filter((r) => r[0] === 'keep')).toHaveLength(10);
        expect(b.entryCount()).toBe(10);
      });

      it('expiry times survive snapshot and restore', () => {
        const b = make();
        const ttl = { ttlMs: 100 };
        b.getValueState<number>({ name: 'v', ttl });
        b.currentKey = 'k';
        b.getValueState<number>({ name: 'v', ttl }).update(1);
        clock.advance(60);
        const r = roundTrip(b);
        const v = r.getValueState<number>({ name: 'v', ttl });
        r.currentKey = 'k';
        expect(v.value()).toBe(1);
        clock.advance(40);
        expect(v.value()).toBeUndefined();
      });
    });

    describe('snapshot and restore', () => {
      const fill = (b: KeyedStateBackend, keys: readonly Key[]): void => {
        const v = b.getValueState<{ k: string }>('v');
        const l = b.getListState<number>('l');
        const m = b.getMapState<string, number>('m');
        const r = b.getReducingState<number>({ name: 'r', reduce: (a, x) => a + x });
        for (const k of keys) {
          b.currentKey = k;
          v.update({ k: String(k) });
          l.add(1);
          l.add(2);
          m.put('a', 1);
          m.put(String(k), 2);
          r.add(3);
          r.add(4);
        }
      };
      const check = (b: KeyedStateBackend, keys: readonly Key[]): void => {
        const v = b.getValueState<{ k: string }>('v');
        const l = b.getListState<number>('l');
        const m = b.getMapState<string, number>('m');
        const r = b.getReducingState<number>({ name: 'r', reduce: (a, x) => a + x });
        for (const k of keys) {
          b.currentKey = k;
          expect(v.value()).toEqual({ k: String(k) });
          expect(l.get()).toEqual([1, 2]);
          expect(new Map(m.entries())).toEqual(
            new Map([
              ['a', 1],
              [String(k), 2],
            ]),
          );
          expect(r.get()).toBe(7);
        }
      };
      const keys: Key[] = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? i : `key-${i}`));

      it('round-trips every state type through JSON', () => {
        const b = make();
        fill(b, keys);
        const r = roundTrip(b);
        check(r, keys);
        expect(r.entryCount()).toBe(b.entryCount());
      });

      it('snapshots group entries by key group and record serializers', () => {
        const b = make();
        fill(b, keys);
        const snap = b.snapshot(snapshotContext(1));
        for (const [g, rows] of Object.entries(snap.keyed ?? {})) {
          for (const row of rows as Json[][]) {
            const key = row[1] as Json;
            const k =
              typeof key === 'object' && key !== null && !Array.isArray(key)
                ? BigInt(key.b as string)
                : (key as Key);
            expect(keyGroupOf(k, MAX_PARALLELISM)).toBe(Number(g));
          }
        }
        expect(snap.states?.v).toEqual({ kind: 'value', serializer: { id: 'json', version: 1 } });
        expect(snap.states?.m?.keySerializer).toEqual({ id: 'json', version: 1 });
      });

      it('the live state may change after a snapshot without changing it', () => {
        const b = make();
        const v = b.getValueState<number[]>('v');
        b.currentKey = 'k';
        v.update([1]);
        const snap = b.snapshot(snapshotContext(1));
        const text = JSON.stringify(snap.keyed);
        v.update([2]);
        expect(JSON.stringify(snap.keyed)).toBe(text);
      });

      it('restores into a backend that declared its states first', () => {
        const b = make();
        fill(b, keys);
        const snap = throughJson(b.snapshot(snapshotContext(1)));
        const fresh = make();
        const v = fresh.getValueState<{ k: string }>('v');
        fresh.restore(restoredStateFor(checkpointOf([snap]), OPERATOR, 0, 1)!);
        fresh.currentKey = keys[0]!;
        expect(v.value()).toEqual({ k: String(keys[0]) });
        check(fresh, keys);
      });

      it('keeps restored state that is not declared in later snapshots', () => {
        const b = make();
        fill(b, keys);
        const r = roundTrip(b);
        r.getValueState<{ k: string }>('v');
        const again = roundTrip(r);
        check(again, keys);
      });

      it('an empty restore is a fresh start', () => {
        const b = make();
        b.restore(EMPTY_RESTORED_STATE);
        expect(b.entryCount()).toBe(0);
      });

      it('restores at another parallelism: split across 2 subtasks, then merged into 1', () => {
        const many: Key[] = Array.from({ length: 200 }, (_, i) => `user-${i}`);
        const one = make();
        fill(one, many);
        const cp1 = checkpointOf([throughJson(one.snapshot(snapshotContext(1)))], 1);

        const halves = [0, 1].map((s) => {
          const restored = restoredStateFor(cp1, OPERATOR, s, 2)!;
          const { first, last } = keyGroupRange(s, MAX_PARALLELISM, 2);
          for (const g of restored.keyed.keys()) {
            expect(g).toBeGreaterThanOrEqual(first);
            expect(g).toBeLessThanOrEqual(last);
          }
          const b = make({ subtaskIndex: s });
          b.restore(restored);
          const mine = many.filter((k) => {
            const g = keyGroupOf(k, MAX_PARALLELISM);
            return g >= first && g <= last;
          });
          check(b, mine);
          // Each half holds only its own keys: 4 rows for v, l, r plus 2 map entries per key.
          expect(b.entryCount()).toBe(mine.length * 5);
          return { b, mine };
        });
        expect(halves[0]!.mine.length + halves[1]!.mine.length).toBe(many.length);
        expect(halves[0]!.mine.length).toBeGreaterThan(0);
        expect(halves[1]!.mine.length).toBeGreaterThan(0);

        // Change a key in each half, then merge the two back into one subtask.
        for (const { b, mine } of halves) {
          b.currentKey = mine[0]!;
          b.getValueState<{ k: string }>('v').update({ k: 'changed' });
        }
        const cp2 = checkpointOf(
          halves.map(({ b }) => throughJson(b.snapshot(snapshotContext(2)))),
          2,
        );
        const merged = make();
        merged.restore(restoredStateFor(cp2, OPERATOR, 0, 1)!);
        const v = merged.getValueState<{ k: string }>('v');
        for (const { mine } of halves) {
          merged.currentKey = mine[0]!;
          expect(v.value()).toEqual({ k: 'changed' });
          merged.currentKey = mine[1]!;
          expect(v.value()).toEqual({ k: mine[1] });
        }
        expect(merged.entryCount()).toBe(many.length * 5);
      });
    });

    describe('serializers', () => {
      interface PointV2 {
        x: number;
        y: number;
      }
      const v1: StateSerializer<{ x: number }> = {
        id: 'point',
        version: 1,
        toJson: (p) => [p.x],
        fromJson: (json) => ({ x: (json as number[])[0]! }),
      };
      const v2: StateSerializer<PointV2> = {
        id: 'point',
        version: 2,
        toJson: (p) => ({ x: p.x, y: p.y }),
        fromJson: (json) => json as unknown as PointV2,
      };

      const snapshotWith = <T>(serializer: StateSerializer<T>, value: T) => {
        const b = make();
        b.currentKey = 'k';
        b.getValueState<T>({ name: 'p', serializer }).update(value);
        const m = b.getMapState<string, T>({ name: 'm', serializer });
        m.put('e', value);
        return restoredStateFor(
          checkpointOf([throughJson(b.snapshot(snapshotContext(1)))]),
          OPERATOR,
          0,
          1,
        )!;
      };

      it('values are stored as the serializer writes them', () => {
        const b = make();
        b.currentKey = 'k';
        b.getValueState<bigint>({ name: 'big', serializer: Serializers.bigint() }).update(
          2n ** 70n,
        );
        b.getValueState<number>({ name: 'n', serializer: Serializers.number() }).update(Number.NaN);
        const rows = Object.values(b.snapshot(snapshotContext(1)).keyed ?? {}).flat() as Json[][];
        expect(rows.find((r) => r[0] === 'big')?.[4]).toBe((2n ** 70n).toString());
        expect(rows.find((r) => r[0] === 'n')?.[4]).toBe('NaN');
        const r = roundTrip(b);
        r.currentKey = 'k';
        expect(
          r.getValueState<bigint>({ name: 'big', serializer: Serializers.bigint() }).value(),
        ).toBe(2n ** 70n);
        expect(
          r.getValueState<number>({ name: 'n', serializer: Serializers.number() }).value(),
        ).toBeNaN();
      });

      it('a newer written version than the serializer knows fails, naming operator, state and versions', () => {
        const restored = snapshotWith(v2, { x: 1, y: 2 });
        const b = make();
        b.restore(restored);
        let error: unknown;
        try {
          b.getValueState({ name: 'p', serializer: v1 });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(WeirError);
        const message = (error as WeirError).message;
        expect(message).toContain(`'${OPERATOR}'`);
        expect(message).toContain("'p'");
        expect(message).toContain('version 2');
        expect(message).toContain('version 1');
        expect((error as WeirError).operatorId).toBe(OPERATOR);
      });

      it('a different serializer id fails', () => {
        const restored = snapshotWith(v1, { x: 1 });
        const b = make();
        b.restore(restored);
        expect(() => b.getValueState({ name: 'p', serializer: Serializers.json() })).toThrow(
          /serializer 'point' \(version 1\).*'json'/,
        );
      });

      it('a different kind fails', () => {
        const restored = snapshotWith(v1, { x: 1 });
        const b = make();
        b.restore(restored);
        expect(() => b.getListState({ name: 'p', serializer: v1 })).toThrow(
          /value state.*list state/,
        );
      });

      it('the same check runs when the state was declared before the restore', () => {
        const restored = snapshotWith(v2, { x: 1, y: 2 });
        const b = make();
        b.getValueState({ name: 'p', serializer: v1 });
        expect(() => b.restore(restored)).toThrow(/version 2/);
      });

      it('an older written version goes through the migration hook', () => {
        const restored = snapshotWith(v1, { x: 5 });
        const calls: [Json, number][] = [];
        const migrating = Serializers.withMigration(v2, (old, fromVersion) => {
          calls.push([old, fromVersion]);
          return { x: (old as number[])[0]!, y: 0 };
        });
        const b = make();
        b.restore(restored);
        const p = b.getValueState<PointV2>({ name: 'p', serializer: migrating });
        const m = b.getMapState<string, PointV2>({ name: 'm', serializer: migrating });
        b.currentKey = 'k';
        expect(p.value()).toEqual({ x: 5, y: 0 });
        expect(m.get('e')).toEqual({ x: 5, y: 0 });
        expect(calls).toContainEqual([[5], 1]);
        // Migrated state is written with the new version.
        const snap = b.snapshot(snapshotContext(2));
        expect(snap.states?.p?.serializer).toEqual({ id: 'point', version: 2 });
        const rows = Object.values(snap.keyed ?? {}).flat() as Json[][];
        expect(rows.find((r) => r[0] === 'p')?.[4]).toEqual({ x: 5, y: 0 });
      });

      it('map keys migrate through their own serializer', () => {
        const keyV1: StateSerializer<string> = {
          id: 'sku',
          version: 1,
          toJson: (s) => s,
          fromJson: (j) => j as string,
        };
        const keyV2 = Serializers.withMigration<string>(
          {
            id: 'sku',
            version: 2,
            toJson: (s) => `SKU-${s}`,
            fromJson: (j) => (j as string).slice(4),
          },
          (old) => (old as string).toLowerCase(),
        );
        const a = make();
        a.currentKey = 'k';
        a.getMapState<string, number>({ name: 'm', keySerializer: keyV1 }).put('ABC', 1);
        const restored = restoredStateFor(
          checkpointOf([throughJson(a.snapshot(snapshotContext(1)))]),
          OPERATOR,
          0,
          1,
        )!;
        const b = make();
        b.restore(restored);
        const m = b.getMapState<string, number>({ name: 'm', keySerializer: keyV2 });
        b.currentKey = 'k';
        expect([...m.entries()]).toEqual([['abc', 1]]);
        expect(m.get('abc')).toBe(1);
        expect(b.entryCount()).toBe(1);
      });

      it('restored entries of undeclared states fail clearly', () => {
        const b = make();
        const bad: RestoredState = {
          keyed: new Map([[0, [['ghost', 'k', '', null, 1]]]]),
          list: [],
          union: [],
        };
        expect(() => b.restore(bad)).toThrow(/'ghost'.*no declaration/);
      });
    });
  });
}
