/**
 * Records Flink SQL's rows for every MATCH_RECOGNIZE case (test/sql/match-recognize/cases.ts)
 * by running them on the Flink peer, into the golden file the test compares Weir with.
 * Run: npm run goldens:match-recognize (needs java and mvn; a few minutes).
 */
import { matchRecognizeCases } from '../test/sql/match-recognize/cases.js';
import { GOLDEN_FILE } from '../test/sql/match-recognize/golden.js';
import { recordFlinkGoldens } from '../test/sql/match-recognize/run-cases.js';

await recordFlinkGoldens(matchRecognizeCases(), GOLDEN_FILE);
