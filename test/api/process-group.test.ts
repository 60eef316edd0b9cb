import { describe, expect, it } from 'vitest';
import { applyProcessGroup } from '../../src/api/process-group.js';
import type { Sink } from '../../src/core/sink.js';
import type {
  ExchangedRecord,
  ExchangeSpec,
  GroupExchange,
  ProcessGroupSpec,
  Source,
} from '../../src/core/source.js';
import { LogicalGraph } from '../../src/plan/logical/logical-graph.js';
import type { LogicalNode, Partitioning } from '../../src/plan/logical/nodes.js';

/** A Kafka-like source: its group copy reads `topics` and remembers the group it was given. */
function groupSource(
  name: string,
  topics: string[],
): Source<unknown> & { given?: ProcessGroupSpec } {
  const source: Source<unknown> & { given?: ProcessGroupSpec } = {
    name,
    bounded: false,
    parallelizable: true,
    createReader: () => {
      throw new Error('not run');
    },
    inProcessGroup(group) {
      source.given = group;
      return { ...source, groupTopics: topics };
    },
  };
  return source;
}

/** An exchange that records what the planner asked of it. */
function recordingExchange() {
  const writers: { spec: ExchangeSpec; input: number }[] = [];
  const readers: ExchangeSpec[] = [];
  const exchange: GroupExchange = {
    topic: (uid) => `t-${uid}`,
    writer: (spec, input) => {
      writers.push({ spec, input });
      return {
        name: `w${input}`,
        createWriter: () => ({ write() {}, close() {} }),
      } as Sink<unknown>;
    },
    reader: (spec) => {
      readers.push(spec);
      return groupSource('r', [spec.topic]) as unknown as Source<ExchangedRecord>;
    },
  };
  return { exchange, writers, readers };
}

const keyed = (name: string): Partitioning => ({
  kind: 'keyed',
  selectKey: ((v: { k: string }) => v.k) as (value: never) => string,
  name,
});

function group(exchange: GroupExchange): ProcessGroupSpec {
  return { applicationId: 'app', brokers: ['b:9092'], exchange };
}

const kinds = (g: LogicalGraph) => g.nodes.map((n) => `${n.kind}:${n.uid ?? n.name}`);

describe('applyProcessGroup', () => {
  it('cuts a keyed exchange into a repartition topic: writer, reader, then the keyed operator', () => {
    const g = new LogicalGraph();
    const src = g.add({ kind: 'source', source: groupSource('in', ['in']) }, 'in', []);
    const win = g.add(
      { kind: 'rolling-reduce', fn: (a: unknown) => a } as never,
      'reduce',
      [{ from: src.id, tag: undefined, partitioning: keyed('k') }],
      { keyed: true, stateful: true },
    );
    win.uid = 'counts';
    win.parallelism = 6;
    const { exchange, writers, readers } = recordingExchange();
    applyProcessGroup(g, group(exchange), 128);

    expect(kinds(g)).toEqual([
      'source:in',
      'sink:counts-exchange-out-0',
      'source:counts-exchange-in',
      'flat-map:counts-exchange-in-0',
      'rolling-reduce:counts',
    ]);
    const spec = {
      topic: 't-counts',
      partitions: 6,
      maxParallelism: 128,
      producerTopics: [['in']],
    };
    expect(writers).toEqual([{ spec, input: 0 }]);
    expect(readers).toEqual([spec]);
    // Nodes keep producers first; the operator reads the reader's records, still keyed.
    expect(g.nodes.map((n) => n.id)).toEqual([0, 1, 2, 3, 4]);
    expect(g.nodes[1]!.inputs).toEqual([
      { from: 0, tag: undefined, partitioning: { kind: 'rebalance' } },
    ]);
    expect(g.nodes[4]!.inputs[0]!.from).toBe(3);
    expect(g.nodes[4]!.inputs[0]!.partitioning.kind).toBe('keyed');
    // Keyed state does not move: the sources are told to keep their tasks.
    expect((g.nodes[0] as Extract<LogicalNode, { kind: 'source' }>).source.groupTopics).toEqual([
      'in',
    ]);
  });

  /** Two sources and an operator of `kind` over both, keyed; returns the graph and the operator. */
  const twoKeyedInputs = (kind: LogicalNode['kind']) => {
    const g = new LogicalGraph();
    const a = g.add({ kind: 'source', source: groupSource('orders', ['orders']) }, 'orders', []);
    const b = g.add({ kind: 'source', source: groupSource('users', ['users']) }, 'users', []);
    const op = g.add(
      { kind, spec: {} } as never,
      kind,
      [
        { from: a.id, tag: undefined, partitioning: keyed('left'), input: 0 },
        { from: b.id, tag: undefined, partitioning: keyed('right'), input: 1 },
      ],
      { keyed: true, stateful: true },
    );
    op.uid = 'j';
    return g;
  };

  it.each(['regular-join', 'interval-join', 'window-join', 'temporal-join'] as const)(
    'sends both keyed inputs of a %s through its one repartition topic, each record tagged with its input',
    (kind) => {
      const g = twoKeyedInputs(kind);
      const { exchange, writers, readers } = recordingExchange();
      const layout = applyProcessGroup(g, group(exchange), 128);
      // One topic, so a partition is one task holding both sides of its key groups.
      expect(readers.map((r) => r.topic)).toEqual(['t-j']);
      expect(readers[0]!.producerTopics).toEqual([['orders'], ['users']]);
      expect(writers.map((w) => [w.spec.topic, w.input])).toEqual([
        ['t-j', 0],
        ['t-j', 1],
      ]);
      // Each input of the operator keeps only the records tagged with it.
      const op = g.nodes.find((n) => n.uid === 'j')!;
      expect(op.inputs.map((e) => [g.nodes[e.from]!.uid, e.input, e.partitioning.kind])).toEqual([
        ['j-exchange-in-0', 0, 'keyed'],
        ['j-exchange-in-1', 1, 'keyed'],
      ]);
      const keep = (position: number, r: ExchangedRecord) => {
        const node = g.nodes.find((n) => n.uid === `j-exchange-in-${position}`) as Extract<
          LogicalNode,
          { kind: 'flat-map' }
        >;
        const kept: unknown[] = [];
        (node.fn as (r: ExchangedRecord, c: { collect(v: unknown): void }) => void)(r, {
          collect: (v) => kept.push(v),
        });
        return kept;
      };
      expect(keep(0, { input: 0, value: 'left' })).toEqual(['left']);
      expect(keep(0, { input: 1, value: 'right' })).toEqual([]);
      expect(keep(1, { input: 1, value: 'right' })).toEqual(['right']);
      // Both sides' state moves with the tasks of that topic.
      expect(layout?.keyedOperators.get('j')).toEqual({ topic: 't-j', partitions: 4 });
    },
  );

  it('refuses a keyed operator without a uid, a broadcast, and state that is not keyed, naming the operator', () => {
    const build = (edit: (g: LogicalGraph, src: number) => void) => {
      const g = new LogicalGraph();
      const src = g.add({ kind: 'source', source: groupSource('in', ['in']) }, 'in', []);
      edit(g, src.id);
      return () => applyProcessGroup(g, group(recordingExchange().exchange), 128);
    };
    expect(
      build((g, src) =>
        g.add({ kind: 'rolling-reduce', fn: (x: unknown) => x } as never, 'reduce', [
          { from: src, tag: undefined, partitioning: keyed('k') },
        ]),
      ),
    ).toThrow(/operator 'reduce' cannot run in process group 'app': give it a \.uid\(\)/);
    expect(
      build((g, src) =>
        g.add({ kind: 'map', fn: (x: never) => x }, 'copy', [
          { from: src, tag: undefined, partitioning: { kind: 'broadcast' } },
        ]),
      ),
    ).toThrow(/operator 'copy' .*broadcast exchange/);
    expect(
      build((g, src) =>
        g.add(
          { kind: 'process', fn: {} } as never,
          'counter',
          [{ from: src, tag: undefined, partitioning: { kind: 'forward' } }],
          { stateful: true },
        ),
      ),
    ).toThrow(/operator 'counter' .*state that is not keyed/);
  });
});
