import { describe, expect, it } from 'vitest';
import {
  type AggregateFunction,
  DiscardingSink,
  type LookupTable,
  StreamEnvironment,
  Triggers,
  Windows,
} from '../../src/index.js';
import type { PlannedJob } from '../../src/plan/physical/physical-node.js';
import { planJob } from '../../src/plan/planner.js';
import { envImpl } from '../helpers/internals.js';

interface Rec {
  readonly k: string;
  readonly v: number;
}

const sum: AggregateFunction<Rec, number, number> = {
  createAccumulator: () => 0,
  add: (r, acc) => acc + r.v,
  getResult: (acc) => acc,
};
const mergeableSum: AggregateFunction<Rec, number, number> = { ...sum, merge: (a, b) => a + b };

/** Plans `build`'s job at parallelism `parallelism` and returns the plan. */
function planOf(
  build: (env: StreamEnvironment) => void,
  options: { parallelism?: number; localAggregation?: boolean; chaining?: boolean } = {},
): PlannedJob {
  const env = new StreamEnvironment({ parallelism: options.parallelism ?? 1 });
  build(env);
  return planJob(envImpl(env).graph, {
    parallelism: env.parallelism,
    maxParallelism: env.maxParallelism,
    chaining: options.chaining ?? true,
    localAggregation: options.localAggregation ?? true,
  });
}

/** The physical operator of every step, with its two-phase settings where it has them. */
function operators(plan: PlannedJob): string[] {
  return plan.nodes.map((n) => {
    const op = n.operator;
    if (op.kind === 'direct') return op.node.kind;
    if (op.kind === 'slice-window')
      return op.twoPhase ? `slice-window(localFolding=${op.localFolding})` : 'slice-window';
    if (op.kind === 'local-window-combiner') return `local-window-combiner(folding=${op.folding})`;
    return op.kind;
  });
}

type WindowJob = (env: StreamEnvironment) => void;

const keyed = (env: StreamEnvironment) => env.fromArray<Rec>([]).keyBy((r) => r.k, 'k');
const sink = new DiscardingSink<unknown>();

describe('window operator rule', () => {
  const cases: [string, WindowJob, string[]][] = [
    [
      'tumbling reduce: slice operator in two phases',
      (env) =>
        keyed(env)
          .window(Windows.tumbling(10))
          .reduce((a) => a)
          .sinkTo(sink),
      [
        'source',
        'local-window-combiner(folding=false)',
        'slice-window(localFolding=false)',
        'sink',
      ],
    ],
    [
      'sliding aggregate with merge: slice operator in two phases',
      (env) => keyed(env).window(Windows.sliding(10, 5)).aggregate(mergeableSum).sinkTo(sink),
      [
        'source',
        'local-window-combiner(folding=false)',
        'slice-window(localFolding=false)',
        'sink',
      ],
    ],
    [
      'tumbling aggregate without merge: slice operator, one phase',
      (env) => keyed(env).window(Windows.tumbling(10)).aggregate(sum).sinkTo(sink),
      ['source', 'slice-window', 'sink'],
    ],
    [
      'sliding aggregate without merge: general operator (slices cannot combine)',
      (env) => keyed(env).window(Windows.sliding(10, 5)).aggregate(sum).sinkTo(sink),
      ['source', 'general-window', 'sink'],
    ],
    [
      'tumbling process function: slice operator, one phase (a list does not fold)',
      (env) =>
        keyed(env)
          .window(Windows.tumbling(10))
          .process<number>({ process: () => undefined })
          .sinkTo(sink),
      ['source', 'slice-window', 'sink'],
    ],
    [
      'closed by processing time: slice operator, one phase',
      (env) =>
        keyed(env)
          .window(Windows.tumbling(10))
          .closeByProcessingTime(100)
          .reduce((a) => a)
          .sinkTo(sink),
      ['source', 'slice-window', 'sink'],
    ],
    [
      'custom trigger: general operator',
      (env) =>
        keyed(env)
          .window(Windows.tumbling(10))
          .trigger(Triggers.continuousEventTime(5))
          .reduce((a) => a)
          .sinkTo(sink),
      ['source', 'general-window', 'sink'],
    ],
    [
      'session windows: general operator',
      (env) =>
        keyed(env)
          .window(Windows.session(10))
          .reduce((a) => a)
          .sinkTo(sink),
      ['source', 'general-window', 'sink'],
    ],
    [
      'processing-time tumbling windows: general operator',
      (env) =>
        keyed(env)
          .window(Windows.tumblingProcessingTime(10))
          .reduce((a) => a)
          .sinkTo(sink),
      ['source', 'general-window', 'sink'],
    ],
    [
      'count windows: general operator',
      (env) =>
        keyed(env)
          .countWindow(3, 1)
          .reduce((a) => a)
          .sinkTo(sink),
      ['source', 'general-window', 'sink'],
    ],
  ];
  it.each(cases)('%s', (_name, build, expected) => {
    expect(operators(planOf(build))).toEqual(expected);
  });
});

describe('two-phase folding rule', () => {
  const job =
    (windowParallelism?: number): WindowJob =>
    (env) => {
      const counts = env
        .fromArray<Rec>([])
        .keyBy((r) => r.k, 'k')
        .window(Windows.tumbling(10))
        .reduce((a) => a)
        .uid('counts');
      if (windowParallelism !== undefined) counts.setParallelism(windowParallelism);
      counts.sinkTo(new DiscardingSink());
    };
  const cases: [string, WindowJob, { parallelism: number; localAggregation: boolean }, boolean][] =
    [
      [
        'one subtask on each side: records pass',
        job(),
        { parallelism: 1, localAggregation: true },
        false,
      ],
      ['window at parallelism 2: folds', job(), { parallelism: 2, localAggregation: true }, true],
      [
        'local aggregation off: records pass',
        job(),
        { parallelism: 2, localAggregation: false },
        false,
      ],
      [
        'window set to parallelism 1: records pass',
        job(1),
        { parallelism: 2, localAggregation: true },
        false,
      ],
    ];
  it.each(cases)('%s', (_name, build, options, folds) => {
    const plan = planOf(build, options);
    expect(operators(plan).slice(1, 3)).toEqual([
      `local-window-combiner(folding=${folds})`,
      `slice-window(localFolding=${folds})`,
    ]);
    // The local half keeps its id whether it folds or not.
    expect(plan.nodes.map((n) => n.operatorId)).toEqual([
      'array-0',
      'counts/local',
      'counts',
      'sink-discard-3',
    ]);
    const exchange = plan.edges.find((e) => e.to === 2)!.partitioning;
    if (exchange.kind !== 'keyed') throw new Error('expected a keyed exchange');
    const selectKey = exchange.selectKey as (value: unknown) => unknown;
    // Folding: the exchange routes partials by their key; otherwise by the user's key of the record.
    expect(selectKey(folds ? { key: 'from-partial' } : { k: 'from-record', v: 1 })).toBe(
      folds ? 'from-partial' : 'from-record',
    );
  });

  it('plans without changing the graph: planning twice gives the same plan', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    job()(env);
    const options = { parallelism: 2, maxParallelism: 128, chaining: true };
    const before = structuredClone(
      envImpl(env).graph.nodes.map((n) => [n.id, n.kind, n.name, n.uid]),
    );
    const first = planJob(envImpl(env).graph, options);
    const second = planJob(envImpl(env).graph, { ...options, localAggregation: false });
    expect(planJob(envImpl(env).graph, options)).toEqual(first);
    expect(operators(second)[1]).toBe('local-window-combiner(folding=false)');
    expect(operators(first)[1]).toBe('local-window-combiner(folding=true)');
    expect(envImpl(env).graph.nodes.map((n) => [n.id, n.kind, n.name, n.uid])).toEqual(before);
  });
});

describe('parallelism and chaining rules', () => {
  const cases: [
    string,
    WindowJob,
    { parallelism: number; chaining?: boolean },
    number[],
    number[],
  ][] = [
    [
      'a non-parallel source keeps its parallelism downstream until a keyed exchange',
      (env) => {
        env
          .fromArray([1])
          .map((x) => x)
          .keyBy((x) => x)
          .reduce((a, b) => a + b)
          .sinkTo(new DiscardingSink());
      },
      { parallelism: 3 },
      [1, 1, 3, 3],
      [0, 0, 2, 2],
    ],
    [
      'an explicit parallelism breaks the chain (the forward edge becomes a rebalance)',
      (env) => {
        env
          .fromArray([1])
          .map((x) => x)
          .setParallelism(2)
          .sinkTo(new DiscardingSink());
      },
      { parallelism: 1 },
      [1, 2, 2],
      [0, 1, 1],
    ],
    [
      'rebalance runs at the default parallelism',
      (env) => {
        env.fromArray([1]).rebalance().sinkTo(new DiscardingSink());
      },
      { parallelism: 2 },
      [1, 2, 2],
      [0, 1, 1],
    ],
    [
      'chaining off: every step is its own task',
      (env) => {
        env
          .fromArray([1])
          .map((x) => x)
          .sinkTo(new DiscardingSink());
      },
      { parallelism: 1, chaining: false },
      [1, 1, 1],
      [0, 1, 2],
    ],
    [
      'a union (two inputs) runs at the default parallelism',
      (env) => {
        const a = env.fromArray([1]);
        a.union(env.fromArray([2]))
          .map((x) => x)
          .sinkTo(new DiscardingSink());
      },
      { parallelism: 2 },
      [1, 1, 2, 2],
      [0, 1, 2, 2],
    ],
  ];
  it.each(cases)('%s', (_name, build, options, parallelism, heads) => {
    const plan = planOf(build, options);
    expect(plan.nodes.map((n) => n.parallelism)).toEqual(parallelism);
    expect(plan.nodes.map((n) => n.chainHead)).toEqual(heads);
    for (const edge of plan.edges) {
      const sameParallelism = parallelism[edge.from] === parallelism[edge.to];
      if (!sameParallelism) expect(edge.partitioning.kind).not.toBe('forward');
    }
  });
});

describe('lookup join rule', () => {
  const table = (sync: boolean): LookupTable<string, number> => ({
    name: 'prices',
    lookup: async (keys) => new Map(keys.map((k) => [k, 1])),
    ...(sync ? { get: () => 1 } : {}),
  });
  const cases: [string, boolean, string][] = [
    ['a table with get answers synchronously', true, 'sync-lookup-join'],
    ['a table with lookup only goes through async I/O', false, 'async-lookup-join'],
  ];
  it.each(cases)('%s', (_name, sync, expected) => {
    const plan = planOf((env) => {
      env
        .fromArray(['a'])
        .lookupJoin(table(sync), { key: (k) => k, select: (k, v) => [k, v] })
        .sinkTo(new DiscardingSink());
    });
    expect(operators(plan)[1]).toBe(expected);
  });
});
