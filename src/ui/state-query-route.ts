import type { Key } from '../core/key-groups.js';
import type { Json } from '../core/snapshot.js';
import type { JobClient } from '../runtime/job/job-client.js';
import { HttpError } from './http-error.js';

/** How the key in `/jobs/:id/state/:uid/:key` is read: `?keyType=`, a string by default. */
export type KeyType = 'string' | 'number' | 'bigint' | 'boolean';

const KEY_TYPES: readonly KeyType[] = ['string', 'number', 'bigint', 'boolean'];

/** The answer of `GET /jobs/:id/state/:uid/:key`. */
export interface StateView {
  readonly uid: string;
  readonly key: Json;
  readonly keyType: KeyType;
  readonly value: Json;
  /** The subtask that owns the key's key group. */
  readonly subtask: number;
}

/**
 * The key of a state query, typed as the job's key selector returns it: a
 * key group is a hash of the typed key, so `42` and `"42"` are different
 * keys. A 400 names the key and the type it does not parse as.
 */
export function parseStateKey(text: string, keyType: string | null): Key {
  const type = (keyType ?? 'string') as KeyType;
  if (!KEY_TYPES.includes(type))
    throw new HttpError(400, `keyType must be one of ${KEY_TYPES.join(', ')}, got '${keyType}'`);
  switch (type) {
    case 'string':
      return text;
    case 'number': {
      const n = text.trim() === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(n)) throw new HttpError(400, `key '${text}' is not a finite number`);
      return n;
    }
    case 'bigint':
      if (!/^-?\d+$/.test(text))
        throw new HttpError(400, `key '${text}' is not a whole number (keyType bigint)`);
      return BigInt(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw new HttpError(400, `key '${text}' is not true or false (keyType boolean)`);
      return text === 'true';
  }
}

/** The key as JSON can carry it (a bigint as its decimal text). */
function keyJson(key: Key): Json {
  return typeof key === 'bigint' ? key.toString() : key;
}

/** Reads `uid`'s state for `key` from the job; each outcome but a value is an HTTP error naming what was asked. */
export async function readState(client: JobClient, uid: string, key: Key): Promise<StateView> {
  const result = await client.queryState(uid, key);
  const shown = JSON.stringify(keyJson(key));
  switch (result.kind) {
    case 'value':
      return {
        uid,
        key: keyJson(key),
        keyType: typeof key as KeyType,
        value: result.value,
        subtask: result.subtask,
      };
    case 'absent':
      throw new HttpError(404, `operator '${uid}' holds no state for key ${shown}`);
    case 'unknown-operator':
      throw new HttpError(400, `job '${client.jobName}' has no operator with uid '${uid}'`);
    case 'not-queryable':
      throw new HttpError(
        400,
        `operator '${uid}' does not expose its state: opt in with reduce(fn, { queryable: true }), or in a keyed process function with getValueState({ name, queryable: true })`,
      );
    case 'not-running':
      throw new HttpError(
        503,
        client.monitor.status === 'running'
          ? `job '${client.jobName}': the task holding key ${shown} of '${uid}' is starting or restoring here: retry`
          : `job '${client.jobName}' is ${client.monitor.status}: its state cannot be read now`,
        {
          'Retry-After': '1',
        },
      );
  }
}
