/**
 * The SQL client's pieces: statements split at `;` outside quotes and comments, and the result
 * table applying a changelog equals the multiset a plain batch computation leaves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MaterializedResult } from '../../src/cli/sql-client/result-view.js';
import { splitStatements } from '../../src/cli/sql-client/statement-splitter.js';
import type { Change } from '../../src/index.js';

describe('statement splitting', () => {
  it('ends statements at semicolons outside literals and comments', () => {
    expect(
      splitStatements("SELECT ';' AS a; -- x; y\nSELECT /* ; */ 2;\nSELECT 'it''s;'; SELECT 3"),
    ).toEqual({
      statements: ["SELECT ';' AS a", '-- x; y\nSELECT /* ; */ 2', "SELECT 'it''s;'"],
      rest: ' SELECT 3',
    });
  });
});

describe('result table', () => {
  it('applying a changelog leaves what a batch computation of the changes leaves', () => {
    const row = fc.constantFrom(['a', '1'], ['b', '2'], ['c', '3']);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), row), { maxLength: 40 }), (ops) => {
        const view = new MaterializedResult();
        const batch = new Map<string, number>();
        for (const [add, value] of ops) {
          const key = JSON.stringify(value);
          const have = batch.get(key) ?? 0;
          // Retractions only of rows present, as a valid changelog has them.
          if (!add && have === 0) continue;
          const change: Change<string[]> = { kind: add ? '+I' : '-D', value: [...value] };
          view.apply(change);
          batch.set(key, have + (add ? 1 : -1));
        }
        const shown = view
          .render(
            [
              { name: 'k', type: 'STRING' },
              { name: 'v', type: 'STRING' },
            ],
            1000,
          )
          .split('\n')
          .slice(2)
          .map((l) => l.split(' | ').map((c) => c.trim()))
          .map((r) => JSON.stringify(r))
          .sort();
        const expected = [...batch].flatMap(([k, n]) => Array<string>(n).fill(k)).sort();
        expect(shown).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
