/**
 * The quickhull on point sets that trouble hull codes (MuJoCo's answers are in mesh.test.ts): faces of a cube
 * with noise at 1e-9..1e-14, a cylinder's rings with repeated points, a grid with duplicates, a slab 1e-4
 * thick. Every hull is a closed triangulated surface (Euler: V - E + F = 2) with every point inside it.
 */
import { describe, expect, it } from 'vitest';
import { convexHull } from '../../src/loaders/mesh-hull.js';

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

const KINDS = ['noisy cube faces', 'cylinder rings', 'grid with duplicates', 'thin slab'] as const;

function cloud(kind: number, r: () => number): number[] {
  const pts: number[] = [];
  const n = 20 + Math.floor(r() * 500);
  for (let i = 0; i < n; i++) {
    let p: number[];
    if (kind === 0) {
      const f = Math.floor(r() * 6), a = r() - 0.5, b = r() - 0.5;
      const c = (f % 2 ? 0.5 : -0.5) + (r() - 0.5) * 10 ** -(9 + Math.floor(r() * 6));
      p = f < 2 ? [c, a, b] : f < 4 ? [a, c, b] : [a, b, c];
    } else if (kind === 1) {
      const th = (2 * Math.PI * Math.floor(r() * 32)) / 32;
      p = [Math.cos(th) * 0.1, Math.sin(th) * 0.1, Math.floor(r() * 5) / 4 - 0.5];
    } else if (kind === 2) {
      p = [Math.floor(r() * 5) / 4, Math.floor(r() * 5) / 4, Math.floor(r() * 3) / 2];
    } else {
      p = [r(), r(), (r() - 0.5) * 1e-4];
    }
    for (const x of p) pts.push(Math.fround(x));
  }
  return pts;
}

/** Largest distance of a point outside a hull face (the face plane through its first vertex). */
function outside(pts: number[], faces: number[]): number {
  let worst = 0;
  for (let f = 0; f < faces.length; f += 3) {
    const [a, b, c] = [3 * faces[f]!, 3 * faces[f + 1]!, 3 * faces[f + 2]!];
    const u = [pts[b]! - pts[a]!, pts[b + 1]! - pts[a + 1]!, pts[b + 2]! - pts[a + 2]!];
    const v = [pts[c]! - pts[a]!, pts[c + 1]! - pts[a + 1]!, pts[c + 2]! - pts[a + 2]!];
    const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
    const l = Math.hypot(n[0]!, n[1]!, n[2]!);
    for (let i = 0; i < pts.length; i += 3) {
      worst = Math.max(worst, ((pts[i]! - pts[a]!) * n[0]! + (pts[i + 1]! - pts[a + 1]!) * n[1]! + (pts[i + 2]! - pts[a + 2]!) * n[2]!) / l);
    }
  }
  return worst;
}

describe('convex hulls of awkward point sets', () => {
  KINDS.forEach((name, kind) => {
    it(`${name}: 100 clouds, each a closed surface holding every point`, () => {
      const r = rng(3 + kind);
      for (let t = 0; t < 100; t++) {
        const pts = cloud(kind, r);
        const h = convexHull(pts);
        const F = h.faces.length / 3;
        expect(h.vertices.length - (3 * F) / 2 + F).toBe(2);
        // measured at most 1.1e-16 (round-off of the face planes) on these unit-sized clouds; 1e-12: margin 1e4
        expect(outside(pts, h.faces)).toBeLessThan(1e-12);
      }
    });
  });
});
