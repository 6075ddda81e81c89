export { openTrace, queryTrace, TraceDb, ReadOnlyQueryError, TraceQueryError } from './traceDb.js';
export type { QueryResult, SqlRow, SqlValue, OpenTraceOptions } from './traceDb.js';
