// The public types name GPUDevice and friends: consumers get the WebGPU type declarations with these.
/// <reference types="@webgpu/types" preserve="true" />
export * from './model/trace.js';
export * from './model/merge.js';
export * from './model/merge-stream.js';
export * from './record/index.js';
export * from './export/index.js';
export * from './import/index.js';
export * from './sql/index.js';
export * from './analysis/index.js';
export * from './parquet/index.js';
