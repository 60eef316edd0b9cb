/**
 * The SQL cases of Flink's built-in JSON function tests, each expression with Flink's input
 * (one-row views over VALUES, cast to Flink's column types) and its expected value, many
 * expressions to a job: flink-table-planner/src/test/java/org/apache/flink/table/planner/
 * functions/JsonFunctionsITCase.java (jsonExistsSpec, jsonValueSpec, jsonLengthSpec,
 * isJsonSpec, jsonQuerySpec with its JSON_VALUE quoted-number and TINYINT cases,
 * jsonStringSpec, jsonSpec, jsonObjectSpec, jsonArraySpec, jsonTypeSpec, jsonQuoteSpec,
 * jsonUnquoteSpecWithValidInput, jsonUnquoteSpecWithInvalidInput, jsonLocalRefReuseSpec) and
 * JsonExistsFunctionITCase.java (the same cases as jsonExistsSpec's), with the documents of
 * src/test/resources/json/ (json-exists.json, json-value.json, json-query.json). Each case's
 * result type is checked in the last test. About 270 expressions, 17 expected failures (refused
 * at planning time, or a failed job) and 21 result types.
 *
 * Adapted: an ARRAY result shows as Weir displays it (`[NULL, c2]`, `[TRUE, FALSE]`); an
 * expected failure is checked by Weir's message where it differs from Flink's; Flink's UDFs
 * CreateStructuredType (a POJO of name, age, payload) and CreateInternalRow are ROWs of the same
 * fields (`q`, `r`).
 *
 * Not ported:
 * - PARSE_JSON, TRY_PARSE_JSON and VARIANT (parseJsonSpec, JSON_STRING(PARSE_JSON(...)), the
 *   JSON_LENGTH(PARSE_JSON(...)) cases): Weir has no VARIANT type, far too large an addition.
 * - The MULTISET values of JSON_STRING, JSON_OBJECT and JSON_ARRAY: they come from Flink's
 *   CreateMultiset Java UDF; a MULTISET made by COLLECT is written the same way (an object of
 *   element to count) in multiset-collect.test.ts.
 * - isJsonSpec's NULL input (`NULL IS JSON` is NULL, FLINK-39943, and its nullable BOOLEAN), an
 *   `it.skip` below: deliberate, Weir follows Flink 2.2.1 (FALSE), as the differential suite
 *   records it.
 * - The Table API cases (testTableApiResult, testTableApiValidationError,
 *   testTableApiRuntimeError): not SQL.
 *
 * Bugs the port found, fixed:
 * - A path without `lax` or `strict` was lax; Flink reads it as strict (as Calcite does): a miss
 *   is an error, not empty. With it, JSON_VALUE's `DEFAULT ... ON EMPTY` (which Weir had turned
 *   off to get Flink's NULL for `'$.z' DEFAULT 'd' ON EMPTY`, a strict miss) is honoured
 *   (`'lax $.invalid' RETURNING INTEGER DEFAULT 42 ON EMPTY` gave NULL, not 42), a JSON null is
 *   empty, and JSON_QUERY's scalar on a strict path is an error (`'$.a' RETURNING ARRAY<STRING>
 *   ... EMPTY ARRAY ON ERROR` gave NULL, not []).
 * - `RETURNING INTEGER NULL ON EMPTY` (or ON ERROR) did not parse: the type took the NULL.
 * - The path step `$.['contains blank']` was refused.
 * - JSON_VALUE refused an input that is not text (BYTES, ROW, a typed NULL); Flink takes any,
 *   and such a value is an error (NULL ON ERROR).
 * - JSON_VALUE RETURNING an integer type of a fraction was NULL; Flink truncates (13.37 is 13).
 * - JSON_QUERY RETURNING ARRAY<INT>, ARRAY<BIGINT>, ARRAY<DOUBLE>, ARRAY<BOOLEAN> was refused;
 *   EMPTY OBJECT ON EMPTY / ON ERROR with RETURNING ARRAY was not refused; RETURNING
 *   ARRAY<STRING> wrote an object element's keys unsorted.
 * - JSON(text) inside JSON_OBJECT and JSON_ARRAY was an unknown function.
 * - JSON_STRING, JSON_OBJECT and JSON_ARRAY wrote a ROW's fields in their declared order; Flink
 *   sorts them by name.
 * - JSON_STRING(JSON_OBJECT(...)) quoted the object's JSON as a string.
 * - JSON_QUOTE did not escape `/` (`\/`).
 * - JSON_UNQUOTE left quoted text that is not one JSON string (`"["abc"]"`) as it was.
 * - JSON_TYPE and JSON_LENGTH were unknown functions.
 */
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario, valuesView } from './flink-scenario-runner.js';

/** Flink's resource json/json-exists.json. */
const EXISTS_DOC = `{
  "type": "post",
  "author": {
    "name": "Jon Doe",
    "address": {
      "country": "Germany",
      "city": "Munich"
    }
  },
  "metadata": {
    "tags": ["flink", "streaming", "json"],
    "references": [
      {
        "name": "GitHub",
        "url": "https://www.github.com/apache/flink"
      }
    ]
  }
}
`;

/** Flink's resource json/json-value.json. */
const VALUE_DOC = `{
  "type": "account",
  "age": 42,
  "activated": true,
  "address": {
    "city": "Munich"
  },
  "roles": ["user", "viewer"],
  "balance": 13.37,
  "longBalance": 123456789.987654321,
  "bigCount": 9999999999,
  "nullField": null,
  "contains blank": "right"
}
`;

/** Flink's resource json/json-query.json. */
const QUERY_DOC = `{
  "n1": 1,
  "s1": "Test",
  "o1": {},
  "a1": []
}
`;

/** One-row views of STRING columns f0, f1, ... (Flink's `onFieldsWithData`). */
function strings(name: string, values: readonly (string | null)[], type = 'STRING'): string {
  return valuesView(
    name,
    values.map((_, i) => [`f${i}`, type] as const),
    [values],
  );
}

/** An expression and its result as Flink's test sinks print it (`null` for NULL). */
type Case = readonly [sql: string, expected: string | null];

/** `SELECT sql FROM view` of every case, in one job; each case's result against its expected one. */
async function check(setup: string, groups: Readonly<Record<string, readonly Case[]>>) {
  const entries = Object.entries(groups).flatMap(([view, cases]) =>
    cases.map(([sql, expected]) => ({ key: `${view}: ${sql}`, sql, view, expected })),
  );
  const results = await runScenario(
    setup,
    entries.map((e) => `SELECT ${e.sql} FROM ${e.view}`),
  );
  const actual = Object.fromEntries(entries.map((e, i) => [e.key, results[i]?.rows]));
  const expected = Object.fromEntries(entries.map((e) => [e.key, [e.expected ?? 'null']]));
  expect(actual).toEqual(expected);
}

/** A table environment with the setup's views, for the cases refused at planning time. */
function planner(setup: string): TableEnvironment {
  const tEnv = TableEnvironment.create(new StreamEnvironment());
  tEnv.executeSql(setup);
  return tEnv;
}

/** Runs one query expecting its job to fail. */
async function failure(setup: string, sql: string): Promise<unknown> {
  return runScenario(setup, [sql]);
}

describe("Flink's JsonFunctionsITCase / JsonExistsFunctionITCase", () => {
  it('JSON_EXISTS (jsonExistsSpec, JsonExistsFunctionITCase)', async () => {
    const setup = strings('T', [EXISTS_DOC]);
    await check(setup, {
      T: [
        ["JSON_EXISTS(CAST(NULL AS STRING), 'lax $')", null],
        ["JSON_EXISTS(f0, 'lax $')", 'true'],
        ["JSON_EXISTS(f0, 'lax $.type')", 'true'],
        ["JSON_EXISTS(f0, 'lax $.author.address.city')", 'true'],
        ["JSON_EXISTS(f0, 'lax $.metadata.tags[0]')", 'true'],
        ["JSON_EXISTS(f0, 'lax $.metadata.tags[3]')", 'false'],
        ["JSON_EXISTS(f0, 'lax $.metadata.references[0].url')", 'true'],
        ["JSON_EXISTS(f0, 'lax $.metadata.references[0].invalid')", 'false'],
        ["JSON_EXISTS(f0, 'strict $.invalid' TRUE ON ERROR)", 'true'],
        ["JSON_EXISTS(f0, 'strict $.invalid' FALSE ON ERROR)", 'false'],
        ["JSON_EXISTS(f0, 'strict $.invalid' UNKNOWN ON ERROR)", null],
        ["JSON_EXISTS(f0, '$.items[*]')", 'false'],
        ["JSON_EXISTS(f0, '$.metadata.tags[*]')", 'true'],
      ],
    });
    await expect(
      failure(setup, "SELECT JSON_EXISTS(f0, 'strict $.invalid' ERROR ON ERROR) FROM T"),
    ).rejects.toThrow(/JSON_EXISTS/);
  });

  it('JSON_VALUE (jsonValueSpec and its quoted-number and TINYINT cases)', async () => {
    const setup = [
      `CREATE TEMPORARY VIEW T AS SELECT f0, CAST(f0 AS BYTES) AS f1, ROW(f0) AS f2 FROM (SELECT CAST(EXPR$0 AS STRING) AS f0 FROM (VALUES ('${VALUE_DOC}')));`,
      strings('Q', ['{"v":"42"}', '{"neg":-100}']),
    ].join('\n');
    await check(setup, {
      T: [
        ["JSON_VALUE(CAST(NULL AS STRING), 'lax $')", null],
        ["JSON_VALUE(f0, '$.longBalance')", '123456789.987654321'],
        ["JSON_VALUE(f0, '$.balance')", '13.37'],
        ["JSON_VALUE(f0, '$.type')", 'account'],
        ["JSON_VALUE(f0, '$.activated' RETURNING BOOLEAN)", 'true'],
        ["JSON_VALUE(f0, '$.age' RETURNING INT)", '42'],
        ["JSON_VALUE(f0, '$.balance' RETURNING DOUBLE)", '13.37'],
        ["JSON_VALUE(f0, '$.longBalance' RETURNING DOUBLE)", '1.2345678998765433E8'],
        ["JSON_VALUE(f0, '$.age' RETURNING TINYINT)", '42'],
        ["JSON_VALUE(f0, '$.age' RETURNING SMALLINT)", '42'],
        ["JSON_VALUE(f0, '$.age' RETURNING BIGINT)", '42'],
        ["JSON_VALUE(f0, '$.bigCount' RETURNING BIGINT)", '9999999999'],
        ["JSON_VALUE(f0, '$.balance' RETURNING FLOAT)", '13.37'],
        ["JSON_VALUE(f0, '$.balance' RETURNING DECIMAL(10, 2))", '13.37'],
        ["JSON_VALUE(f0, 'lax $.invalid' NULL ON EMPTY ERROR ON ERROR)", null],
        [
          "JSON_VALUE(f0, 'lax $.invalid' RETURNING INTEGER DEFAULT 42 ON EMPTY ERROR ON ERROR)",
          '42',
        ],
        ["JSON_VALUE(f0, 'strict $.invalid' ERROR ON EMPTY NULL ON ERROR)", null],
        [
          "JSON_VALUE(f0, 'strict $.invalid' RETURNING INTEGER NULL ON EMPTY DEFAULT 42 ON ERROR)",
          '42',
        ],
        ["JSON_VALUE(f0, '$.nullField' RETURNING INTEGER)", null],
        ["JSON_VALUE(f0, '$.type' RETURNING INTEGER DEFAULT 42 ON ERROR)", '42'],
        ["JSON_VALUE(f0, '$.bigCount' RETURNING INTEGER)", null],
        ["JSON_VALUE(f0, '$.balance' RETURNING INTEGER)", '13'],
        ["JSON_VALUE(f0, '$.longBalance' RETURNING DECIMAL(5, 2))", null],
        ["JSON_VALUE(f0, '$.longBalance' RETURNING DECIMAL(5, 2) DEFAULT '0.00' ON ERROR)", '0.00'],
        ["CAST(JSON_VALUE(f0, '$.balance' RETURNING DOUBLE) AS BIGINT)", '13'],
        ["CAST(JSON_VALUE(f0, '$.age' RETURNING INTEGER) AS DOUBLE)", '42.0'],
        ["CAST(JSON_VALUE(f0, '$.age' RETURNING INTEGER) AS BIGINT)", '42'],
        ["CAST(JSON_VALUE(f0, '$.balance' RETURNING DOUBLE) AS INTEGER)", '13'],
        ["CAST(JSON_VALUE(f0, '$.longBalance' RETURNING DOUBLE) AS BIGINT)", '123456789'],
        [
          `JSON_VALUE('{"a": 99999, "b": 99999}', '$.a' RETURNING INT) = JSON_VALUE('{"a": 99999, "b": 99999}', '$.b' RETURNING INT)`,
          'true',
        ],
        [
          `JSON_VALUE('{"a": 13.37, "b": 13.37}', '$.a' RETURNING DOUBLE) = JSON_VALUE('{"a": 13.37, "b": 13.37}', '$.b' RETURNING DOUBLE)`,
          'true',
        ],
        [
          `JSON_VALUE('{"a": 200, "b": 200}', '$.a' RETURNING SMALLINT) = JSON_VALUE('{"a": 200, "b": 200}', '$.b' RETURNING SMALLINT)`,
          'true',
        ],
        [
          `JSON_VALUE('{"a": 9999999999, "b": 9999999999}', '$.a' RETURNING BIGINT) = JSON_VALUE('{"a": 9999999999, "b": 9999999999}', '$.b' RETURNING BIGINT)`,
          'true',
        ],
        [
          `JSON_VALUE('{"a": 13.37, "b": 13.37}', '$.a' RETURNING FLOAT) = JSON_VALUE('{"a": 13.37, "b": 13.37}', '$.b' RETURNING FLOAT)`,
          'true',
        ],
        [
          "JSON_VALUE(f0, 'strict $.[''contains blank'']' NULL ON EMPTY DEFAULT 'wrong' ON ERROR)",
          'right',
        ],
        ["JSON_VALUE(f0, '$.type'), JSON_VALUE(f0, '$.age')", 'account,42'],
        [
          "JSON_VALUE(f1, '$.type'), JSON_VALUE(f2, '$.type'), JSON_VALUE(CAST(NULL AS INT), '$.type'), JSON_VALUE(CAST(NULL AS DATE), '$.type')",
          'null,null,null,null',
        ],
      ],
      Q: [
        ["JSON_VALUE(f0, '$.v' RETURNING INTEGER NULL ON ERROR)", '42'],
        ["JSON_VALUE(f1, '$.neg' RETURNING TINYINT)", '-100'],
      ],
    });
    await expect(
      failure(setup, "SELECT JSON_VALUE(f0, '$.type' RETURNING INTEGER ERROR ON ERROR) FROM T"),
    ).rejects.toThrow(/JSON_VALUE/);
  });

  it('IS JSON (isJsonSpec)', async () => {
    const setup = [
      valuesView('I', [['f0', 'INT']], [[1]]),
      strings('N', [null]),
      strings('A', ['a']),
      strings('AN', ['a'], 'STRING NOT NULL'),
      strings('S', ['"a"']),
      strings('O', ['{}']),
    ].join('\n');
    expect(() => planner(setup).sqlQuery('SELECT f0 IS JSON FROM I')).toThrow(/IS JSON/);
    await check(setup, {
      A: [
        ['f0 IS JSON', 'false'],
        ['f0 IS NOT JSON', 'true'],
      ],
      AN: [['f0 IS JSON', 'false']],
      S: [
        ['f0 IS JSON', 'true'],
        ['f0 IS JSON VALUE', 'true'],
        ['f0 IS JSON SCALAR', 'true'],
        ['f0 IS JSON ARRAY', 'false'],
        ['f0 IS JSON OBJECT', 'false'],
      ],
      O: [
        ['f0 IS JSON', 'true'],
        ['f0 IS JSON VALUE', 'true'],
        ['f0 IS JSON SCALAR', 'false'],
        ['f0 IS JSON ARRAY', 'false'],
        ['f0 IS JSON OBJECT', 'true'],
      ],
    });
  });

  // A deliberate difference: Flink 2.2.1 (the version Weir follows, whose answers the differential
  // suite records) gives FALSE for `NULL IS JSON`; these cases pin FLINK-39943, after it.
  it.skip('IS JSON of NULL is NULL (isJsonSpec, FLINK-39943)', async () => {
    await check(strings('N', [null]), {
      N: [
        ['f0 IS JSON', null],
        ['f0 IS NOT JSON', null],
        ['f0 IS JSON VALUE', null],
        ['f0 IS NOT JSON VALUE', null],
        ['f0 IS JSON SCALAR', null],
        ['f0 IS NOT JSON SCALAR', null],
        ['f0 IS JSON ARRAY', null],
        ['f0 IS NOT JSON ARRAY', null],
        ['f0 IS JSON OBJECT', null],
        ['f0 IS NOT JSON OBJECT', null],
      ],
    });
  });

  it('JSON_QUERY (jsonQuerySpec)', async () => {
    const setup = [
      strings('N', [null]),
      strings('A', ['{ "a": "[1,2]", "b": [1,2]}', '{"a":[{"c":null},{"c":"c2"}]}']),
      strings('B', [
        '{"items": [{"itemId":1234, "count":10}, null, {"itemId":4567, "count":11}]}',
        '{"items": [[1234, 2345], null, ["itemId", "count"]]}',
        '{"arr": ["abc", null, "def"]}',
      ]),
      strings('D', [QUERY_DOC]),
      strings('TA', [
        '{"ints": [1, 2, 3], "doubles": [1.5, 2.5], "bools": [true, false], "withNull": [1, null, 3], "bigints": [1, 9999999999]}',
      ]),
      strings('M', ['{"strings": ["a", "b"]}', '{"empty": []}']),
      strings('BIG', ['{"big": [9223372036854775807, -9223372036854775808]}']),
      strings('NA', ['{"a":[[1,2],[3,4]]}']),
    ].join('\n');
    await check(setup, {
      N: [["JSON_QUERY(f0, '$')", null]],
      A: [
        ["JSON_QUERY(f0, '$.b')", '[1,2]'],
        ["JSON_QUERY(f0, '$.b' RETURNING ARRAY<STRING>)", '[1, 2]'],
        ["JSON_QUERY(f0, '$.b' WITH CONDITIONAL WRAPPER)", '[1,2]'],
        [
          "JSON_QUERY(f1, 'lax $.a[*].c' RETURNING ARRAY<STRING> ERROR ON ERROR ERROR ON EMPTY)",
          '[NULL, c2]',
        ],
        ["JSON_QUERY(f0, '$.b' RETURNING ARRAY<STRING> WITH CONDITIONAL WRAPPER)", '[1, 2]'],
        ["JSON_QUERY(f0, '$.b' RETURNING ARRAY<INTEGER> WITH CONDITIONAL WRAPPER)", '[1, 2]'],
        ["JSON_QUERY(f0, '$.a')", null],
        ["JSON_QUERY(f0, '$.a' RETURNING ARRAY<STRING>)", null],
        ["JSON_QUERY(f0, '$.a' WITH CONDITIONAL WRAPPER)", '["[1,2]"]'],
        ["JSON_QUERY(f0, '$.a' RETURNING ARRAY<STRING> WITH CONDITIONAL WRAPPER)", '[[1,2]]'],
        [
          "JSON_QUERY(f0, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER EMPTY ARRAY ON ERROR)",
          '[]',
        ],
      ],
      B: [
        [
          "JSON_QUERY(f0, '$.items' RETURNING ARRAY<STRING>)",
          '[{"count":10,"itemId":1234}, NULL, {"count":11,"itemId":4567}]',
        ],
        [
          "JSON_QUERY(f1, '$.items' RETURNING ARRAY<STRING>)",
          '[[1234,2345], NULL, ["itemId","count"]]',
        ],
        ["JSON_QUERY(f2, '$.arr' RETURNING ARRAY<STRING>)", '[abc, NULL, def]'],
      ],
      D: [
        ["JSON_QUERY(f0, '$.a1' WITHOUT WRAPPER)", '[]'],
        ["JSON_QUERY(f0, '$.a1' WITH CONDITIONAL WRAPPER)", '[]'],
        ["JSON_QUERY(f0, '$.o1' WITH CONDITIONAL WRAPPER)", '[{}]'],
        ["JSON_QUERY(f0, '$.a1' WITH UNCONDITIONAL WRAPPER)", '[[]]'],
        ["JSON_QUERY(f0, '$.n1' WITH CONDITIONAL WRAPPER)", '[1]'],
        ["JSON_QUERY(f0, '$.s1' WITH CONDITIONAL WRAPPER)", '["Test"]'],
        ["JSON_QUERY(f0, 'lax $.err1' NULL ON EMPTY)", null],
        ["JSON_QUERY(f0, 'lax $.err2' EMPTY ARRAY ON EMPTY)", '[]'],
        ["JSON_QUERY(f0, 'lax $.err3' EMPTY OBJECT ON EMPTY)", '{}'],
        ["JSON_QUERY(f0, 'strict $.err6' NULL ON ERROR)", null],
        ["JSON_QUERY(f0, 'strict $.err7' EMPTY ARRAY ON ERROR)", '[]'],
        ["JSON_QUERY(f0, 'strict $.err8' EMPTY OBJECT ON ERROR)", '{}'],
      ],
      TA: [
        ["JSON_QUERY(f0, '$.ints' RETURNING ARRAY<INT>)", '[1, 2, 3]'],
        ["JSON_QUERY(f0, '$.bigints' RETURNING ARRAY<BIGINT>)", '[1, 9999999999]'],
        ["JSON_QUERY(f0, '$.doubles' RETURNING ARRAY<DOUBLE>)", '[1.5, 2.5]'],
        ["JSON_QUERY(f0, '$.bools' RETURNING ARRAY<BOOLEAN>)", '[TRUE, FALSE]'],
        ["JSON_QUERY(f0, '$.ints' RETURNING ARRAY<INT NOT NULL>)", '[1, 2, 3]'],
      ],
      M: [
        ["JSON_QUERY(f0, '$.strings' RETURNING ARRAY<INT> NULL ON ERROR)", null],
        ["JSON_QUERY(f0, '$.strings' RETURNING ARRAY<INT> EMPTY ARRAY ON ERROR)", '[]'],
        ["JSON_QUERY(f1, '$.empty' RETURNING ARRAY<INT>)", '[]'],
        ["JSON_QUERY(f0, 'lax $.missing' RETURNING ARRAY<INT> NULL ON EMPTY)", null],
        ["JSON_QUERY(f0, 'lax $.missing' RETURNING ARRAY<INT> EMPTY ARRAY ON EMPTY)", '[]'],
      ],
      BIG: [
        [
          "JSON_QUERY(f0, '$.big' RETURNING ARRAY<BIGINT>)",
          '[9223372036854775807, -9223372036854775808]',
        ],
      ],
      NA: [["JSON_QUERY(f0, '$.a' RETURNING ARRAY<INT> NULL ON ERROR)", null]],
    });
    const tEnv = planner(setup);
    expect(() => tEnv.sqlQuery("SELECT JSON_QUERY(f0, '$.n1' RETURNING INTEGER) FROM A")).toThrow(
      /for RETURNING in JSON_QUERY\(\)/,
    );
    expect(() =>
      tEnv.sqlQuery(
        "SELECT JSON_QUERY(f0, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER EMPTY OBJECT ON ERROR) FROM A",
      ),
    ).toThrow("Illegal on error behavior 'EMPTY OBJECT' for return type: ARRAY<STRING>");
    expect(() =>
      tEnv.sqlQuery(
        "SELECT JSON_QUERY(f0, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER EMPTY OBJECT ON EMPTY) FROM A",
      ),
    ).toThrow("Illegal on empty behavior 'EMPTY OBJECT' for return type: ARRAY<STRING>");
    expect(() =>
      tEnv.sqlQuery("SELECT JSON_QUERY(f0, '$.ints' RETURNING ARRAY<TIMESTAMP>) FROM TA"),
    ).toThrow(/Unsupported array element type/);
    for (const sql of [
      "SELECT JSON_QUERY(f0, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER ERROR ON ERROR) FROM A",
      "SELECT JSON_QUERY(f0, 'lax $.err4' ERROR ON EMPTY) FROM D",
      "SELECT JSON_QUERY(f0, 'strict $.err9' ERROR ON ERROR) FROM D",
      "SELECT JSON_QUERY(f0, '$.strings' RETURNING ARRAY<INT> ERROR ON ERROR) FROM M",
    ])
      await expect(failure(setup, sql), sql).rejects.toThrow(/JSON_QUERY/);
  });

  it('JSON_STRING (jsonStringSpec), JSON_OBJECT (jsonObjectSpec), JSON_ARRAY (jsonArraySpec)', async () => {
    const ltz = 'TO_TIMESTAMP_LTZ(644333862001, 3)';
    const setup = [
      `CREATE TEMPORARY VIEW V AS SELECT 'V' AS f0, TRUE AS f1, 1 AS f2, CAST(1.23 AS DOUBLE) AS f3,
        CAST(1.23 AS DECIMAL(3, 2)) AS f4, TIMESTAMP '1990-06-02 13:37:42.001' AS f5, ${ltz} AS f6,
        ARRAY['A1', 'A2', 'A3'] AS f7,
        CAST(ROW('R1', ${ltz}) AS ROW<f0 STRING, f1 TIMESTAMP_LTZ(3)>) AS f8,
        MAP['M1', 'V1', 'M2', 'V2'] AS f9, CAST(X'54657374' AS BINARY(4)) AS f11,
        CAST(X'54657374' AS VARBINARY(4)) AS f12,
        CAST(ROW(ARRAY[ROW(1, 2)]) AS ROW<f0 ARRAY<ROW<f0 INT, f1 INT>>>) AS f13,
        CAST(ROW('V', 1, MAP['M1', 'V1', 'M2', 'V2']) AS ROW<name STRING, age INT, payload MAP<STRING, STRING>>) AS q,
        CAST(ROW('V', NULL) AS ROW<f0 STRING, f1 INT>) AS r
        FROM (VALUES (1));`,
      `CREATE TEMPORARY VIEW W AS SELECT CAST(ROW('val1', 'val2', 'val3', 'val4', 'val5') AS
        ROW<\`field"quote\` STRING, \`field\\slash\` STRING, \`field\nline\` STRING, \`field\ttab\` STRING, \`field\rreturn\` STRING>) AS f0
        FROM (VALUES (1));`,
    ].join('\n');
    const weird =
      '{"field\\ttab":"val4","field\\nline":"val3","field\\rreturn":"val5","field\\"quote":"val1","field\\\\slash":"val2"}';
    await check(setup, {
      V: [
        ['JSON_STRING(CAST(NULL AS STRING))', null],
        ['JSON_STRING(f0)', '"V"'],
        ['JSON_STRING(f1)', 'true'],
        ['JSON_STRING(f2)', '1'],
        ['JSON_STRING(f3)', '1.23'],
        ['JSON_STRING(f4)', '1.23'],
        ['JSON_STRING(f5)', '"1990-06-02T13:37:42.001"'],
        ['JSON_STRING(f6)', '"1990-06-02T13:37:42.001Z"'],
        ['JSON_STRING(f7)', '["A1","A2","A3"]'],
        ['JSON_STRING(f8)', '{"f0":"R1","f1":"1990-06-02T13:37:42.001Z"}'],
        ['JSON_STRING(f9)', '{"M1":"V1","M2":"V2"}'],
        ['JSON_STRING(f11)', '"VGVzdA=="'],
        ['JSON_STRING(f12)', '"VGVzdA=="'],
        ['JSON_STRING(f13)', '{"f0":[{"f0":1,"f1":2}]}'],
        ['JSON_OBJECT()', '{}'],
        ["JSON_OBJECT(KEY 'K' VALUE CAST(NULL AS STRING) NULL ON NULL)", '{"K":null}'],
        ["JSON_OBJECT(KEY 'K' VALUE CAST(NULL AS STRING) ABSENT ON NULL)", '{}'],
        [
          `JSON_OBJECT('A' VALUE f0, 'B' VALUE f1, 'C' VALUE f2, 'D' VALUE f3, 'E' VALUE f4,
            'F' VALUE f5, 'G' VALUE f6, 'H' VALUE f7, 'I' VALUE f8, 'J' VALUE f9, 'L' VALUE f11,
            'M' VALUE f12, 'N' VALUE f13, 'O' VALUE JSON_OBJECT(KEY 'A' VALUE 'B'),
            'P' VALUE JSON_ARRAY('A', JSON_OBJECT('K' VALUE 'V')), 'Q' VALUE q, 'R' VALUE r)`,
          '{"A":"V","B":true,"C":1,"D":1.23,"E":1.23,"F":"1990-06-02T13:37:42.001",' +
            '"G":"1990-06-02T13:37:42.001Z","H":["A1","A2","A3"],' +
            '"I":{"f0":"R1","f1":"1990-06-02T13:37:42.001Z"},"J":{"M1":"V1","M2":"V2"},' +
            '"L":"VGVzdA==","M":"VGVzdA==","N":{"f0":[{"f0":1,"f1":2}]},"O":{"A":"B"},' +
            '"P":["A",{"K":"V"}],"Q":{"age":1,"name":"V","payload":{"M1":"V1","M2":"V2"}},' +
            '"R":{"f0":"V","f1":null}}',
        ],
        ['JSON_ARRAY()', '[]'],
        ['JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL)', '[null]'],
        ['JSON_ARRAY(CAST(NULL AS STRING) ABSENT ON NULL)', '[]'],
        [
          `JSON_ARRAY(f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f11, f12, f13, JSON_ARRAY('V'),
            JSON_OBJECT('K' VALUE JSON_ARRAY('V')), q)`,
          '["V",true,1,1.23,1.23,"1990-06-02T13:37:42.001","1990-06-02T13:37:42.001Z",' +
            '["A1","A2","A3"],{"f0":"R1","f1":"1990-06-02T13:37:42.001Z"},' +
            '{"M1":"V1","M2":"V2"},"VGVzdA==","VGVzdA==",{"f0":[{"f0":1,"f1":2}]},["V"],' +
            '{"K":["V"]},{"age":1,"name":"V","payload":{"M1":"V1","M2":"V2"}}]',
        ],
      ],
      W: [
        ['JSON_STRING(f0)', weird],
        ["JSON_OBJECT(KEY 'testRow' VALUE f0 NULL ON NULL)", `{"testRow":${weird}}`],
        ['JSON_ARRAY(f0 NULL ON NULL)', `[${weird}]`],
      ],
    });
  });

  it('JSON() inside JSON_OBJECT and JSON_ARRAY (jsonSpec)', async () => {
    const setup = strings('J', ['{"key":"value"}', '{"key": {"value": 42}}']);
    await check(setup, {
      J: [
        ["JSON_OBJECT(KEY 'K' VALUE JSON('{}'))", '{"K":{}}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON(f0))", '{"K":{"key":"value"}}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON(f1))", '{"K":{"key":{"value":42}}}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON('[1,2,3]'))", '{"K":[1,2,3]}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON(''))", '{"K":null}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON('    '))", '{"K":null}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON(CAST(NULL AS STRING)) NULL ON NULL)", '{"K":null}'],
        ["JSON_OBJECT(KEY 'K' VALUE JSON(CAST(NULL AS STRING)) ABSENT ON NULL)", '{}'],
        [
          "JSON_OBJECT(KEY 'key' VALUE JSON_OBJECT(KEY 'nested_key' VALUE JSON(f1)) NULL ON NULL)",
          '{"key":{"nested_key":{"key":{"value":42}}}}',
        ],
        [
          "JSON_OBJECT(KEY 'key' VALUE JSON_OBJECT(KEY 'nested_key' VALUE JSON(CAST(NULL AS STRING))) NULL ON NULL)",
          '{"key":{"nested_key":null}}',
        ],
        [
          "JSON_OBJECT(KEY 'key1' VALUE 'val', KEY 'key2' VALUE JSON(f1))",
          '{"key1":"val","key2":{"key":{"value":42}}}',
        ],
        [
          "JSON_OBJECT(KEY 'key1' VALUE JSON(f0), KEY 'key2' VALUE JSON(f1))",
          '{"key1":{"key":"value"},"key2":{"key":{"value":42}}}',
        ],
        [
          "JSON_OBJECT(KEY 'outerKey' VALUE 'outerValue', KEY 'nestedObject' VALUE JSON_OBJECT(KEY 'innerKey' VALUE JSON(f0)))",
          '{"nestedObject":{"innerKey":{"key":"value"}},"outerKey":"outerValue"}',
        ],
        [
          "JSON_OBJECT(KEY 'p1' VALUE JSON(f0), KEY 'p2' VALUE JSON(f1), KEY 'p3' VALUE JSON('[1, 2, 3]'))",
          '{"p1":{"key":"value"},"p2":{"key":{"value":42}},"p3":[1,2,3]}',
        ],
        ["JSON_ARRAY(JSON('{}'))", '[{}]'],
        ['JSON_ARRAY(JSON(f0))', '[{"key":"value"}]'],
        ['JSON_ARRAY(JSON(f1))', '[{"key":{"value":42}}]'],
        ["JSON_ARRAY(JSON('[1,2,3]'))", '[[1,2,3]]'],
        ["JSON_ARRAY(JSON(f0), JSON('[1,2,3]'))", '[{"key":"value"},[1,2,3]]'],
        ["JSON_ARRAY(JSON(''))", '[]'],
        ["JSON_ARRAY(JSON('') NULL ON NULL)", '[null]'],
        ["JSON_ARRAY(JSON(''), JSON(f0) NULL ON NULL)", '[null,{"key":"value"}]'],
        ["JSON_ARRAY(JSON('    ') NULL ON NULL)", '[null]'],
        ['JSON_ARRAY(JSON(CAST(NULL AS STRING)) NULL ON NULL)', '[null]'],
        ['JSON_ARRAY(JSON(CAST(NULL AS STRING)) ABSENT ON NULL)', '[]'],
        ['JSON_ARRAY(JSON_ARRAY(JSON(f1)))', '[[{"key":{"value":42}}]]'],
        [
          'JSON_ARRAY(JSON_ARRAY(JSON(CAST(NULL AS STRING)) NULL ON NULL) NULL ON NULL)',
          '[[null]]',
        ],
      ],
    });
    const tEnv = planner(setup);
    const onlyInside = /JSON\(\) .*only supported inside JSON_ARRAY\(\)/;
    expect(() => tEnv.sqlQuery('SELECT JSON() FROM J')).toThrow(/JSON/);
    expect(() => tEnv.sqlQuery('SELECT JSON(f0) FROM J')).toThrow(onlyInside);
    expect(() =>
      tEnv.sqlQuery("SELECT JSON_OBJECT(KEY JSON('{}') VALUE 'value' ABSENT ON NULL) FROM J"),
    ).toThrow(onlyInside);
    for (const sql of [
      "SELECT JSON_OBJECT(KEY 'K' VALUE JSON('{')) FROM J",
      "SELECT JSON_ARRAY(JSON('{')) FROM J",
    ])
      await expect(failure(setup, sql), sql).rejects.toThrow(
        /Invalid JSON string in JSON\(value\)/,
      );
  });

  it('shared JSON sub-expressions in one projection (jsonLocalRefReuseSpec)', async () => {
    const setup = [
      strings('A', ['[1,2,3]']),
      valuesView(
        'B',
        [
          ['f0', 'INT'],
          ['f1', 'INT'],
          ['f2', 'INT'],
        ],
        [[1, 2, 3]],
      ),
      strings('C', ['V']),
    ].join('\n');
    await check(setup, {
      A: [
        [
          "JSON_OBJECT(KEY 'k1' VALUE JSON(f0)), JSON_OBJECT(KEY 'k2' VALUE JSON(f0))",
          '{"k1":[1,2,3]},{"k2":[1,2,3]}',
        ],
        ['JSON_ARRAY(JSON(f0)), JSON_ARRAY(JSON(f0))', '[[1,2,3]],[[1,2,3]]'],
      ],
      B: [
        [
          "JSON_OBJECT(KEY 'a' VALUE JSON_ARRAY(f0, f1, f2)), JSON_OBJECT(KEY 'b' VALUE JSON_ARRAY(f0, f1, f2))",
          '{"a":[1,2,3]},{"b":[1,2,3]}',
        ],
      ],
      C: [
        [
          "JSON_OBJECT(KEY 'outer1' VALUE JSON_OBJECT(KEY 'inner' VALUE f0)), JSON_OBJECT(KEY 'outer2' VALUE JSON_OBJECT(KEY 'inner' VALUE f0))",
          '{"outer1":{"inner":"V"}},{"outer2":{"inner":"V"}}',
        ],
        [
          "JSON_ARRAY(JSON_OBJECT(KEY 'k' VALUE f0)), JSON_ARRAY(JSON_OBJECT(KEY 'k' VALUE f0))",
          '[{"k":"V"}],[{"k":"V"}]',
        ],
        [
          "JSON_STRING(JSON_OBJECT(KEY 'k' VALUE f0)), JSON_STRING(JSON_OBJECT(KEY 'k' VALUE f0))",
          '{"k":"V"},{"k":"V"}',
        ],
      ],
    });
  });

  it('JSON_QUOTE and JSON_UNQUOTE (jsonQuoteSpec, jsonUnquoteSpecWithValidInput/InvalidInput)', async () => {
    const quote = [
      'V',
      '"null"',
      '[1, 2, 3]',
      'This is a \t test \n with special characters: " \\ \b \f \r A',
      '"kv_pair_test": "\\b\\f\\r"',
      '\ttab and fwd slash /',
      '\\u006z will not be escaped',
      '\u2260 will be escaped',
      null,
    ];
    const valid = [
      '"abc"',
      '"["abc"]"',
      '"["\\u0041"]"',
      '"\\u0041"',
      '"["\\t\\u0032"]"',
      '"["This is a \\t test \\n with special characters: \\b \\f \\r \\u0041"]"',
      '"""',
      '""\ufffa"',
      '"a unicode \u2260"',
      '"valid unicode literal \\uD801\\uDC00"',
      '[1,2,3]',
      '[]',
      '["string",2]',
      '{"key":"value"}',
      '{"key":["complex"]}',
      '{"key":1}',
      '1',
      'true',
      null,
    ];
    const invalid = [
      '"invalid json string pass through \\u006z"',
      '"invalid unicode literal and invalid json through \\u23"',
      '"invalid unicode literal and invalid json pass through \\u\u2260FFF"',
      '"invalid unicode literal but valid json pass through ""\\uzzzz"',
      '"[1,2,3]',
      '"[1, 2, 3}',
      '"',
      '[',
      '[}',
      '',
      null,
    ];
    const setup = [strings('Q', quote), strings('U', valid), strings('X', invalid)].join('\n');
    const unquoted = [
      'abc',
      '["abc"]',
      '["A"]',
      'A',
      '["\t2"]',
      '["This is a \t test \n with special characters: \b \f \r A"]',
      '"',
      '"\ufffa',
      'a unicode \u2260',
      'valid unicode literal \uD801\uDC00',
      ...valid.slice(10),
    ];
    await check(setup, {
      Q: [
        ['JSON_QUOTE(CAST(NULL AS STRING))', null],
        ...(
          [
            '"V"',
            '"\\"null\\""',
            '"[1, 2, 3]"',
            '"This is a \\t test \\n with special characters: \\" \\\\ \\b \\f \\r A"',
            '"\\"kv_pair_test\\": \\"\\\\b\\\\f\\\\r\\""',
            '"\\ttab and fwd slash \\/"',
            '"\\\\u006z will not be escaped"',
            '"\\u2260 will be escaped"',
            null,
          ] as const
        ).map((e, i): Case => [`JSON_QUOTE(f${i})`, e]),
      ],
      U: [
        ['JSON_UNQUOTE(CAST(NULL AS STRING))', null],
        ...unquoted.map((e, i): Case => [`JSON_UNQUOTE(f${i})`, e]),
      ],
      X: invalid.map((e, i): Case => [`JSON_UNQUOTE(f${i})`, e]),
    });
  });

  it('JSON_TYPE (jsonTypeSpec)', async () => {
    const setup = [
      strings('A', ['{"a": true}', '[1, 2]', 'true', '"Hello, World!"', '66']),
      strings('B', ['11.1', '99999999999999999999', '"2015-01-01"', '"66"']),
      strings('C', ['68s', 'null']),
      strings('D', ['{"a": [1, 2]}', '{"a": [1]}']),
      strings('E', ['{"a": 1}', '{"lax": {"strict": 2}, "strict value": 1}']),
      valuesView(
        'F',
        [
          ['f0', 'INT'],
          ['f1', 'STRING'],
        ],
        [[1, '{}']],
      ),
    ].join('\n');
    await check(setup, {
      A: ['object', 'array', 'boolean', 'string', 'number'].map(
        (e, i): Case => [`JSON_TYPE(f${i})`, e],
      ),
      B: ['number', 'number', 'string', 'string'].map((e, i): Case => [`JSON_TYPE(f${i})`, e]),
      C: [
        ['JSON_TYPE(CAST(NULL AS STRING))', null],
        ['JSON_TYPE(f0)', null],
        ['JSON_TYPE(f1)', 'null'],
        ["JSON_TYPE(f1, '$')", 'null'],
        ["JSON_TYPE(f1, '$.a')", null],
      ],
      D: [
        ["JSON_TYPE(f0, '$.a')", 'array'],
        ["JSON_TYPE(f0, '$.a[0]')", 'number'],
        ["JSON_TYPE(f0, '$.b')", null],
        ["JSON_TYPE(f0, '$.[')", null],
        ["JSON_TYPE(f0, '')", null],
        ["JSON_TYPE(f0, '$.a[*]')", null],
        ["JSON_TYPE(f1, '$.a[*]')", 'number'],
      ],
      E: [
        ["JSON_TYPE(f1, 'lax')", 'object'],
        [`JSON_TYPE(f1, '$["strict value"]')`, 'number'],
      ],
    });
    const tEnv = planner(setup);
    expect(() => tEnv.sqlQuery("SELECT JSON_TYPE(f0, 'lax $.a') FROM E")).toThrow(
      "JSON_TYPE does not support the 'lax'/'strict' path mode prefix (got: 'lax $.a')",
    );
    expect(() => tEnv.sqlQuery('SELECT JSON_TYPE(f0) FROM F')).toThrow(/JSON_TYPE/);
    expect(() => tEnv.sqlQuery('SELECT JSON_TYPE(f1, f1) FROM F')).toThrow(/JSON_TYPE/);
    expect(() => tEnv.sqlQuery('SELECT JSON_TYPE() FROM F')).toThrow(/JSON_TYPE/);
  });

  it('JSON_LENGTH (jsonLengthSpec)', async () => {
    const setup = strings('L', [
      EXISTS_DOC,
      '{"a":1,"b":2}',
      '[1,2,3]',
      '"abc"',
      'null',
      '{',
      null,
      '$',
      '{"a":[true, false, null]}',
      '{}',
      '[]',
      '{"lax": {"strict": 2}, "strict value": 1}',
    ]);
    await check(setup, {
      L: [
        ["JSON_LENGTH(f8, '$.a[2]')", '1'],
        ["JSON_LENGTH(f8, '$.a[9]')", null],
        ["JSON_LENGTH(f8, '$.b')", null],
        ["JSON_LENGTH(f4, '$')", '1'],
        ["JSON_LENGTH(f4, '$.a')", null],
        ["JSON_LENGTH(f4, '$[0]')", null],
        ["JSON_LENGTH(f4, '$.*')", null],
        ["JSON_LENGTH(f8, '$[')", null],
        ["JSON_LENGTH(f8, '$.[]')", null],
        ["JSON_LENGTH(f8, '   ')", null],
        ["JSON_LENGTH(f8, '')", null],
        ["JSON_LENGTH(f3, '$')", '1'],
        ['JSON_LENGTH(f6)', null],
        ['JSON_LENGTH(f0)', '3'],
        ['JSON_LENGTH(f1)', '2'],
        ['JSON_LENGTH(f2)', '3'],
        ['JSON_LENGTH(f3)', '1'],
        ['JSON_LENGTH(f9)', '0'],
        ['JSON_LENGTH(f10)', '0'],
        ["JSON_LENGTH(f9, '$')", '0'],
        ["JSON_LENGTH(f10, '$')", '0'],
        ['JSON_LENGTH(f4)', '1'],
        ["JSON_LENGTH(f0, '$')", '3'],
        ["JSON_LENGTH(f0, '$.type')", '1'],
        ["JSON_LENGTH(f0, '$.author')", '2'],
        ["JSON_LENGTH(f0, '$.author.address')", '2'],
        ["JSON_LENGTH(f0, '$.metadata.tags')", '3'],
        ["JSON_LENGTH(f0, '$.metadata.references')", '1'],
        ["JSON_LENGTH(f0, '$.metadata.references[0]')", '2'],
        ["JSON_LENGTH(f0, '$.metadata.references[0].url')", '1'],
        ["JSON_LENGTH(f0, '$.missing')", null],
        ['JSON_LENGTH(f7)', null],
        ['JSON_LENGTH(f5)', null],
        [`JSON_LENGTH('{"a":[1,2,3]}', '$.b')`, null],
        [`JSON_LENGTH('{"a":[1,2,3]}', '$.a')`, '3'],
        ["JSON_LENGTH(f0, '$.author.nope')", null],
        ["JSON_LENGTH(f0, '$.*')", null],
        ["JSON_LENGTH(f0, '$.author.*')", null],
        ["JSON_LENGTH(f0, '$.author.address.*')", null],
        ["JSON_LENGTH(f0, '$.metadata.tags[*]')", null],
        ["JSON_LENGTH(f0, '$..name')", null],
        ["JSON_LENGTH(f0, '$..url')", '1'],
        ["JSON_LENGTH(f0, '$..address')", '2'],
        ["JSON_LENGTH(f0, '$.metadata.references[*]')", '2'],
        ["JSON_LENGTH(f0, '$.metadata.references[*].name')", '1'],
        ["JSON_LENGTH(f0, '$.items[*]')", null],
        ["JSON_LENGTH(f11, 'lax')", '1'],
        [`JSON_LENGTH(f11, '$["strict value"]')`, '1'],
      ],
    });
    const tEnv = planner(setup);
    for (const path of ['strict $.type', 'lax $.type'])
      expect(() => tEnv.sqlQuery(`SELECT JSON_LENGTH(f0, '${path}') FROM L`)).toThrow(
        `JSON_LENGTH does not support the 'lax'/'strict' path mode prefix (got: '${path}')`,
      );
  });

  it("the result types (each case's expected type)", () => {
    // `n` is STRING NOT NULL, `f` a nullable STRING (as Flink's STRING() and STRING().notNull()).
    const tEnv = planner(
      "CREATE TEMPORARY VIEW T AS SELECT CAST('{}' AS STRING NOT NULL) AS n, CAST(f0 AS STRING) AS f FROM (VALUES (CAST(NULL AS STRING))) AS v(f0);",
    );
    const types: readonly Case[] = [
      ['JSON_LENGTH(f)', 'INT'],
      [`JSON_LENGTH('{"a":[1,2,3]}', '$.b')`, 'INT'],
      ['JSON_TYPE(n)', 'STRING'],
      ["JSON_EXISTS(f, 'lax $')", 'BOOLEAN'],
      ["JSON_VALUE(f, '$.age' RETURNING INT)", 'INT'],
      ["JSON_VALUE(f, '$.balance' RETURNING DECIMAL(10, 2))", 'DECIMAL(10, 2)'],
      ["JSON_QUERY(f, '$')", 'STRING'],
      ["JSON_QUERY(f, '$.b' RETURNING ARRAY<INT>)", 'ARRAY<INT>'],
      ["JSON_QUERY(f, '$.ints' RETURNING ARRAY<INT NOT NULL>)", 'ARRAY<INT NOT NULL>'],
      ['JSON_STRING(n)', 'STRING NOT NULL'],
      ['JSON_STRING(CAST(NULL AS STRING))', 'STRING'],
      ["JSON_STRING(JSON_OBJECT(KEY 'k' VALUE f))", 'STRING NOT NULL'],
      ['JSON_OBJECT()', 'STRING NOT NULL'],
      ["JSON_OBJECT(KEY 'K' VALUE JSON(f))", 'STRING NOT NULL'],
      ['JSON_ARRAY()', 'STRING NOT NULL'],
      ['JSON_ARRAY(JSON(f))', 'STRING NOT NULL'],
      ['JSON_QUOTE(n)', 'STRING NOT NULL'],
      ['JSON_QUOTE(f)', 'STRING'],
      ['JSON_UNQUOTE(n)', 'STRING NOT NULL'],
      ['JSON_UNQUOTE(f)', 'STRING'],
      ['n IS JSON', 'BOOLEAN NOT NULL'],
    ];
    const actual = tEnv
      .sqlQuery(`SELECT ${types.map(([sql]) => sql).join(', ')} FROM T`)
      .columns.map((c) => c.type);
    expect(Object.fromEntries(types.map(([sql], i) => [sql, actual[i]]))).toEqual(
      Object.fromEntries(types),
    );
  });
});
