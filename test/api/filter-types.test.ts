import { describe, expectTypeOf, it } from 'vitest';
import {
  type Change,
  type ChangelogStream,
  type DataStream,
  StreamEnvironment,
} from '../../src/index.js';

type Shape =
  | { readonly kind: 'circle'; readonly r: number }
  | { readonly kind: 'square'; readonly side: number };

const isCircle = (s: Shape): s is Extract<Shape, { kind: 'circle' }> => s.kind === 'circle';

describe('filter', () => {
  const shapes = () => new StreamEnvironment().fromArray<Shape>([]);

  it('narrows the stream with a type guard', () => {
    expectTypeOf(shapes().filter(isCircle)).toEqualTypeOf<
      DataStream<{ readonly kind: 'circle'; readonly r: number }>
    >();
    expectTypeOf(
      new StreamEnvironment().fromArray<string | null>([]).filter((s): s is string => s !== null),
    ).toEqualTypeOf<DataStream<string>>();
  });

  it('keeps the type with a boolean predicate', () => {
    const bigCircles = (s: Shape): boolean => s.kind === 'circle' && s.r > 1;
    expectTypeOf(shapes().filter(bigCircles)).toEqualTypeOf<DataStream<Shape>>();
  });

  it('narrows after keyBy too', () => {
    const keyed = shapes().keyBy((s) => s.kind);
    expectTypeOf(keyed.filter(isCircle)).toEqualTypeOf<
      DataStream<{ readonly kind: 'circle'; readonly r: number }>
    >();
    expectTypeOf(keyed.filter((s): boolean => s.kind === 'square')).toEqualTypeOf<
      DataStream<Shape>
    >();
  });

  it('keeps a changelog a changelog', () => {
    const changes = shapes().toChangelog();
    expectTypeOf(changes.filter((c) => c.kind === '+I').mode).toEqualTypeOf<
      'insert-only' | 'upsert' | 'retract'
    >();
    expectTypeOf(changes.filter((c: Change<Shape>): boolean => c.kind !== '-D')).toEqualTypeOf<
      ChangelogStream<Shape>
    >();
    const circleChange = (c: Change<Shape>): c is Change<Extract<Shape, { kind: 'circle' }>> =>
      c.value.kind === 'circle';
    expectTypeOf(changes.filter(circleChange)).toEqualTypeOf<
      ChangelogStream<{ readonly kind: 'circle'; readonly r: number }>
    >();
  });
});
