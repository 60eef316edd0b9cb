/**
 * Regenerates the Flink CEP golden files from the live Flink peer: `npm run golden:cep`
 * (needs java and mvn; builds bench/peers/flink on first use), or `npm run golden:cep -- random`
 * for one suite. Each file holds the cases with Flink's answer for each.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { runCasesOnFlink } from '../../../bench/peers/flink-cep.js';
import type { CaseJson } from './case.js';
import { HAND_CASES } from './cases.js';
import { type GoldenFile, goldenFile } from './goldens.js';
import { randomCases } from './random-cases.js';
import { stageWindowCases } from './stage-window-cases.js';

const suites: Record<string, readonly CaseJson[]> = {
  hand: HAND_CASES,
  random: randomCases(),
  'stage-windows': stageWindowCases(),
};
// `npm run golden:cep -- random` regenerates one suite.
const only = process.argv.slice(2);
for (const [suite, cases] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(suite)) continue;
  const started = Date.now();
  const outputs = await runCasesOnFlink(cases, { timeoutMs: 20 * 60_000 });
  const golden: GoldenFile = {
    regenerate: 'npm run golden:cep',
    cases: cases.map((c, i) => {
      const { name: _, ...flink } = outputs[i]!;
      return { ...c, flink };
    }),
  };
  writeFileSync(goldenFile(suite), `${JSON.stringify(golden, null, 1)}\n`);
  // In the repository's format, so that `biome check .` passes.
  execFileSync('npx', ['biome', 'format', '--write', goldenFile(suite)], { stdio: 'ignore' });
  console.log(`${suite}: ${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
