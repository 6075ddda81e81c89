export * from './schema.js';
export * from './export.js';
export * from './ranks.js';
