/**
 * Scenarios of Flink's state TTL suite (flink-runtime, `org.apache.flink.runtime.state.ttl`):
 * `TtlStateTestBase` with its state contexts `TtlValueStateTestContext`,
 * `TtlFixedLenElemListStateTestContext`, `TtlNonFixedLenElemListStateTestContext`,
 * `TtlMapStateAllEntriesTestContext`, `TtlMapStatePerElementTestContext`,
 * `TtlMapStatePerNullElementTestContext`, `TtlAggregatingStateTestContext` and
 * `TtlReducingStateTestContext`, with Flink's TTL (100 ms), times, inputs and expected values.
 * Every scenario runs against both keyed state backends (heap and disk) and every state
 * context; each `it` names the Flink test method it ports, its `describe` the backend and the
 * Flink context (state kind).
 *
 * How the pieces map:
 * - TTL is measured in processing time, in both (Flink's only TTL time characteristic). Flink's
 *   `MockTtlTimeProvider` is a clock the test sets (and, like Flink's, may set back); it is the
 *   processing-time clock handed to the backend.
 * - Flink's take-and-restore (snapshot, new backend, restore, declare the state again) is the
 *   same here: a snapshot goes through JSON, as storage does, into a fresh backend.
 * - Flink's "original state is cleared on access" (a look under the TTL wrapper) is
 *   `entryCount()`: the rows the backend still stores, expired or not.
 * - Flink's base tests switch background cleanup off; here the per-access sweep is off
 *   (`ttlCleanupPerAccess: 0`) except in the incremental cleanup scenarios.
 * - A Flink list state `update` is `addAll`; Weir's list has no `addAll`, so the elements are
 *   added one by one. A Flink map `putAll` is a `put` per entry.
 *
 * Deliberate differences from Flink, each asserted where it shows:
 * - Visibility: Weir offers only `never-return-expired`. Flink's
 *   `ReturnExpiredIfNotCleanedUp` scenarios (testRelaxedExpirationOnWrite,
 *   testRelaxedExpirationOnRead) run on the same timeline with Weir's visibility: where Flink
 *   returns the expired value once, Weir returns nothing.
 * - No value: JavaScript has two. Flink's `update(null)` clears a value state; in Weir that is
 *   `update(undefined)` (a read of no value gives `undefined`), while `null` is a JSON value like
 *   any other and is stored. Map state keeps `null` values too, so in the per-null-element
 *   context a present entry reads `null` and an absent one `undefined` (Flink: both `null`).
 * - Restoring with a changed TTL: Weir's snapshots record when each entry expires, not when it
 *   was last written, so a restored entry keeps the lifetime it was written with, and the new
 *   TTL applies from its next write (or read, with `on-read-and-write`). Flink keeps last-access
 *   times and applies the new TTL to restored entries at once. Recording the TTL in the
 *   snapshot's state declaration would allow Flink's behaviour; that is a change of the snapshot
 *   format, not made here.
 * - Incremental cleanup: Flink's heap backend cleans a few state-map entries on every change of
 *   the current key and every state access (`cleanupIncrementally(5, true)`); Weir cleans on
 *   every access to the TTL state, and counts map entries, not keys. The ports give Weir 10
 *   entries per access (Flink: 5 keys on each of the two triggers) and access the state where
 *   Flink only moves the current key. The disk backend sweeps the rows in its store, so there its
 *   write buffer is one row (every write reaches the store at once, as after any flush).
 *   Flink checks the stored value of each key; Weir checks the number of stored entries.
 * - Snapshot cleanup: Weir always leaves expired entries out of full snapshots (Flink's
 *   `cleanupFullSnapshot()`), so the `...WithSnapshotCleanup` scenarios need no setting.
 *
 * The last group of tests is Weir's own: Flink's per-element list expiry carried through Weir's
 * snapshot rows, from either backend to the other.
 *
 * Not ported, because Weir has no equivalent:
 * - testMergeNamespaces: Weir's keyed state backends have no namespace merge (session windows
 *   merge their contents in the window operator, not in the backend).
 * - The Kryo list context (`TtlListStateWithKryoTestContext`): Weir's state values are JSON,
 *   written by explicit serializers; there is no reflective serializer to exercise.
 * - `isSavepoint` (full vs incremental snapshot strategy): every restore here starts a backend
 *   whose first snapshot is full, in both backends.
 * - The serializer suites (`TtlSerializer*`, `TtlAwareSerializer*`): Weir keeps the expiry
 *   beside the value in the snapshot row rather than inside a serialized value, so there is no
 *   TTL serializer to upgrade; restoring TTL state without a TTL and the reverse are ported
 *   (testRestoreTtlAndRegisterNonTtlStateCompatFailure and its counterpart).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { keyGroupOf } from '../../src/core/key-groups.js';
import type { OperatorSnapshot } from '../../src/core/snapshot.js';
import type { StateTtlConfig } from '../../src/core/state.js';
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

/** Flink's `TtlStateTestBase.TTL`. */
const TTL = 100;

type BackendKind = 'heap' | 'disk';
const BACKENDS: readonly BackendKind[] = ['heap', 'disk'];

// ---- Flink's state contexts --------------------------------------------------------------------

/** A state declared in one backend, read and written for its current key and namespace. */
interface BoundState<UV, GV> {
  update(value: UV): void;
  get(): GV;
  clear(): void;
}

/**
 * Flink's `TtlStateTestContextBase`: the state kind, the values written (`update*`) and the
 * values expected back (`get*`), and what an absent state reads as.
 */
interface TtlContext<UV, GV> {
  /** Flink's context class. */
  readonly flinkName: string;
  readonly stateKind: 'value' | 'list' | 'map' | 'aggregating' | 'reducing';
  readonly updateEmpty: UV;
  readonly updateUnexpired: UV;
  readonly updateExpired: UV;
  readonly getUpdateEmpty: GV;
  readonly getUnexpired: GV;
  readonly getUpdateExpired: GV;
  readonly emptyValue: GV;
  /** Stored entries (backend rows) one update makes: map entries for map state, else 1. */
  rowsOf(update: UV): number;
  /** Declares the state in `backend`, with `ttl` if given. */
  bind(backend: KeyedStateBackend, ttl: StateTtlConfig | undefined): BoundState<UV, GV>;
}

const withTtl = (ttl: StateTtlConfig | undefined) => (ttl === undefined ? {} : { ttl });

const valueContext: TtlContext<string, string | undefined> = {
  flinkName: 'TtlValueStateTestContext',
  stateKind: 'value',
  updateEmpty: 'test value1',
  updateUnexpired: 'test value2',
  updateExpired: 'test value3',
  getUpdateEmpty: 'test value1',
  getUnexpired: 'test value2',
  getUpdateExpired: 'test value3',
  emptyValue: undefined,
  rowsOf: () => 1,
  bind(backend, ttl) {
    const state = backend.getValueState<string>({ name: this.flinkName, ...withTtl(ttl) });
    return { update: (v) => state.update(v), get: () => state.value(), clear: () => state.clear() };
  },
};

function listContext<T>(
  flinkName: string,
  updateEmpty: T[],
  updateUnexpired: T[],
  updateExpired: T[],
): TtlContext<T[], T[]> {
  return {
    flinkName,
    stateKind: 'list',
    updateEmpty,
    updateUnexpired,
    updateExpired,
    // Every element lives on its own: what was added earlier expires earlier.
    getUpdateEmpty: updateEmpty,
    getUnexpired: updateUnexpired,
    getUpdateExpired: updateExpired,
    emptyValue: [],
    rowsOf: () => 1,
    bind(backend, ttl) {
      const state = backend.getListState<T>({ name: flinkName, ...withTtl(ttl) });
      return {
        update: (values) => {
          for (const v of values) state.add(v);
        },
        get: () => [...state.get()],
        clear: () => state.clear(),
      };
    },
  };
}

const fixedLenListContext = listContext<number>(
  'TtlFixedLenElemListStateTestContext',
  [5, 7, 10],
  [8, 9, 11],
  [1, 4],
);

const nonFixedLenListContext = listContext<string>(
  'TtlNonFixedLenElemListStateTestContext',
  ['5', '7', '10'],
  ['8', '9', '11'],
  ['1', '4'],
);

type MapEntries = [number, string | null][];
const byKey = (entries: MapEntries): MapEntries => [...entries].sort((a, b) => a[0] - b[0]);

const mapAllEntriesContext: TtlContext<MapEntries, MapEntries> = {
  flinkName: 'TtlMapStateAllEntriesTestContext',
  stateKind: 'map',
  updateEmpty: [
    [3, '3'],
    [5, '5'],
    [23, null],
    [10, '10'],
  ],
  updateUnexpired: [
    [12, '12'],
    [24, null],
    [7, '7'],
  ],
  updateExpired: [
    [15, '15'],
    [25, null],
    [4, '4'],
  ],
  // Every map entry lives on its own: the entries read are those of the last update only.
  getUpdateEmpty: byKey([
    [3, '3'],
    [5, '5'],
    [23, null],
    [10, '10'],
  ]),
  getUnexpired: byKey([
    [12, '12'],
    [24, null],
    [7, '7'],
  ]),
  getUpdateExpired: byKey([
    [15, '15'],
    [25, null],
    [4, '4'],
  ]),
  emptyValue: [],
  rowsOf: (update) => update.length,
  bind(backend, ttl) {
    const state = backend.getMapState<number, string | null>({
      name: this.flinkName,
      ...withTtl(ttl),
    });
    return {
      update: (entries) => {
        for (const [k, v] of entries) state.put(k, v);
      },
      get: () => byKey([...state.entries()]),
      clear: () => state.clear(),
    };
  },
};

/** Flink's per-element map contexts: one map key (1), read with `get` and checked with `has`. */
function mapPerElementContext(
  flinkName: string,
  values: readonly [string | null, string | null, string | null],
): TtlContext<string | null, string | null | undefined> {
  return {
    flinkName,
    stateKind: 'map',
    updateEmpty: values[0],
    updateUnexpired: values[1],
    updateExpired: values[2],
    getUpdateEmpty: values[0],
    getUnexpired: values[1],
    getUpdateExpired: values[2],
    emptyValue: undefined,
    rowsOf: () => 1,
    bind(backend, ttl) {
      const state = backend.getMapState<number, string | null>({
        name: flinkName,
        ...withTtl(ttl),
      });
      return {
        update: (v) => state.put(1, v),
        get: () => {
          const v = state.get(1);
          // Flink's context asserts that contains() agrees with get().
          expect(state.has(1)).toBe(v !== undefined);
          return v;
        },
        clear: () => state.clear(),
      };
    },
  };
}

const mapPerElementContext1 = mapPerElementContext('TtlMapStatePerElementTestContext', [
  'test value1',
  'test value2',
  'test value3',
]);

const mapPerNullElementContext = mapPerElementContext('TtlMapStatePerNullElementTestContext', [
  null,
  null,
  null,
]);

/** Flink's aggregate: the accumulator starts at 3 and sums; the result is its text. */
const aggregatingContext: TtlContext<number, string | undefined> = {
  flinkName: 'TtlAggregatingStateTestContext',
  stateKind: 'aggregating',
  updateEmpty: 5,
  updateUnexpired: 7,
  updateExpired: 6,
  getUpdateEmpty: '8',
  getUnexpired: '15',
  // The expired accumulator is gone: the new one starts from createAccumulator() again.
  getUpdateExpired: '9',
  emptyValue: undefined,
  rowsOf: () => 1,
  bind(backend, ttl) {
    const state = backend.getAggregatingState<number, number, string>({
      name: this.flinkName,
      ...withTtl(ttl),
      aggregate: {
        createAccumulator: () => 3,
        add: (value, acc) => acc + value,
        getResult: (acc) => String(acc),
      },
    });
    return { update: (v) => state.add(v), get: () => state.get(), clear: () => state.clear() };
  },
};

const reducingContext: TtlContext<number, number | undefined> = {
  flinkName: 'TtlReducingStateTestContext',
  stateKind: 'reducing',
  updateEmpty: 5,
  updateUnexpired: 7,
  updateExpired: 6,
  getUpdateEmpty: 5,
  getUnexpired: 12,
  getUpdateExpired: 6,
  emptyValue: undefined,
  rowsOf: () => 1,
  bind(backend, ttl) {
    const state = backend.getReducingState<number>({
      name: this.flinkName,
      ...withTtl(ttl),
      reduce: (a, b) => a + b,
    });
    return { update: (v) => state.add(v), get: () => state.get(), clear: () => state.clear() };
  },
};

/** Flink's `TtlStateTestBase.testContexts()`, without the Kryo list (see the header). */
const CONTEXTS = [
  valueContext,
  fixedLenListContext,
  nonFixedLenListContext,
  mapAllEntriesContext,
  mapPerElementContext1,
  mapPerNullElementContext,
  aggregatingContext,
  reducingContext,
] as readonly TtlContext<unknown, unknown>[];

// ---- Flink's StateBackendTestContext ----------------------------------------------------------

const created: KeyedStateBackend[] = [];
afterEach(() => {
  for (const b of created.splice(0)) b.dispose();
});

/** Backend settings of a scenario. */
interface ScenarioOptions {
  /** Entries examined for expiry per state access; 0 (no background cleanup) by default. */
  readonly cleanupPerAccess?: number;
  /** Disk backend only: rows buffered before they are written to the store. */
  readonly diskWriteBuffer?: number;
}

/**
 * One Flink test's backend, clock and state: the state is declared (with the scenario's TTL)
 * for key `defaultKey` in namespace `defaultNamespace`, as Flink's `initTest` does.
 */
class TtlScenario<UV, GV> {
  readonly clock = new ManualClock(0);
  backend!: KeyedStateBackend;
  private state!: BoundState<UV, GV>;
  private checkpointId = 0;

  constructor(
    private readonly kind: BackendKind,
    readonly ctx: TtlContext<UV, GV>,
    private ttl: StateTtlConfig | undefined,
    private readonly options: ScenarioOptions = {},
  ) {
    this.backend = this.newBackend();
    this.declare();
  }

  private newBackend(): KeyedStateBackend {
    const cleanup = this.options.cleanupPerAccess ?? 0;
    const b = createKeyedStateBackend(
      this.kind === 'heap'
        ? { kind: 'heap', ttlCleanupPerAccess: cleanup }
        : {
            kind: 'disk',
            ttlCleanupPerAccess: cleanup,
            ...(this.options.diskWriteBuffer === undefined
              ? {}
              : { writeBufferEntries: this.options.diskWriteBuffer }),
          },
      {
        operatorId: OPERATOR,
        subtaskIndex: 0,
        maxParallelism: MAX_PARALLELISM,
        clock: this.clock,
      },
    );
    created.push(b);
    return b;
  }

  private declare(): void {
    this.backend.currentKey = 'defaultKey';
    this.state = this.ctx.bind(this.backend, this.ttl);
    this.backend.setCurrentNamespace('defaultNamespace');
  }

  set time(t: number) {
    this.clock.time = t;
  }

  update(value: UV): void {
    this.state.update(value);
  }

  get(): GV {
    return this.state.get();
  }

  clear(): void {
    this.state.clear();
  }

  setKey(key: string): void {
    this.backend.currentKey = key;
  }

  setNamespace(namespace: string): void {
    this.backend.setCurrentNamespace(namespace);
  }

  /** A snapshot as storage hands it back. */
  snapshot(): OperatorSnapshot {
    return throughJson(this.backend.snapshot(snapshotContext(++this.checkpointId)));
  }

  /** Replaces the backend by a new one restored from `snapshot`; the state is declared as before. */
  restore(snapshot: OperatorSnapshot): void {
    this.restoreDeclaring(snapshot, this.ttl);
  }

  /** Like `restore`, declaring the state with `ttl` (none if undefined). */
  restoreDeclaring(snapshot: OperatorSnapshot, ttl: StateTtlConfig | undefined): void {
    this.ttl = ttl;
    const old = this.backend;
    this.backend = this.newBackend();
    this.backend.restore(restoredStateFor(checkpointOf([snapshot]), OPERATOR, 0, 1)!);
    old.dispose();
    this.declare();
  }

  takeAndRestoreSnapshot(): void {
    this.restore(this.snapshot());
  }

  /** Flink's `isOriginalEmptyValue` for a single-entry test: nothing is stored any more. */
  originalCleared(): boolean {
    return this.backend.entryCount() === 0;
  }
}

const onWrite: StateTtlConfig = { ttlMs: TTL, update: 'on-create-and-write' };
const onRead: StateTtlConfig = { ttlMs: TTL, update: 'on-read-and-write' };

// ---- Flink's TtlStateTestBase ------------------------------------------------------------------

for (const kind of BACKENDS) {
  for (const ctx of CONTEXTS) {
    describe(`${kind} backend, ${ctx.flinkName} (${ctx.stateKind} state)`, () => {
      const scenario = (ttl: StateTtlConfig | 'no ttl' = onWrite, options?: ScenarioOptions) =>
        new TtlScenario(kind, ctx, ttl === 'no ttl' ? undefined : ttl, options);

      it('testNonExistentValue: a state never written reads as empty', () => {
        const s = scenario();
        expect(s.get()).toEqual(ctx.emptyValue);
      });

      it('testExactExpirationOnWrite: on-create-and-write, never-return-expired', () => {
        const s = scenario(onWrite);
        s.takeAndRestoreSnapshot();
        s.time = 0;
        s.update(ctx.updateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 20;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 50;
        s.update(ctx.updateUnexpired);
        s.takeAndRestoreSnapshot();
        s.time = 120;
        expect(s.get()).toEqual(ctx.getUnexpired);
        s.takeAndRestoreSnapshot();
        s.time = 170;
        s.update(ctx.updateExpired);
        s.takeAndRestoreSnapshot();
        s.time = 220;
        expect(s.get()).toEqual(ctx.getUpdateExpired);
        s.takeAndRestoreSnapshot();
        s.time = 300;
        expect(s.get()).toEqual(ctx.emptyValue);
        // Expired state is removed when it is read.
        expect(s.originalCleared()).toBe(true);
      });

      it('testRelaxedExpirationOnWrite: the expired value is not returned even once (Weir)', () => {
        const s = scenario(onWrite);
        s.time = 0;
        s.update(ctx.updateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 120;
        // Flink (ReturnExpiredIfNotCleanedUp) returns getUpdateEmpty here, once.
        expect(s.get()).toEqual(ctx.emptyValue);
        expect(s.originalCleared()).toBe(true);
        expect(s.get()).toEqual(ctx.emptyValue);
      });

      it('testExactExpirationOnRead: on-read-and-write, never-return-expired', () => {
        const s = scenario(onRead);
        s.time = 0;
        s.update(ctx.updateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 50;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        s.takeAndRestoreSnapshot();
        // Expiry 150 since the read at 50.
        s.time = 120;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 250;
        expect(s.get()).toEqual(ctx.emptyValue);
        expect(s.originalCleared()).toBe(true);
      });

      it('testRelaxedExpirationOnRead: the expired value is not returned even once (Weir)', () => {
        const s = scenario(onRead);
        s.time = 0;
        s.update(ctx.updateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 50;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 170;
        // Flink (ReturnExpiredIfNotCleanedUp) returns getUpdateEmpty here, once.
        expect(s.get()).toEqual(ctx.emptyValue);
        expect(s.get()).toEqual(ctx.emptyValue);
      });

      it('testExpirationTimestampOverflow: the largest TTL does not overflow the expiry', () => {
        // Flink: Long.MAX_VALUE; here the largest number.
        const s = scenario({ ttlMs: Number.MAX_VALUE });
        s.time = 10;
        s.update(ctx.updateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 50;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
      });

      /** Flink's `testMultipleStateIds`: two keys (or namespaces) expiring independently. */
      const multipleStateIds = (
        s: TtlScenario<unknown, unknown>,
        changeId: (id: string) => void,
        timeBackAfterRestore: boolean,
      ): void => {
        // A snapshot of an empty state restores.
        s.takeAndRestoreSnapshot();
        s.time = 0;
        changeId('id2');
        s.update(ctx.updateEmpty);
        s.takeAndRestoreSnapshot();
        s.time = 50;
        changeId('id1');
        s.update(ctx.updateEmpty);
        changeId('id2');
        s.update(ctx.updateUnexpired);
        s.time = 120;
        s.takeAndRestoreSnapshot();
        changeId('id1');
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        changeId('id2');
        expect(s.get()).toEqual(ctx.getUnexpired);
        s.time = 170;
        changeId('id2');
        s.update(ctx.updateExpired);
        s.time = 230;
        s.takeAndRestoreSnapshot();
        // Setting time back shows whether the snapshot left the expired entry out.
        if (timeBackAfterRestore) s.time = 170;
        changeId('id1');
        expect(s.get()).toEqual(ctx.emptyValue);
        changeId('id2');
        expect(s.get()).toEqual(ctx.getUpdateExpired);
        s.time = 300;
        s.takeAndRestoreSnapshot();
        if (timeBackAfterRestore) s.time = 230;
        changeId('id1');
        expect(s.get()).toEqual(ctx.emptyValue);
        changeId('id2');
        expect(s.get()).toEqual(ctx.emptyValue);
      };

      it('testMultipleKeys: keys expire independently', () => {
        const s = scenario();
        multipleStateIds(s, (id) => s.setKey(id), false);
      });

      it('testMultipleKeysWithSnapshotCleanup: snapshots leave expired entries out', () => {
        const s = scenario();
        multipleStateIds(s, (id) => s.setKey(id), true);
      });

      it('testMultipleNamespaces: namespaces expire independently', () => {
        const s = scenario();
        multipleStateIds(s, (id) => s.setNamespace(id), false);
      });

      it('testMultipleNamespacesWithSnapshotCleanup: snapshots leave expired entries out', () => {
        const s = scenario();
        multipleStateIds(s, (id) => s.setNamespace(id), true);
      });

      it('testSnapshotChangeRestore: a restore brings back the expiry times of the snapshot', () => {
        const s = scenario();
        s.time = 0;
        s.setKey('k1');
        s.update(ctx.updateEmpty);
        s.time = 50;
        s.setKey('k1');
        s.update(ctx.updateUnexpired);
        s.time = 100;
        s.setKey('k2');
        s.update(ctx.updateEmpty);
        const snapshot = s.snapshot();
        // Changes after the snapshot are lost by the restore.
        s.time = 170;
        s.setKey('k1');
        s.update(ctx.updateExpired);
        s.setKey('k2');
        s.update(ctx.updateUnexpired);
        s.restore(snapshot);
        s.time = 180;
        s.setKey('k1');
        expect(s.get()).toEqual(ctx.emptyValue);
        s.setKey('k2');
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
      });

      it('testRestoreTtlAndRegisterNonTtlStateCompatFailure: TTL state restores without a TTL, for good', () => {
        // As Flink since 2.2: the expiry is ignored and the value stays visible.
        const s = scenario();
        s.time = 0;
        s.update(ctx.updateEmpty);
        s.restoreDeclaring(s.snapshot(), undefined);
        s.time = 10_000;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        // And no expiry is kept for a later restore with a TTL (see the next test).
        s.restoreDeclaring(s.snapshot(), onWrite);
        s.time = 10_000 + TTL - 1;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
      });

      it('(counterpart of testRestoreTtlAndRegisterNonTtlStateCompatFailure) state without a TTL restored with one lives a TTL from the restore', () => {
        // As Flink's TtlAwareSerializer: restored values are stamped with the restore time.
        const s = scenario('no ttl');
        s.time = 0;
        s.update(ctx.updateEmpty);
        const snapshot = s.snapshot();
        s.time = 500;
        s.restoreDeclaring(snapshot, onWrite);
        s.time = 500 + TTL - 1;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        // A snapshot keeps that expiry.
        s.takeAndRestoreSnapshot();
        s.time = 500 + TTL;
        expect(s.get()).toEqual(ctx.emptyValue);
        expect(s.originalCleared()).toBe(true);
      });

      it('(restore with a changed TTL) restored entries keep the expiry they were written with (Weir)', () => {
        const s = scenario(onWrite);
        s.time = 0;
        s.update(ctx.updateEmpty);
        s.restoreDeclaring(s.snapshot(), { ttlMs: 10 * TTL });
        s.time = TTL - 1;
        expect(s.get()).toEqual(ctx.getUpdateEmpty);
        // Flink would apply the new TTL (alive until 1000); Weir keeps the written expiry.
        s.time = TTL;
        expect(s.get()).toEqual(ctx.emptyValue);
        // Entries written after the restore live the new TTL.
        s.update(ctx.updateExpired);
        s.time = TTL + 10 * TTL - 1;
        expect(s.get()).toEqual(ctx.getUpdateExpired);
        s.time = TTL + 10 * TTL;
        expect(s.get()).toEqual(ctx.emptyValue);
      });

      // Flink: INC_CLEANUP_ALL_KEYS = ((128 >> 1) + (128 >> 2) + 1) * 10 key groups.
      const ALL_KEYS = 970;
      const incremental: ScenarioOptions = { cleanupPerAccess: 10, diskWriteBuffer: 1 };

      it('testIncrementalCleanupWholeState: state accesses sweep every expired entry away', () => {
        const s = scenario({ ttlMs: TTL }, incremental);
        s.time = 0;
        for (let i = 0; i < ALL_KEYS; i++) {
          s.setKey(String(i));
          s.update(ctx.updateEmpty);
        }
        expect(s.backend.entryCount()).toBe(ALL_KEYS * ctx.rowsOf(ctx.updateEmpty));
        s.time = 120;
        // Flink moves the current key over the keys; Weir's cleanup runs on state access.
        for (let i = ALL_KEYS; i < 2 * ALL_KEYS; i++) {
          s.setKey(String(i));
          s.get();
        }
        expect(s.originalCleared()).toBe(true);
      });

      it('testIncrementalCleanup: sweeps keep updated entries and survive a restore', () => {
        const s = scenario({ ttlMs: TTL }, incremental);
        const keysToUpdate = (128 >> 3) * 10;
        const updateKeys = (from: number, to: number, value: unknown) => {
          for (let i = from; i < to; i++) {
            s.setKey(String(i));
            s.update(value);
          }
        };
        const checkKeys = (from: number, to: number, expected: unknown) => {
          for (let i = from; i < to; i++) {
            s.setKey(String(i));
            expect(s.get()).toEqual(expected);
          }
        };
        /** Flink's other operations: reads and writes of keys beyond the first ALL_KEYS. */
        const triggerMoreIncrementalCleanupByOtherOps = () => {
          for (let i = ALL_KEYS; i < 2 * ALL_KEYS; i++) {
            s.setKey(String(i));
            if (i % 2 === 0) s.get();
            else s.update(ctx.updateEmpty);
          }
        };
        const otherOpsRows = (ALL_KEYS / 2) * ctx.rowsOf(ctx.updateEmpty);
        const unexpiredRows = ctx.rowsOf(ctx.updateUnexpired);

        s.time = 0;
        updateKeys(0, ALL_KEYS, ctx.updateEmpty);
        s.time = 50;
        updateKeys(0, keysToUpdate, ctx.updateUnexpired);
        // Flink snapshots asynchronously while the next updates run; Weir's snapshot is a copy.
        const snapshot = s.snapshot();
        updateKeys(keysToUpdate, keysToUpdate * 2, ctx.updateUnexpired);
        s.time = 120;
        triggerMoreIncrementalCleanupByOtherOps();
        // Left: the entries written at 50 and by the other operations; the rest was swept.
        expect(s.backend.entryCount()).toBe(keysToUpdate * 2 * unexpiredRows + otherOpsRows);

        // The restore discards what was written after the snapshot.
        s.time = 50;
        s.restore(snapshot);
        checkKeys(keysToUpdate, ALL_KEYS, ctx.getUpdateEmpty);

        s.time = 120;
        for (let i = keysToUpdate >> 1; i < keysToUpdate + (keysToUpdate >> 2); i++) {
          s.setKey(String(i));
          s.clear();
        }
        checkKeys(0, keysToUpdate >> 1, ctx.getUnexpired);
        triggerMoreIncrementalCleanupByOtherOps();
        // Left: the keys updated at 50 and not cleared, and the other operations' writes.
        expect(s.backend.entryCount()).toBe((keysToUpdate >> 1) * unexpiredRows + otherOpsRows);

        s.time = 170;
        checkKeys(keysToUpdate >> 1, ALL_KEYS, ctx.emptyValue);
        checkKeys(0, keysToUpdate >> 1, ctx.emptyValue);
      });
    });
  }
}

// ---- Value state only, and StateTtlConfig ------------------------------------------------------

for (const kind of BACKENDS) {
  describe(`${kind} backend, TtlValueStateTestContext (value state)`, () => {
    it('testValueSetNull: writing no value (undefined) clears the state', () => {
      const s = new TtlScenario(kind, valueContext, onWrite);
      s.update(valueContext.updateUnexpired);
      expect(s.get()).toBe(valueContext.getUnexpired);
      // Flink's update(null).
      s.update(undefined as unknown as string);
      expect(s.get()).toBeUndefined();
      expect(s.originalCleared()).toBe(true);
    });

    it('(StateTtlConfig) a TTL must be positive, as Flink requires', () => {
      for (const ttlMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => new TtlScenario(kind, valueContext, { ttlMs })).toThrow(
          /ttl\.ttlMs must be a positive number/,
        );
      }
    });

    it('(testValueSetNull, Weir) null is a JSON value and is stored', () => {
      const s = new TtlScenario(kind, valueContext, onWrite);
      s.update(null as unknown as string);
      expect(s.get()).toBeNull();
      s.takeAndRestoreSnapshot();
      expect(s.get()).toBeNull();
      s.time = TTL;
      expect(s.get()).toBeUndefined();
    });
  });
}

// ---- Per-element list expiries in snapshots (Weir's snapshot format) ----------------------------

describe('list elements expire one by one across snapshots', () => {
  const make = (kind: BackendKind, clock: ManualClock) => {
    const b = createKeyedStateBackend(
      { kind, ttlCleanupPerAccess: 0 },
      { operatorId: OPERATOR, subtaskIndex: 0, maxParallelism: MAX_PARALLELISM, clock },
    );
    created.push(b);
    return b;
  };
  const restored = (snapshot: OperatorSnapshot) =>
    restoredStateFor(checkpointOf([snapshot]), OPERATOR, 0, 1)!;

  for (const [from, to] of [
    ['heap', 'disk'],
    ['disk', 'heap'],
  ] as const) {
    it(`${from} -> ${to}: each element keeps its own expiry`, () => {
      const clock = new ManualClock(0);
      const a = make(from, clock);
      a.currentKey = 'k';
      const l = a.getListState<number>({ name: 'l', ttl: onWrite });
      l.add(1);
      clock.time = 50;
      l.add(2);
      clock.time = 60;
      const snapshot = throughJson(a.snapshot(snapshotContext(1)));
      // The row holds the expiry of each element (and the latest as the row's).
      const rows = Object.values(snapshot.keyed ?? {}).flat();
      expect(rows).toEqual([['l', 'k', '', null, [1, 2], 150, [100, 150]]]);
      const b = make(to, clock);
      b.restore(restored(snapshot));
      b.currentKey = 'k';
      const r = b.getListState<number>({ name: 'l', ttl: onWrite });
      expect(r.get()).toEqual([1, 2]);
      clock.time = 100;
      expect(r.get()).toEqual([2]);
      clock.time = 150;
      expect(r.get()).toEqual([]);
      expect(b.entryCount()).toBe(0);
    });
  }

  for (const kind of BACKENDS) {
    it(`${kind}: a list row with one expiry (no element expiries) expires as a whole`, () => {
      const clock = new ManualClock(0);
      const b = make(kind, clock);
      b.restore(
        restored({
          keyed: {
            [String(keyGroupOf('k', MAX_PARALLELISM))]: [['l', 'k', '', null, [1, 2], 100]],
          },
          states: { l: { kind: 'list', serializer: { id: 'json', version: 1 } } },
        }),
      );
      b.currentKey = 'k';
      const l = b.getListState<number>({ name: 'l', ttl: onWrite });
      clock.time = 99;
      expect(l.get()).toEqual([1, 2]);
      l.add(3);
      clock.time = 100;
      expect(l.get()).toEqual([3]);
    });
  }
});
