/**
 * The collision stage of both backends at one set of poses: the CPU's stages up to collision on a Data, then the
 * GPU's collision kernel alone (of the scene's pipeline, sceneSim) on the geom poses that Data's collision read. Comparing narrow phases this way keeps
 * trajectories (which part on rounding) out of the comparison.
 */
import { CPU_STAGES } from '../../src/cpu/step.js';
import type { Data } from '../../src/data/data.js';
import { gpuKernelsFor } from '../../src/gpu/kernels/index.js';
import { GpuSim } from '../../src/gpu/runtime.js';
import type { Model } from '../../src/model/model.js';
import { gpuOrSkip } from './gpu-env.js';

/** An n-env GPU pipeline for model with the kernels the backend gives it and d's contact capacities, compiled. */
export async function sceneSim(model: Model, d: Data, n: number): Promise<GpuSim> {
  const sim = new GpuSim((await gpuOrSkip())!, model, n, { performanceMode: false, capacities: { maxContacts: d.maxContacts, maxEfc: d.maxEfc } });
  await sim.compile(gpuKernelsFor(model));
  return sim;
}

/** Runs the CPU pipeline on d's qpos through the collision stage, for envs [0, n). */
export function cpuCollide(model: Model, d: Data, n: number): void {
  for (const stage of CPU_STAGES) {
    stage.run(model, d, 0, n);
    if (stage.name === 'collision') break;
  }
}

export interface GpuContacts { ncon: ArrayLike<number>; pos: ArrayLike<number>; frame: ArrayLike<number>; dist: ArrayLike<number>; geom: ArrayLike<number> }

/** The GPU's contacts at the geom poses of d (after cpuCollide); sim holds a collision kernel for d's model. */
export async function gpuCollideAt(sim: GpuSim, d: Data): Promise<GpuContacts> {
  sim.writeField('geomXpos', Float32Array.from(d.geomXpos));
  sim.writeField('geomXmat', Float32Array.from(d.geomXmat));
  sim.step(1, new Set(['collision']));
  const [ncon, pos, frame, dist, geom] = await Promise.all(
    ['ncon', 'contactPos', 'contactFrame', 'contactDist', 'contactGeom'].map((f) => sim.readField(f)),
  );
  return { ncon: ncon!, pos: pos!, frame: frame!, dist: dist!, geom: geom! };
}
