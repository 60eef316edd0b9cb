import { describe, expect, it } from 'vitest';
import {
  DiscardingSink,
  OutputTag,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';

interface Click {
  readonly user: string;
  readonly page: string;
  readonly t: number;
}

describe('explain()', () => {
  it('shows a two-phase window: its local half, the keyed exchange and whether it folds', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const late = new OutputTag<Click>('late-clicks');
    env
      .fromArray<Click>([])
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Click>(5).withTimestampAssigner((c) => c.t),
      )
      .keyBy((c) => c.user, 'user')
      .window(Windows.tumbling(10))
      .allowedLateness(5)
      .sideOutputLateData(late)
      .reduce((a) => a)
      .uid('counts')
      .sinkTo(new DiscardingSink());
    expect(env.explain()).toBe(`Logical plan
  #0 source "array"
      bounded, not parallel
  #1 timestamps-watermarks "timestamps/watermarks" <- #0 forward
  #2 window "window reduce (tumbling 10ms)" uid=counts <- #1 keyed(user)
      tumbling 10ms, trigger default, lateness 5ms, late data to late-clicks, reduce, emits results
  #3 sink "sink: discard" <- #2 forward
Physical plan (max parallelism 128)
  [0] array-0: source (from #0) parallelism=1 task=array-0
  [1] timestamps-watermarks-1: timestamps-watermarks (from #1) parallelism=1 task=array-0 <- [0] forward chained
  [2] counts/local: local-window-combiner, folding (from #2) parallelism=1 task=array-0 <- [1] forward chained
  [3] counts: slice-window, two-phase folding (from #2) parallelism=2 task=counts <- [2] keyed(user)
  [4] sink-discard-4: sink (from #3) parallelism=2 task=counts <- [3] forward chained
`);
  });

  it('shows a queryable window, which runs in one phase (a query could not see the local half)', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    env
      .fromArray<Click>([])
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Click>(5).withTimestampAssigner((c) => c.t),
      )
      .keyBy((c) => c.user, 'user')
      .window(Windows.tumbling(10))
      .queryable()
      .reduce((a) => a)
      .uid('counts')
      .sinkTo(new DiscardingSink());
    expect(env.explain()).toBe(`Logical plan
  #0 source "array"
      bounded, not parallel
  #1 timestamps-watermarks "timestamps/watermarks" <- #0 forward
  #2 window "window reduce (tumbling 10ms)" uid=counts <- #1 keyed(user)
      tumbling 10ms, trigger default, lateness 0ms, queryable, reduce, emits results
  #3 sink "sink: discard" <- #2 forward
Physical plan (max parallelism 128)
  [0] array-0: source (from #0) parallelism=1 task=array-0
  [1] timestamps-watermarks-1: timestamps-watermarks (from #1) parallelism=1 task=array-0 <- [0] forward chained
  [2] counts: slice-window (from #2) parallelism=2 task=counts <- [1] keyed(user)
  [3] sink-discard-3: sink (from #3) parallelism=2 task=counts <- [2] forward chained
`);
  });

  it('shows changelog modes, general windows and two-input operators', () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const clicks = env.fromArray<Click>([]);
    const perUser = clicks
      .toChangelog()
      .groupBy((c) => c.user, 'user')
      .updatingAggregate({
        createAccumulator: () => 0,
        add: (_c, n) => n + 1,
        retract: (_c, n) => n - 1,
        getResult: (n) => n,
      });
    perUser.sinkTo(new DiscardingSink());
    clicks
      .keyBy((c) => c.page, 'page')
      .countWindow(3)
      .reduce((a) => a)
      .join(clicks)
      .where((r) => r.key)
      .equalTo((c) => c.page)
      .window(Windows.session(100))
      .apply((r, c) => [r.value.t, c.t])
      .sinkTo(new DiscardingSink());
    expect(env.explain()).toBe(`Logical plan
  #0 source "array"
      bounded, not parallel
  #1 to-changelog "to changelog" changelog=insert-only <- #0 forward
  #2 updating-aggregate "updating aggregate" changelog=retract <- #1 keyed(user)
  #3 sink "sink: discard" <- #2 forward
  #4 window "window reduce (global)" <- #0 keyed(page)
      global, trigger count 3, purging, lateness 0ms, reduce, emits results
  #5 window-join "window join" <- #4 keyed(where), #0 keyed(equalTo) input=1
      join, session 100ms
  #6 sink "sink: discard" <- #5 forward
Physical plan (max parallelism 128)
  [0] array-0: source (from #0) parallelism=1 task=array-0
  [1] to-changelog-1: to-changelog (from #1) parallelism=1 task=array-0 changelog=insert-only <- [0] forward chained
  [2] updating-aggregate-2: updating-aggregate (from #2) parallelism=1 task=updating-aggregate-2 changelog=retract <- [1] keyed(user)
  [3] sink-discard-3: sink (from #3) parallelism=1 task=updating-aggregate-2 <- [2] forward chained
  [4] window-reduce-global-4: general-window (from #4) parallelism=1 task=window-reduce-global-4 <- [0] keyed(page)
  [5] window-join-5: window-join (from #5) parallelism=1 task=window-join-5 <- [4] keyed(where), [0] keyed(equalTo) input=1
  [6] sink-discard-6: sink (from #6) parallelism=1 task=window-join-5 <- [5] forward chained
`);
  });
});
