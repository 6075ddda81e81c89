export { TraceFormatError } from './errors.js';
export { importTraceInto, type ImportOptions } from './importTrace.js';
export type { TraceFormat } from './source.js';
