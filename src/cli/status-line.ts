/**
 * A one-line live status at the bottom of a terminal, redrawn in place.
 *
 * The job's own output (PrintSink, console.log) goes to the same terminal, so
 * the status line clears itself before any other write to stdout or stderr
 * and is drawn again on the next tick, only when the cursor is at the start
 * of a line: a job's partial line is never overwritten.
 */
export class LiveStatusLine {
  private text = '';
  private visible = false;
  private atLineStart = true;
  private readonly restores: (() => void)[] = [];
  private readonly writeToTerminal: (chunk: string) => boolean;

  constructor(
    /** The terminal the status is drawn on. */
    private readonly terminal: NodeJS.WriteStream,
    /** Streams whose writes must not collide with the status (usually stdout and stderr). */
    watched: readonly NodeJS.WriteStream[],
  ) {
    this.writeToTerminal = terminal.write.bind(terminal) as (chunk: string) => boolean;
    for (const stream of new Set([terminal, ...watched])) this.intercept(stream);
  }

  /** Replaces the status text and draws it. */
  update(text: string): void {
    this.text = text;
    this.draw();
  }

  /** Removes the status line and stops watching the streams. */
  close(): void {
    this.clear();
    for (const restore of this.restores.splice(0)) restore();
  }

  private draw(): void {
    if (!this.atLineStart) return;
    // A terminal that does not know its size reports 0 columns.
    const width = Math.max(10, (this.terminal.columns || 80) - 1);
    const shown = this.text.length > width ? `${this.text.slice(0, width - 1)}…` : this.text;
    this.writeToTerminal(`\r\x1b[2K${shown}`);
    this.visible = true;
  }

  private clear(): void {
    if (!this.visible) return;
    this.writeToTerminal('\r\x1b[2K');
    this.visible = false;
  }

  private intercept(stream: NodeJS.WriteStream): void {
    const original = stream.write;
    const write = original.bind(stream) as (...args: unknown[]) => boolean;
    const patched = (...args: unknown[]): boolean => {
      this.clear();
      const chunk = args[0];
      if (typeof chunk === 'string' && chunk.length > 0) this.atLineStart = chunk.endsWith('\n');
      else if (chunk instanceof Uint8Array && chunk.length > 0) {
        this.atLineStart = chunk[chunk.length - 1] === 0x0a;
      }
      return write(...args);
    };
    stream.write = patched as typeof stream.write;
    this.restores.push(() => {
      stream.write = original;
    });
  }
}
