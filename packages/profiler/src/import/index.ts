export { pathOfArgKey, setArgPath, type ArgPath } from './arg-path.js';
export { TraceFormatError } from './errors.js';
export { importTraceInto, validateTrace, type ImportOptions } from './import-trace.js';
export type { TraceFormat } from './source.js';
export { PROBLEM_SEVERITIES, statRows, type StatName, type StatRow, type StatSeverity } from './import-stats.js';
