// Prints the Dawn adapter this machine offers and fails unless it supports timestamp-query.
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const gpu = create([]);
const adapter = await gpu.requestAdapter();
if (!adapter) {
  console.error('check-webgpu: Dawn found no adapter (install mesa-vulkan-drivers from bookworm-backports)');
  process.exit(1);
}
const info = adapter.info;
const ts = adapter.features.has('timestamp-query');
console.log(`webgpu adapter: ${info.vendor} ${info.architecture} ${info.description} timestamp-query=${ts}`);
if (!ts) process.exit(1);
process.exit(0);
