/**
 * Window aggregations over a changelog through a savepoint: stopped part-way (windows holding
 * rows some of whose retractions are still to come) and restored, the job ends with the rows
 * of an uninterrupted run and of the batch aggregation of the final rows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/core/changelog.js';
import type { Row } from '../../src/index.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { changesJob, throughSavepoint } from './savepoint-helpers.js';

const EVENTS = 300;
const FIRST_RUN_RATE = 60;
const START = 1_000_000;

type Values = [number, number, number];

/** Change `i`: three a step, each step's rows 200 ms after the last step's. */
function changeAt(i: number): Change<Row> {
  const j = Math.floor(i / 3);
  const t = START + j * 200;
  const a: Values = [j % 3, ((j * 7) % 11) - 5, t];
  const b: Values = [(j + 1) % 3, j % 5, t + 50];
  switch (i % 3) {
    case 0:
      return { kind: '+I', value: a };
    case 1:
      return j % 2 === 0 ? { kind: '-U', value: a } : { kind: '+I', value: b };
    default:
      if (j % 2 === 0) return { kind: '+U', value: [a[0], a[1] + 1, t + 100] };
      return j % 3 === 0
        ? { kind: '-D', value: b }
        : { kind: '+I', value: [(j + 2) % 3, 1, t + 150] };
  }
}

beforeAll(() =>
  registerSqlConnectors([
    {
      name: 'generated-changes',
      options: [{ key: 'rate', description: 'changes per second', value: 'number' }],
      changelogSource: (table, env) => {
        const rate = table.options.get('rate')?.value;
        return {
          changes: env
            .fromGenerator({
              count: EVENTS,
              ...(rate === undefined ? {} : { ratePerSecond: Number(rate) }),
              generate: changeAt,
            })
            .setParallelism(1)
            .uid('changes'),
          mode: 'retract',
        };
      },
    },
  ]),
);

const QUERIES = [
  `SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v), COUNT(DISTINCT v)
    FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(ts), INTERVAL '1' SECOND))
    GROUP BY k, window_start, window_end`,
  `SELECT window_start, window_end, COUNT(*), SUM(v), MAX(v)
    FROM TABLE(HOP(TABLE c, DESCRIPTOR(ts), INTERVAL '500' MILLISECOND, INTERVAL '1' SECOND))
    GROUP BY window_start, window_end`,
];

/** Each query's rows computed in batch from the rows left after every change. */
function oracle(): string[][] {
  const rows: Values[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const { kind, value } = changeAt(i);
    if (kind === '+I' || kind === '+U') rows.push(value as Values);
    else
      rows.splice(
        rows.findIndex((r) => JSON.stringify(r) === JSON.stringify(value)),
        1,
      );
  }
  const grouped = (windows: (t: number) => number[], key: (r: Values, s: number) => string) => {
    const groups = new Map<string, number[]>();
    for (const r of rows)
      for (const s of windows(r[2]))
        groups.set(key(r, s), [...(groups.get(key(r, s)) ?? []), r[1]]);
    return groups;
  };
  const sum = (vs: number[]) => vs.reduce((a, b) => a + b, 0);
  const tumbling = grouped(
    (t) => [t - (t % 1000)],
    (r, s) => JSON.stringify([r[0], s, s + 1000]),
  );
  const hopping = grouped(
    (t) => [t - (t % 500), t - (t % 500) - 500],
    (_, s) => JSON.stringify([s, s + 1000]),
  );
  return [
    [...tumbling]
      .map(([key, vs]) =>
        JSON.stringify([
          ...(JSON.parse(key) as number[]),
          vs.length,
          sum(vs),
          Math.min(...vs),
          Math.max(...vs),
          new Set(vs).size,
        ]),
      )
      .sort(),
    [...hopping]
      .map(([key, vs]) =>
        JSON.stringify([...(JSON.parse(key) as number[]), vs.length, sum(vs), Math.max(...vs)]),
      )
      .sort(),
  ];
}

describe('window aggregations over a changelog through a savepoint', () => {
  it('restored part-way, end as an uninterrupted run and a batch computation', async () => {
    const restored = await throughSavepoint(
      'weir-window-changelog-',
      QUERIES.length,
      (out, checkpoints, rate) =>
        changesJob({
          out,
          checkpoints,
          rate,
          parallelism: 2,
          events: EVENTS,
          eventAt: () => [0, 0],
          queries: QUERIES,
          tables: (_, tEnv) =>
            tEnv.executeSql(`CREATE TABLE c (k INT, v INT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
              ) WITH ('connector' = 'generated-changes'${rate === undefined ? '' : `, 'rate' = '${rate}'`})`),
        }),
      FIRST_RUN_RATE,
    );
    expect(restored).toEqual(oracle());
  }, 120_000);
});
