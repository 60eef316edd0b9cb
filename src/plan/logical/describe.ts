import type { WindowAssigner } from '../../core/windows.js';

/** A window assigner as it reads in operator names and plans: `tumbling 1000ms`, `session 30ms`. */
export function describeAssigner(a: WindowAssigner<unknown>): string {
  switch (a.kind) {
    case 'tumbling':
      return `tumbling ${a.size}ms`;
    case 'sliding':
      return `sliding ${a.size}ms/${a.slide}ms`;
    case 'cumulative':
      return `cumulative ${a.maxSize}ms/${a.step}ms`;
    case 'session':
      return typeof a.gap === 'number' ? `session ${a.gap}ms` : 'session (dynamic gap)';
    case 'global':
      return 'global';
  }
}
