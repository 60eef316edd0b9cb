/**
 * A `filesystem` table as a lookup table (Nexmark q13's bounded side input): its files are read
 * once, when the join opens (before its first record), into a map from the key column's value
 * to the row, and answered synchronously from memory. A key found on two lines is an error naming both: a
 * lookup join gives one row per key here, and dropping either line would lose a match.
 */
import { readFileSync } from 'node:fs';
import type { Key } from '../../../core/key-groups.js';
import type { LookupTable } from '../../../core/lookup.js';
import type { Row } from '../connector.js';
import type { RowFormat } from '../formats/row-formats.js';

export interface FileLookupSpec {
  /** The table, for messages. */
  readonly name: string;
  readonly files: () => readonly string[];
  readonly format: RowFormat;
  readonly keyIndex: number;
  /** Throws for a row with NULL in a NOT NULL column (a PRIMARY KEY's). */
  readonly checkNotNull?: (row: Row) => void;
}

/**
 * Loads the rows when the first subtask opens, once for every subtask of the job (they share
 * the map): a bad file fails the job as it starts, and no batch waits for the read (whose
 * garbage, in the middle of the first batches, is what runtime/job/heap-tuning.ts is about).
 */
export function fileLookupTable(spec: FileLookupSpec): LookupTable<Key, Row> {
  const shared: { rows?: Map<Key, Row> } = {};
  const rows = (): Map<Key, Row> => {
    if (shared.rows === undefined) shared.rows = load(spec);
    return shared.rows;
  };
  return {
    name: `filesystem ${spec.name}`,
    open: () => {
      rows();
    },
    get: (key) => rows().get(key),
    lookup: async (keys) => {
      const found = new Map<Key, Row>();
      for (const key of keys) {
        const row = rows().get(key);
        if (row !== undefined) found.set(key, row);
      }
      return found;
    },
  };
}

function load(spec: FileLookupSpec): Map<Key, Row> {
  const rows = new Map<Key, Row>();
  const lineOf = new Map<Key, string>();
  for (const file of spec.files()) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] as string).replace(/\r$/, '');
      if (line === '') continue;
      const where = `table '${spec.name}': file '${file}' line ${i + 1}`;
      let row: Row;
      try {
        row = spec.format.decode(Buffer.from(line, 'utf8'));
        spec.checkNotNull?.(row);
      } catch (error) {
        throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const key = row[spec.keyIndex];
      // A NULL key never equals a looked-up key (SQL's NULL = NULL is not true).
      if (key === null || key === undefined) continue;
      const first = lineOf.get(key as Key);
      if (first !== undefined)
        throw new Error(
          `${where}: key ${String(key)} is also at ${first}; a lookup join reads one row per key`,
        );
      rows.set(key as Key, row);
      lineOf.set(key as Key, `file '${file}' line ${i + 1}`);
    }
  }
  return rows;
}
