/**
 * Mesh against mesh on the GPU backend (issue 13): the WGSL general convex routine with both hulls' supports
 * against the f32 CPU backend (collision/convex.ts, MuJoCo's native ccd), and both against the exact penetration
 * depth (polytope-depth.ts, f64). A box, a hexagonal prism and an irregular rock land on a static slab mesh and
 * rest on it face on face (env 0), or slide along it (env 1).
 *
 * Two polytopes face on face make a Minkowski difference with many coplanar vertices, where EPA's faces are
 * slivers whose distances f32 rounds by about 1e-7 times the vertices' norms (1 m here). The WGSL EPA gives its
 * bounds on the depth that much room (CV_SLACK in gpu/kernels/convex.ts); without it the hull face meeting the
 * upper bound rounded out of the search and EPA kept a nearer sliver, 0.1 mm short of the depth. The f32 CPU runs
 * MuJoCo's EPA in f64 on f32-rounded geom poses, and stopped 1.5 mm short of the exact depth at one of them
 * (mujoco-js, from the same qpos with its f64 poses, gives the exact depth to 7e-9 m there). So depths are held to
 * the exact depth, and normals and points to the CPU's where its depth is exact.
 *
 * Each bound is the largest error measured on lavapipe (stated next to it) times 10 for other GPUs' rounding; NaN
 * fails every bound (toBeLessThan is false for NaN).
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
import { meshWorldVertices, polytopeDepth } from './polytope-depth.js';
import { upload } from './upload.js';

const box = (a: number, b: number, c: number): string =>
  [-1, 1].flatMap((z) => [-1, 1].flatMap((y) => [-1, 1].flatMap((x) => [x * a, y * b, z * c]))).join(' ');
const HEX = Array.from({ length: 12 }, (_, i) => {
  const a = (i % 6) * (Math.PI / 3);
  return `${0.06 * Math.cos(a)} ${0.06 * Math.sin(a)} ${i < 6 ? -0.03 : 0.03}`;
}).join('  ');
const IRREGULAR = '0.13 0.02 -0.05  -0.11 0.07 0.03  0.04 -0.12 0.08  -0.02 -0.03 -0.14  0.09 0.11 0.12  -0.1 -0.09 -0.02 ' +
  '0.01 0.15 -0.06  0 0 0  0.12 -0.1 -0.1  -0.05 0.1 0.13  0 -0.14 0.02';

/** The slab's top is at z = 0.1; the box and the prism start 5 mm above it, the rock tilted from higher up. */
const XML = `<mujoco><option timestep="0.002"/><asset><mesh name="slab" vertex="${box(1, 0.3, 0.05)}"/>
  <mesh name="box" vertex="${box(0.05, 0.04, 0.03)}"/><mesh name="hex" vertex="${HEX}"/><mesh name="rock" vertex="${IRREGULAR}"/>
  </asset><worldbody>
  <geom name="slab" type="mesh" mesh="slab" pos="2 0 0.05"/>
  <body name="box" pos="1.3 0 0.135" euler="2 1 0"><freejoint/><geom type="mesh" mesh="box"/></body>
  <body name="hex" pos="1.9 0 0.135" euler="1 -2 0"><freejoint/><geom type="mesh" mesh="hex"/></body>
  <body name="rock" pos="2.5 0 0.3" euler="12 8 3"><freejoint/><geom type="mesh" mesh="rock"/></body>
</worldbody></mujoco>`;
const BODIES = ['box', 'hex', 'rock'] as const;

/** Two envs: env 0 dropped at rest; env 1 with every body sliding along +x at 0.3 m/s. */
const N = 2;

function startData(model: Model): Data {
  const d = makeData(model, N, '32');
  for (let b = 0; b < BODIES.length; b++) d.qvel[6 * b * N + 1] = 0.3;
  return d;
}

type Vec = [number, number, number];
type Quat = [number, number, number, number];

/** Turns body b of env e by angle about the world axis through point c (its qpos: free joint b). */
function turnAbout(d: Data, b: number, e: number, c: Vec, axis: Vec, angle: number): void {
  const at = (k: number): number => (7 * b + k) * N + e;
  const an = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / an;
  const r: Quat = [Math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s];
  const q = [3, 4, 5, 6].map((k) => d.qpos[at(k)]!) as Quat;
  const t = quatMul(r, q);
  const qn = Math.hypot(...t);
  t.forEach((v, k) => { d.qpos[at(3 + k)] = v / qn; });
  const p = [0, 1, 2].map((k) => d.qpos[at(k)]! - c[k]!) as Vec;
  const rp = quatMul(quatMul(r, [0, ...p]), [r[0], -r[1], -r[2], -r[3]]);
  for (let k = 0; k < 3; k++) d.qpos[at(k)] = c[k]! + rp[k + 1]!;
}

function quatMul(a: Quat, b: Quat): Quat {
  return [a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]];
}

/**
 * The hull vertices of geom g in env e of d, lowest first, from the geom pose that d's qpos gives (kinematics run
 * here unless fresh).
 */
function lowest(model: Model, d: Data, g: number, e: number, again = false): Vec[] {
  if (again) cpuCollide(model, d, N);
  return meshWorldVertices(model, d, g, e, N).sort((a, b) => a[2] - b[2]);
}

/** The lowest z among pts after turning them by angle about the axis through c. */
function lowestAfter(pts: Vec[], c: Vec, axis: Vec, angle: number): number {
  const an = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / an;
  const r: Quat = [Math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s];
  let z = Infinity;
  for (const p of pts) {
    const rp = quatMul(quatMul(r, [0, p[0] - c[0], p[1] - c[1], p[2] - c[2]]), [r[0], -r[1], -r[2], -r[3]]);
    z = Math.min(z, rp[3] + c[2]);
  }
  return z;
}

/**
 * Turns every body about its lowest vertex so that it rests on a face (the plane of its three lowest vertices
 * turned level), then stands on an edge (turned about the line to its nearest vertex in that face) or on a corner
 * (about a random level axis), the rest of the hull rising off the slab.
 */
function standOn(model: Model, d: Data, how: 'face' | 'edge' | 'corner', rnd: () => number): void {
  for (let b = 0; b < BODIES.length; b++) {
    const g = model.geomBodyid.indexOf(b + 1);
    for (let e = 0; e < N; e++) {
      const [v0, v1, v2] = lowest(model, d, g, e) as [Vec, Vec, Vec];
      const u = [v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]] as Vec, w = [v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]] as Vec;
      let n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]] as Vec;
      if (n[2] > 0) n = n.map((x) => -x) as Vec;
      // the turn taking n to -z: about n x -z by the angle between them
      const nn = Math.hypot(...n);
      const tilt = Math.acos(Math.min(1, -n[2] / nn));
      if (tilt > 1e-12) turnAbout(d, b, e, v0, [-n[1], n[0], 0], tilt);
      if (how === 'face') continue;
      const vs = lowest(model, d, g, e, true);
      const c = vs[0]!;
      const face = vs.filter((v) => v !== c && v[2] - c[2] < 1e-6);
      // the three lowest were not on one face of the hull (it stood on an edge): leave it as turned
      if (face.length < 2) continue;
      let axis: Vec;
      if (how === 'edge') {
        // the face's vertex nearest c: along an edge of the face, not a diagonal
        const dist = (v: Vec): number => Math.hypot(v[0] - c[0], v[1] - c[1]);
        const o = face.reduce((m, v) => (dist(v) < dist(m) ? v : m));
        axis = [o[0] - c[0], o[1] - c[1], 0];
      } else {
        const a = 2 * Math.PI * rnd();
        axis = [Math.cos(a), Math.sin(a), 0];
      }
      const angle = 0.1 + 0.1 * rnd();
      const rest = vs.filter((v) => v[2] - c[2] > 1e-6);
      const sign = lowestAfter(rest, c, axis, angle) >= lowestAfter(rest, c, axis, -angle) ? 1 : -1;
      turnAbout(d, b, e, c, axis, sign * angle);
    }
  }
}

interface ClassErrors { n: number; depth: number; cpuDepth: number; cpuShort: number; normal: number; point: number }

let model: Model;
let sim: GpuSim | null = null;

describe.skipIf(!hasGpu)('mesh against mesh on the GPU, against the f32 CPU and the exact depth (issue 13)', { timeout: 1_200_000 }, () => {
  beforeAll(async () => {
    model = setConst(loadMJCF(writeXml(XML, 'gsprof-gpu-mesh-mesh-')).model);
    sim = await sceneSim(model, startData(model), N);
  }, 1_200_000);
  afterAll(() => sim?.destroy());

  test('given the CPU\'s poses face on face, on an edge and on a corner, the GPU makes its contacts at the exact depth', async () => {
    const traj = startData(model);
    const d = startData(model);
    const rnd = lcg(13);
    const STEPS = 150;
    const err: Record<string, ClassErrors> = {};
    for (const c of ['face', 'edge', 'corner']) err[c] = { n: 0, depth: 0, cpuDepth: 0, cpuShort: 0, normal: 0, point: 0 };
    for (let s = 1; s <= STEPS; s++) {
      stepCpu(model, traj, 0, N);
      for (const how of ['as landed', 'face', 'edge', 'corner'] as const) {
        d.qpos.set(traj.qpos);
        cpuCollide(model, d, N);
        if (how !== 'as landed') {
          standOn(model, d, how, rnd);
          cpuCollide(model, d, N);
        }
        const gpu = await gpuCollideAt(sim!, d);
        for (let e = 0; e < N; e++) {
          expect(gpu.ncon[e], `${how} env ${e} step ${s}: contact count`).toBe(d.ncon[e]);
          for (let c = 0; c < d.ncon[e]!; c++) {
            const g1 = d.contactGeom[2 * c * N + e]!, g2 = d.contactGeom[(2 * c + 1) * N + e]!;
            expect([gpu.geom[2 * c * N + e], gpu.geom[(2 * c + 1) * N + e]], `${how} env ${e} step ${s} contact ${c}`).toEqual([g1, g2]);
            expect(model.geomType[g1]).toBe(GeomType.Mesh);
            expect(model.geomType[g2]).toBe(GeomType.Mesh);
            // what stands on the slab: a face, an edge or a corner (hull vertices within 10 um of the lowest)
            const top = meshWorldVertices(model, d, g2, e, N).sort((a, b) => a[2] - b[2]);
            const touching = top.filter((v) => v[2] - top[0]![2] < 1e-5).length;
            const r = err[touching >= 3 ? 'face' : touching === 2 ? 'edge' : 'corner']!;
            r.n++;
            const exact = -polytopeDepth(meshWorldVertices(model, d, g1, e, N), top);
            const at = c * N + e;
            r.depth = Math.max(r.depth, Math.abs(gpu.dist[at]! - exact));
            const cpuOff = Math.abs(d.contactDist[at]! - exact);
            r.cpuDepth = Math.max(r.cpuDepth, cpuOff);
            // the CPU's EPA stopped short of the depth (on a sliver, see above): its normal and point are not the truth
            if (cpuOff > 1e-6) { r.cpuShort++; continue; }
            for (let k = 0; k < 3; k++) {
              r.normal = Math.max(r.normal, Math.abs(gpu.frame[(9 * c + k) * N + e]! - d.contactFrame[(9 * c + k) * N + e]!));
              // a face or an edge on the slab has its one contact anywhere along it, moving on rounding changes
              if (touching === 1) r.point = Math.max(r.point, Math.abs(gpu.pos[(3 * c + k) * N + e]! - d.contactPos[(3 * c + k) * N + e]!));
            }
          }
        }
      }
    }
    console.log(`mesh-mesh contacts given the CPU's poses: ${JSON.stringify(err)}`);
    // [depth against the exact one, normal against the CPU's], measured (given) times 10. A box on an edge, 1 cm
    // deep, got its normal from a sliver among the coplanar faces around the edge, at the right depth (2e-9) but
    // tilted 5.7e-3 by f32 rounding; the rock on a corner barely in touch (1.3e-5 m deep) from a face next to the
    // corner's, tilted 1.8e-2 and 4e-9 nearer, as all faces around that vertex lie within depth * tilt^2 / 2 of
    // the depth. Without EPA's room for f32 rounding (CV_SLACK 0) a corner's depth was 1.2e-4 short.
    const bounds: Record<string, [number, number]> = {
      face: [1e-7, 6e-3], // 9.5e-9, 5.4e-4
      edge: [1e-7, 6e-2], // 6.5e-9, 5.7e-3
      corner: [2e-7, 0.2], // 1.8e-8, 1.8e-2
    };
    for (const [c, r] of Object.entries(err)) {
      expect(r.n, `${c}: contacts seen`).toBeGreaterThan(500);
      expect(r.depth, `${c}: depth against the exact depth`).toBeLessThan(bounds[c]![0]);
      expect(r.normal, `${c}: normal against the CPU's`).toBeLessThan(bounds[c]![1]);
    }
    // a corner's one contact is well defined: measured 4.8e-7 m
    expect(err.corner!.point, 'corner: contact point against the CPU\'s').toBeLessThan(5e-6);
  });

  test('meshes resting and sliding on a mesh, step by step beside the CPU, with the contact count every step', async () => {
    const d = startData(model);
    // the same start in f64, the precision in which the CPU matches MuJoCo
    const d64 = makeData(model, N, '64');
    d64.qvel.set(d.qvel);
    upload(sim!, d);
    const STEPS = 400;
    const gpuOff = [0, 0, 0], cpuOff = [0, 0, 0], velOff = [0, 0, 0], gpu64 = [0, 0, 0];
    for (let s = 1; s <= STEPS; s++) {
      stepCpu(model, d, 0, N);
      stepCpu(model, d64, 0, N);
      sim!.step(1);
      const [ncon, qpos, qvel, flags] = await Promise.all(['ncon', 'qpos', 'qvel', 'errFlags'].map((f) => sim!.readField(f)));
      for (let e = 0; e < N; e++) {
        expect(flags![e], `env ${e} step ${s}: GPU error flags`).toBe(0);
        expect(ncon![e], `env ${e} step ${s}: contact count`).toBe(d.ncon[e]);
      }
      for (let k = 0; k < qpos!.length; k++) {
        const b = Math.floor(k / (7 * N));
        gpuOff[b] = Math.max(gpuOff[b]!, Math.abs(qpos![k]! - d.qpos[k]!));
        cpuOff[b] = Math.max(cpuOff[b]!, Math.abs(d64.qpos[k]! - d.qpos[k]!));
        gpu64[b] = Math.max(gpu64[b]!, Math.abs(d64.qpos[k]! - qpos![k]!));
      }
      for (let k = 0; k < qvel!.length; k++) {
        const b = Math.floor(k / (6 * N));
        velOff[b] = Math.max(velOff[b]!, Math.abs(qvel![k]! - d.qvel[k]!));
      }
    }
    console.log(`mesh-mesh side by side over ${STEPS} steps: GPU - f32 CPU qpos ${JSON.stringify(gpuOff)} qvel ${JSON.stringify(velOff)}; f64 - f32 CPU qpos ${JSON.stringify(cpuOff)}; GPU - f64 CPU qpos ${JSON.stringify(gpu64)}`);
    // Against the f64 CPU (MuJoCo's arithmetic) every body stays within 6.3e-6 m (box 1.1e-6, prism 1.3e-6, rock
    // 6.3e-6); bound 10x. The f32 CPU runs its f64 narrow phase on f32-rounded poses, where a face-on-face contact
    // point jumps on rounding changes and EPA stopped 1.5 mm short once (see above): it leaves the f64 run by
    // 3.7e-2 m (prism) and 2.9e-3 m (rock), so only the box is held to it (7.7e-7, bound 10x).
    for (let b = 0; b < BODIES.length; b++) expect(gpu64[b]!, `${BODIES[b]}: GPU against the f64 CPU`).toBeLessThan(7e-5);
    expect(gpuOff[0]!, 'box: GPU against the f32 CPU').toBeLessThan(8e-6);
  });
});
