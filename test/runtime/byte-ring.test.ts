import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRing,
  messageLength,
  type RingMessage,
  RingReader,
  RingWriter,
} from '../../src/runtime/workers/byte-ring.js';
import { connectPeers, PeerChannels } from '../../src/runtime/workers/peer-channels.js';
import { Wakeup } from '../../src/runtime/workers/wakeup.js';
import {
  controlFrame,
  readFrame,
  type WireMessage,
} from '../../src/runtime/workers/wire-frames.js';

/** A message of `n` bytes counting up from `seed` (one chunk). */
function bytes(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (seed + i) & 0xff;
  return b;
}

function drainAll(reader: RingReader): Uint8Array[] {
  const out: Uint8Array[] = [];
  reader.drain((m) => out.push(m.slice()));
  return out;
}

describe('the shared-memory ring between two workers', () => {
  it('refuses a capacity that is not a power of two of at least 256 bytes', () => {
    for (const n of [0, 100, 255, 1000, 2 ** 31])
      expect(() => createRing(n)).toThrow(/power of two/);
  });

  it('delivers messages in order, each once, whatever their sizes and however the ring wraps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        (sizes, readEvery) => {
          const memory = createRing(1024);
          const writer = new RingWriter(memory);
          const reader = new RingReader(memory);
          const received: Uint8Array[] = [];
          let i = 0;
          let rounds = 0;
          // Write what fits, read every few rounds: the ring fills, wraps and empties.
          while (received.length < sizes.length) {
            if (writer.resume() && i < sizes.length) writer.write([bytes(sizes[i]!, i++)]);
            if (++rounds % readEvery === 0 || writer.blocked || i === sizes.length)
              reader.drain((m) => received.push(m.slice()));
            expect(rounds).toBeLessThan(100_000);
          }
          expect(received.map((m) => m.byteLength)).toEqual(sizes.map((n) => (n + 7) & ~7));
          received.forEach((m, k) => {
            expect(m.subarray(0, sizes[k])).toEqual(bytes(sizes[k]!, k));
          });
        },
      ),
    );
  });

  it('a full ring refuses more, keeps the rest of the message, and takes it once the reader made room', () => {
    const memory = createRing(256);
    const writer = new RingWriter(memory);
    const reader = new RingReader(memory);
    expect(writer.write([bytes(100, 1)])).toBe(true);
    // 100 bytes take 112 with the frame header; 120 more do not fit in the 144 left.
    expect(writer.write([bytes(120, 2)])).toBe(true);
    expect(writer.write([bytes(50, 3)])).toBe(false);
    expect(writer.blocked).toBe(true);
    expect(writer.fullCount).toBe(1);
    expect(() => writer.write([bytes(1, 4)])).toThrow(/still being written/);
    expect(writer.resume()).toBe(false);
    expect(drainAll(reader).map((m) => m.byteLength)).toEqual([104, 120]);
    expect(writer.resume()).toBe(true);
    const [third] = drainAll(reader);
    expect(third!.subarray(0, 50)).toEqual(bytes(50, 3));
  });

  it('cuts a message longer than half the ring into parts and joins them on the other side', () => {
    const memory = createRing(256);
    const writer = new RingWriter(memory);
    const reader = new RingReader(memory);
    const chunks: RingMessage = [bytes(3, 10), bytes(900, 20), bytes(17, 30)];
    const received: Uint8Array[] = [];
    let done = writer.write(chunks);
    for (let i = 0; !done; i++) {
      reader.drain((m) => received.push(m.slice()));
      done = writer.resume();
      expect(i).toBeLessThan(100);
    }
    reader.drain((m) => received.push(m.slice()));
    expect(received).toHaveLength(1);
    const m = received[0]!;
    expect(m.byteLength).toBe(messageLength(chunks));
    // Each chunk starts 8-byte aligned: 3 -> 8, 900 -> 904.
    expect(m.subarray(0, 3)).toEqual(bytes(3, 10));
    expect(m.subarray(8, 908)).toEqual(bytes(900, 20));
    expect(m.subarray(912, 929)).toEqual(bytes(17, 30));
  });

  it('asks for a doorbell only when the other side sleeps or waits for room', () => {
    const memory = createRing(256);
    const writer = new RingWriter(memory);
    const reader = new RingReader(memory);
    expect(writer.takeReaderWaiting()).toBe(false);
    expect(reader.sleep()).toBe(true); // nothing to read: it may sleep
    writer.write([bytes(8, 0)]);
    expect(writer.takeReaderWaiting()).toBe(true); // so the write must ring
    expect(writer.takeReaderWaiting()).toBe(false); // once
    expect(reader.sleep()).toBe(false); // data is there: read instead of sleeping
    writer.waitForRoom();
    drainAll(reader);
    expect(reader.takeWriterWaiting()).toBe(true);
    expect(reader.takeWriterWaiting()).toBe(false);
  });
});

describe('worker links over rings', () => {
  const batchOf = (from: number, n: number) => ({
    values: Array.from({ length: n }, (_, i) => ({ id: from + i, name: `r${from + i}` })),
    timestamps: Array.from({ length: n }, (_, i) => from + i),
    keys: undefined,
  });

  /** Messages until the port's doorbells have been handled and nothing more arrives. */
  async function settle(...links: PeerChannels[]): Promise<void> {
    for (let quiet = 0; quiet < 3; ) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      let moved = false;
      for (const l of links) if (l.poll() || l.flush(true)) moved = true;
      quiet = moved ? 0 : quiet + 1;
    }
  }

  it('a slow consumer behind a full ring: batches, watermarks and a barrier arrive complete and in order', async () => {
    const [la, lb] = connectPeers(1024);
    const a = new PeerChannels(la, new Wakeup());
    const b = new PeerChannels(lb, new Wakeup());
    // Capacity allows far more than the ring holds: the ring, not the credits, is the limit here.
    const sender = a.sender('0/0/1', 64);
    const receiver = b.receiver('0/0/1');
    const sent: number[] = [];
    for (let k = 0; k < 20; k++) {
      const batch = batchOf(k * 600, 600);
      sent.push(...batch.values.map((v) => v.id));
      sender.push({ kind: 'batch', batch });
      sender.push({ kind: 'watermark', time: k * 600 + 599 });
    }
    sender.push({ kind: 'barrier', checkpointId: 7, savepoint: false, stop: false });
    sender.push({ kind: 'end' });
    a.flush(true);
    expect(a.ringFullCount()).toBeGreaterThan(0);
    // The consumer takes one message per turn; the sender only flushes and reacts to doorbells.
    const got: number[] = [];
    const kinds: string[] = [];
    for (let turn = 0; kinds.at(-1) !== 'end'; turn++) {
      b.poll();
      const m = receiver.shift();
      if (m !== undefined) {
        kinds.push(m.kind);
        if (m.kind === 'batch') got.push(...(m.batch.values as { id: number }[]).map((v) => v.id));
      }
      b.flush(true);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(turn).toBeLessThan(10_000);
    }
    expect(got).toEqual(sent);
    // The barrier came after every batch before it, and the last watermark just before it.
    expect(kinds.slice(-3)).toEqual(['watermark', 'barrier', 'end']);
    expect(kinds.filter((k) => k === 'batch')).toHaveLength(20);
    await settle(a, b);
    a.close();
    b.close();
  });

  it('wakes a sleeping reader with one doorbell when data arrives', async () => {
    const [la, lb] = connectPeers(1024);
    const wakeB = new Wakeup();
    const a = new PeerChannels(la, new Wakeup());
    const b = new PeerChannels(lb, wakeB);
    const sender = a.sender('0/0/1', 8);
    const receiver = b.receiver('0/0/1');
    expect(b.prepareToSleep()).toBe(true);
    const woken = wakeB.wait();
    sender.push({ kind: 'batch', batch: batchOf(0, 3) });
    a.flush(true);
    await woken;
    expect(receiver.shift()?.kind).toBe('batch');
    a.close();
    b.close();
  });
});

describe('frames between workers', () => {
  const roundTrip = (m: WireMessage) => readFrame(messageBytes(controlFrame(m)));

  it('keep infinite watermarks (end of input) and record limits, which JSON alone would turn into null', () => {
    for (const time of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -5, 1.5e12]) {
      expect(roundTrip({ t: 'watermark', ch: '0/0/1', time })).toEqual({
        t: 'watermark',
        ch: '0/0/1',
        time,
      });
    }
    expect(
      roundTrip({ t: 'credit', ch: '1/1/0', n: 2, r: 900, limit: Number.POSITIVE_INFINITY }),
    ).toEqual({ t: 'credit', ch: '1/1/0', n: 2, r: 900, limit: Number.POSITIVE_INFINITY });
    expect(
      roundTrip({ t: 'barrier', ch: '2/0/0', checkpointId: 3, savepoint: true, stop: false }),
    ).toEqual({ t: 'barrier', ch: '2/0/0', checkpointId: 3, savepoint: true, stop: false });
  });

  it('refuse a frame whose lengths reach past its end, naming the problem', () => {
    const bytes = messageBytes(controlFrame({ t: 'end', ch: '0/0/0' }));
    expect(() => readFrame(bytes.subarray(0, 10))).toThrow(/damaged frame between workers/);
  });
});

/** A frame's chunks laid out as a ring reader sees them. */
function messageBytes(message: RingMessage): Uint8Array {
  const memory = createRing(4096);
  new RingWriter(memory).write(message);
  let out: Uint8Array | undefined;
  new RingReader(memory).drain((m) => {
    out = m.slice();
  });
  return out!;
}
