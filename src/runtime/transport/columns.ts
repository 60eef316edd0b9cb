/**
 * The header of an encoded batch: a small tree of plain objects describing each
 * column, with column data referenced by index into the batch's list of
 * ArrayBuffers. The header is cheap to structured-clone (its size depends on
 * the number of columns, not of records); the buffers are transferred.
 *
 * A column's length is known from its context: the batch length at the top,
 * `counts[m]` for member `m` of a union, the last array offset for the items of
 * an array column.
 */
export type ColumnHeader =
  /** Every value is `null`. */
  | { readonly kind: 'null' }
  /** Every value is `undefined`. */
  | { readonly kind: 'undefined' }
  /** Numbers that are all int32 (and none is -0): an Int32Array. */
  | { readonly kind: 'i32'; readonly data: number }
  /** Any numbers: a Float64Array (keeps -0 and NaN). */
  | { readonly kind: 'f64'; readonly data: number }
  /** Booleans: a Uint8Array of 0/1. */
  | { readonly kind: 'bool'; readonly data: number }
  /** Bigints within the signed 64-bit range: a BigInt64Array. */
  | { readonly kind: 'bigint'; readonly data: number }
  /** `Date` objects: a Float64Array of their time values. */
  | { readonly kind: 'date'; readonly data: number }
  /**
   * Strings: UTF-8 bytes of all values concatenated, and a Uint32Array of
   * `n + 1` byte offsets. `chars`, present only when some character takes more
   * than one byte, is a Uint32Array of `n + 1` UTF-16 offsets into the decoded
   * text of all bytes; without it every byte is ASCII and byte offsets are
   * also character offsets.
   */
  | {
      readonly kind: 'string';
      readonly bytes: number;
      readonly offsets: number;
      readonly chars: number | undefined;
    }
  /**
   * Strings drawn from a few distinct values: the distinct values (as a nested
   * `string` column of `distinct` entries) and a Uint8Array or Uint16Array of
   * indexes into them.
   */
  | {
      readonly kind: 'dictionary';
      readonly distinct: number;
      readonly dictionary: ColumnHeader;
      readonly indexes: number;
      readonly wide: boolean;
    }
  /** `Buffer`s (`buffer: true`) or `Uint8Array`s: bytes concatenated plus offsets. */
  | {
      readonly kind: 'bytes';
      readonly bytes: number;
      readonly offsets: number;
      readonly buffer: boolean;
    }
  /** Plain objects that all have the same own keys in the same order: one column per key. */
  | {
      readonly kind: 'object';
      readonly keys: readonly string[];
      readonly fields: readonly ColumnHeader[];
    }
  /** Arrays: a Uint32Array of `n + 1` offsets into one column of all items. */
  | { readonly kind: 'array'; readonly offsets: number; readonly items: ColumnHeader }
  /**
   * Values of several kinds or object shapes: a Uint8Array with the member
   * index of each value, and one column per member holding that member's values
   * in order.
   */
  | {
      readonly kind: 'union';
      readonly tags: number;
      readonly counts: readonly number[];
      readonly members: readonly ColumnHeader[];
    }
  /**
   * The whole column as one `v8.serialize` buffer: for values with no columnar
   * form (Map, Set, RegExp, typed arrays other than Uint8Array, sparse arrays,
   * bigints beyond 64 bits, very deep nesting, too many distinct shapes).
   */
  | { readonly kind: 'serialized'; readonly data: number };

/**
 * A {@link RecordBatch} ready for `postMessage(encoded, encoded.buffers)`: the
 * buffers are transferred (moved, not copied) and the rest is a small header.
 * After the transfer, the sender's buffers are detached and must not be used.
 */
export interface EncodedBatch {
  /** Format version, checked by the decoder. */
  readonly format: 1;
  /** Number of records. */
  readonly length: number;
  /** Index of the Float64Array of event timestamps in `buffers`. */
  readonly timestamps: number;
  /**
   * The keys column, or undefined when the batch carries no keys. When every
   * key is the value of one field of its record (`keyBy((r) => r.user)`), only
   * that field's name is sent and the decoder reads the keys back from the values.
   */
  readonly keys: ColumnHeader | { readonly kind: 'field'; readonly key: string } | undefined;
  /** The values column. */
  readonly values: ColumnHeader;
  /** Every column's data, each ArrayBuffer owned by this batch alone: the transfer list. */
  readonly buffers: ArrayBuffer[];
}
