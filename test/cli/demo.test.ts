/** The demo's parts as plain functions: the click stream, the result board and the views. */
import { describe, expect, it } from 'vitest';
import { clickGenerator } from '../../src/cli/demo/click-stream.js';
import { DemoBoard } from '../../src/cli/demo/demo-board.js';
import { buildClickDemo, DEMO_OPERATORS, DEMO_TIMING } from '../../src/cli/demo/demo-job.js';
import {
  type DemoStatus,
  renderFrame,
  renderPlainUpdate,
  renderSummary,
} from '../../src/cli/demo/terminal-view.js';
import { StreamEnvironment } from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';

const START = Date.UTC(2025, 0, 1, 12, 0, 0);

describe('click stream', () => {
  const shape = {
    startTime: START,
    ratePerSecond: 1000,
    maxOutOfOrdernessMs: 500,
    stragglerFraction: 0.01,
    stragglerExtraMs: 1000,
    lateFraction: 0.01,
    lateDelayMs: [5000, 10_000] as const,
  };

  it('is a pure function of the index', () => {
    const a = clickGenerator(shape);
    const b = clickGenerator(shape);
    const random = new DeterministicRandom();
    for (const i of [0, 1, 999, 12_345]) {
      expect(a(i, random.reseed(7, i))).toEqual(b(i, random.reseed(7, i)));
    }
  });

  it('delays clicks within the bound, except stragglers and late clicks', () => {
    const generate = clickGenerator(shape);
    const random = new DeterministicRandom();
    let ordinary = 0;
    let stragglers = 0;
    let late = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const click = generate(i, random.reseed(1, i));
      const delay = START + i - click.timestamp; // one click per ms
      expect(click.timestamp).toBeGreaterThanOrEqual(START);
      if (delay <= 500) ordinary++;
      else if (delay <= 1500) stragglers++;
      else {
        expect(delay).toBeGreaterThanOrEqual(5000);
        late++;
      }
    }
    expect(ordinary / n).toBeGreaterThan(0.97);
    expect(stragglers).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(0);
  });

  it('gives every user a visit of at most 8 seconds, so sessions end', () => {
    const generate = clickGenerator(shape);
    const random = new DeterministicRandom();
    const seen = new Map<string, { first: number; last: number }>();
    for (let i = 0; i < 30_000; i++) {
      const { user } = generate(i, random.reseed(1, i));
      const span = seen.get(user) ?? { first: i, last: i };
      span.last = i;
      seen.set(user, span);
    }
    expect(seen.size).toBeGreaterThan(10);
    for (const { first, last } of seen.values()) expect(last - first).toBeLessThanOrEqual(8000);
  });
});

describe('demo job and board', () => {
  async function runBounded(count: number) {
    const env = new StreamEnvironment({ parallelism: 2 });
    const board = new DemoBoard(() => START + 60_000);
    buildClickDemo(
      env,
      { startTime: START, ratePerSecond: 5000, windowMs: 1000, count, throttle: false },
      board.outputs(),
    );
    const result = await env.execute('demo test');
    return { board, result };
  }

  it('accounts for every click: in a window count or in the late side output', async () => {
    const { board, result } = await runBounded(30_000);
    const counted = board.recentWindows(1000).reduce((sum, row) => sum + row.count, 0);
    expect(board.lateClicks).toBeGreaterThan(0);
    expect(counted + board.lateClicks).toBe(30_000);
    expect(
      result.metric('weir_window_late_records_total', { operator: DEMO_OPERATORS.pageCounts }),
    ).toBe(board.lateClicks);
    expect(board.windowUpdates).toBeGreaterThan(0);
    expect(board.sessionsClosed).toBeGreaterThan(0);
    for (const s of board.recentSessions(50)) {
      expect(s.last - s.first).toBeLessThanOrEqual(8000 + DEMO_TIMING.maxOutOfOrdernessMs);
    }
  });

  it('renders a frame, plain updates and a summary', async () => {
    const { board } = await runBounded(10_000);
    const status: DemoStatus = {
      now: START + 2600,
      elapsedMs: 2000,
      limitMs: 20_000,
      eventsPerSecond: 5000,
      eventsTotal: 10_000,
      watermark: START + 2000,
      lateRecords: board.lateClicks,
    };
    const frame = renderFrame(
      board,
      status,
      { rate: 5000, windowMs: 1000, parallelism: 2 },
      {
        rows: 24,
      },
    );
    expect(frame.length).toBeLessThanOrEqual(24);
    const text = frame.map((l) => l.text).join('\n');
    expect(text).toContain('5,000 events/s │ watermark');
    expect(text).toContain('(600 ms behind)');
    expect(text).toContain('0:02 of 0:20 │ Ctrl-C to stop');
    expect(text).toMatch(/PAGE +WINDOW +COUNT +UPDATED/);
    expect(text).toMatch(/USER +FIRST CLICK +LAST CLICK +LENGTH +CLICKS +PAGES/);

    const plain = renderPlainUpdate(board, status);
    expect(plain[0]).toMatch(/^\[\d\d:\d\d:\d\d\] 5,000 events\/s · watermark/);
    expect(plain.filter((l) => l.includes(' window ')).length).toBeGreaterThan(1);
    // Periods are reported once.
    expect(renderPlainUpdate(board, status)).toHaveLength(1);

    const summary = renderSummary(board, status, 'time limit reached');
    expect(summary[0]).toBe('Demo stopped after 2 s (time limit reached).');
    expect(summary.join('\n')).toContain('events read      10,000 (5,000/s)');
  });
});
