/**
 * GROUP BY GROUPING SETS, ROLLUP and CUBE with GROUPING() and GROUPING_ID(), unwindowed and in
 * window TVF aggregations. Scenarios ported from Flink's GroupingSetsITCase and
 * WindowAggregateITCase (their data, queries and expected rows), an oracle against the union of
 * plain GROUP BYs, and the plan and changelog of the Expand step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import {
  runScenario,
  scenarioRows,
  sorted,
  TUPLE_DATA_3,
  valuesView,
} from './flink-scenario-runner.js';
import { WINDOW_DATA as WINDOW_DATA_WITH_LATE } from './flink-window-data.js';

const EMP = valuesView(
  'emp',
  [
    ['ename', 'STRING'],
    ['deptno', 'INT'],
    ['gender', 'STRING'],
  ],
  [
    ['Adam', 50, 'M'],
    ['Alice', 30, 'F'],
    ['Bob', 10, 'M'],
    ['Eric', 20, 'M'],
    ['Eve', 50, 'F'],
    ['Grace', 60, 'F'],
    ['Jane', 10, 'F'],
    ['Susan', 30, 'F'],
    ['Wilma', null, 'F'],
  ],
);

const EMPS = valuesView(
  'emps',
  [
    ['empno', 'BIGINT'],
    ['name', 'STRING'],
    ['deptno', 'INT'],
    ['gender', 'STRING'],
    ['city', 'STRING'],
    ['age', 'INT'],
    ['manager', 'BOOLEAN'],
  ],
  [
    [100, 'Fred', 10, null, null, 25, false],
    [110, 'Eric', 20, 'M', 'San Francisco', 80, false],
    [110, 'John', 40, 'M', 'Vancouver', null, true],
    [120, 'Wilma', 20, 'F', null, 5, true],
    [130, 'Alice', 40, 'F', 'Vancouver', null, true],
  ],
);

const SCOTT_EMP = valuesView(
  'scott_emp',
  [
    ['empno', 'INT'],
    ['ename', 'STRING'],
    ['job', 'STRING'],
    ['sal', 'DOUBLE'],
    ['deptno', 'INT'],
  ],
  [
    [7369, 'SMITH', 'CLERK', 800.0, 20],
    [7499, 'ALLEN', 'SALESMAN', 1600.0, 30],
    [7521, 'WARD', 'SALESMAN', 1250.0, 30],
    [7566, 'JONES', 'MANAGER', 2975.0, 20],
    [7654, 'MARTIN', 'SALESMAN', 1250.0, 30],
    [7698, 'BLAKE', 'MANAGER', 2850.0, 30],
    [7782, 'CLARK', 'MANAGER', 2450.0, 10],
    [7788, 'SCOTT', 'ANALYST', 3000.0, 20],
    [7839, 'KING', 'PRESIDENT', 5000.0, 10],
    [7844, 'TURNER', 'SALESMAN', 1500.0, 30],
    [7876, 'ADAMS', 'CLERK', 1100.0, 20],
    [7900, 'JAMES', 'CLERK', 950.0, 30],
    [7902, 'FORD', 'ANALYST', 3000.0, 20],
    [7934, 'MILLER', 'CLERK', 1300.0, 10],
  ],
);

const TUPLES = [
  ['f0', 'INT'],
  ['f1', 'BIGINT'],
  ['f2', 'STRING'],
] as const;
const MY_TABLE = valuesView('MyTable', TUPLES, TUPLE_DATA_3);
const MY_TABLE_WITH_NULLS = valuesView(
  'MyTableWithNulls',
  TUPLES,
  TUPLE_DATA_3.map(([a, b, c]) => [a, b, c.includes('world') ? null : c]),
);

const SETUP = [EMP, EMPS, SCOTT_EMP, MY_TABLE, MY_TABLE_WITH_NULLS].join('\n');

/** Flink's expected rows, as its sinks print them. */
const rows = (...r: readonly (readonly unknown[])[]): string[] =>
  sorted(r.map((cells) => cells.map((c) => (c === null ? 'null' : String(c))).join(',')));

describe('GROUPING SETS, ROLLUP and CUBE (Flink GroupingSetsITCase)', () => {
  const cases: [string, string, string[]][] = [
    [
      'one grouping set',
      'select deptno, avg(age) as a, grouping(deptno) as gb, grouping_id(deptno) as gib from emps group by grouping sets (deptno)',
      rows([10, 25, 0, 0], [20, 42, 0, 0], [40, null, 0, 0]),
    ],
    [
      'basic grouping sets',
      'select deptno, count(*) as c from emps group by grouping sets ((), (deptno))',
      rows([10, 1], [20, 2], [40, 2], [null, 5]),
    ],
    [
      'grouping sets on an expression',
      'select deptno + 1, count(*) as c from emps group by grouping sets ((), (deptno + 1))',
      rows([11, 1], [21, 2], [41, 2], [null, 5]),
    ],
    [
      'a BOOLEAN column',
      'select gender, city, manager, count(*) as cnt from emps group by grouping sets ((city), (gender, city, manager))',
      rows(
        ['F', 'Vancouver', true, 1],
        ['F', null, true, 1],
        ['M', 'San Francisco', false, 1],
        ['M', 'Vancouver', true, 1],
        [null, 'San Francisco', null, 1],
        [null, 'Vancouver', null, 2],
        [null, null, false, 1],
        [null, null, null, 2],
      ),
    ],
    [
      'COALESCE of a key',
      'select gender, city, coalesce(deptno, -1) as deptno, count(*) as cnt from emps group by grouping sets ((gender, city), (gender, city, deptno))',
      rows(
        ['F', 'Vancouver', -1, 1],
        ['F', 'Vancouver', 40, 1],
        ['F', null, -1, 1],
        ['F', null, 20, 1],
        ['M', 'San Francisco', -1, 1],
        ['M', 'San Francisco', 20, 1],
        ['M', 'Vancouver', -1, 1],
        ['M', 'Vancouver', 40, 1],
        [null, null, -1, 1],
        [null, null, 10, 1],
      ),
    ],
    [
      'CUBE',
      'select deptno + 1, count(*) as c from emp group by cube(deptno, gender)',
      rows(
        [11, 1],
        [11, 1],
        [11, 2],
        [21, 1],
        [21, 1],
        [31, 2],
        [31, 2],
        [51, 1],
        [51, 1],
        [51, 2],
        [61, 1],
        [61, 1],
        [null, 1],
        [null, 1],
        [null, 3],
        [null, 6],
        [null, 9],
      ),
    ],
    [
      'ROLLUP of one column',
      'select deptno + 1, count(*) as c from emp group by rollup(deptno)',
      rows([11, 2], [21, 1], [31, 2], [51, 2], [61, 1], [null, 1], [null, 9]),
    ],
    [
      'ROLLUP of two columns',
      'select gender, deptno + 1, count(*) as c from emp group by rollup(deptno, gender)',
      rows(
        ['M', 21, 1],
        ['F', 11, 1],
        ['F', 31, 2],
        ['F', 51, 1],
        ['F', 61, 1],
        ['F', null, 1],
        ['M', 11, 1],
        ['M', 51, 1],
        [null, 11, 2],
        [null, 21, 1],
        [null, 31, 2],
        [null, 51, 2],
        [null, 61, 1],
        [null, null, 1],
        [null, null, 9],
      ),
    ],
    [
      'ROLLUP of a column with NULLs',
      'select gender, count(*) as c from emp group by rollup(gender)',
      rows(['F', 6], ['M', 3], [null, 9]),
    ],
    [
      'the cartesian product of two ROLLUPs',
      'select deptno, count(*) as c from emp group by rollup(deptno), rollup(gender)',
      rows(
        [10, 1],
        [10, 1],
        [20, 1],
        [20, 1],
        [null, 1],
        [10, 2],
        [30, 2],
        [30, 2],
        [50, 1],
        [50, 1],
        [50, 2],
        [60, 1],
        [60, 1],
        [null, 1],
        [null, 3],
        [null, 6],
        [null, 9],
      ),
    ],
    [
      'ROLLUP with HAVING',
      'select deptno + 1 as d1, count(*) as c from emp group by rollup(deptno) having count(*) > 3',
      rows([null, 9]),
    ],
    [
      'GROUPING in a plain GROUP BY',
      'select count(*) as c, grouping(deptno) as g from emp group by deptno',
      rows([1, 0], [1, 0], [1, 0], [2, 0], [2, 0], [2, 0]),
    ],
    [
      'GROUPING in a CUBE',
      'select deptno, job, count(*) as c, grouping(deptno) as d, grouping(job) j, grouping(deptno, job) as x from scott_emp group by cube(deptno, job)',
      rows(
        [10, 'CLERK', 1, 0, 0, 0],
        [10, 'MANAGER', 1, 0, 0, 0],
        [10, 'PRESIDENT', 1, 0, 0, 0],
        [10, null, 3, 0, 1, 1],
        [20, 'ANALYST', 2, 0, 0, 0],
        [20, 'CLERK', 2, 0, 0, 0],
        [20, 'MANAGER', 1, 0, 0, 0],
        [20, null, 5, 0, 1, 1],
        [30, 'CLERK', 1, 0, 0, 0],
        [30, 'MANAGER', 1, 0, 0, 0],
        [30, 'SALESMAN', 4, 0, 0, 0],
        [30, null, 6, 0, 1, 1],
        [null, 'ANALYST', 2, 1, 0, 2],
        [null, 'CLERK', 4, 1, 0, 2],
        [null, 'MANAGER', 3, 1, 0, 2],
        [null, 'PRESIDENT', 1, 1, 0, 2],
        [null, 'SALESMAN', 4, 1, 0, 2],
        [null, null, 14, 1, 1, 3],
      ),
    ],
    [
      'GROUPING with several arguments is GROUPING_ID, also in HAVING',
      'select count(*) as c, grouping(deptno) as gd, grouping_id(deptno) as gid, grouping(deptno, gender, deptno) as gdgd, grouping_id(deptno, gender, deptno) as gidgd from emp group by rollup(deptno, gender) having grouping(deptno) <= grouping_id(deptno, gender, deptno)',
      rows(
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [1, 0, 0, 2, 2],
        [1, 0, 0, 2, 2],
        [1, 0, 0, 2, 2],
        [2, 0, 0, 2, 2],
        [2, 0, 0, 2, 2],
        [2, 0, 0, 2, 2],
        [9, 1, 1, 7, 7],
      ),
    ],
    [
      'a repeated argument of GROUPING_ID, with WHERE',
      'select deptno, gender, grouping_id(deptno, gender, deptno), count(*) as c from emp where deptno = 10 group by rollup(gender, deptno)',
      rows(
        [10, 'F', 0, 1],
        [10, 'M', 0, 1],
        [null, 'F', 5, 1],
        [null, 'M', 5, 1],
        [null, null, 7, 2],
      ),
    ],
    [
      'GROUPING in a ROLLUP',
      'select count(*) as c, deptno, grouping(deptno) as g from emp group by rollup(deptno)',
      rows([1, 20, 0], [1, 60, 0], [1, null, 0], [2, 10, 0], [2, 30, 0], [2, 50, 0], [9, null, 1]),
    ],
    [
      'GROUPING and GROUPING_ID in a CUBE',
      'select deptno, gender, grouping(deptno) gd, grouping(gender) gg, grouping_id(deptno, gender) dg, grouping_id(gender, deptno) gd, count(*) c from emp group by cube(deptno, gender)',
      rows(
        [10, 'F', 0, 0, 0, 0, 1],
        [10, 'M', 0, 0, 0, 0, 1],
        [20, 'M', 0, 0, 0, 0, 1],
        [30, 'F', 0, 0, 0, 0, 2],
        [50, 'F', 0, 0, 0, 0, 1],
        [50, 'M', 0, 0, 0, 0, 1],
        [60, 'F', 0, 0, 0, 0, 1],
        [null, 'F', 0, 0, 0, 0, 1],
        [null, null, 1, 1, 3, 3, 9],
        [10, null, 0, 1, 1, 2, 2],
        [20, null, 0, 1, 1, 2, 1],
        [30, null, 0, 1, 1, 2, 2],
        [50, null, 0, 1, 1, 2, 2],
        [60, null, 0, 1, 1, 2, 1],
        [null, 'F', 1, 0, 2, 1, 6],
        [null, 'M', 1, 0, 2, 1, 3],
        [null, null, 0, 1, 1, 2, 1],
      ),
    ],
    [
      'an expression in ROLLUP',
      'select deptno + 1 as d1, deptno + 1 - 1 as d0, count(*) as c from emp group by rollup (deptno + 1)',
      rows(
        [11, 10, 2],
        [21, 20, 1],
        [31, 30, 2],
        [51, 50, 2],
        [61, 60, 1],
        [null, null, 1],
        [null, null, 9],
      ),
    ],
    [
      'a function call in CUBE',
      'select mod(deptno, 20) as d, count(*) as c, gender as g from emp group by cube(mod(deptno, 20), gender)',
      rows(
        [0, 1, 'F'],
        [0, 1, 'M'],
        [0, 2, null],
        [10, 2, 'M'],
        [10, 4, 'F'],
        [10, 6, null],
        [null, 1, 'F'],
        [null, 1, null],
        [null, 3, 'M'],
        [null, 6, 'F'],
        [null, 9, null],
      ),
    ],
    [
      'a function call in ROLLUP',
      'select mod(deptno, 20) as d, count(*) as c, gender as g from emp group by rollup(mod(deptno, 20), gender)',
      rows(
        [0, 1, 'F'],
        [0, 1, 'M'],
        [0, 2, null],
        [10, 2, 'M'],
        [10, 4, 'F'],
        [10, 6, null],
        [null, 1, 'F'],
        [null, 1, null],
        [null, 9, null],
      ),
    ],
    ['CUBE of a constant', 'select count(*) as c from emp group by cube(1)', rows([9], [9])],
    [
      'ROLLUP with a composite column and CASE over GROUPING_ID',
      "select deptno, job, empno, ename, sum(sal) sumsal, case grouping_id(deptno, job, empno) when 0 then cast('grouped by deptno,job,empno,ename' as varchar) when 1 then cast('grouped by deptno,job' as varchar) when 3 then cast('grouped by deptno' as varchar) when 7 then cast('grouped by ()' as varchar) end gr_text from scott_emp group by rollup(deptno, job, (empno,ename))",
      rows(
        [10, 'CLERK', 7934, 'MILLER', '1300.0', 'grouped by deptno,job,empno,ename'],
        [10, 'CLERK', null, null, '1300.0', 'grouped by deptno,job'],
        [10, 'MANAGER', 7782, 'CLARK', '2450.0', 'grouped by deptno,job,empno,ename'],
        [10, 'MANAGER', null, null, '2450.0', 'grouped by deptno,job'],
        [10, 'PRESIDENT', 7839, 'KING', '5000.0', 'grouped by deptno,job,empno,ename'],
        [10, 'PRESIDENT', null, null, '5000.0', 'grouped by deptno,job'],
        [10, null, null, null, '8750.0', 'grouped by deptno'],
        [20, 'ANALYST', 7788, 'SCOTT', '3000.0', 'grouped by deptno,job,empno,ename'],
        [20, 'ANALYST', 7902, 'FORD', '3000.0', 'grouped by deptno,job,empno,ename'],
        [20, 'ANALYST', null, null, '6000.0', 'grouped by deptno,job'],
        [20, 'CLERK', 7369, 'SMITH', '800.0', 'grouped by deptno,job,empno,ename'],
        [20, 'CLERK', 7876, 'ADAMS', '1100.0', 'grouped by deptno,job,empno,ename'],
        [20, 'CLERK', null, null, '1900.0', 'grouped by deptno,job'],
        [20, 'MANAGER', 7566, 'JONES', '2975.0', 'grouped by deptno,job,empno,ename'],
        [20, 'MANAGER', null, null, '2975.0', 'grouped by deptno,job'],
        [20, null, null, null, '10875.0', 'grouped by deptno'],
        [30, 'CLERK', 7900, 'JAMES', '950.0', 'grouped by deptno,job,empno,ename'],
        [30, 'CLERK', null, null, '950.0', 'grouped by deptno,job'],
        [30, 'MANAGER', 7698, 'BLAKE', '2850.0', 'grouped by deptno,job,empno,ename'],
        [30, 'MANAGER', null, null, '2850.0', 'grouped by deptno,job'],
        [30, 'SALESMAN', 7499, 'ALLEN', '1600.0', 'grouped by deptno,job,empno,ename'],
        [30, 'SALESMAN', 7521, 'WARD', '1250.0', 'grouped by deptno,job,empno,ename'],
        [30, 'SALESMAN', 7654, 'MARTIN', '1250.0', 'grouped by deptno,job,empno,ename'],
        [30, 'SALESMAN', 7844, 'TURNER', '1500.0', 'grouped by deptno,job,empno,ename'],
        [30, 'SALESMAN', null, null, '5600.0', 'grouped by deptno,job'],
        [30, null, null, null, '9400.0', 'grouped by deptno'],
        [null, null, null, null, '29025.0', 'grouped by ()'],
      ),
    ],
    [
      'GROUPING SETS of plain columns and ()',
      'SELECT f1, f2, avg(f0) as a, GROUPING(f1) as gf1, GROUPING(f2) as gf2, GROUPING_ID(f1) as gif1, GROUPING_ID(f2) as gif2, GROUPING_ID(f1, f2) as gid, COUNT(*) as cnt FROM MyTable GROUP BY GROUPING SETS (f1, f2, ())',
      rows(
        ...[1, 2, 3, 4, 5, 6].map((b) => {
          const as = TUPLE_DATA_3.filter((t) => t[1] === b).map((t) => t[0]);
          const avg = Math.trunc(as.reduce((x, y) => x + y, 0) / as.length);
          return [b, null, avg, 0, 1, 0, 1, 1, as.length];
        }),
        ...TUPLE_DATA_3.map(([a, , c]) => [null, c, a, 1, 0, 1, 0, 2, 1]),
        [null, null, 11, 1, 1, 1, 1, 3, 21],
      ),
    ],
    [
      'GROUPING SETS over NULL keys',
      'SELECT f1, f2, avg(f0) as a FROM MyTableWithNulls GROUP BY GROUPING SETS (f1, f2)',
      rows(
        [6, null, 18],
        [5, null, 13],
        [4, null, 8],
        [3, null, 5],
        [2, null, 2],
        [1, null, 1],
        ...TUPLE_DATA_3.filter(([, , c]) => !c.includes('world')).map(([a, , c]) => [null, c, a]),
        [null, null, 3],
      ),
    ],
  ];

  it.each(cases)('%s', async (_, query, expected) => {
    expect(await scenarioRows(SETUP, query)).toEqual(expected);
  });

  it('CUBE and ROLLUP equal their GROUPING SETS', async () => {
    const select =
      'SELECT f1, f2, avg(f0) as a, GROUPING(f1) as gf1, GROUPING(f2) as gf2, GROUPING_ID(f1) as gif1, GROUPING_ID(f2) as gif2, GROUPING_ID(f1, f2) as gid FROM MyTable GROUP BY ';
    const [cube, cubeSets, rollup, rollupSets] = await runScenario(SETUP, [
      `${select} CUBE (f1, f2)`,
      `${select} GROUPING SETS ((f1, f2), (f1), (f2), ())`,
      `${select} ROLLUP (f1, f2)`,
      `${select} GROUPING SETS ((f1, f2), (f1), ())`,
    ]);
    expect(cube?.rows).toEqual(cubeSets?.rows);
    expect(rollup?.rows).toEqual(rollupSets?.rows);
    expect(cube?.rows).toHaveLength(6 + 21 + 21 + 1);
  });

  it('a key column keeps its name: a query over the result reads it so', async () => {
    // The rolled-up row (f1 NULL) counts every row of MyTable.
    const [all, rolledUp] = await runScenario(SETUP, [
      'SELECT COUNT(*) FROM MyTable',
      'SELECT f1, n FROM (SELECT f1, COUNT(*) AS n FROM MyTable GROUP BY ROLLUP (f1)) WHERE f1 IS NULL',
    ]);
    expect(rolledUp?.rows).toEqual([`null,${all?.rows[0]}`]);
  });

  it('SELECT DISTINCT over a CUBE, as a subquery', async () => {
    expect(
      await scenarioRows(
        SETUP,
        'select distinct c from (select count(*) as c from emp group by cube(deptno, gender))',
      ),
    ).toEqual(rows([1], [2], [3], [6], [9]));
  });
});

/**
 * Flink's TestData.windowDataWithTimestamp. Its late row (00:00:04 after 00:00:08), which
 * Flink's watermark drops, is left out: this in-memory source need not have emitted that
 * watermark yet (the window scenarios read one row at a time to keep it).
 */
const WINDOW_DATA = WINDOW_DATA_WITH_LATE.filter((_, i) => i !== 7);

describe('grouping sets in window TVF aggregations (Flink WindowAggregateITCase)', () => {
  const tables = (env: StreamEnvironment, tEnv: TableEnvironment): void => {
    tEnv.fromDataStream(
      'T1',
      env.fromArray(
        WINDOW_DATA.map(([ts, i, d, f, bigdec, s, name]) => ({
          rowtime: Date.parse(`${ts.replace(' ', 'T')}Z`),
          int: i,
          double: d,
          float: f,
          bigdec: bigdec === null ? null : Number(bigdec),
          string: s,
          name,
        })),
      ),
      {
        columns: [
          { name: 'rowtime', type: 'TIMESTAMP(3)' },
          { name: 'int', type: 'INT' },
          { name: 'double', type: 'DOUBLE' },
          { name: 'float', type: 'FLOAT' },
          { name: 'bigdec', type: 'DOUBLE' },
          { name: 'string', type: 'STRING' },
          { name: 'name', type: 'STRING' },
        ],
        watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '1' SECOND" },
      },
    );
  };
  // Flink's expected rows, its last column (a user-defined aggregate) left out; SUM(bigdec) is
  // read as DECIMAL(10, 2) text.
  const expected = [
    '0,a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    '0,a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1',
    '0,b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    '1,null,2020-10-10T00:00:05,2020-10-10T00:00:10,3,9.99,6.0,3.0,3',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1',
  ];
  const query = (groupBy: string): string => `
    SELECT GROUPING_ID(\`name\`), \`name\`, window_start, window_end, COUNT(*),
      CAST(SUM(bigdec) AS DECIMAL(10, 2)), MAX(\`double\`), MIN(\`float\`), COUNT(DISTINCT \`string\`)
    FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
    GROUP BY ${groupBy}`;

  it.each([
    ['GROUPING SETS', 'GROUPING SETS((`name`),()), window_start, window_end'],
    ['CUBE', 'CUBE(`name`), window_start, window_end'],
    ['ROLLUP', 'ROLLUP(`name`), window_start, window_end'],
  ])('TUMBLE with %s', async (_, groupBy) => {
    const [result] = await runScenario('', [query(groupBy)], { parallelism: 1, tables });
    const text = (result?.rows ?? []).map((r) =>
      r.replaceAll(' ', 'T').replaceAll(':00.000', ':00').replaceAll('.000', ''),
    );
    expect(sorted(text)).toEqual(sorted(expected));
    // A window aggregation: insert-only, each row once.
    expect(result?.changes.every((c) => c.startsWith('+I'))).toBe(true);
  });

  it('refuses a grouping set without the window columns', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tables(env, tEnv);
    expect(() =>
      tEnv.sqlQuery(query('GROUPING SETS((`name`, window_start, window_end), ())')),
    ).toThrow(/window_start and window_end must be in every grouping set/);
  });
});

describe('the Expand step', () => {
  const setup = valuesView(
    't',
    [
      ['k', 'STRING'],
      ['v', 'INT'],
    ],
    [
      ['a', 1],
      ['b', 2],
      ['a', 3],
    ],
  );

  it('shows in EXPLAIN before the aggregation', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(setup);
    const plan = tEnv.explainSql('SELECT k, SUM(v) FROM t GROUP BY ROLLUP(k)');
    expect(plan).toContain('Expand $e of 2 grouping sets: {k}, {}');
  });

  it('keeps the kind of each change over an updating input', async () => {
    // The inner aggregation updates a's row; each update moves it between the outer groups.
    const [result] = await runScenario(setup, [
      'SELECT s, COUNT(*) AS n, GROUPING(s) AS g FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) GROUP BY ROLLUP(s)',
    ]);
    expect(result?.rows).toEqual(sorted(['2,1,0', '4,1,0', 'null,2,1']));
    expect(result?.changes.some((c) => c.startsWith('-'))).toBe(true);
  });

  it('GROUP_ID() numbers the repeats of a grouping set: each gives its groups again', async () => {
    const [result] = await runScenario(setup, [
      'SELECT k, GROUP_ID() AS g, COUNT(*) AS n FROM t GROUP BY GROUPING SETS (k, (), ())',
    ]);
    expect(result?.rows).toEqual(sorted(['a,0,2', 'b,0,1', 'null,0,3', 'null,1,3']));
    const [plain] = await runScenario(setup, [
      'SELECT k, GROUP_ID() AS g FROM t GROUP BY ROLLUP(k)',
    ]);
    expect(plain?.rows).toEqual(sorted(['a,0', 'b,0', 'null,0']));
  });

  it('refuses GROUP_ID with arguments, and SELECT DISTINCT with grouping sets', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(setup);
    expect(() => tEnv.sqlQuery('SELECT k, GROUP_ID(k) FROM t GROUP BY ROLLUP(k)')).toThrow(
      /GROUP_ID takes no arguments/,
    );
    expect(() => tEnv.sqlQuery('SELECT DISTINCT k FROM t GROUP BY ROLLUP(k)')).toThrow(
      /SELECT DISTINCT with GROUP BY/,
    );
  });
});

describe('oracle: GROUPING SETS is the union of plain GROUP BYs', () => {
  const row = fc.tuple(
    fc.constantFrom(null, 1, 2, 3),
    fc.constantFrom(null, 'x', 'y'),
    fc.integer({ min: -5, max: 5 }),
  );
  it('for CUBE(a, b) with GROUPING_ID, over random rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 12 }), async (data) => {
        const setup = valuesView(
          't',
          [
            ['a', 'INT'],
            ['b', 'STRING'],
            ['v', 'INT'],
          ],
          data,
        );
        const aggs = 'COUNT(*), SUM(v), MIN(v)';
        const [cube, ab, a, b, all] = await runScenario(setup, [
          `SELECT a, b, ${aggs}, GROUPING_ID(a, b) FROM t GROUP BY CUBE(a, b)`,
          `SELECT a, b, ${aggs}, 0 FROM t GROUP BY a, b`,
          `SELECT a, CAST(NULL AS STRING), ${aggs}, 1 FROM t GROUP BY a`,
          `SELECT CAST(NULL AS INT), b, ${aggs}, 2 FROM t GROUP BY b`,
          `SELECT CAST(NULL AS INT), CAST(NULL AS STRING), ${aggs}, 3 FROM t`,
        ]);
        const union = [ab, a, b, all].flatMap((r) => r?.rows ?? []);
        expect(cube?.rows).toEqual(sorted(union));
      }),
      { numRuns: 15 },
    );
  });
});
