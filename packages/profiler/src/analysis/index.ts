export * from './kernel-summary.js';
export * from './reports.js';
export * from './step-times.js';
export * from './gaps.js';
export * from './timers.js';
export * from './diff.js';
export * from './compare.js';
export * from './baseline.js';
export * as traceStats from './stats.js';
