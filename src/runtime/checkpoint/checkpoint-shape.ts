/**
 * Checks that the JSON of a checkpoint's files has the shape Weir writes,
 * before anything uses it. Checksums catch files changed after they were
 * written; these checks catch the rest (files of older checkpoints, which
 * have no checksums, or a file written wrongly) with an error naming the
 * file and the field, instead of a TypeError deep inside a restore or state
 * that is silently empty.
 */
import type { WeirError } from '../../core/errors.js';
import { checkpointDamaged } from './checkpoint-integrity.js';

/** Names of state files: what `LocalCheckpointStorage` writes, never a path. */
const STATE_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const STATE_KINDS: ReadonlySet<string> = new Set([
  'value',
  'list',
  'map',
  'reducing',
  'aggregating',
]);

type Problem = (field: string, problem: string) => WeirError;

/** Fields Weir writes in `_metadata.json` and in each of its operators: any other is a damaged name. */
const METADATA_FIELDS: ReadonlySet<string> = new Set([
  'format',
  'version',
  'kind',
  'checkpointId',
  'jobName',
  'createdAt',
  'maxParallelism',
  'final',
  'operators',
  'references',
  'keepFrom',
  'checksums',
  'metadataChecksum',
  'origin',
]);
const OPERATOR_FIELDS: ReadonlySet<string> = new Set([
  'uid',
  'name',
  'parallelism',
  'files',
  'sourcePositions',
]);

function unknownField(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
): string | undefined {
  return Object.keys(value).find((k) => !known.has(k));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown, min = 0): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
}

/** Fails unless `value` is an array; returns it. */
function array(value: unknown, field: string, fail: Problem): unknown[] {
  if (!Array.isArray(value)) throw fail(field, 'is not an array');
  return value;
}

function optional(value: unknown, check: (v: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

/**
 * Checks `_metadata.json` as parsed (format and version are checked before).
 * `path` is the checkpoint directory, `file` the metadata file's name.
 */
export function checkMetadataShape(path: string, file: string, m: Record<string, unknown>): void {
  const fail: Problem = (field, problem) =>
    checkpointDamaged(path, file, `has a wrong '${field}': it ${problem}`);
  const unknown = unknownField(m, METADATA_FIELDS);
  if (unknown !== undefined) throw fail(unknown, 'is not a field of checkpoint metadata');
  // Checksums of state files came with the metadata's own: one without the other is a damaged name.
  if (m.checksums !== undefined && m.metadataChecksum === undefined) {
    throw fail('metadataChecksum', 'is missing while the state files have checksums');
  }
  if (!isCount(m.version, 1)) throw fail('version', 'is not a positive whole number');
  if (!optional(m.kind, (k) => k === 'checkpoint' || k === 'savepoint')) {
    throw fail('kind', "is neither 'checkpoint' nor 'savepoint'");
  }
  if (!isCount(m.checkpointId)) throw fail('checkpointId', 'is not a whole number');
  if (!isCount(m.maxParallelism, 1)) throw fail('maxParallelism', 'is not a positive whole number');
  if (!optional(m.final, (f) => typeof f === 'boolean')) throw fail('final', 'is not a boolean');
  for (const name of ['jobName', 'createdAt', 'metadataChecksum'] as const) {
    if (!optional(m[name], (v) => typeof v === 'string')) throw fail(name, 'is not a string');
  }
  if (
    !optional(m.origin, (o) => isObject(o) && typeof o.run === 'string' && isCount(o.checkpointId))
  )
    throw fail('origin', 'is not a member run and a checkpoint id');
  array(m.operators, 'operators', fail).forEach((op, i) => {
    const at = `operators[${i}]`;
    if (!isObject(op)) throw fail(at, 'is not an object');
    const unknownOp = unknownField(op, OPERATOR_FIELDS);
    if (unknownOp !== undefined) throw fail(`${at}.${unknownOp}`, 'is not a field of an operator');
    if (typeof op.uid !== 'string') throw fail(`${at}.uid`, 'is not a string');
    if (!optional(op.name, (n) => typeof n === 'string'))
      throw fail(`${at}.name`, 'is not a string');
    if (!isCount(op.parallelism, 1)) {
      throw fail(`${at}.parallelism`, 'is not a positive whole number');
    }
    array(op.files, `${at}.files`, fail).forEach((f, j) => {
      if (typeof f !== 'string' || !STATE_FILE.test(f)) {
        throw fail(`${at}.files[${j}]`, 'is not the name of a file in the checkpoint');
      }
    });
    if (op.sourcePositions !== undefined) array(op.sourcePositions, `${at}.sourcePositions`, fail);
  });
  if (m.references !== undefined) {
    array(m.references, 'references', fail).forEach((r, i) => {
      if (!isCount(r)) throw fail(`references[${i}]`, 'is not a checkpoint id');
    });
  }
  if (!optional(m.keepFrom, (k) => isCount(k))) throw fail('keepFrom', 'is not a checkpoint id');
  if (m.checksums !== undefined) {
    if (!isObject(m.checksums)) throw fail('checksums', 'is not an object');
    for (const [name, sum] of Object.entries(m.checksums)) {
      if (typeof sum !== 'string') throw fail(`checksums.${name}`, 'is not a string');
    }
  }
}

/**
 * Checks one operator subtask's state file as parsed, of checkpoint
 * `checkpointId`: key groups must be below `maxParallelism`, and incremental
 * state must build on an earlier checkpoint (so a chain of them ends).
 */
export function checkSnapshotShape(
  path: string,
  file: string,
  s: unknown,
  { checkpointId, maxParallelism }: { checkpointId: number; maxParallelism: number },
): void {
  const fail: Problem = (field, problem) =>
    checkpointDamaged(path, file, `has a wrong '${field}': it ${problem}`);
  if (!isObject(s)) throw checkpointDamaged(path, file, 'does not hold an object');
  const keyGroups = (value: unknown, field: string, entry: (v: unknown, at: string) => void) => {
    if (!isObject(value)) throw fail(field, 'is not an object');
    for (const [group, v] of Object.entries(value)) {
      const g = Number(group);
      if (!isCount(g) || String(g) !== group || g >= maxParallelism) {
        throw fail(`${field}.${group}`, `is not a key group below ${maxParallelism}`);
      }
      entry(v, `${field}.${group}`);
    }
  };
  // Entries of whole key groups are the state backend's to read; changes are identified by their first elements.
  const entries = (v: unknown, at: string) => void array(v, at, fail);
  const changes = (v: unknown, at: string) => {
    array(v, at, fail).forEach((e, i) => {
      if (!Array.isArray(e)) throw fail(`${at}[${i}]`, 'is not an array');
    });
  };
  if (s.keyed !== undefined) keyGroups(s.keyed, 'keyed', entries);
  if (s.keyedDelta !== undefined) {
    const d = s.keyedDelta;
    if (!isObject(d)) throw fail('keyedDelta', 'is not an object');
    if (!isCount(d.base) || d.base >= checkpointId) {
      throw fail('keyedDelta.base', `is not the id of a checkpoint before ${checkpointId}`);
    }
    if (!isCount(d.identityLength))
      throw fail('keyedDelta.identityLength', 'is not a whole number');
    keyGroups(d.groups, 'keyedDelta.groups', (c, at) => {
      if (!isObject(c)) throw fail(at, 'is not an object');
      changes(c.put, `${at}.put`);
      array(c.remove, `${at}.remove`, fail);
    });
  }
  if (s.states !== undefined) {
    if (!isObject(s.states)) throw fail('states', 'is not an object');
    for (const [name, meta] of Object.entries(s.states)) {
      const at = `states.${name}`;
      if (!isObject(meta) || typeof meta.kind !== 'string' || !STATE_KINDS.has(meta.kind)) {
        throw fail(at, 'is not a state declaration');
      }
      for (const key of ['serializer', 'keySerializer'] as const) {
        const ref = meta[key];
        if (key === 'keySerializer' && ref === undefined) continue;
        if (!isObject(ref) || typeof ref.id !== 'string' || typeof ref.version !== 'number') {
          throw fail(`${at}.${key}`, 'is not a serializer reference');
        }
      }
    }
  }
  if (!optional(s.deltaBaseFloor, (f) => isCount(f))) {
    throw fail('deltaBaseFloor', 'is not a checkpoint id');
  }
  if (s.list !== undefined) array(s.list, 'list', fail);
  if (s.union !== undefined) array(s.union, 'union', fail);
}
