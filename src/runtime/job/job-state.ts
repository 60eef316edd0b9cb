/**
 * The life of a job as its runner sees it, with every transition in one pure
 * function so each can be tested on its own:
 *
 * - created, restarting --started--> running
 * - created, running, restarting --failed, restart allowed--> restarting
 * - any state not ended --failed, no restart (or stopping)--> failed
 * - created, running, restarting --stop--> stopping (an attempt started then stops at once)
 * - running, restarting, stopping --ended--> finished (input ran out) | cancelled (stopped)
 *
 * `stopping`: the job was cancelled, or stopped at a savepoint, and its
 * current attempt is winding down; it is never restarted.
 */

/** Where a job is in its life. */
export type JobState =
  | 'created'
  | 'running'
  | 'restarting'
  | 'stopping'
  | 'finished'
  | 'cancelled'
  | 'failed';

/** What happened to the job. */
export type JobEvent =
  /** An attempt built its tasks and its checkpoint coordinator: it is about to run. */
  | { readonly kind: 'started' }
  /** An attempt (or the job outside one) failed; `restart` says whether the strategy allows another. */
  | { readonly kind: 'failed'; readonly restart: boolean }
  /** Cancelled, or stopped after a savepoint: end as cancelled once the attempt has stopped. */
  | { readonly kind: 'stop' }
  /** The job ended without failing: its input ran out (`finished`) or it was stopped. */
  | { readonly kind: 'ended'; readonly outcome: 'finished' | 'stopped' };

/** Whether the job has ended: nothing more happens to it. */
export function isEnded(state: JobState): state is 'finished' | 'cancelled' | 'failed' {
  return state === 'finished' || state === 'cancelled' || state === 'failed';
}

/** The state after `event`. An ended job stays as it ended. */
export function nextState(state: JobState, event: JobEvent): JobState {
  if (isEnded(state)) return state;
  switch (event.kind) {
    case 'started':
      // A job asked to stop before its attempt was built stays stopping: the attempt stops at once.
      return state === 'stopping' ? 'stopping' : 'running';
    case 'failed':
      // A job being stopped is not restarted: its failure ends it.
      return event.restart && state !== 'stopping' ? 'restarting' : 'failed';
    case 'stop':
      return 'stopping';
    case 'ended':
      return event.outcome === 'finished' ? 'finished' : 'cancelled';
  }
}
