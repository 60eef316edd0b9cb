/** `DataStream.connect`: two streams into one function with a method per input, keyed or not. */
import type {
  CoFlatMapFunction,
  CoMapFunction,
  CoProcessFunction,
  KeyedCoFlatMapFunction,
  KeyedCoMapFunction,
  KeyedCoProcessFunction,
} from '../core/co-functions.js';
import { invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { CoProcessNode, KeyedCoProcessNode } from '../plan/logical/nodes.js';
import { addTwoInputNode, type KeyedParts, keyedBy, type StreamParts } from './stream-builder.js';
import type { ConnectedStreams, DataStream, KeyedConnectedStreams } from './streams.js';

type CoFunctionSpec = CoProcessNode['apply'];
type KeyedCoFunctionSpec = KeyedCoProcessNode['apply'];

/** The methods each kind of co-function must have, and how the step is named. */
const SHAPES = {
  map: { methods: ['map1', 'map2'], call: 'map', name: 'co-map' },
  'flat-map': { methods: ['flatMap1', 'flatMap2'], call: 'flatMap', name: 'co-flatMap' },
  process: {
    methods: ['processElement1', 'processElement2'],
    call: 'process',
    name: 'co-process',
  },
} as const;

/** Checks `fn` has the methods of `kind` (a JavaScript caller may pass anything). */
function checked<F>(fn: F, kind: keyof typeof SHAPES, keyed = false): F {
  const { methods, call } = SHAPES[kind];
  const record = fn as Record<string, unknown> | null | undefined;
  if (
    typeof record !== 'object' ||
    record === null ||
    methods.some((m) => typeof record[m] !== 'function')
  ) {
    throw invalidArgument(
      `connect(...)${keyed ? '.keyBy(...)' : ''}.${call}() needs an object with ${methods[0]} and ${methods[1]} methods`,
    );
  }
  return fn;
}

/** The implementation of {@link ConnectedStreams}: two streams, neither partitioned. */
export class ConnectedStreamsImpl<IN1, IN2> implements ConnectedStreams<IN1, IN2> {
  constructor(
    private readonly first: StreamParts,
    private readonly second: StreamParts,
  ) {}

  private add<R>(apply: CoFunctionSpec): DataStream<R> {
    return addTwoInputNode<R>(
      this.first,
      this.second,
      { kind: 'co-process', apply },
      SHAPES[apply.kind].name,
      [{ kind: 'forward' }, { kind: 'forward' }],
    );
  }

  map<R>(fn: CoMapFunction<IN1, IN2, R>): DataStream<R> {
    const checkedFn = checked(fn, 'map') as unknown as CoMapFunction<never, never, unknown>;
    return this.add({ kind: 'map', fn: checkedFn });
  }

  flatMap<R>(fn: CoFlatMapFunction<IN1, IN2, R>): DataStream<R> {
    const checkedFn = checked(fn, 'flat-map') as unknown as CoFlatMapFunction<
      never,
      never,
      unknown
    >;
    return this.add({ kind: 'flat-map', fn: checkedFn });
  }

  process<R>(fn: CoProcessFunction<IN1, IN2, R>): DataStream<R> {
    const checkedFn = checked(fn, 'process') as unknown as CoProcessFunction<never, never, unknown>;
    return this.add({ kind: 'process', fn: checkedFn });
  }

  keyBy<K extends Key>(
    key1: (value: IN1) => K,
    key2: (value: IN2) => K,
  ): KeyedConnectedStreams<IN1, IN2, K> {
    if (typeof key1 !== 'function' || typeof key2 !== 'function') {
      throw invalidArgument(
        'connect(...).keyBy(key1, key2) needs a key selector function for each input, e.g. (r) => r.id',
      );
    }
    return new KeyedConnectedStreamsImpl(
      { ...this.first, partitioning: keyedBy(key1, 'key1') },
      { ...this.second, partitioning: keyedBy(key2, 'key2') },
    );
  }
}

/** The implementation of {@link KeyedConnectedStreams}: both inputs through keyed exchanges. */
export class KeyedConnectedStreamsImpl<IN1, IN2, K extends Key>
  implements KeyedConnectedStreams<IN1, IN2, K>
{
  constructor(
    private readonly first: KeyedParts,
    private readonly second: KeyedParts,
  ) {}

  private add<R>(apply: KeyedCoFunctionSpec): DataStream<R> {
    return addTwoInputNode<R>(
      this.first,
      this.second,
      { kind: 'keyed-co-process', apply },
      `keyed ${SHAPES[apply.kind].name}`,
      [this.first.partitioning, this.second.partitioning],
      { keyed: true, stateful: true },
    );
  }

  map<R>(fn: KeyedCoMapFunction<IN1, IN2, R>): DataStream<R> {
    const checkedFn = checked(fn, 'map', true) as unknown as KeyedCoMapFunction<
      never,
      never,
      unknown
    >;
    return this.add({ kind: 'map', fn: checkedFn });
  }

  flatMap<R>(fn: KeyedCoFlatMapFunction<IN1, IN2, R>): DataStream<R> {
    const checkedFn = checked(fn, 'flat-map', true) as unknown as KeyedCoFlatMapFunction<
      never,
      never,
      unknown
    >;
    return this.add({ kind: 'flat-map', fn: checkedFn });
  }

  process<R>(fn: KeyedCoProcessFunction<K, IN1, IN2, R>): DataStream<R> {
    const checkedFn = checked(fn, 'process', true) as unknown as KeyedCoProcessFunction<
      Key,
      never,
      never,
      unknown
    >;
    return this.add({ kind: 'process', fn: checkedFn });
  }
}
