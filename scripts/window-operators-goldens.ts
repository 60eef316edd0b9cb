/**
 * Records Flink SQL's rows for the window operator cases (test/sql/window-operators/cases.ts)
 * by running them on the Flink peer, into the golden file the test compares Weir with.
 * Run: npm run goldens:window-operators (needs java and the built peer; about a minute).
 */
import { recordFlinkGoldens } from '../test/sql/match-recognize/run-cases.js';
import { windowCases } from '../test/sql/window-operators/cases.js';
import { WINDOW_GOLDEN_FILE } from '../test/sql/window-operators/golden.js';

await recordFlinkGoldens(windowCases(), WINDOW_GOLDEN_FILE);
