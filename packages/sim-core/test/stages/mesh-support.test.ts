/**
 * The mesh support point (hill-climbing the convex hull graph, as MuJoCo's native support does) is the vertex
 * farthest along the direction, the one an exhaustive search over every vertex finds: on sim-core's own hull
 * graph and on MuJoCo's (qhull's), for a small irregular mesh and a 400-vertex rounded one.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { meshHulls, meshSupportVertex } from '../../src/collision/mesh.js';
import { loadMJCF } from '../../src/loaders/index.js';
import type { Model } from '../../src/model/model.js';
import { loadMujocoXml, modelFromMujoco } from '../helpers/mujoco.js';

const IRREGULAR = '0.13 0.02 -0.05  -0.11 0.07 0.03  0.04 -0.12 0.08  -0.02 -0.03 -0.14  0.09 0.11 0.12  -0.1 -0.09 -0.02  0.01 0.15 -0.06  0 0 0';

/** Deterministic pseudo-random numbers in [-1, 1). */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return (2 * s) / 2147483647 - 1;
  };
}

/** 400 points on a squashed sphere, some pushed inwards (not on the hull). */
function rounded(): string {
  const r = rng(7);
  const pts: string[] = [];
  for (let i = 0; i < 400; i++) {
    const x = r(), y = r(), z = r();
    const l = Math.hypot(x, y, z) * (i % 5 === 0 ? 1.5 : 1);
    pts.push(`${(0.2 * x) / l} ${(0.1 * y) / l} ${(0.15 * z) / l}`);
  }
  return pts.join(' ');
}

async function models(vertex: string): Promise<Model[]> {
  const xml = `<mujoco><asset><mesh name="m" vertex="${vertex}"/></asset><worldbody><body><freejoint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>`;
  const dir = mkdtempSync(join(tmpdir(), 'gsprof-mesh-support-'));
  writeFileSync(join(dir, 'm.xml'), xml);
  const { mj, m } = await loadMujocoXml(xml);
  return [loadMJCF(join(dir, 'm.xml')).model, modelFromMujoco(mj, m)];
}

describe('mesh support by hill-climbing the hull = exhaustive search', () => {
  for (const [name, vertex] of [['an irregular 8-vertex mesh', IRREGULAR], ['a 400-vertex rounded mesh', rounded()]] as const) {
    test(name, async () => {
      const r = rng(3);
      const local = new Int32Array(1);
      for (const m of await models(vertex)) {
        const hull = meshHulls(m)![0]!;
        expect(hull.graph).not.toBeNull();
        const flat = { ...hull, graph: null };
        const v = hull.vert;
        for (let k = 0; k < 2000; k++) {
          const d = [r(), r(), r()] as const;
          const dot = (i: number) => d[0] * v[3 * i]! + d[1] * v[3 * i + 1]! + d[2] * v[3 * i + 2]!;
          // start the climb anywhere on the hull, as a warm start would
          const start = k % hull.graph![0]!;
          const climbed = meshSupportVertex(hull, d[0], d[1], d[2], start, local);
          const exhaustive = meshSupportVertex(flat, d[0], d[1], d[2], -1, local);
          expect(dot(climbed)).toBe(dot(exhaustive));
        }
      }
    });
  }
});
