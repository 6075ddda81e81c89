// Library side of @gsprof/cli: the pieces commands are built from, importable and tested on their own.
export * from './errors.js';
export * from './render/color.js';
export * from './render/format.js';
export * from './render/table.js';
export * from './render/chart.js';
export * from './render/histogram.js';
export * from './render/json.js';
export * from './serve/serve-once.js';
