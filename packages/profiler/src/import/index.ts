export { pathOfArgKey, setArgPath, type ArgPath } from './arg-path.js';
export { TraceFormatError } from './errors.js';
export { IMPORT_PROBLEM_STATS, importTraceInto, validateTrace, type ImportOptions } from './import-trace.js';
export type { TraceFormat } from './source.js';
