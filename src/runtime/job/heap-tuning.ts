/**
 * V8 settings a running job changes for its process. V8 flags are process-wide (every worker
 * thread shares them), so each is applied once and never restored.
 */
import { setFlagsFromString } from 'node:v8';

let pretenuringOff = false;

/**
 * Turns off V8's allocation-site pretenuring. V8 moves the objects of an allocation site
 * (an array or object literal in the code) straight to the old generation once
 * young-generation collections keep finding most of them alive. A batch of records is alive
 * for the whole of its pass through a task, so a collection that falls in the middle of one
 * of the first batches (run before the code is optimized, when V8 samples allocation sites)
 * can find every row of the batch alive; from then on every row of that literal is allocated
 * as long-lived and the run pays a full collection every few hundred milliseconds (a Weir SQL
 * q13 run took 4.7 CPU-s in place of 2.8 in about one run of three). Records of a stream are
 * short-lived by design, so the engine gives up the heuristic.
 */
export function disableAllocationSitePretenuring(): void {
  if (pretenuringOff) return;
  pretenuringOff = true;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
