import { describe, expect, it } from 'vitest';
import { DiscardingSink, StreamEnvironment, Windows } from '../../src/index.js';
import { envImpl } from '../helpers/internals.js';

describe('physical plan', () => {
  it('chains forward operators and gives non-parallel sources parallelism 1', () => {
    const env = new StreamEnvironment({ parallelism: 4 });
    const mapped = env
      .fromArray([1, 2, 3])
      .map((x) => x + 1)
      .filter((x) => x > 1);
    mapped
      .keyBy((x) => x % 2)
      .reduce((a, b) => a + b)
      .sinkTo(new DiscardingSink());
    const plan = envImpl(env).plan();
    const par = plan.vertices.map((v) => v.parallelism);
    // source, map, filter inherit 1; keyed reduce and its sink run at 4.
    expect(par).toEqual([1, 1, 1, 4, 4]);
    const head = plan.vertices.map((v) => v.chainHead);
    expect(head).toEqual([0, 0, 0, 3, 3]);
    expect(plan.edges.find((e) => e.to === 3)?.partitioning.kind).toBe('keyed');
  });

  it('turns a forward edge between different parallelisms into a rebalance', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    env
      .fromArray([1])
      .map((x) => x)
      .setParallelism(2)
      .sinkTo(new DiscardingSink());
    const plan = envImpl(env).plan();
    expect(plan.edges.find((e) => e.to === 1)).toMatchObject({
      partitioning: { kind: 'rebalance' },
      chained: false,
    });
  });

  it('rejects duplicate operator ids at build time', () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([1]).keyBy((x) => x);
    s.window(Windows.global())
      .reduce((a, b) => a + b)
      .uid('same');
    s.reduce((a, b) => a + b).uid('same');
    expect(() => envImpl(env).plan()).toThrow(/operator id 'same' is used by both/);
  });

  it('rejects a parallelism above maxParallelism and a split of a non-parallel source', () => {
    const env = new StreamEnvironment({ maxParallelism: 4 });
    env
      .fromArray([1])
      .map((x) => x)
      .setParallelism(8)
      .sinkTo(new DiscardingSink());
    expect(() => envImpl(env).plan()).toThrow(/exceeds maxParallelism/);
    const env2 = new StreamEnvironment();
    env2.fromArray([1]).setParallelism(2).sinkTo(new DiscardingSink());
    expect(() => envImpl(env2).plan()).toThrow(/cannot be split/);
  });
});
