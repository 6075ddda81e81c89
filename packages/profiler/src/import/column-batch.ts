/**
 * Buffers rows column by column and hands DuckDB 2048-row data chunks: numeric columns cross into DuckDB as
 * one typed-array copy per chunk instead of one native call per value, which is most of an import's cost.
 */
import { DuckDBDataChunk, type DuckDBAppender, type DuckDBType } from '@duckdb/node-api';

export type Cell = number | string | bigint | null;

export interface RowSink {
  /** Appends one row; `values` must have one cell per column, in table order. */
  row(values: Cell[]): void;
  close(): void;
}

export const nullRowSink: RowSink = { row() {}, close() {} };

const CHUNK_ROWS = 2048;

export class ColumnBatch implements RowSink {
  private readonly types: DuckDBType[];
  private readonly cols: Cell[][];
  private rows = 0;

  constructor(private readonly appender: DuckDBAppender) {
    this.types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
    this.cols = this.types.map(() => new Array<Cell>(CHUNK_ROWS));
  }

  row(values: Cell[]): void {
    const r = this.rows;
    for (let c = 0; c < values.length; c++) this.cols[c]![r] = values[c]!;
    if (++this.rows === CHUNK_ROWS) this.flush();
  }

  private flush(): void {
    const n = this.rows;
    if (n === 0) return;
    const chunk = DuckDBDataChunk.create(this.types, n);
    for (let c = 0; c < this.cols.length; c++) {
      const col = this.cols[c]!;
      chunk.setColumnValues(c, n === CHUNK_ROWS ? col : col.slice(0, n));
    }
    this.appender.appendDataChunk(chunk);
    this.rows = 0;
  }

  close(): void {
    this.flush();
    this.appender.closeSync();
  }
}
