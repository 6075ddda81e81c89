/**
 * Meshes against sphere, capsule, cylinder, box and ellipsoid on the GPU backend (issue 13): the WGSL
 * general convex routine (gpu/kernels/convex.ts) with the hull's support (mesh.ts's mesh_support) against the f32
 * CPU backend (collision/convex.ts with meshSupport), on one scene that holds every pair: an irregular mesh on a
 * box table, and a sphere, a capsule, a cylinder and an ellipsoid on a static slab mesh. One
 * pipeline is compiled and shared by both tests (lavapipe takes minutes per compile).
 *
 * The CPU computes the narrow phase in f64 on f32 poses and the GPU in f32, so contacts differ by f32 rounding of
 * GJK/EPA's result; where EPA stops within ccd_tolerance on a curved surface, the normal is set only to about the
 * square root of that (see convex.test.ts). Each bound is the largest error measured on lavapipe (stated next to
 * it) times 10 for other GPUs' rounding; NaN fails every bound (toBeLessThan is false for NaN).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stepCpu } from '../../src/cpu/step.js';
import type { Data } from '../../src/data/data.js';
import { makeData } from '../../src/data/make-data.js';
import type { GpuSim } from '../../src/gpu/runtime.js';
import { loadMJCF } from '../../src/loaders/index.js';
import { GeomType, type Model } from '../../src/model/model.js';
import { setConst } from '../../src/physics/setconst.js';
import { lcg } from '../../../../test/support/random.js';
import { writeXml } from '../helpers/xml-file.js';
import { cpuCollide, gpuCollideAt, sceneSim } from './given-poses.js';
import { hasGpu } from './gpu-env.js';
import { upload } from './upload.js';

const IRREGULAR = '0.13 0.02 -0.05  -0.11 0.07 0.03  0.04 -0.12 0.08  -0.02 -0.03 -0.14  0.09 0.11 0.12  -0.1 -0.09 -0.02 ' +
  '0.01 0.15 -0.06  0 0 0  0.12 -0.1 -0.1  -0.05 0.1 0.13  0 -0.14 0.02';
// 2 m x 0.6 m x 0.1 m, top at z = 0.1
const SLAB = '-1 -.3 -.05  1 -.3 -.05  -1 .3 -.05  1 .3 -.05  -1 -.3 .05  1 -.3 .05  -1 .3 .05  1 .3 .05';

/** The mesh's partner in each body, in body order (body 1 is the rock on the box table). */
const PARTNERS = ['box', 'sphere', 'capsule', 'cylinder', 'ellipsoid'] as const;
type Partner = (typeof PARTNERS)[number];

/** Bodies start 1-2 cm above what they land on, tilted, so that they land on a corner or an edge and settle. */
const XML = `<mujoco><option timestep="0.002"/><asset><mesh name="irr" vertex="${IRREGULAR}"/>
  <mesh name="slab" vertex="${SLAB}"/></asset><worldbody>
  <geom name="table" type="box" size="0.3 0.3 0.1" pos="0 0 0.1"/>
  <geom name="slab" type="mesh" mesh="slab" pos="2 0 0.05"/>
  <body name="rock" pos="0.02 0.03 0.37" euler="12 8 3"><freejoint/><geom type="mesh" mesh="irr"/></body>
  <body pos="1.2 0 0.17"><freejoint/><geom type="sphere" size="0.05"/></body>
  <body pos="1.6 0 0.2" euler="0 80 10"><freejoint/><geom type="capsule" size="0.03 0.08"/></body>
  <body pos="2 0 0.16" euler="10 5 0"><freejoint/><geom type="cylinder" size="0.05 0.04"/></body>
  <body pos="2.4 0 0.15" euler="20 10 0"><freejoint/><geom type="ellipsoid" size="0.06 0.04 0.03"/></body>
</worldbody></mujoco>`;

/** Two envs: env 0 dropped at rest; env 1 with every body sliding along +x at 0.3 m/s. */
const N = 2;
const SLIDE = [0.3, 0, 0, 0, 0, 0];

function loadScene(): Model {
  return setConst(loadMJCF(writeXml(XML, 'gsprof-gpu-mesh-convex-')).model);
}

function startData(model: Model): Data {
  const d = makeData(model, N, '32');
  for (let b = 0; b < PARTNERS.length; b++) SLIDE.forEach((v, k) => { d.qvel[(6 * b + k) * N + 1] = v; });
  return d;
}

/** The partner of the mesh in contact c of env e, or null when the contact has no mesh. */
function partnerOf(model: Model, d: Data, c: number, e: number): Partner | null {
  const g1 = d.contactGeom[2 * c * N + e]!, g2 = d.contactGeom[(2 * c + 1) * N + e]!;
  const t1 = model.geomType[g1]!, t2 = model.geomType[g2]!;
  if (t1 !== GeomType.Mesh && t2 !== GeomType.Mesh) return null;
  const other = t1 === GeomType.Mesh && t2 === GeomType.Mesh ? GeomType.Mesh : t1 === GeomType.Mesh ? t2 : t1;
  return ({ [GeomType.Sphere]: 'sphere', [GeomType.Capsule]: 'capsule', [GeomType.Cylinder]: 'cylinder', [GeomType.Box]: 'box',
    [GeomType.Ellipsoid]: 'ellipsoid' } as Record<number, Partner>)[other] ?? null;
}

interface PairErrors { steps: number; pos: number; normal: number; dist: number; at: string }

/**
 * Tilts every body of d by a random 1.1-3.4 degrees and lowers it 4 mm. Resting polytopes touch face to face,
 * where the one contact of the convex routine may sit anywhere on the face and jumps between its corners on
 * 1e-16 changes, on the CPU as well (see convex.test.ts); a small tilt leaves one lowest corner, a well-defined
 * contact, while the poses still come from the CPU's trajectory.
 */
function tilt(d: Data, rnd: () => number): void {
  for (let b = 0; b < PARTNERS.length; b++) {
    for (let e = 0; e < N; e++) {
      const at = (k: number): number => (7 * b + k) * N + e;
      const axis = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
      const an = Math.hypot(...axis);
      const half = 0.5 * (0.02 + 0.04 * rnd());
      const [w, x, y, z] = [Math.cos(half), ...axis.map((v) => (Math.sin(half) * v) / an)] as [number, number, number, number];
      const [qw, qx, qy, qz] = [3, 4, 5, 6].map((k) => d.qpos[at(k)]!) as [number, number, number, number];
      // world-frame turn: (w, x, y, z) * q
      const q = [w * qw - x * qx - y * qy - z * qz, w * qx + x * qw + y * qz - z * qy, w * qy - x * qz + y * qw + z * qx, w * qz + x * qy - y * qx + z * qw];
      const qn = Math.hypot(...q);
      q.forEach((v, k) => { d.qpos[at(3 + k)] = v / qn; });
      d.qpos[at(2)] = d.qpos[at(2)]! - 0.004;
    }
  }
}

let model: Model;
let sim: GpuSim | null = null;

describe.skipIf(!hasGpu)('meshes against other geoms on the GPU, against the f32 CPU (issue 13)', { timeout: 1_200_000 }, () => {
  beforeAll(async () => {
    model = loadScene();
    sim = await sceneSim(model, startData(model), N);
  }, 1_200_000);
  afterAll(() => sim?.destroy());

  test('given the CPU\'s poses, the GPU makes its contacts for mesh against each of the five geom types', async () => {
    const traj = startData(model);
    const d = startData(model);
    const rnd = lcg(13);
    const err = Object.fromEntries(PARTNERS.map((p) => [p, { steps: 0, pos: 0, normal: 0, dist: 0, at: '' }])) as Record<Partner, PairErrors>;
    for (let s = 1; s <= 300; s++) {
      stepCpu(model, traj, 0, N);
      d.qpos.set(traj.qpos);
      tilt(d, rnd);
      // the CPU's contacts at these poses, and the GPU's at the poses the CPU's collision stage read
      cpuCollide(model, d, N);
      const { ncon, pos: cpos, frame: cframe, dist: cdist, geom: cgeom } = await gpuCollideAt(sim!, d);
      for (let e = 0; e < N; e++) {
        expect(ncon[e], `env ${e} step ${s}: contact count`).toBe(d.ncon[e]);
        const seen = new Set<Partner>();
        for (let c = 0; c < d.ncon[e]!; c++) {
          expect(cgeom[2 * c * N + e], `env ${e} step ${s} contact ${c}: geom`).toBe(d.contactGeom[2 * c * N + e]);
          const p = partnerOf(model, d, c, e);
          if (!p) continue;
          seen.add(p);
          const r = err[p];
          r.dist = Math.max(r.dist, Math.abs(cdist[c * N + e]! - d.contactDist[c * N + e]!));
          for (let k = 0; k < 3; k++) {
            r.pos = Math.max(r.pos, Math.abs(cpos[(3 * c + k) * N + e]! - d.contactPos[(3 * c + k) * N + e]!));
            const dn = Math.abs(cframe[(9 * c + k) * N + e]! - d.contactFrame[(9 * c + k) * N + e]!);
            if (dn > r.normal) r.at = `env ${e} step ${s} depth ${d.contactDist[c * N + e]}`;
            r.normal = Math.max(r.normal, dn);
          }
        }
        for (const p of seen) err[p].steps++;
      }
    }
    console.log(`mesh pairs given the CPU's poses: ${JSON.stringify(err)}`);
    // [point, normal, distance], each the largest measured over runs with other tilts (given) times 10. The box's
    // normal (1.5e-3) is worst at the first touch (depth 2e-5), where EPA sets it from a sliver; the cylinder's
    // point (1.4e-3) where its cap lies nearly flat on the slab, so that EPA's tolerance on the depth moves the
    // point far along the cap; the ellipsoid's point (1e-4) on its flattest side likewise.
    const bounds: Record<Partner, [number, number, number]> = {
      box: [5e-7, 1.5e-2, 3e-7], // 4.5e-8, 1.5e-3, 2.1e-8
      sphere: [2e-6, 3e-6, 1e-7], // 1.2e-7, 2.9e-7, 6.5e-9
      capsule: [5e-6, 3e-4, 1e-7], // 4.8e-7, 2.4e-5, 7.1e-9
      cylinder: [1.4e-2, 6e-2, 5e-6], // 1.4e-3, 5.5e-3, 5.0e-7
      ellipsoid: [1e-3, 4e-3, 3e-6], // 9.9e-5, 3.8e-4, 2.8e-7
    };
    for (const p of PARTNERS) {
      // every pair is in touch for most of the run in both envs (600 env-steps)
      expect(err[p].steps, `${p}: env-steps in contact`).toBeGreaterThan(300);
      expect(err[p].pos, `${p}: contact point`).toBeLessThan(bounds[p][0]);
      expect(err[p].normal, `${p}: normal`).toBeLessThan(bounds[p][1]);
      expect(err[p].dist, `${p}: distance`).toBeLessThan(bounds[p][2]);
    }
  });

  test('a mesh resting and sliding on a box, step by step beside the CPU, with its contact count every step', async () => {
    const d = startData(model);
    upload(sim!, d);
    const worst = { rock: 0, all: 0, vel: 0, body: [0, 0, 0, 0, 0], bodyVel: [0, 0, 0, 0, 0] };
    const STEPS = 400;
    const rock = model.geomBodyid.indexOf(1);
    let countDiffers = 0;
    for (let s = 1; s <= STEPS; s++) {
      stepCpu(model, d, 0, N);
      sim!.step(1);
      const [ncon, qpos, qvel, flags, cgeom] = await Promise.all(['ncon', 'qpos', 'qvel', 'errFlags', 'contactGeom'].map((f) => sim!.readField(f)));
      /** The rock's contacts in env e: its one convex contact with the table, or none. */
      const rockContacts = (geom: ArrayLike<number>, e: number, n = ncon![e]!): number => {
        let k = 0;
        for (let c = 0; c < n; c++) if (geom[2 * c * N + e] === rock || geom[(2 * c + 1) * N + e] === rock) k++;
        return k;
      };
      for (let e = 0; e < N; e++) {
        expect(flags![e], `env ${e} step ${s}: GPU error flags`).toBe(0);
        expect(rockContacts(cgeom!, e), `env ${e} step ${s}: the rock's contact count`).toBe(rockContacts(d.contactGeom, e, d.ncon[e]!));
        if (ncon![e] !== d.ncon[e]) countDiffers++;
      }
      for (let k = 0; k < qpos!.length; k++) {
        const diff = Math.abs(qpos![k]! - d.qpos[k]!);
        worst.all = Math.max(worst.all, diff);
        const b = Math.floor(k / (7 * N));
        worst.body[b] = Math.max(worst.body[b]!, diff);
        // the rock's free joint: qpos 0..6 of the first body
        if (k < 7 * N) worst.rock = Math.max(worst.rock, diff);
      }
      for (let k = 0; k < qvel!.length; k++) {
        const diff = Math.abs(qvel![k]! - d.qvel[k]!);
        worst.vel = Math.max(worst.vel, diff);
        const b = Math.floor(k / (6 * N));
        worst.bodyVel[b] = Math.max(worst.bodyVel[b]!, diff);
      }
    }
    console.log(`mesh scene side by side over ${STEPS} steps: ${JSON.stringify(worst)}, env-steps with another contact count: ${countDiffers}`);
    // The rock (the mesh on the box): measured 2.6e-6 in position and 5.4e-5 in velocity; bounds 10x. The other
    // bodies lie on a line (capsule) or a face (cylinder cap, ellipsoid's flat side) of the slab with one contact,
    // which jumps along it on rounding changes on the CPU as well, so they rock differently (the cylinder measured
    // 2.0e-2 m apart; every contact count was still equal) and are held only to staying finite here; that is
    // MuJoCo's single convex contact, not this port.
    expect(worst.rock).toBeLessThan(3e-5);
    expect(worst.bodyVel[0]!).toBeLessThan(6e-4);
    expect(worst.all).toBeLessThan(Infinity);
  });
});
