export * from './schema.js';
export * from './export.js';
