import type { JobClient } from '../index.js';

/** How often a new run is looked at until its first checkpoint completes. */
const WATCH_MS = 25;

/**
 * Time-stamped lines for each phase of a keyed member's hand-over (the
 * change seen, settled, final savepoint, release, restore, start, first
 * committed checkpoint), each with the seconds since the change was first
 * seen: where a pause goes is read off a member's log, and the cluster
 * benchmark prints them per event.
 */
export class HandoverPhases {
  private since: number | undefined;

  constructor(private readonly say: (line: string) => void) {}

  /** A change of the member's tasks was seen; a hand-over already under way keeps its start. */
  begin(what: string): void {
    this.since ??= performance.now();
    this.mark(what);
  }

  mark(phase: string): void {
    const at =
      this.since === undefined ? '' : ` +${((performance.now() - this.since) / 1000).toFixed(3)} s`;
    this.say(`hand-over: ${phase}${at}`);
  }

  /**
   * Marks when `client` runs and when its first checkpoint completes (the
   * first output a transactional sink makes visible), then ends the hand-over.
   */
  watch(client: JobClient): void {
    let running = false;
    const timer = setInterval(() => {
      const status = client.monitor.status;
      if (!running && status === 'running') {
        running = true;
        this.mark('job running');
      }
      const done = client.monitor.checkpoints.entries().some((e) => e.status === 'completed');
      if (done) this.mark('first checkpoint of the new run completed');
      if (done || (status !== 'running' && status !== 'created')) {
        clearInterval(timer);
        this.since = undefined;
      }
    }, WATCH_MS);
    timer.unref();
  }
}
