import { WeirError } from '../core/errors.js';
import type { Json } from '../core/snapshot.js';
import type { StateSerializer } from '../core/state.js';

function malformed(id: string, json: Json): WeirError {
  return new WeirError(
    'INTERNAL',
    `serializer '${id}' cannot decode ${JSON.stringify(json)?.slice(0, 100)}`,
    { domain: 'internal' },
  );
}

const JSON_SERIALIZER: StateSerializer<Json> = {
  id: 'json',
  version: 1,
  toJson: (v) => v,
  fromJson: (json) => json,
};

const NUMBER_SERIALIZER: StateSerializer<number> = {
  id: 'number',
  version: 1,
  // JSON has no NaN or infinities: they are written as strings.
  toJson: (v) => (Number.isFinite(v) ? v : String(v)),
  fromJson: (json) => {
    if (typeof json === 'number') return json;
    if (json === 'NaN') return Number.NaN;
    if (json === 'Infinity') return Number.POSITIVE_INFINITY;
    if (json === '-Infinity') return Number.NEGATIVE_INFINITY;
    throw malformed('number', json);
  },
};

const STRING_SERIALIZER: StateSerializer<string> = {
  id: 'string',
  version: 1,
  toJson: (v) => v,
  fromJson: (json) => {
    if (typeof json !== 'string') throw malformed('string', json);
    return json;
  },
};

const BIGINT_SERIALIZER: StateSerializer<bigint> = {
  id: 'bigint',
  version: 1,
  toJson: (v) => v.toString(),
  fromJson: (json) => {
    if (typeof json !== 'string') throw malformed('bigint', json);
    return BigInt(json);
  },
};

const BOOLEAN_SERIALIZER: StateSerializer<boolean> = {
  id: 'boolean',
  version: 1,
  toJson: (v) => v,
  fromJson: (json) => {
    if (typeof json !== 'boolean') throw malformed('boolean', json);
    return json;
  },
};

/**
 * Ready-made serializers. All are version 1 and stable: their `id` and
 * encoding never change, so snapshots written with them stay readable.
 */
export const Serializers = {
  /** Stores the value as it is; it must be JSON data (no undefined, bigint, NaN, class instances). */
  json<T>(): StateSerializer<T> {
    return JSON_SERIALIZER as unknown as StateSerializer<T>;
  },
  /** Any number, including NaN and the infinities. */
  number(): StateSerializer<number> {
    return NUMBER_SERIALIZER;
  },
  string(): StateSerializer<string> {
    return STRING_SERIALIZER;
  },
  /** Written as decimal text. */
  bigint(): StateSerializer<bigint> {
    return BIGINT_SERIALIZER;
  },
  boolean(): StateSerializer<boolean> {
    return BOOLEAN_SERIALIZER;
  },
  /**
   * A new version of `serializer` that reads older versions through
   * `migrate`: `toJson` and current-version reads are `serializer`'s own,
   * and JSON written by any version below `version` goes to `migrate(old,
   * fromVersion)`. `version` defaults to `serializer.version`, so bump the
   * version of the serializer you pass in or give it here.
   */
  withMigration<T>(
    serializer: StateSerializer<T>,
    migrate: (old: Json, fromVersion: number) => T,
    version: number = serializer.version,
  ): StateSerializer<T> {
    if (!Number.isInteger(version) || version < 1) {
      throw new WeirError(
        'INVALID_ARGUMENT',
        `serializer version must be a whole number >= 1, got ${version}`,
      );
    }
    return {
      id: serializer.id,
      version,
      toJson: (value) => serializer.toJson(value),
      fromJson: (json, writtenVersion) =>
        writtenVersion < version
          ? migrate(json, writtenVersion)
          : serializer.fromJson(json, writtenVersion),
    };
  },
} as const;
