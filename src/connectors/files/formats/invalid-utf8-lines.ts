import { isUtf8 } from 'node:buffer';

const LF = 10;
const CR = 13;

/**
 * Finds the lines of a file that hold bytes which are not valid UTF-8, as the
 * file streams by in chunks, so that a parser which decodes text itself (and
 * would replace such bytes with U+FFFD) can refuse the records on those lines.
 * Lines are numbered from 1; `\r\n`, a lone `\r` and a lone `\n` each end one.
 *
 * A chunk that is valid UTF-8 (the usual case) costs one vectorised check and
 * a count of its line breaks. A character cut by the end of a chunk is held
 * back and checked with the next one.
 */
export class InvalidUtf8Lines {
  /** Lines with invalid bytes not yet asked about, ascending. */
  private readonly pending: number[] = [];
  private line = 1;
  private lastWasCr = false;
  /** Bytes at the end of the last chunk that may start a character continued in the next. */
  private tail: Buffer | undefined;

  /** Checks the next chunk of the file. */
  push(chunk: Buffer): void {
    const data = this.tail === undefined ? chunk : Buffer.concat([this.tail, chunk]);
    const cut = completeLength(data);
    this.tail = cut < data.length ? Buffer.from(data.subarray(cut)) : undefined;
    this.scan(data.subarray(0, cut));
  }

  /** Checks what was held back: call once after the last chunk. */
  end(): void {
    const tail = this.tail;
    this.tail = undefined;
    if (tail !== undefined) this.scan(tail);
  }

  /** The lines from `from` to `to` (inclusive) that hold invalid bytes. */
  within(from: number, to: number): number[] {
    return this.pending.filter((line) => line >= from && line <= to);
  }

  /** Forgets lines before `line`: asked about already (calls come in file order). */
  forget(line: number): void {
    const pending = this.pending;
    let drop = 0;
    while (drop < pending.length && (pending[drop] as number) < line) drop++;
    if (drop > 0) pending.splice(0, drop);
  }

  private scan(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (isUtf8(bytes)) {
      this.countBreaks(bytes);
      return;
    }
    // Line breaks are ASCII, so every line (part) between them starts and ends on a character boundary.
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      const c = i < bytes.length ? (bytes[i] as number) : -1;
      if (c !== LF && c !== CR && c !== -1) continue;
      if (i > start && !isUtf8(bytes.subarray(start, i))) this.mark(this.line);
      if (c === LF) {
        if (!(i === 0 ? this.lastWasCr : bytes[i - 1] === CR)) this.line++;
      } else if (c === CR) {
        this.line++;
      }
      start = i + 1;
    }
    this.lastWasCr = bytes[bytes.length - 1] === CR;
  }

  private mark(line: number): void {
    if (this.pending[this.pending.length - 1] !== line) this.pending.push(line);
  }

  /** Counts line breaks: a CR and an LF each count one, minus one per CR LF pair. */
  private countBreaks(bytes: Buffer): void {
    let breaks = 0;
    for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) {
      const afterCr = i === 0 ? this.lastWasCr : bytes[i - 1] === CR;
      if (!afterCr) breaks++;
    }
    for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 1)) breaks++;
    this.line += breaks;
    this.lastWasCr = bytes[bytes.length - 1] === CR;
  }
}

/** Length of `data` without a trailing, possibly incomplete, multi-byte character. */
function completeLength(data: Buffer): number {
  const len = data.length;
  for (let i = len - 1; i >= Math.max(0, len - 3); i--) {
    const b = data[i] as number;
    if (b < 0x80) return len;
    if (b >= 0xc0) {
      const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return i + needed > len ? i : len;
    }
  }
  return len;
}
