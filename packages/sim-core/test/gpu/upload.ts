/** Starting a GPU pipeline test from a CPU Data: what the GPU keeps of it goes into its buffers. */
import type { Data } from '../../src/data/data.js';
import type { GpuSim } from '../../src/gpu/runtime.js';

/** Copies every Data field the GPU keeps into the GPU buffers (the initial state and the controls). */
export function upload(sim: GpuSim, d: Data): void {
  const rec = d as unknown as Record<string, ArrayLike<number> | undefined>;
  for (const f of sim.layout.fields) {
    const src = rec[f.name];
    if (!src || typeof src === 'number' || src.length !== f.size * sim.nEnvs) continue;
    sim.writeField(f.name, f.kind === 'f32' ? Float32Array.from(src) : Int32Array.from(src));
  }
}
