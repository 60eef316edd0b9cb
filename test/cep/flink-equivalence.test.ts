/**
 * Weir's CEP against Flink CEP itself. Every case (test/cep/flink/cases.ts by hand, and
 * seeded random ones from random-cases.ts) is a pattern described once as data, run on Weir
 * here and on Flink CEP by the Maven peer (bench/peers/flink, weir.cep.CepPeer); matches,
 * timed-out partial matches with their events and time, and late events must be the same.
 * Flink's answers are golden files (test/cep/fixtures/flink/, `npm run golden:cep`); a sample
 * of the cases also runs on the live peer, which must still give the golden answers. Set
 * WEIR_SKIP_FLINK=1 to leave out the live peer (it needs java and mvn).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type FlinkCaseOutput, runCasesOnFlink } from '../../bench/peers/flink-cep.js';
import { type CaseJson, type CaseResult, runOnWeir } from './flink/case.js';
import { HAND_CASES } from './flink/cases.js';
import { KNOWN_DIFFERENCES } from './flink/differences.js';
import { type GoldenCase, readGoldens } from './flink/goldens.js';
import { randomCases } from './flink/random-cases.js';
import { stageWindowCases } from './flink/stage-window-cases.js';

/** Errors are compared by their presence only: the engines word them differently. */
function comparable(r: CaseResult): CaseResult {
  return 'error' in r ? { error: 'rejected' } : r;
}

const SUITES: Record<string, readonly CaseJson[]> = {
  hand: HAND_CASES,
  random: randomCases(),
  'stage-windows': stageWindowCases(),
};

const withoutAnswer = ({ flink: _, ...c }: GoldenCase): CaseJson => c;

for (const [suite, cases] of Object.entries(SUITES)) {
  describe(`CEP ${suite} cases: Weir equals Flink CEP (golden answers)`, () => {
    const golden = readGoldens(suite);

    it('the golden file holds the current cases (else: npm run golden:cep)', () => {
      expect(golden.cases.map(withoutAnswer)).toEqual(JSON.parse(JSON.stringify(cases)));
    });

    for (const c of golden.cases) {
      const known = KNOWN_DIFFERENCES[c.name];
      if (known === undefined) {
        it(c.name, () => {
          expect(comparable(runOnWeir(c))).toEqual(comparable(c.flink));
        });
      } else {
        it(`${c.name} (differs: ${known.why})`, () => {
          expect(runOnWeir(c)).toEqual(known.weir);
          expect(comparable(c.flink)).not.toEqual(comparable(known.weir));
        });
      }
    }
  });
}

describe('CEP without a timed-out handler (timeouts applied lazily): the same matches', () => {
  for (const suite of Object.keys(SUITES)) {
    it(`${suite} cases`, () => {
      for (const c of readGoldens(suite).cases) {
        const eager = runOnWeir(c);
        const lazy = runOnWeir(c, { timeouts: false });
        if ('error' in eager) {
          expect(lazy, c.name).toEqual(eager);
          continue;
        }
        expect(lazy, c.name).toEqual({ ...eager, timedOut: [] });
      }
    });
  }
});

/**
 * Every ninth hand case, every fortieth random one and every twelfth per-stage window and
 * comparator case: several kinds, in one short job.
 */
function liveSample(): GoldenCase[] {
  const hand = readGoldens('hand').cases.filter((_, i) => i % 9 === 3);
  const random = readGoldens('random').cases.filter((_, i) => i % 40 === 5);
  const windows = readGoldens('stage-windows').cases.filter((_, i) => i % 12 === 1);
  return [...hand, ...random, ...windows];
}

describe.skipIf(process.env.WEIR_SKIP_FLINK === '1')(
  'CEP: the live Flink peer still gives the golden answers',
  () => {
    const sample = liveSample();
    let live: FlinkCaseOutput[];

    beforeAll(async () => {
      live = await runCasesOnFlink(sample.map(withoutAnswer), { timeoutMs: 5 * 60_000 });
    }, 15 * 60_000);

    it(`${sample.length} cases`, () => {
      expect(sample.length).toBeGreaterThanOrEqual(12);
      for (const [i, c] of sample.entries()) {
        const { name, ...answer } = live[i]!;
        expect(name).toBe(c.name);
        expect({ name, ...answer }).toEqual({ name, ...c.flink });
        if (KNOWN_DIFFERENCES[c.name] === undefined) {
          expect(comparable(runOnWeir(c))).toEqual(comparable(answer as CaseResult));
        }
      }
    });
  },
);
