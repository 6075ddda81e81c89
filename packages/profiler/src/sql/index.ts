export { openTrace, queryTrace, removeStaleTempDatabases, TraceDb, ReadOnlyQueryError, TraceQueryError, DEFAULT_QUERY_TIMEOUT_MS } from './traceDb.js';
export type { QueryResult, QueryStream, QueryOptions, SqlRow, SqlValue, OpenTraceOptions } from './traceDb.js';
