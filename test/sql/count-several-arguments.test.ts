/**
 * COUNT with several arguments, as in Flink (Calcite): COUNT(a, b) counts the rows whose
 * arguments are all set, COUNT(DISTINCT a, b) the distinct tuples among them; also over a
 * changelog, where rows are taken back out. COUNT(DISTINCT x) of a ROW, ARRAY or MAP counts
 * distinct contents (as values in JS they have no key of their own).
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from './flink-scenario-runner.js';

const INPUT = `(VALUES (1, 1, 'x'), (1, 1, 'x'), (1, 2, 'x'), (1, NULL, 'y'), (1, 2, CAST(NULL AS STRING)), (2, 3, 'z')) AS t(k, a, b)`;

describe('COUNT of several arguments', () => {
  it('counts rows with every argument set, and distinct tuples, per group; nested values by contents', async () => {
    const [counts, nested] = await runScenario('', [
      `SELECT k, COUNT(DISTINCT a, b), COUNT(a, b), COUNT(b, a, k) FROM ${INPUT} GROUP BY k`,
      `SELECT k, COUNT(DISTINCT ARRAY[a]), COUNT(DISTINCT MAP[b, a]), COUNT(DISTINCT ROW(a, b)) FROM ${INPUT} GROUP BY k`,
    ]);
    // k = 1: tuples (1,x) (1,x) (2,x); (NULL,y) and (2,NULL) have an unset argument.
    expect(counts!.rows).toEqual(['1,2,3,3', '2,1,1,1']);
    // ARRAY[NULL] and ROW(NULL, 'y') are values: only their contents hold a NULL.
    expect(nested!.rows).toEqual(['1,3,4,4', '2,1,1,1']);
  });

  it('takes tuples back out over a changelog, as a batch count of the final input', async () => {
    const [result] = await runScenario('', [
      `SELECT c, COUNT(DISTINCT k, a), COUNT(k, a) FROM (
         SELECT k, a, COUNT(*) AS c FROM (VALUES (1, 1), (1, 1), (1, 2), (2, 2), (2, NULL)) AS t(k, a) GROUP BY k, a
       ) GROUP BY c`,
    ]);
    // Final inner rows: (1,1,c=2), (1,2,c=1), (2,2,c=1), (2,NULL,c=1).
    expect(result!.rows).toEqual(['1,2,2', '2,1,1']);
  });

  it('refuses several arguments to the other aggregates', async () => {
    await expect(runScenario('', [`SELECT SUM(a, k) FROM ${INPUT}`])).rejects.toThrow(
      'SUM takes one argument, got 2',
    );
  });
});
