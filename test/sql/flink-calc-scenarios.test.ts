/**
 * Projection and filter scenarios of Flink's CalcITCase (streaming): SELECT without FROM, IN
 * and NOT IN, MAP and ARRAY constructors (DECIMAL elements of different scales), a long
 * projection list, IF, nested ROW fields, CAST of an integer to BOOLEAN in a condition.
 * Flink's expected rows.
 */
import { describe, expect, it } from 'vitest';
import {
  runScenario,
  scenarioRows,
  sorted,
  TUPLE_DATA_3,
  valuesView,
} from './flink-scenario-runner.js';

const ABC = [
  ['a', 'INT'],
  ['b', 'BIGINT'],
  ['c', 'STRING'],
] as const;
const TUPLES = valuesView('MyTable', ABC, TUPLE_DATA_3);
const SMALL = valuesView('MyTableRow', ABC, TUPLE_DATA_3.slice(0, 3));

describe("Flink's CalcITCase", () => {
  it('SELECT without FROM: one row', async () => {
    const [decimals, map, sum] = await runScenario('', [
      'SELECT ARRAY[0.12, 0.5, 0.99]',
      "SELECT Map['a', 0.12, 'b', 0.5]",
      "SELECT 1 + 1, UPPER('ab'), CAST(NULL AS INT)",
    ]);
    expect(decimals?.rows).toEqual(['[0.12, 0.50, 0.99]']);
    expect(map?.rows).toEqual(['{a=0.12, b=0.50}']);
    expect(sum?.rows).toEqual(['2,AB,null']);
    await expect(runScenario('', ['SELECT *'])).rejects.toThrow(
      'line 1, column 8: SELECT * needs a FROM clause',
    );
  });

  it('IN and NOT IN lists', async () => {
    const [inList, notIn] = await runScenario(TUPLES, [
      'SELECT * FROM MyTable WHERE b in (1,3,4,5,6)',
      'SELECT * FROM MyTable WHERE b not in (1,3,4,5,6)',
    ]);
    expect(inList?.rows).toEqual(
      sorted(TUPLE_DATA_3.filter(([, b]) => b !== 2).map((r) => r.join(','))),
    );
    expect(notIn?.rows).toEqual(sorted(['2,2,Hello', '3,2,Hello world']));
  });

  it('MAP constructors over columns, a long projection list, IF', async () => {
    const selectList = Array.from(
      { length: 197 },
      (_, k) =>
        `CASE WHEN a IS NOT NULL AND a > ${k + 3} THEN 0 WHEN a < 0 THEN 0 ELSE ${k + 3} END`,
    ).join(',');
    const [primitive, nonPrimitive, long, ifs] = await runScenario(SMALL, [
      'SELECT MAP[b, 30, 10, a] FROM MyTableRow',
      'SELECT MAP[a, c] FROM MyTableRow',
      `select ${selectList} from MyTableRow`,
      "SELECT IF(a > 1, 'true', 'false'), a from MyTableRow",
    ]);
    expect(primitive?.rows).toEqual(sorted(['{1=30, 10=1}', '{2=30, 10=2}', '{2=30, 10=3}']));
    expect(nonPrimitive?.rows).toEqual(sorted(['{1=Hi}', '{2=Hello}', '{3=Hello world}']));
    const expected = Array.from({ length: 197 }, (_, k) => k + 3).join(',');
    expect(long?.rows).toEqual([expected, expected, expected]);
    expect(ifs?.rows).toEqual(sorted(['false,1', 'true,2', 'true,3']));
  });

  it('nested ROW fields and CAST of integers to BOOLEAN in a condition', async () => {
    const nested = `CREATE TEMPORARY VIEW NestedTable AS SELECT id,
        CAST(deepNested AS ROW<nested1 ROW<name STRING, \`value\` INT>, nested2 ROW<num INT, flag BOOLEAN>>) AS deepNested,
        CAST(nested AS ROW<name STRING, \`value\` INT>) AS nested, name
      FROM (VALUES
        (1, ROW(ROW('HI', 11), ROW(111, TRUE)), ROW('hi', 1111), 'tom'),
        (2, ROW(ROW('HELLO', 22), ROW(222, FALSE)), ROW('hello', 2222), 'mary'),
        (3, ROW(ROW('HELLO WORLD', 33), ROW(333, TRUE)), ROW('hello world', 3333), 'benji')
      ) AS t(id, deepNested, nested, name);`;
    expect(
      await scenarioRows(
        nested,
        'select id, deepNested.nested1.name AS nestedName, nested.`value` AS nestedValue, deepNested.nested2.flag AS nestedFlag, deepNested.nested2.num AS nestedNum from NestedTable',
      ),
    ).toEqual(
      sorted(['1,HI,1111,true,111', '2,HELLO,2222,false,222', '3,HELLO WORLD,3333,true,333']),
    );
    const booleans = `CREATE TEMPORARY VIEW MyTableRow AS SELECT * FROM (VALUES (1, TRUE), (2, FALSE)) AS t(a, b);`;
    expect(
      await scenarioRows(
        booleans,
        'SELECT * FROM MyTableRow WHERE b = CAST(1 AS BOOLEAN) UNION ALL SELECT * FROM MyTableRow WHERE b = CAST(0 AS BOOLEAN)',
      ),
    ).toEqual(sorted(['1,true', '2,false']));
  });
});
