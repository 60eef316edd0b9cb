/**
 * TypeScript table functions in SQL (`LATERAL TABLE`): the comma, CROSS, INNER (with a
 * condition) and LEFT joins, a single-column function, a GROUP BY over the joined rows and a
 * join over a GROUP BY's changes (its updates retract the rows they replace),
 * against plain computations over fast-check sentences, at parallelism 1 and 2; and the
 * errors of wrong calls and wrong rows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import {
  CollectSink,
  defineTableFunction,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { split } from './fixtures/functions.js';

/** `upto(n)`: the numbers 1 .. n, one column. */
const upto = defineTableFunction({
  arguments: ['INT'],
  result: 'INT',
  eval: (n: number | null) => Array.from({ length: n ?? 0 }, (_, i) => i + 1),
});

interface Sentence {
  id: number;
  text: string | null;
}

const sentencesArb = fc.array(
  fc.record({
    id: fc.integer({ min: 0, max: 1000 }),
    text: fc.option(
      fc
        .array(fc.constantFrom('a', 'be', 'sea', 'dee', '', 'e'), { maxLength: 6 })
        .map((w) => w.join(' ')),
      { nil: null },
    ),
  }),
  { maxLength: 30 },
);

function environment(sentences: readonly Sentence[], parallelism: number) {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.createTemporarySystemFunction('split', split);
  tEnv.createTemporarySystemFunction('upto', upto);
  tEnv.fromDataStream('sentences', env.fromArray(sentences.map((s) => [s.id, s.text])), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'text', type: 'STRING' },
    ],
  });
  return { env, tEnv };
}

async function run(sentences: readonly Sentence[], query: string, parallelism: number) {
  const { env, tEnv } = environment(sentences, parallelism);
  const sink = new CollectSink<Change<unknown[]>>();
  tEnv.sqlQuery(query).toChangelogStream().sinkTo(sink);
  await env.execute('table function');
  return materialize(sink.values, (row) => JSON.stringify(row)).sort();
}

/** What `split` returns, computed plainly. */
function words(text: string | null): [string, number][] {
  if (text === null) return [];
  return text
    .split(' ')
    .filter((w) => w !== '')
    .map((w, i) => [w, i]);
}

const json = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

describe('TypeScript table functions', () => {
  for (const parallelism of [1, 2]) {
    it(`LATERAL TABLE joins equal plain computations (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(sentencesArb, async (sentences) => {
          const comma = await run(
            sentences,
            `SELECT s.id, T.word, T.pos FROM sentences AS s, LATERAL TABLE(split(s.text, ' ')) AS T(word, pos)
             WHERE T.pos < 3`,
            parallelism,
          );
          expect(comma).toEqual(
            json(
              sentences.flatMap((s) =>
                words(s.text)
                  .filter(([, pos]) => pos < 3)
                  .map(([w, pos]) => [s.id, w, pos]),
              ),
            ),
          );

          const inner = await run(
            sentences,
            `SELECT id, w FROM sentences JOIN LATERAL TABLE(split(text, ' ')) AS T(w, p)
             ON CHAR_LENGTH(T.w) > 1`,
            parallelism,
          );
          expect(inner).toEqual(
            json(
              sentences.flatMap((s) =>
                words(s.text)
                  .filter(([w]) => w.length > 1)
                  .map(([w]) => [s.id, w]),
              ),
            ),
          );

          const left = await run(
            sentences,
            `SELECT id, word, pos FROM sentences LEFT JOIN LATERAL TABLE(split(text, ' ')) ON TRUE`,
            parallelism,
          );
          expect(left).toEqual(
            json(
              sentences.flatMap((s): unknown[][] => {
                const ws = words(s.text);
                return ws.length === 0 ? [[s.id, null, null]] : ws.map(([w, p]) => [s.id, w, p]);
              }),
            ),
          );

          const counted = await run(
            sentences,
            `SELECT T.word, COUNT(*) FROM sentences CROSS JOIN LATERAL TABLE(split(text, ' ')) AS T
             GROUP BY T.word`,
            parallelism,
          );
          const counts = new Map<string, number>();
          for (const s of sentences)
            for (const [w] of words(s.text)) counts.set(w, (counts.get(w) ?? 0) + 1);
          expect(counted).toEqual(json([...counts]));

          const numbers = await run(
            sentences,
            'SELECT id, n FROM sentences, LATERAL TABLE(upto(MOD(id, 4))) AS U(n)',
            parallelism,
          );
          expect(numbers).toEqual(
            json(
              sentences.flatMap((s) => Array.from({ length: s.id % 4 }, (_, i) => [s.id, i + 1])),
            ),
          );

          // Over a changing input: each new count per text retracts the numbers of the old one.
          const overChanges = await run(
            sentences,
            `SELECT text, n FROM (SELECT text, COUNT(*) AS c FROM sentences GROUP BY text) AS g
             LEFT JOIN LATERAL TABLE(upto(CAST(g.c AS INT))) AS U(n) ON TRUE`,
            parallelism,
          );
          const perText = new Map<string | null, number>();
          for (const s of sentences) perText.set(s.text, (perText.get(s.text) ?? 0) + 1);
          expect(overChanges).toEqual(
            json([...perText].flatMap(([t, c]) => Array.from({ length: c }, (_, i) => [t, i + 1]))),
          );
        }),
        { numRuns: 6 },
      );
    }, 180_000);
  }

  it('refuses wrong calls and fails on a row of the wrong shape, naming it', async () => {
    const { tEnv } = environment([], 1);
    const plan = (sql: string) => () => tEnv.sqlQuery(sql);
    expect(plan('SELECT * FROM sentences, LATERAL TABLE(nope(text)) AS T(x)')).toThrow(
      'line 1, column 40: unknown table function NOPE',
    );
    expect(
      plan(
        "SELECT * FROM sentences LEFT JOIN LATERAL TABLE(split(text, ' ')) AS T(w, p) ON id > 1",
      ),
    ).toThrow('LEFT JOIN LATERAL TABLE(...) takes ON TRUE');
    expect(plan("SELECT * FROM sentences, LATERAL TABLE(split(text, ' ')) AS T(w)")).toThrow(
      'SPLIT returns 2 columns, but 1 names are given',
    );
    expect(plan('SELECT * FROM sentences, LATERAL TABLE(split(text)) AS T(w, p)')).toThrow(
      'SPLIT takes 2 arguments (STRING, STRING), got 1',
    );

    const env = new StreamEnvironment();
    const bad = TableEnvironment.create(env);
    bad.createTemporarySystemFunction(
      'pairs',
      defineTableFunction({ arguments: ['INT'], result: 'ROW<a INT, b INT>', eval: (n) => [[n]] }),
    );
    bad.fromDataStream('t', env.fromArray([[7]]), { columns: [{ name: 'x', type: 'INT' }] });
    bad
      .sqlQuery('SELECT * FROM t, LATERAL TABLE(pairs(x)) AS P')
      .toDataStream()
      .sinkTo(new CollectSink());
    await expect(env.execute('bad rows')).rejects.toThrow(
      'table function PAIRS returned [7] for the row [7]; each row must be an array of 2 values',
    );
  });
});
