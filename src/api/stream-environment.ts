/**
 * `StreamEnvironment` as users see it: a constructor whose instances have
 * only the documented members of {@link StreamEnvironmentApi}. The class
 * behind it (`StreamEnvironmentImpl`) stays out of the public entry, so its
 * plumbing (the logical graph, the plan, job-module settings) is neither
 * visible nor reachable; `new StreamEnvironment(options)` and
 * `env instanceof StreamEnvironment` work as with a class.
 */
import { StreamEnvironmentImpl } from './environment.js';
import type { StreamEnvironmentApi, StreamEnvironmentConstructor } from './streams.js';

/** Where a job is described and from where it runs; see {@link StreamEnvironmentApi}. */
export const StreamEnvironment: StreamEnvironmentConstructor = StreamEnvironmentImpl;

/** An environment: the members documented on {@link StreamEnvironmentApi}. */
export type StreamEnvironment = StreamEnvironmentApi;
