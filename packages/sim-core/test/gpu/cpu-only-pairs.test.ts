/**
 * The GPU backend refuses, at build, geom pairs that only the CPU backend can collide (MuJoCo's general convex
 * routine, collision/convex.ts): the WGSL kernel would skip them and the geoms would pass through each other.
 * These checks need no GPU; backend.test.ts builds such a scene on a real adapter.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { refuseCpuOnlyPairs } from '../../src/backend/gpu.js';
import { narrowPhaseFor } from '../../src/collision/plan.js';
import { collisionKernel, gpuHasNarrow } from '../../src/gpu/kernels/collision.js';
import { loadMJCF } from '../../src/loaders/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gsprof-gpu-pairs-'));
function load(name: string, bodies: string) {
  const file = join(dir, `${name}.xml`);
  writeFileSync(file, `<mujoco><worldbody><geom name="floor" type="plane" size="0 0 0.05"/>${bodies}</worldbody></mujoco>`);
  return loadMJCF(file).model;
}

describe('GPU refusal of CPU-only collision pairs (issue 13)', () => {
  test('a capsule on a cylinder and an ellipsoid on the floor are refused, naming the geoms and the CPU backend', () => {
    const model = load('convex', `
      <body pos="0 0 0.3"><freejoint/><geom name="log" type="cylinder" size="0.05 0.2"/></body>
      <body pos="0 0 0.5"><freejoint/><geom name="pin" type="capsule" size="0.02 0.1"/></body>
      <body pos="1 0 0.5"><freejoint/><geom name="egg" type="ellipsoid" size="0.05 0.04 0.03"/></body>`);
    expect(() => refuseCpuOnlyPairs(model)).toThrow(
      "the GPU backend has no collision code for plane 'floor' - ellipsoid 'egg', capsule 'pin' - cylinder 'log', " +
      "ellipsoid 'egg' - cylinder 'log', capsule 'pin' - ellipsoid 'egg': these pairs (ellipsoids, capsule-cylinder, " +
      'cylinder-cylinder, cylinder-box) run on the CPU backend; use backend cpu, or keep them from colliding.');
  });

  test('the same scene without those pairs (excluded by contype/conaffinity) builds', () => {
    const model = load('apart', `
      <body pos="0 0 0.3"><freejoint/><geom type="cylinder" size="0.05 0.2" contype="2" conaffinity="2"/></body>
      <body pos="0 0 0.5"><freejoint/><geom type="capsule" size="0.02 0.1"/></body>`);
    expect(() => refuseCpuOnlyPairs(model)).not.toThrow();
  });

  test("gpuHasNarrow is the WGSL kernel's has_narrow, and every other pair has CPU collision code", () => {
    const src = collisionKernel.helpers;
    const fn = src.slice(src.indexOf('fn has_narrow'), src.indexOf('\n}', src.indexOf('fn has_narrow')));
    const wgsl = (t1: number, t2: number): boolean => {
      for (const line of fn.split('\n')) {
        const m = /if \(t1 == (\d)\) \{ return (.*); \}/.exec(line);
        if (m && Number(m[1]) === t1) return m[2]!.split('||').some((c) => Number(/t2 == (\d)/.exec(c)![1]) === t2);
      }
      return false;
    };
    const primitives = [0, 2, 3, 4, 5, 6]; // plane, sphere, capsule, ellipsoid, cylinder, box
    let gpuPairs = 0;
    for (const t1 of primitives) {
      for (const t2 of primitives) {
        if (t2 < t1 || (t1 === 0 && t2 === 0)) continue;
        expect(gpuHasNarrow(t1, t2), `${t1}-${t2}`).toBe(wgsl(t1, t2));
        if (gpuHasNarrow(t1, t2)) gpuPairs++;
        expect(narrowPhaseFor(t1, t2), `CPU ${t1}-${t2}`).not.toBeNull();
      }
    }
    expect(gpuPairs).toBe(11);
  });
});
