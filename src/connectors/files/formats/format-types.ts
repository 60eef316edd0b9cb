/**
 * The contract between file sources and file formats, apart from the
 * built-in formats so that they can implement it without importing the
 * module that lists them.
 */

/** Where in its file a record starts; given to `parse` hooks and carried by bad records. */
export interface RecordPosition {
  readonly file: string;
  /** 1-based line number where the record starts. */
  readonly line: number;
}

/**
 * What a {@link FileFormat} reports to while it reads one file. `record` and
 * `bad` never throw; a format calls `proceed` between chunks of input and
 * stops reading when it rejects.
 */
export interface FormatOutput<T> {
  /** A record read, in file order. */
  readonly record: (value: T) => void;
  /** A record that could not be read; `error` says why (a thrown value or a message). */
  readonly bad: (line: number, text: string, error: unknown) => void;
  /**
   * Resolves when reading may go on (there is room in the reader's buffer);
   * rejects when it must stop: the job is failing (e.g. a bad record under
   * `'fail'`) or the reader is closing. Call it after each chunk of input.
   */
  readonly proceed: () => Promise<void>;
  /**
   * Bytes of the file read since the last call; call it once per chunk. They
   * are counted as the source's `weir_source_bytes_read_total`.
   */
  readonly bytesRead: (count: number) => void;
}

/**
 * How the bytes of a file become records: JSON Lines or CSV, see
 * `FileFormat.jsonLines` and `FileFormat.csv`. A format reads one whole file
 * per call, reports every record in file order, and reports every record it
 * cannot read through `output.bad` instead of throwing; it throws (rejects)
 * only for I/O errors or when `output.proceed()` rejects.
 */
export interface FileFormat<T> {
  /** Short name, e.g. `'jsonl'` or `'csv'`, shown in source names. */
  readonly name: string;
  /** Reads `file` from start to end; stops early when `signal` aborts. */
  readonly read: (file: string, output: FormatOutput<T>, signal: AbortSignal) => Promise<void>;
}
