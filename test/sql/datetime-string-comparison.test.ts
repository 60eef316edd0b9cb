/**
 * A date or time compared with a character string reads the string as a date or time, as
 * Flink's implicit coercion does (`WHERE d = '2024-01-02'`, CorrelateITCase's
 * `d = DATE_FORMAT(ts, 'yyyy-MM-dd')`); other mixed comparisons stay refused.
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from './flink-scenario-runner.js';

const ROWS = `CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES
  (1, DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00', '2024-01-01'),
  (2, DATE '2024-01-02', TIMESTAMP '2024-01-02 09:30:00', '2024-01-03'),
  (3, CAST(NULL AS DATE), TIMESTAMP '2024-01-03 00:00:00', CAST(NULL AS STRING))
) AS v (id, d, ts, s)`;

async function rows(query: string): Promise<string[]> {
  const [result] = await runScenario(ROWS, [query], { parallelism: 1 });
  return result!.rows;
}

describe('comparing dates and times with strings', () => {
  it('a DATE column against a string literal, both ways round', async () => {
    expect(await rows(`SELECT id FROM t WHERE d = '2024-01-02'`)).toEqual(['2']);
    expect(await rows(`SELECT id FROM t WHERE '2024-01-01' < d`)).toEqual(['2']);
    expect(await rows(`SELECT id FROM t WHERE d <> '2024-01-01'`)).toEqual(['2']);
  });

  it('a TIMESTAMP against a string, and a DATE against a computed string', async () => {
    expect(await rows(`SELECT id FROM t WHERE ts >= '2024-01-02 00:00:00'`)).toEqual(['2', '3']);
    expect(await rows(`SELECT id FROM t WHERE d = DATE_FORMAT(ts, 'yyyy-MM-dd')`)).toEqual([
      '1',
      '2',
    ]);
  });

  it('NULL on either side gives NULL (the row is filtered out)', async () => {
    expect(await rows(`SELECT id, d = s FROM t`)).toEqual(['1,true', '2,false', '3,null']);
  });

  it('a number against a string stays refused', async () => {
    await expect(rows(`SELECT id FROM t WHERE id = '1'`)).rejects.toThrow(
      /cannot compare INT NOT NULL with CHAR\(1\) NOT NULL \(=\)/,
    );
  });
});
