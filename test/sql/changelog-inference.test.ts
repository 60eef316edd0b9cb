/**
 * Changelog-mode inference as Flink's planner does it, per operator kind, on hand-built
 * operator graphs: the kinds each operator may emit (bottom-up) and whether its updates carry
 * update-befores (top-down from the sinks, falling back to update-befores where a consumer
 * cannot do without them).
 */
import { describe, expect, it } from 'vitest';
import type { ChangelogMode } from '../../src/core/changelog.js';
import {
  type ChangelogRole,
  changelogModeText,
  type InferenceNode,
  inferChangelogModes,
} from '../../src/sql/planner/changelog-inference.js';

/** A node reading `inputs` (one list per input; several ids in one list: a UNION ALL). */
function node(
  id: number,
  role: ChangelogRole,
  built: ChangelogMode,
  inputs: number[][] = [],
  consumers = 1,
): InferenceNode {
  return { id, role, built, inputs, consumers };
}

const source = (id: number, built: ChangelogMode = 'insert-only') =>
  node(id, { kind: 'fixed' }, built);
const sink = (id: number, input: number, accepts: ChangelogMode) =>
  node(id, { kind: 'sink', accepts }, 'insert-only', [[input]], 0);
const aggregate = (id: number, input: number) =>
  node(id, { kind: 'group-aggregate' }, 'retract', [[input]]);
const calc = (id: number, input: number, filter: boolean, built: ChangelogMode = 'retract') =>
  node(id, { kind: 'calc', filter }, built, [[input]]);
const drop = (id: number, input: number) =>
  node(id, { kind: 'drop-update-before' }, 'retract', [[input]]);

/** Each operator's mode in Flink's notation, as the inference leaves it. */
function modes(nodes: InferenceNode[]): Record<number, string> {
  const { kinds, updateKinds } = inferChangelogModes(nodes);
  const out: Record<number, string> = {};
  for (const n of nodes) {
    if (n.role.kind === 'sink') continue;
    const update = updateKinds.get(n.id);
    out[n.id] =
      update === undefined ? 'as built' : changelogModeText(kinds.get(n.id) ?? [], update);
  }
  return out;
}

describe('changelog-mode inference', () => {
  it('GROUP BY: [I,UA] into a sink keyed by its upsert key, [I,UB,UA] into a retract sink; deletes only over updating input', () => {
    expect(modes([source(0), aggregate(1, 0), drop(2, 1), sink(3, 2, 'upsert')])).toEqual({
      0: '[I]',
      1: '[I,UA]',
      2: '[I,UA]',
    });
    expect(modes([source(0), aggregate(1, 0), sink(2, 1, 'retract')])).toEqual({
      0: '[I]',
      1: '[I,UB,UA]',
    });
    // A GROUP BY of a GROUP BY: the outer one takes rows back out, so the inner keeps its -U.
    expect(
      modes([source(0), aggregate(1, 0), aggregate(2, 1), drop(3, 2), sink(4, 3, 'upsert')]),
    ).toEqual({ 0: '[I]', 1: '[I,UB,UA]', 2: '[I,UA,D]', 3: '[I,UA,D]' });
  });

  it('a WHERE (Calc with a condition) never passes a request for update-afters only (FLINK-9528); a projection does', () => {
    // The sink's view by key is upserts; behind the drop, the aggregate keeps -U for the filter.
    expect(
      modes([source(0), aggregate(1, 0), calc(2, 1, true), drop(3, 2), sink(4, 3, 'upsert')]),
    ).toEqual({ 0: '[I]', 1: '[I,UB,UA]', 2: '[I,UB,UA]', 3: '[I,UA]' });
    expect(
      modes([source(0), aggregate(1, 0), calc(2, 1, false), drop(3, 2), sink(4, 3, 'upsert')]),
    ).toEqual({ 0: '[I]', 1: '[I,UA]', 2: '[I,UA]', 3: '[I,UA]' });
  });

  it('Top-N and deduplication read insert-only input and emit -U only when asked; keep-first by arrival only inserts', () => {
    const rank = node(1, { kind: 'rank' }, 'retract', [[0]]);
    expect(modes([source(0), rank, drop(2, 1), sink(3, 2, 'upsert')])).toEqual({
      0: '[I]',
      1: '[I,UA,D]',
      2: '[I,UA,D]',
    });
    expect(modes([source(0), rank, sink(2, 1, 'retract')])[1]).toBe('[I,UB,UA,D]');
    const last = node(1, { kind: 'deduplicate', insertOnly: false }, 'retract', [[0]]);
    expect(modes([source(0), last, drop(2, 1), sink(3, 2, 'upsert')])[1]).toBe('[I,UA,D]');
    const first = node(1, { kind: 'deduplicate', insertOnly: true }, 'insert-only', [[0]]);
    expect(modes([source(0), first, sink(2, 1, 'retract')])[1]).toBe('[I]');
  });

  it('joins: inner of insert-only inputs inserts only, outer ones may emit anything; an updating input keeps its -U', () => {
    const inner = node(2, { kind: 'join', inner: true }, 'retract', [[0], [1]]);
    expect(modes([source(0), source(1), inner, sink(3, 2, 'retract')])[2]).toBe('[I]');
    const left = node(2, { kind: 'join', inner: false }, 'retract', [[0], [1]]);
    expect(modes([source(0), source(1), left, drop(3, 2), sink(4, 3, 'upsert')])[2]).toBe(
      '[I,UA,D]',
    );
    // Two GROUP BYs joined: Weir's join holds rows as a multiset per join key and needs -U.
    const join = node(4, { kind: 'join', inner: true }, 'retract', [[2], [3]]);
    expect(
      modes([
        source(0),
        source(1),
        aggregate(2, 0),
        aggregate(3, 1),
        join,
        drop(5, 4),
        sink(6, 5, 'upsert'),
      ]),
    ).toEqual({ 0: '[I]', 1: '[I]', 2: '[I,UB,UA]', 3: '[I,UB,UA]', 4: '[I,UB,UA]', 5: '[I,UA]' });
  });

  it('ChangelogNormalize asks its upsert input for update-afters only; a view by the sink key needs -U and emits upserts', () => {
    const normalize = node(1, { kind: 'normalize' }, 'retract', [[0]]);
    expect(
      modes([source(0, 'upsert'), normalize, aggregate(2, 1), drop(3, 2), sink(4, 3, 'upsert')]),
    ).toEqual({ 0: '[I,UA,D]', 1: '[I,UB,UA,D]', 2: '[I,UA,D]', 3: '[I,UA,D]' });
    const materialize = node(2, { kind: 'materialize' }, 'upsert', [[1]]);
    expect(modes([source(0), aggregate(1, 0), materialize, sink(3, 2, 'upsert')])).toEqual({
      0: '[I]',
      1: '[I,UB,UA]',
      2: '[I,UA,D]',
    });
  });

  it('UNION ALL asks each updating side for what its consumer needs and an insert-only side for nothing', () => {
    const union = calc(3, 0, false);
    const nodes = [
      source(0),
      source(1),
      aggregate(2, 1),
      { ...union, inputs: [[0, 2]] },
      drop(4, 3),
      sink(5, 4, 'upsert'),
    ];
    expect(modes(nodes)).toEqual({ 0: '[I]', 1: '[I]', 2: '[I,UA]', 3: '[I,UA]', 4: '[I,UA]' });
  });

  it('an operator read by two consumers, and one built fixed, keep what they were built to emit', () => {
    const shared = { ...aggregate(1, 0), consumers: 2 };
    const nodes = [source(0), shared, drop(2, 1), sink(3, 2, 'upsert'), sink(4, 1, 'retract')];
    expect(modes(nodes)[1]).toBe('[I,UB,UA]');
    // An upsert source through a WHERE built for upserts: the retract sink takes the upserts.
    const where = calc(1, 0, true, 'upsert');
    expect(
      modes([source(0, 'upsert'), { ...where, role: { kind: 'fixed' } }, sink(2, 1, 'retract')]),
    ).toEqual({ 0: '[I,UA,D]', 1: '[I,UA,D]' });
  });

  it('INTERSECT/EXCEPT and the retracting Top-N need their input update-befores, emit [I,D] or [I,UB,UA,D], and a sink asking only for update-afters falls back', () => {
    const retracting = (id: number, input: number, updates: boolean) =>
      node(id, { kind: 'retracting', updates }, 'insert-only', [[input]]);
    // Over a GROUP BY into an upsert sink: the GROUP BY keeps -U for its consumer.
    expect(
      modes([source(0), aggregate(1, 0), retracting(2, 1, false), sink(3, 2, 'upsert')]),
    ).toEqual({ 0: '[I]', 1: '[I,UB,UA]', 2: '[I,D]' });
    // With row numbers it updates; it has no variant without -U, so an upsert sink takes them.
    expect(
      modes([source(0), aggregate(1, 0), retracting(2, 1, true), sink(3, 2, 'upsert')]),
    ).toEqual({ 0: '[I]', 1: '[I,UB,UA]', 2: '[I,UB,UA,D]' });
    // Over insert-only rows (a rank range) it asks for nothing.
    expect(modes([source(0), retracting(1, 0, true), sink(2, 1, 'retract')])).toEqual({
      0: '[I]',
      1: '[I,UB,UA,D]',
    });
  });

  it('an insert-only sink asks for no updates', () => {
    expect(modes([source(0), calc(1, 0, true, 'insert-only'), sink(2, 1, 'insert-only')])).toEqual({
      0: '[I]',
      1: '[I]',
    });
  });
});
