/**
 * Sub-plan reuse (Flink's `table.optimizer.reuse-sub-plan-enabled`, on by default): a view or
 * WITH query that a statement reads more than once is planned once, and its operators' output
 * fans out to every reader, instead of each reference computing (and keeping state for) the
 * same rows again.
 */
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { Relation } from './relation.js';

export const REUSE_SUB_PLAN = 'table.optimizer.reuse-sub-plan-enabled';

/** Whether the option allows reuse; a value other than 'true' or 'false' is an error at `at`. */
export function reuseSubPlansOf(value: string | undefined, at?: SourcePosition): boolean {
  const text = (value ?? 'true').trim().toLowerCase();
  if (text !== 'true' && text !== 'false')
    sqlError(`'${REUSE_SUB_PLAN}' is '${value}'; it must be 'true' or 'false'`, at);
  return text === 'true';
}

interface Planned {
  readonly name: string;
  readonly relation: Relation;
  reads: number;
}

/** The views and WITH queries planned for one statement (or statement set), by definition. */
export class SubPlans {
  private readonly planned = new Map<object, Planned>();

  constructor(private readonly enabled: boolean) {}

  /**
   * The relation of `definition` (a WITH query's or a view's AST), planned by `plan` on its
   * first reference and reused by the later ones.
   */
  of(definition: object, name: string, plan: () => Relation): Relation {
    if (!this.enabled) return plan();
    let entry = this.planned.get(definition);
    if (entry === undefined) {
      entry = { name, relation: plan(), reads: 0 };
      this.planned.set(definition, entry);
    }
    entry.reads++;
    return entry.relation;
  }

  /** The sub-plans read more than once, with how often, for EXPLAIN. */
  reused(): readonly { readonly name: string; readonly reads: number }[] {
    return [...this.planned.values()]
      .filter((p) => p.reads > 1)
      .map(({ name, reads }) => ({ name, reads }));
  }
}
