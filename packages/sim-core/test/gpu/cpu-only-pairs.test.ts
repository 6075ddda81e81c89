/**
 * The GPU backend refuses, at build, geom pairs that only the CPU backend can collide (the WGSL kernel would skip
 * them and the geoms would pass through each other): since the WGSL convex routine (gpu/kernels/convex.ts) every
 * pair of primitives has GPU code, and with the mesh hull's support in it a mesh against every primitive and every
 * mesh too, so what is left is height fields (refuseHFieldCollision). These checks need no GPU.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { refuseCpuOnlyPairs } from '../../src/backend/gpu.js';
import { collisionKernel, gpuHasNarrow } from '../../src/stages/collision/wgsl.js';
import { GPU_CCD_MAX_ITERATIONS, gpuConvexPair } from '../../src/gpu/kernels/convex.js';
import { loadMJCF } from '../../src/loaders/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-gpu-pairs-'));
function load(name: string, bodies: string, head = '') {
  const file = join(dir, `${name}.xml`);
  writeFileSync(file, `<mujoco>${head}<worldbody><geom name="floor" type="plane" size="0 0 0.05"/>${bodies}</worldbody></mujoco>`);
  return loadMJCF(file).model;
}

const HFIELD = '<geom name="ground" type="hfield" hfield="h"/>';
const HFIELD_ASSET = '<asset><hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1"/></asset>';

describe('GPU refusal of CPU-only collision pairs (issue 13)', () => {
  test('a height field against a sphere is refused, naming the geoms and the CPU backend', () => {
    const model = load('hfield', `${HFIELD}<body pos="0 0 0.3"><freejoint/><geom name="ball" type="sphere" size="0.05"/></body>`, HFIELD_ASSET);
    expect(() => refuseCpuOnlyPairs(model)).toThrow(
      "the GPU backend has no collision code for hfield 'ground' - sphere 'ball': these pairs run on the CPU backend; " +
      'use backend cpu, or keep them from colliding.');
  });

  test('ellipsoids, capsule-cylinder, cylinder-cylinder and cylinder-box build (the WGSL convex routine has them)', () => {
    const model = load('convex', `
      <body pos="0 0 0.3"><freejoint/><geom name="log" type="cylinder" size="0.05 0.2"/></body>
      <body pos="0 0 0.5"><freejoint/><geom name="pin" type="capsule" size="0.02 0.1"/></body>
      <body pos="0.3 0 0.5"><freejoint/><geom name="drum" type="cylinder" size="0.05 0.05"/></body>
      <body pos="0.6 0 0.5"><freejoint/><geom name="crate" type="box" size="0.05 0.05 0.05"/></body>
      <body pos="1 0 0.5"><freejoint/><geom name="egg" type="ellipsoid" size="0.05 0.04 0.03"/></body>`);
    expect(() => refuseCpuOnlyPairs(model)).not.toThrow();
  });

  test('a ccd_iterations beyond the WGSL polytope storage is refused when a convex pair can touch', () => {
    const egg = '<body pos="1 0 0.5"><freejoint/><geom name="egg" type="ellipsoid" size="0.05 0.04 0.03"/></body>';
    const ball = '<body pos="1 0 0.5"><freejoint/><geom type="sphere" size="0.05"/></body>';
    const over = `<option ccd_iterations="${GPU_CCD_MAX_ITERATIONS + 1}"/>`;
    expect(() => refuseCpuOnlyPairs(load('iter-over', egg, over))).toThrow(
      `the GPU backend's convex collision (GJK/EPA) runs at most ${GPU_CCD_MAX_ITERATIONS} ccd_iterations and this ` +
      `model asks for ${GPU_CCD_MAX_ITERATIONS + 1}; lower <option ccd_iterations>, or use backend cpu.`);
    expect(() => refuseCpuOnlyPairs(load('iter-max', egg, `<option ccd_iterations="${GPU_CCD_MAX_ITERATIONS}"/>`))).not.toThrow();
    // no convex pair: the option does not matter
    expect(() => refuseCpuOnlyPairs(load('iter-ball', ball, over))).not.toThrow();
  });

  test('the same scene with the ball kept from the height field (contype/conaffinity) builds', () => {
    const model = load('apart', `${HFIELD}<body pos="0 0 0.3"><freejoint/><geom type="sphere" size="0.05" contype="2" conaffinity="2"/></body>`,
      HFIELD_ASSET);
    expect(() => refuseCpuOnlyPairs(model)).not.toThrow();
  });

  test("gpuHasNarrow is the WGSL kernel's has_narrow, and covers every pair of primitives", () => {
    const src = collisionKernel.helpers;
    const body = (name: string) => src.slice(src.indexOf(`fn ${name}`), src.indexOf('\n}', src.indexOf(`fn ${name}`)));
    // has_narrow's lines `if (t1 == a) { return t2 == b || ...; }`, and convex_pair's `if (tX == a) { return tY == b || ...; }`
    const lines = (name: string, t1: number, t2: number): boolean => {
      for (const line of body(name).split('\n')) {
        const m = /if \((t[12]) == (\d)\) \{ return (.*); \}/.exec(line);
        if (!m || Number(m[2]) !== (m[1] === 't1' ? t1 : t2)) continue;
        return m[3]!.split('||').some((c) => {
          const o = /(t[12]) == (\d)/.exec(c)!;
          return Number(o[2]) === (o[1] === 't1' ? t1 : t2);
        });
      }
      const last = /return t1 == (\d) && t2 == (\d);/.exec(body(name));
      return last !== null && Number(last[1]) === t1 && Number(last[2]) === t2;
    };
    const wgsl = (t1: number, t2: number): boolean => lines('convex_pair', t1, t2) || lines('has_narrow', t1, t2);
    const primitives = [0, 2, 3, 4, 5, 6]; // plane, sphere, capsule, ellipsoid, cylinder, box
    let gpuPairs = 0;
    for (const t1 of [0, 1, 2, 3, 4, 5, 6, 7]) {
      for (const t2 of [0, 1, 2, 3, 4, 5, 6, 7]) {
        if (t2 < t1) continue;
        expect(gpuHasNarrow(t1, t2), `${t1}-${t2}`).toBe(wgsl(t1, t2));
        expect(gpuConvexPair(t1, t2), `convex ${t1}-${t2}`).toBe(lines('convex_pair', t1, t2));
        if (primitives.includes(t1) && primitives.includes(t2) && !(t1 === 0 && t2 === 0)) {
          expect(gpuHasNarrow(t1, t2), `primitive pair ${t1}-${t2}`).toBe(true);
          gpuPairs++;
        }
      }
    }
    expect(gpuPairs).toBe(20);
    // a mesh against every primitive and every mesh: plane-mesh, and the convex routine for the rest; not a height field
    for (const t1 of [0, 2, 3, 4, 5, 6, 7]) expect(gpuHasNarrow(t1, 7), `mesh pair ${t1}-7`).toBe(true);
    expect(gpuHasNarrow(1, 7)).toBe(false);
  });
});
