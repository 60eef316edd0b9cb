/**
 * A channel on which a thread can wait, blocked, for a message from a worker
 * thread: for calls that must answer synchronously (a sink's pre-commit at a
 * checkpoint barrier) while the I/O they wait for runs on the worker's event
 * loop. The worker posts on a `MessagePort` and then bumps a shared counter;
 * the caller sleeps in `Atomics.wait` on that counter and takes the message
 * with `receiveMessageOnPort`, so its own event loop never has to run.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads';

/** The worker's end of a {@link SyncChannel}: send it in `workerData` (or a message) with `port` in the transfer list. */
export interface SyncChannelEnd {
  /** Where the worker posts its messages. */
  readonly port: MessagePort;
  /** Int32 counter the worker increments, and notifies, after each message. */
  readonly signal: SharedArrayBuffer;
}

/** The waiting end of a channel from a worker thread; create it on the thread that blocks. */
export class SyncChannel {
  /** The end to hand to the worker (transfer `remote.port`). */
  readonly remote: SyncChannelEnd;
  /** This end's port: also usable asynchronously (`on('message')`) between blocking waits. */
  readonly port: MessagePort;
  private readonly signal: Int32Array;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.port = port1;
    this.signal = new Int32Array(signal);
    this.remote = { port: port2, signal };
  }

  /**
   * Returns the next message of the worker, blocking this thread for at
   * most `timeoutMs` until one arrives; `undefined` if none did in time.
   * A message already waiting is returned at once.
   */
  receiveSync(timeoutMs: number): { readonly message: unknown } | undefined {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Read the counter before looking at the port: a message posted after
      // the look changes the counter, so the wait below cannot miss it.
      const seen = Atomics.load(this.signal, 0);
      const received = receiveMessageOnPort(this.port);
      if (received !== undefined) return received;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.signal, 0, seen, left);
    }
  }

  /** Closes this end. */
  close(): void {
    this.port.close();
  }
}

/**
 * The worker's side of a {@link SyncChannel}: returns the function that
 * posts a message and wakes a caller blocked in `receiveSync`.
 */
export function syncReplier(end: SyncChannelEnd): (message: unknown) => void {
  const counter = new Int32Array(end.signal);
  return (message) => {
    end.port.postMessage(message);
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
  };
}
