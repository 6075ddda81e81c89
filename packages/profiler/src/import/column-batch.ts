/**
 * Staged rows into a DuckDB table through its appender, a data chunk at a time. Number columns cross as one
 * memory copy per chunk, with a validity bitmap only when the chunk has nulls: the generic per-value vector
 * writes (a range check and a BigInt bit operation per cell) were a fifth of a JSON import's time.
 */
import { createRequire } from 'node:module';
import { DuckDBDataChunk, DuckDBTypeId, type DuckDBAppender, type DuckDBType } from '@duckdb/node-api';
import { ColumnBuffer, unpackStrings, type Cell, type ColumnChunk, type ColumnSpec, type RowSink } from './column-buffer.js';

type Bindings = typeof import('@duckdb/node-bindings');
const duckdb = createRequire(import.meta.url)('@duckdb/node-bindings') as Bindings;

function specOf(type: DuckDBType): ColumnSpec {
  const kind = type.typeId === DuckDBTypeId.TINYINT ? 'i8' : type.typeId === DuckDBTypeId.INTEGER ? 'i32'
    : type.typeId === DuckDBTypeId.BIGINT ? 'i64' : type.typeId === DuckDBTypeId.DOUBLE ? 'f64' : 'any';
  return { kind, typeName: type.toString() };
}

/**
 * DuckDB's row group size. The appender is flushed after each row group's worth of rows: left to itself it
 * commits every 204,800 rows, which ends each commit in a part-filled row group that the checkpoint then merges
 * and writes again (0.2-0.25 s of a 200 MiB Kineto import's 0.25 s checkpoint).
 */
const ROW_GROUP_ROWS = 122_880;

export class ColumnBatch implements RowSink {
  private readonly types: DuckDBType[];
  /** How each column is buffered, here or on another thread that fills chunks for `append`. */
  readonly specs: ColumnSpec[];
  private readonly buffer: ColumnBuffer;
  /** Rows appended since the appender last flushed (see ROW_GROUP_ROWS). */
  private unflushed = 0;

  constructor(private readonly appender: DuckDBAppender) {
    this.types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
    this.specs = this.types.map(specOf);
    this.buffer = new ColumnBuffer(this.specs, (chunk) => this.append(chunk), () => appender.closeSync());
  }

  row(values: Cell[]): void { this.buffer.row(values); }

  close(): void { this.buffer.close(); }

  /** Appends a chunk of rows buffered elsewhere (as `specs` say); rows given to `row` and not yet flushed stay. */
  append(chunk: ColumnChunk): void {
    const n = chunk.rows;
    const out = DuckDBDataChunk.create(this.types, n);
    for (let c = 0; c < chunk.columns.length; c++) {
      const col = chunk.columns[c]!;
      if (col.numbers) {
        const vector = duckdb.data_chunk_get_vector(out.chunk, c);
        const a = col.numbers;
        duckdb.copy_data_to_vector(vector, 0, a.buffer as ArrayBuffer, a.byteOffset, n * a.BYTES_PER_ELEMENT);
        if (col.valid) {
          duckdb.vector_ensure_validity_writable(vector);
          duckdb.copy_data_to_vector_validity(vector, 0, col.valid.buffer as ArrayBuffer, col.valid.byteOffset, Math.ceil(n / 64) * 8);
        }
      } else if (this.types[c]!.typeId === DuckDBTypeId.VARCHAR) {
        // Straight into the vector, with the validity bitmap in one copy: the generic setColumnValues does a
        // BigInt bit operation per null, and most args rows have a null string.
        const vector = duckdb.data_chunk_get_vector(out.chunk, c);
        if (col.strings) {
          // Packed strings go in as they are cut from the text, with no array of them in between.
          const { text, lengths } = col.strings;
          for (let r = 0, at = 0; r < n; r++) {
            const len = lengths[r]!;
            if (len < 0) continue;
            duckdb.vector_assign_string_element(vector, r, text.substring(at, at + len));
            at += len;
          }
        } else {
          const values = col.values!;
          for (let r = 0; r < n; r++) {
            const v = values[r];
            if (v !== null && v !== undefined) duckdb.vector_assign_string_element(vector, r, String(v));
          }
        }
        if (col.valid) {
          duckdb.vector_ensure_validity_writable(vector);
          duckdb.copy_data_to_vector_validity(vector, 0, col.valid.buffer as ArrayBuffer, col.valid.byteOffset, Math.ceil(n / 64) * 8);
        }
      } else {
        out.setColumnValues(c, col.strings ? unpackStrings(col.strings) : col.values!.length === n ? col.values! : col.values!.slice(0, n));
      }
    }
    this.appender.appendDataChunk(out);
    this.unflushed += n;
    if (this.unflushed >= ROW_GROUP_ROWS) { this.appender.flushSync(); this.unflushed = 0; }
  }
}
