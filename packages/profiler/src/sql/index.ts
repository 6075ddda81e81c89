export { openTrace, queryTrace, TraceDb, ReadOnlyQueryError } from './traceDb.js';
export type { QueryResult, SqlRow, SqlValue, OpenTraceOptions } from './traceDb.js';
