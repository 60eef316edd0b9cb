/** Source of processing time. Injected so tests can control wall-clock behaviour. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
