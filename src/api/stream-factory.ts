/**
 * The one place that knows every stream implementation: it wires them into
 * the `StreamFactory` each environment hands its streams, so the
 * implementation modules create each other through it instead of importing
 * each other (which would make import cycles: a changelog stream extends a
 * data stream, and a data stream can become a changelog).
 */
import { changelogOperations } from './changelog-stream.js';
import { ConnectedStreamsImpl } from './connected-streams.js';
import { DataStreamImpl } from './data-stream.js';
import { IntervalJoinImpl, TwoStreamsImpl } from './joins.js';
import { KeyedStreamImpl } from './keyed-stream.js';
import type { StreamFactory } from './stream-builder.js';
import { windowedStream } from './windowed-stream.js';

/** Creates every kind of stream; shared by all environments (it holds no state). */
export const streamFactory: StreamFactory = {
  dataStream: (builder, refs) => new DataStreamImpl(builder, refs),
  keyedStream: (input, selectKey, keyName) => new KeyedStreamImpl(input, selectKey, keyName),
  windowedStream,
  twoStreams: (left, right, mode) => new TwoStreamsImpl(left, right, mode),
  intervalJoin: (left, right) => new IntervalJoinImpl(left, right),
  connect: (first, second) => new ConnectedStreamsImpl(first, second),
  ...changelogOperations,
};
