/** Every WGSL kernel of one scene step: the registry's stages (stages/registry.ts), in its order and with its names. */
import { collisionPlan } from '../../collision/plan.js';
import { GeomType, type Model } from '../../model/model.js';
import { hasSpatialTendons } from '../../physics/tendon.js';
import type { KernelDef } from '../runtime.js';
import { collisionKernelWith } from '../../stages/collision/wgsl.js';
import { comKernelWith } from '../../stages/com/wgsl.js';
import { STAGES } from '../../stages/registry.js';
import { gpuConvexPair, gpuMeshConvexPair, gpuMeshMeshPair } from './convex.js';

/** Every kernel with every optional routine (convex pairs, the mesh support, mesh-mesh, plane-mesh, spatial tendons)
 *  compiled in; the CPU-only stages (sensor) have none. */
export const GPU_KERNELS: readonly KernelDef[] = STAGES.flatMap((s) => (s.wgsl ? [s.wgsl] : []));

/**
 * The kernels a model needs: the optional routines only where its geom pairs or tendons reach them. Mesa's
 * lavapipe compiles a kernel's every routine whether it runs or not, and the general convex one alone took the
 * collision kernel from about 12 s to a minute. The mesh hull's support (for a mesh that can touch anything but
 * a plane) is a further option of the convex routine, and mesh-mesh one more.
 */
export function gpuKernelsFor(model: Model): KernelDef[] {
  let convex = false;
  let meshConvex = false;
  let planeMesh = false;
  let meshMesh = false;
  if (model.opt.enableCollision) {
    const plan = collisionPlan(model);
    for (let p = 0; p < plan.npair; p++) {
      const a = model.geomType[plan.geom1[p]!]!, b = model.geomType[plan.geom2[p]!]!;
      const t1 = Math.min(a, b), t2 = Math.max(a, b);
      if (gpuMeshMeshPair(t1, t2)) meshMesh = true;
      else if (gpuMeshConvexPair(t1, t2)) meshConvex = true;
      else if (gpuConvexPair(t1, t2)) convex = true;
      if (t1 === GeomType.Plane && t2 === GeomType.Mesh) planeMesh = true;
    }
  }
  return GPU_KERNELS.map((k) => {
    if (k.name === 'collision') return collisionKernelWith({ convex, meshConvex, planeMesh, meshMesh });
    if (k.name === 'com') return comKernelWith(hasSpatialTendons(model));
    return k;
  });
}
