/**
 * `weir run --from`: finds the checkpoint or savepoint to restore, checks
 * that it is one before the job is built, and explains a restore that the
 * engine refused (in terms of the CLI's flags, not the API's options).
 */
import { stat } from 'node:fs/promises';
import { refuseRestoreBehindCommit } from '../index.js';
import {
  checkpointStorageAt,
  type SkippedCheckpoint,
} from '../runtime/checkpoint/checkpoint-storage.js';
import {
  openStore,
  resolveLocation,
  splitLocation,
} from '../runtime/checkpoint/store/open-store.js';
import { isS3Location } from '../runtime/checkpoint/store/s3-store.js';
import { CliError } from './failure.js';

/** A checkpoint or savepoint directory, as its `_metadata.json` describes it. */
export interface RestorePoint {
  /** Absolute path of the directory, or its `s3://` location. */
  readonly path: string;
  readonly kind: 'checkpoint' | 'savepoint';
  readonly checkpointId: number;
  /** The job that wrote it. */
  readonly jobName: string | undefined;
  readonly maxParallelism: number;
  /** Taken after all input had ended: a job restored from it finishes at once. */
  readonly final: boolean;
}

const METADATA = '_metadata.json';
/** Names of complete checkpoint and savepoint directories (`DirectoryCheckpointStorage.nameOf`). */
const CHECKPOINT_NAME = /^(chk|savepoint)-(\d+)$/;

/**
 * Resolves `--from`: `'latest'` is the newest complete checkpoint in
 * `checkpointDir` (undefined when there is none yet: the job starts
 * afresh); anything else is a path, relative to `cwd`, or an `s3://`
 * location, that must be a checkpoint or savepoint directory.
 */
export async function resolveRestorePoint(
  from: string,
  checkpointDir: string | undefined,
  cwd: string,
  allowDuplicateOutput = false,
  /** Told of the damaged checkpoints `'latest'` passed over, newest first (for the log). */
  onPassedOver?: (skipped: readonly SkippedCheckpoint[]) => void,
): Promise<RestorePoint | undefined> {
  if (from === 'latest') {
    if (checkpointDir === undefined) {
      // args.ts refuses this combination; kept as a guard for programmatic use.
      throw new CliError('--from latest needs --checkpoint-dir');
    }
    const storage = checkpointStorageAt(resolveLocation(cwd, checkpointDir));
    const { intact, skipped } = await storage.findLatest();
    // Passing over damaged checkpoints is safe only if none of their output was committed.
    try {
      refuseRestoreBehindCommit(
        intact === undefined
          ? undefined
          : { checkpointId: intact.checkpoint.checkpointId, path: intact.path },
        await storage.lastCommit(),
        skipped,
        allowDuplicateOutput,
      );
    } catch (error) {
      throw new CliError(
        `cannot restore from the latest checkpoint in '${checkpointDir}': ${error instanceof Error ? error.message.replace('allowDuplicateOutput', '--allow-duplicate-output') : String(error)}`,
      );
    }
    if (skipped.length > 0) onPassedOver?.(skipped);
    return intact === undefined ? undefined : readRestorePoint(intact.path, from);
  }
  return readRestorePoint(resolveLocation(cwd, from), from);
}

async function readRestorePoint(path: string, given: string): Promise<RestorePoint> {
  if (!isS3Location(path)) {
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) {
      throw new CliError(`cannot restore from '${given}': there is no such directory (${path})`);
    }
    if (!info.isDirectory()) {
      throw new CliError(`cannot restore from '${given}': it is not a directory`);
    }
  }
  const { parent, name } = splitLocation(path);
  let bytes: Buffer | undefined;
  try {
    bytes = await openStore(parent).read(`${name}/${METADATA}`);
  } catch (error) {
    throw new CliError(
      `cannot restore from '${given}': ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (bytes === undefined) {
    throw new CliError(
      `cannot restore from '${given}': it is not a checkpoint or savepoint (no ${METADATA})${await childHint(path, given)}`,
    );
  }
  const meta = parseMetadata(bytes.toString('utf8'));
  if (meta === undefined) {
    throw new CliError(
      `cannot restore from '${given}': its ${METADATA} is not that of a Weir checkpoint`,
    );
  }
  return { path, ...meta };
}

/** The fields of `_metadata.json` the CLI reports; undefined when it is not a Weir checkpoint's. */
function parseMetadata(text: string): Omit<RestorePoint, 'path'> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const field = (name: string): unknown => Reflect.get(json, name);
  const kind = field('kind');
  const checkpointId = field('checkpointId');
  const maxParallelism = field('maxParallelism');
  const jobName = field('jobName');
  if (
    field('format') !== 'weir-checkpoint' ||
    (kind !== 'checkpoint' && kind !== 'savepoint') ||
    typeof checkpointId !== 'number' ||
    typeof maxParallelism !== 'number'
  ) {
    return undefined;
  }
  return {
    kind,
    checkpointId,
    maxParallelism,
    jobName: typeof jobName === 'string' ? jobName : undefined,
    final: field('final') === true,
  };
}

/**
 * When `--from` names a directory of checkpoints (the `--checkpoint-dir`, a
 * savepoint `--to` directory) rather than one checkpoint: which to pass.
 */
async function childHint(path: string, given: string): Promise<string> {
  const store = openStore(path);
  const entries = await store.list().catch((): string[] => []);
  const complete: string[] = [];
  for (const name of entries.filter((e) => CHECKPOINT_NAME.test(e))) {
    const metadata = await store.read(`${name}/${METADATA}`).catch(() => undefined);
    if (metadata !== undefined) complete.push(name);
  }
  // Zero-padded ids: the names sort by id within each kind.
  const newest = complete.sort((a, b) => idOf(a) - idOf(b)).at(-1);
  if (newest === undefined) return '';
  const child = openStore(given).locate(newest);
  const latest = complete.some((name) => name.startsWith('chk-'))
    ? `, or --from latest --checkpoint-dir ${given}`
    : '';
  return `. It holds ${complete.length === 1 ? 'one' : complete.length}: pass one of them, e.g. --from ${child}${latest}`;
}

function idOf(name: string): number {
  return Number(CHECKPOINT_NAME.exec(name)?.[2] ?? 0);
}

/** "savepoint 7 (/tmp/sp/savepoint-0000000007)". */
export function describeRestorePoint(point: RestorePoint): string {
  return `${point.kind} ${point.checkpointId} (${point.path})`;
}

/**
 * Whether a failed run is a refused restore: the engine checks a checkpoint
 * against the job (operator ids, max parallelism, source parallelism, state
 * serializers) before anything is read and refuses with `INVALID_JOB`.
 */
export function isRestoreFailure(error: unknown, recordsRead: number): boolean {
  return (
    error instanceof Error &&
    (Reflect.get(error, 'code') === 'INVALID_JOB' ||
      Reflect.get(error, 'code') === 'CHECKPOINT_DAMAGED') &&
    // A job that has read records got past its restore.
    recordsRead === 0
  );
}

/** What to do about a refused restore, in terms of the CLI's flags; undefined when unsure. */
export function restoreHint(error: unknown, point: RestorePoint): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes('allowDuplicateOutput')) {
    return 'restore the checkpoint named as committed (or a newer one), or accept the duplicate output with --allow-duplicate-output';
  }
  if (message.includes('allowNonRestoredState')) {
    return "give renamed operators their old id with .uid('...'), or drop their state with --allow-non-restored-state";
  }
  if (/maxParallelism \d+ but the job has \d+/.test(message)) {
    return `run with --max-parallelism ${point.maxParallelism}, the value the ${point.kind} was taken with`;
  }
  if (message.includes('positions cannot be redistributed')) {
    return "fix the source's parallelism in the job with .setParallelism(n) (n as when the checkpoint was taken), so --parallelism rescales only the other operators";
  }
  return undefined;
}
