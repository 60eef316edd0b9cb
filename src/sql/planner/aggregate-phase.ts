/**
 * Flink's `table.optimizer.agg-phase-strategy` for unwindowed GROUP BY: TWO_PHASE splits an
 * aggregation into a local half before the keyed exchange and a global half after it, where
 * Flink's TwoStageOptimizedAggregateRule would; ONE_PHASE never does; AUTO (the default) leaves
 * the choice to the planner's cost, as in Flink, and Weir's is TWO_PHASE's except for a
 * DISTINCT aggregate (see {@link decideAggregatePhases}).
 */
import { type SourcePosition, sqlError } from '../sql-error.js';

export const AGG_PHASE_STRATEGY = 'table.optimizer.agg-phase-strategy';

const STRATEGIES = ['AUTO', 'ONE_PHASE', 'TWO_PHASE'] as const;
export type AggPhaseStrategy = (typeof STRATEGIES)[number];

/** The strategy the option sets (AUTO when unset); another value is an error at `at`. */
export function aggPhaseStrategyOf(
  value: string | undefined,
  at?: SourcePosition,
): AggPhaseStrategy {
  const text = (value ?? 'AUTO').trim().toUpperCase();
  if (!(STRATEGIES as readonly string[]).includes(text))
    sqlError(
      `'${AGG_PHASE_STRATEGY}' is '${value}'; it must be one of ${STRATEGIES.join(', ')}`,
      at,
    );
  return text as AggPhaseStrategy;
}

/** What decides the phases of one GROUP BY. */
export interface AggregatePhaseInput {
  readonly strategy: AggPhaseStrategy;
  readonly miniBatch: boolean;
  /** Every aggregate call can merge two accumulators (a TypeScript one only with `merge`). */
  readonly mergeable: boolean;
  /** The input is a changelog (updates and deletes), not only inserts. */
  readonly updatingInput: boolean;
  /** A call aggregates DISTINCT values (`COUNT(DISTINCT x)`, `SUM(DISTINCT x)`, ...). */
  readonly distinct: boolean;
}

/**
 * Two-phase or not, and why not. As Flink: only with mini-batch on (the local half folds a
 * bundle), a strategy other than ONE_PHASE, and aggregates that merge. Flink also splits an
 * aggregation over a changelog, with retracting accumulators in the local half; Weir keeps
 * that one-phase (its partials carry no retractions).
 *
 * Under AUTO a DISTINCT aggregate stays one-phase: a partial then carries the set of a bundle's
 * distinct values, which the global half looks up again one by one, so the records the local
 * half saves do not pay for the lookups it adds (Nexmark q15 and q16: 1.03-1.44 times the CPU
 * of one phase at parallelism 1 and 2; docs/benchmarks.md). TWO_PHASE still splits it, and the
 * distinct split (`table.optimizer.distinct-agg.split.enabled`) is the tool for a hot key.
 */
export function decideAggregatePhases(input: AggregatePhaseInput): {
  readonly twoPhase: boolean;
  readonly reason: string;
} {
  if (input.strategy === 'ONE_PHASE')
    return { twoPhase: false, reason: `'${AGG_PHASE_STRATEGY}' is ONE_PHASE` };
  if (!input.miniBatch)
    return { twoPhase: false, reason: 'mini-batch is off (the local half folds a bundle)' };
  if (!input.mergeable) return { twoPhase: false, reason: 'an aggregate function has no merge' };
  if (input.updatingInput)
    return { twoPhase: false, reason: 'the input is a changelog (partials carry no retractions)' };
  if (input.strategy === 'AUTO' && input.distinct)
    return {
      twoPhase: false,
      reason: `a DISTINCT aggregate and '${AGG_PHASE_STRATEGY}' is AUTO (partials would carry distinct values)`,
    };
  return {
    twoPhase: true,
    reason: `mini-batch is on and '${AGG_PHASE_STRATEGY}' is ${input.strategy}`,
  };
}
