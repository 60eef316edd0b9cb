/**
 * What the environment and the job runner call: the planner's entry point
 * and the plan it hands the runtime.
 */
import type { ExecutionPlan } from '../runtime/execution/execution-plan.js';

export { buildPhysicalPlan, type PlanOptions } from './planner.js';

/** The plan the runtime executes; see {@link ExecutionPlan}. */
export type PhysicalPlan = ExecutionPlan;
