export { openTrace, queryTrace, removeStaleTempDatabases, TraceDb, ReadOnlyQueryError, TraceQueryError, DEFAULT_QUERY_TIMEOUT_MS } from './trace-db.js';
export type { QueryResult, QueryStream, QueryOptions, SqlRow, SqlValue, OpenTraceOptions } from './trace-db.js';
export { TraceMemo, withTraceMemo } from './trace-memo.js';
