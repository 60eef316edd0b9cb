/**
 * A CEP operator on `parallelism` keyed subtasks, fed as a keyed exchange
 * would (by key group), on a heap or a fresh disk backend: what the restore
 * tests cut, snapshot and rescale.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventComparator, PatternSpec } from '../../src/core/cep.js';
import {
  DEFAULT_MAX_PARALLELISM,
  keyGroupOf,
  subtaskForKeyGroup,
} from '../../src/core/key-groups.js';
import type { StateBackendOptions } from '../../src/core/state-backend.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';
import { cepOperator, type Ev } from './cep-harness.js';

const dirs: string[] = [];

/** A heap backend, or a disk backend in a new temporary folder (see {@link removeBackendDirs}). */
export async function backendOf(kind: 'heap' | 'disk'): Promise<StateBackendOptions> {
  if (kind === 'heap') return { kind: 'heap' };
  const dir = await mkdtemp(join(tmpdir(), 'weir-cep-restore-'));
  dirs.push(dir);
  return { kind: 'disk', workingDirectory: dir };
}

/** Removes the disk backends' folders (after each test). */
export async function removeBackendDirs(): Promise<void> {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
}

export interface Subtasks {
  readonly harnesses: KeyedOneInputHarness<string, Ev, string>[];
  feed(e: Ev): void;
  watermark(t: number): void;
}

export function subtasks(
  spec: PatternSpec<Ev>,
  parallelism: number,
  stateBackend: StateBackendOptions,
  options: {
    restoreFrom?: readonly OperatorSnapshot[];
    timeouts?: boolean;
    comparator?: EventComparator<Ev>;
  } = {},
): Subtasks {
  const { restoreFrom, timeouts, comparator } = options;
  const harnesses = Array.from(
    { length: parallelism },
    (_, subtaskIndex) =>
      new KeyedOneInputHarness<string, Ev, string>(
        cepOperator(spec, {
          ...(timeouts === undefined ? {} : { timeouts }),
          ...(comparator === undefined ? {} : { comparator }),
        }),
        (e) => e.key,
        {
          operatorId: 'cep',
          subtaskIndex,
          parallelism,
          stateBackend,
          ...(restoreFrom === undefined ? {} : { restoreFrom }),
        },
      ),
  );
  return {
    harnesses,
    feed(e) {
      const group = keyGroupOf(e.key, DEFAULT_MAX_PARALLELISM);
      harnesses[subtaskForKeyGroup(group, DEFAULT_MAX_PARALLELISM, parallelism)]!.processElement(
        e,
        e.ts,
      );
    },
    watermark(t) {
      for (const h of harnesses) h.processWatermark(t);
    },
  };
}
