import type { Change } from '../../../core/changelog.js';
import type { KeyedProcessFunction, KeyedRuntimeContext } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { MapState } from '../../../core/state.js';
import type { WindowResult } from '../../../core/window-result.js';
import { windowCleanupTime } from '../../../core/windows.js';

type Self<K extends Key, R> = KeyedProcessFunction<
  K,
  WindowResult<K, R>,
  Change<WindowResult<K, R>>
> & {
  last?: MapState<string, WindowResult<K, R>>;
};

/**
 * Window results as a changelog keyed by (key, window): the first firing of a
 * window is `+I`, a later firing of the same window (an early firing's
 * successor, or a late update) `-U previous, +U new` (retract) or `+U new`
 * (upsert). A window's last result is kept until the watermark passes the
 * window's end plus the allowed lateness: after that no firing can follow.
 */
export function windowChangelogFunction<K extends Key, R>(
  mode: 'retract' | 'upsert',
  allowedLateness: number,
): KeyedProcessFunction<K, WindowResult<K, R>, Change<WindowResult<K, R>>> {
  const self: Self<K, R> = {
    open(ctx: KeyedRuntimeContext) {
      this.last = ctx.state.getMapState<string, WindowResult<K, R>>('last');
    },
    processElement(result, ctx, out) {
      const last = this.last!;
      const id = `${result.window.start}:${result.window.end}`;
      const prev = last.get(id);
      last.put(id, result);
      if (prev === undefined) {
        out.collect({ kind: '+I', value: result });
        ctx.timerService.registerEventTimeTimer(
          windowCleanupTime(result.window.end, allowedLateness),
        );
        return;
      }
      if (mode === 'retract') out.collect({ kind: '-U', value: prev });
      out.collect({ kind: '+U', value: result });
    },
    onTimer(time) {
      const last = this.last!;
      const done: string[] = [];
      for (const [id, r] of last.entries()) {
        if (windowCleanupTime(r.window.end, allowedLateness) <= time) done.push(id);
      }
      for (const id of done) last.remove(id);
    },
  };
  return self;
}
