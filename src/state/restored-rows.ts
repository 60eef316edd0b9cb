import { WeirError } from '../core/errors.js';
import type { RestoredState, StateMeta } from '../core/snapshot.js';
import { type ParsedRow, parseRow } from './rows.js';

function sameMeta(a: StateMeta, b: StateMeta): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Restored keyed state rows of states not declared yet, by state name. A
 * backend takes a state's rows when the state is declared, and snapshots the
 * rest unchanged, so state of a function that no longer declares it is not
 * lost silently.
 */
export class RestoredRows {
  private readonly byState = new Map<string, { meta: StateMeta; rows: ParsedRow[] }>();
  private count = 0;

  /** Parses all keyed entries of `state`; every entry must name a state described in `metas`. */
  add(state: RestoredState, operatorId: string, metas: ReadonlyMap<string, StateMeta>): void {
    for (const [name, meta] of metas) {
      const existing = this.byState.get(name);
      if (existing === undefined) this.byState.set(name, { meta, rows: [] });
      else if (!sameMeta(existing.meta, meta)) throw conflictingMeta(operatorId, name);
    }
    for (const entries of state.keyed.values()) {
      for (const entry of entries) {
        const row = parseRow(entry, operatorId);
        const target = this.byState.get(row.state);
        if (target === undefined) {
          throw new WeirError(
            'INVALID_JOB',
            `keyed state of operator '${operatorId}' in the checkpoint has entries of state '${row.state}' but no declaration of it`,
            { operatorId },
          );
        }
        target.rows.push(row);
        this.count++;
      }
    }
    for (const [name, { rows }] of this.byState) if (rows.length === 0) this.byState.delete(name);
  }

  /** Removes and returns the rows of a state. */
  take(name: string): { meta: StateMeta; rows: ParsedRow[] } | undefined {
    const taken = this.byState.get(name);
    if (taken !== undefined) {
      this.byState.delete(name);
      this.count -= taken.rows.length;
    }
    return taken;
  }

  rowsOf(name: string): readonly ParsedRow[] {
    return this.byState.get(name)?.rows ?? [];
  }

  all(): IterableIterator<[string, { meta: StateMeta; rows: ParsedRow[] }]> {
    return this.byState.entries();
  }

  size(): number {
    return this.count;
  }

  clear(): void {
    this.byState.clear();
    this.count = 0;
  }
}

/** Two old subtasks disagree about how a state was declared. */
export function conflictingMeta(operatorId: string, name: string): WeirError {
  return new WeirError(
    'INVALID_JOB',
    `state '${name}' of operator '${operatorId}' is described differently by different subtasks of the checkpoint`,
    { operatorId },
  );
}
