/**
 * Buffers staged rows column by column, 2048 rows (one DuckDB data chunk) at a time. Number columns are kept in
 * typed arrays with a validity bitmap, so that a chunk crosses into DuckDB, or to another thread, as a few memory
 * copies. Nothing here loads DuckDB: the JSON import worker fills these buffers too (see json-import-worker.ts).
 */

export type Cell = number | string | bigint | null;

export interface RowSink {
  /** Appends one row; `values` must have one cell per column, in table order. */
  row(values: Cell[]): void;
  close(): void;
}

export const nullRowSink: RowSink = { row() {}, close() {} };

/** DuckDB's standard vector size: the most rows one data chunk holds. */
export const CHUNK_ROWS = 2048;

/** How a column is buffered: TINYINT, INTEGER, BIGINT and DOUBLE in typed arrays, any other type as JS values. */
export interface ColumnSpec { kind: 'i8' | 'i32' | 'i64' | 'f64' | 'any'; typeName: string }

export type NumberArray = Int8Array | Int32Array | BigInt64Array | Float64Array;

/**
 * One buffered column of a chunk: `valid` (bit r set when row r is not null) is null when no row is null. A chunk
 * posted to another thread carries a column of strings as `strings` instead of `values` (see `detachChunk`).
 */
export interface ChunkColumn {
  numbers: NumberArray | null;
  values: Cell[] | null;
  valid: Uint8Array | null;
  strings?: PackedStrings;
}

/** Strings as one text and each one's length (-1: null): one copy to post, not one per string. */
export interface PackedStrings { text: string; lengths: Int32Array }

/** Up to CHUNK_ROWS rows; its arrays belong to the buffer and are reused once the consumer returns. */
export interface ColumnChunk { rows: number; columns: ChunkColumn[] }

interface Column {
  spec: ColumnSpec;
  numbers: NumberArray | null;
  /** INTEGER and TINYINT: the value must survive the typed array unchanged (DuckDB's appender checks range). */
  integer: boolean;
  /** BIGINT: `numbers` as 32-bit halves, low first (little-endian), for numbers (a BigInt per cell costs more). */
  halves: Int32Array | null;
  values: Cell[] | null;
  /** DuckDB's validity mask layout on little-endian hosts. */
  valid: Uint8Array;
  hasNull: boolean;
}

function numberArray(kind: ColumnSpec['kind']): NumberArray | null {
  switch (kind) {
    case 'i8': return new Int8Array(CHUNK_ROWS);
    case 'i32': return new Int32Array(CHUNK_ROWS);
    case 'i64': return new BigInt64Array(CHUNK_ROWS);
    case 'f64': return new Float64Array(CHUNK_ROWS);
    default: return null;
  }
}

export class ColumnBuffer implements RowSink {
  private readonly cols: Column[];
  private rows = 0;

  /** `onChunk` takes each full chunk, and the partial last one at `close`, before `onClose`. */
  constructor(specs: readonly ColumnSpec[], private readonly onChunk: (chunk: ColumnChunk) => void,
    private readonly onClose: () => void = () => {}) {
    this.cols = specs.map((spec) => {
      const numbers = numberArray(spec.kind);
      return {
        spec, numbers, integer: spec.kind !== 'f64', halves: spec.kind === 'i64' ? new Int32Array(numbers!.buffer) : null,
        values: numbers ? null : new Array<Cell>(CHUNK_ROWS),
        valid: new Uint8Array(CHUNK_ROWS / 8).fill(0xff), hasNull: false,
      };
    });
  }

  row(values: Cell[]): void {
    const r = this.rows;
    for (let c = 0; c < values.length; c++) {
      const col = this.cols[c]!;
      const v = values[c]!;
      if (v === null) {
        col.valid[r >> 3]! &= ~(1 << (r & 7));
        col.hasNull = true;
        if (col.values) col.values[r] = null;
        continue;
      }
      const numbers = col.numbers;
      if (numbers === null) { col.values![r] = v; continue; }
      if (col.halves !== null) { this.int64(col.halves, numbers as BigInt64Array, r, c, v); continue; }
      if (typeof v !== 'number') this.refuse(r, `column ${c} (${col.spec.typeName}) given ${typeof v} ${String(v)}`);
      numbers[r] = v;
      if (col.integer && numbers[r] !== v) this.refuse(r, `column ${c} (${col.spec.typeName}) cannot hold ${v}`);
    }
    if (++this.rows === CHUNK_ROWS) this.flush();
  }

  /** A BIGINT cell: a safe integer split into its halves, or a bigint within int64. */
  private int64(halves: Int32Array, big: BigInt64Array, r: number, c: number, v: Cell): void {
    if (typeof v === 'number' && Number.isSafeInteger(v)) {
      const high = Math.floor(v / 4294967296);
      halves[2 * r] = v - high * 4294967296; // stored modulo 2^32: the low half's bits
      halves[2 * r + 1] = high;
    } else if (typeof v === 'bigint' && BigInt.asIntN(64, v) === v) big[r] = v;
    else this.refuse(r, `column ${c} (BIGINT) cannot hold ${typeof v} ${String(v)}`);
  }

  /** Drops the half-written row r (its null bits would otherwise stay for the next row) and throws. */
  private refuse(r: number, message: string): never {
    for (const col of this.cols) col.valid[r >> 3]! |= 1 << (r & 7);
    throw new Error(message);
  }

  private flush(): void {
    const n = this.rows;
    if (n === 0) return;
    this.onChunk({
      rows: n,
      columns: this.cols.map((col) => ({ numbers: col.numbers, values: col.values, valid: col.hasNull ? col.valid : null })),
    });
    for (const col of this.cols) if (col.hasNull) { col.valid.fill(0xff); col.hasNull = false; }
    this.rows = 0;
  }

  close(): void {
    this.flush();
    this.onClose();
  }
}

/**
 * A copy of a chunk's rows that another thread can own (its buffers go in the transfer list). Posting an array
 * of strings clones each one, which cost more than all the rest of the posting: strings go packed.
 */
export function detachChunk(chunk: ColumnChunk): { chunk: ColumnChunk; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const n = chunk.rows;
  const columns = chunk.columns.map((c): ChunkColumn => {
    const numbers = c.numbers === null ? null : c.numbers.slice(0, n);
    const valid = c.valid === null ? null : c.valid.slice(0, Math.ceil(n / 64) * 8);
    if (numbers) transfer.push(numbers.buffer as ArrayBuffer);
    if (valid) transfer.push(valid.buffer as ArrayBuffer);
    const strings = c.values === null ? null : packStrings(c.values, n);
    if (strings) transfer.push(strings.lengths.buffer as ArrayBuffer);
    const values = c.values === null || strings !== null ? null : c.values.slice(0, n);
    return strings ? { numbers, values, valid, strings } : { numbers, values, valid };
  });
  return { chunk: { rows: n, columns }, transfer };
}

/** The first n values packed, or null when one of them is neither a string nor null. */
function packStrings(values: Cell[], n: number): PackedStrings | null {
  const lengths = new Int32Array(n);
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) { lengths[i] = -1; parts[i] = ''; continue; }
    if (typeof v !== 'string') return null;
    lengths[i] = v.length;
    parts[i] = v;
  }
  return { text: parts.join(''), lengths };
}

export function unpackStrings(p: PackedStrings): (string | null)[] {
  const { text, lengths } = p;
  const out = new Array<string | null>(lengths.length);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const len = lengths[i]!;
    if (len < 0) { out[i] = null; continue; }
    out[i] = text.substring(at, at + len);
    at += len;
  }
  return out;
}
