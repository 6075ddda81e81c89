export { TraceFormatError } from './errors.js';
export { importTraceInto, validateTrace, type ImportOptions } from './importTrace.js';
export type { TraceFormat } from './source.js';
