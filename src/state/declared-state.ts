import { WeirError } from '../core/errors.js';
import type { StateKind, StateMeta } from '../core/snapshot.js';
import type {
  AggregatingStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  StateSerializer,
  StateTtlConfig,
} from '../core/state.js';
import { Serializers } from './serializers.js';

/** A TTL as backends apply it. */
export interface TtlPolicy {
  readonly ttlMs: number;
  /** Reads restart the lifetime (`'on-read-and-write'`). */
  readonly refreshOnRead: boolean;
}

/** A state declaration, checked and with defaults filled in. */
export interface DeclaredState {
  readonly name: string;
  readonly kind: StateKind;
  readonly serializer: StateSerializer<unknown>;
  /** Map state only. */
  readonly keySerializer: StateSerializer<unknown> | undefined;
  readonly ttl: TtlPolicy | undefined;
  readonly reduce: ((a: unknown, b: unknown) => unknown) | undefined;
  readonly aggregate:
    | AggregatingStateDescriptor<unknown, unknown, unknown>['aggregate']
    | undefined;
  readonly meta: StateMeta;
}

/** Any descriptor the store accepts. */
export type AnyDescriptor =
  | string
  | StateDescriptor<unknown>
  | MapStateDescriptor<unknown, unknown>
  | ReducingStateDescriptor<unknown>
  | AggregatingStateDescriptor<unknown, unknown, unknown>;

function ttlPolicy(operatorId: string, name: string, ttl: StateTtlConfig | undefined) {
  if (ttl === undefined) return undefined;
  if (!Number.isFinite(ttl.ttlMs) || ttl.ttlMs <= 0) {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `state '${name}' of operator '${operatorId}': ttl.ttlMs must be a positive number, got ${ttl.ttlMs}`,
      { operatorId },
    );
  }
  const update = ttl.update ?? 'on-create-and-write';
  if (update !== 'on-create-and-write' && update !== 'on-read-and-write') {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `state '${name}' of operator '${operatorId}': unknown ttl.update '${String(update)}'`,
      { operatorId },
    );
  }
  return { ttlMs: ttl.ttlMs, refreshOnRead: update === 'on-read-and-write' };
}

function checkSerializer(operatorId: string, name: string, s: StateSerializer<unknown>): void {
  if (
    typeof s.id !== 'string' ||
    s.id.length === 0 ||
    !Number.isInteger(s.version) ||
    s.version < 1
  ) {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `state '${name}' of operator '${operatorId}': a serializer needs a non-empty id and a whole version >= 1`,
      { operatorId },
    );
  }
}

/** Checks a descriptor and fills in defaults (JSON serializers, no TTL). */
export function declareState(
  operatorId: string,
  kind: StateKind,
  descriptor: AnyDescriptor,
): DeclaredState {
  const d: StateDescriptor<unknown> =
    typeof descriptor === 'string' ? { name: descriptor } : descriptor;
  if (typeof d.name !== 'string' || d.name.length === 0) {
    throw new WeirError('INVALID_ARGUMENT', `operator '${operatorId}': a state needs a name`, {
      operatorId,
    });
  }
  const serializer = d.serializer ?? Serializers.json<unknown>();
  checkSerializer(operatorId, d.name, serializer);
  const keySerializer =
    kind === 'map'
      ? ((d as MapStateDescriptor<unknown, unknown>).keySerializer ?? Serializers.json<unknown>())
      : undefined;
  if (keySerializer !== undefined) checkSerializer(operatorId, d.name, keySerializer);
  const reduce = kind === 'reducing' ? (d as ReducingStateDescriptor<unknown>).reduce : undefined;
  const aggregate =
    kind === 'aggregating'
      ? (d as AggregatingStateDescriptor<unknown, unknown, unknown>).aggregate
      : undefined;
  if (kind === 'reducing' && typeof reduce !== 'function') {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `reducing state '${d.name}' of operator '${operatorId}' needs a reduce function`,
      { operatorId },
    );
  }
  if (kind === 'aggregating' && (aggregate === undefined || typeof aggregate.add !== 'function')) {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `aggregating state '${d.name}' of operator '${operatorId}' needs an aggregate function`,
      { operatorId },
    );
  }
  const meta: StateMeta = {
    kind,
    serializer: { id: serializer.id, version: serializer.version },
    ...(keySerializer === undefined
      ? {}
      : { keySerializer: { id: keySerializer.id, version: keySerializer.version } }),
  };
  return {
    name: d.name,
    kind,
    serializer,
    keySerializer,
    ttl: ttlPolicy(operatorId, d.name, d.ttl),
    reduce: reduce as DeclaredState['reduce'],
    aggregate,
    meta,
  };
}

/** Fails if a state is declared twice with different kinds. */
export function checkSameKind(operatorId: string, existing: DeclaredState, kind: StateKind): void {
  if (existing.kind !== kind) {
    throw new WeirError(
      'INVALID_JOB',
      `state '${existing.name}' of operator '${operatorId}' is declared as both ${existing.kind} and ${kind} state`,
      { operatorId },
    );
  }
}

/**
 * Checks restored state against its new declaration. Returns true when the
 * stored values were written by an older serializer version (they must go
 * through `fromJson` with that version, i.e. the migration hook). Fails with
 * a WeirError naming operator, state and versions when the kind or a
 * serializer id differs, or a written version is newer than the serializer.
 */
export function checkRestored(
  operatorId: string,
  declared: DeclaredState,
  restored: StateMeta,
): boolean {
  const where = `state '${declared.name}' of operator '${operatorId}'`;
  if (restored.kind !== declared.kind) {
    throw new WeirError(
      'INVALID_JOB',
      `${where} was snapshotted as ${restored.kind} state but is declared as ${declared.kind} state`,
      { operatorId },
    );
  }
  const pairs: [
    string,
    { id: string; version: number } | undefined,
    StateSerializer<unknown> | undefined,
  ][] = [
    ['serializer', restored.serializer, declared.serializer],
    ['key serializer', restored.keySerializer, declared.keySerializer],
  ];
  let older = false;
  for (const [what, written, now] of pairs) {
    if (written === undefined || now === undefined) continue;
    if (written.id !== now.id) {
      throw new WeirError(
        'INVALID_JOB',
        `${where}: the snapshot was written with ${what} '${written.id}' (version ${written.version}) but the state is declared with ${what} '${now.id}' (version ${now.version}); keep the serializer id, or migrate with Serializers.withMigration`,
        { operatorId },
      );
    }
    if (written.version > now.version) {
      throw new WeirError(
        'INVALID_JOB',
        `${where}: the snapshot was written with ${what} '${written.id}' version ${written.version}, newer than the declared version ${now.version}; it cannot be read by this job`,
        { operatorId },
      );
    }
    if (written.version < now.version) older = true;
  }
  return older;
}

/** Fails a state access made without a current key. */
export function noCurrentKey(operatorId: string): WeirError {
  return new WeirError(
    'INVALID_JOB',
    `keyed state of operator '${operatorId}' was used outside of processing a keyed record or timer`,
    { operatorId },
  );
}

/**
 * Fails a write of no value where a state needs one: a list element, or a
 * map key or value (Flink rejects `null` there). `null` is JSON data and is
 * stored; `undefined` is not.
 */
export function checkDefined(
  operatorId: string,
  decl: DeclaredState,
  what: string,
  value: unknown,
): void {
  if (value !== undefined) return;
  throw new WeirError(
    'INVALID_ARGUMENT',
    `${decl.kind} state '${decl.name}' of operator '${operatorId}': ${what} is undefined; state holds values (use clear or remove to delete)`,
    { operatorId },
  );
}

/** Fails a list update with something that is not an array, or an array with an undefined element. */
export function checkListUpdate(operatorId: string, decl: DeclaredState, values: unknown): void {
  if (!Array.isArray(values)) {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `list state '${decl.name}' of operator '${operatorId}': update takes an array of elements, got ${values === null ? 'null' : typeof values}`,
      { operatorId },
    );
  }
  for (const v of values) checkDefined(operatorId, decl, 'an element', v);
}

/** Fails a namespace that is not a string (Flink rejects a null namespace). */
export function checkNamespace(operatorId: string, namespace: unknown): void {
  if (typeof namespace === 'string') return;
  throw new WeirError(
    'INVALID_ARGUMENT',
    `keyed state of operator '${operatorId}': a namespace must be a string, got ${namespace === null ? 'null' : typeof namespace}`,
    { operatorId },
  );
}
