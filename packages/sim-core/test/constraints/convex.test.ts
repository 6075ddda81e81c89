/**
 * The general convex narrow phase (collision/convex.ts, MuJoCo's native ccd) on shapes whose contact is known in
 * closed form, and through its public API with a support function written outside sim-core (as a mesh's is).
 * Agreement with MuJoCo itself, pose by pose, is in collision.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { DIST, FRAME, POS, STRIDE, makeGeomPose, type GeomPose } from '../../src/collision/contact.js';
import { type ConvexShape, convexCollide, type Support } from '../../src/collision/convex.js';
import { sphereBox } from '../../src/collision/box.js';
import { sphereSphere } from '../../src/collision/round.js';
import { boxSupport, sphereSupport } from '../../src/collision/support.js';
import { GeomType } from '../../src/model/model.js';

function pose(x: number, y: number, z: number, size: number[]): GeomPose {
  const g = makeGeomPose();
  g.pos.set([x, y, z]);
  g.mat.set([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  g.size.set(size);
  return g;
}

/** A regular octahedron of circumradius size[0], as a polytope with numbered vertices (like a mesh support). */
const octahedronSupport: Support = (g, dx, dy, dz, out, o) => {
  const d = [dx, dy, dz];
  let best = 0;
  for (let i = 1; i < 3; i++) if (Math.abs(d[i]!) > Math.abs(d[best]!)) best = i;
  const sign = d[best]! >= 0 ? 1 : -1;
  for (let i = 0; i < 3; i++) out[o + i] = g.pos[i]! + (i === best ? sign * g.size[0]! : 0);
  return 2 * best + (sign > 0 ? 1 : 0);
};

const out = new Float64Array(24 * STRIDE);

describe('convexCollide (GJK/EPA as MuJoCo native ccd)', () => {
  test('two spheres: GJK between the centres gives the analytic sphere-sphere contact', () => {
    const a = pose(0.1, 0.2, 0.3, [0.1, 0, 0]);
    const b = pose(0.24, 0.21, 0.29, [0.05, 0, 0]);
    const s1: ConvexShape = { pose: a, type: GeomType.Sphere, support: sphereSupport };
    const s2: ConvexShape = { pose: b, type: GeomType.Sphere, support: sphereSupport };
    expect(convexCollide(out, s1, s2, 0)).toBe(1);
    const ref = new Float64Array(STRIDE);
    expect(sphereSphere(ref, a, b, 0)).toBe(1);
    // the same quantities through other arithmetic: equal to rounding (measured up to 1.1e-15; 10x margin)
    for (const i of [DIST, POS, POS + 1, POS + 2, FRAME, FRAME + 1, FRAME + 2]) {
      expect(Math.abs(out[i]! - ref[i]!)).toBeLessThan(1e-14);
    }
  });

  test('a sphere whose centre is inside a box: EPA finds the analytic depth through the nearest face', () => {
    const box = pose(0, 0, 0, [0.2, 0.2, 0.1]);
    const sph = pose(0.05, -0.03, 0.07, [0.05, 0, 0]);
    const s1: ConvexShape = { pose: sph, type: GeomType.Sphere, support: sphereSupport };
    const s2: ConvexShape = { pose: box, type: GeomType.Box, support: boxSupport };
    expect(convexCollide(out, s1, s2, 0)).toBe(1);
    const ref = new Float64Array(STRIDE);
    expect(sphereBox(ref, sph, box, 0)).toBe(1);
    expect(Math.abs(ref[DIST]! + 0.08)).toBeLessThan(1e-15);
    // EPA on a round shape stops once its bounds are within ccd_tolerance (1e-6)
    for (const i of [DIST, POS, POS + 1, POS + 2, FRAME, FRAME + 1, FRAME + 2]) {
      expect(Math.abs(out[i]! - ref[i]!)).toBeLessThan(1e-6);
    }
  });

  test('a polytope support from outside sim-core: an octahedron tip pressed 0.01 into a box top', () => {
    const box = pose(0, 0, 0, [0.2, 0.2, 0.1]);
    const oct = pose(0.03, -0.02, 0.1 + 0.1 - 0.01, [0.1, 0, 0]);
    const s1: ConvexShape = { pose: box, type: GeomType.Box, support: boxSupport };
    const s2: ConvexShape = { pose: oct, type: GeomType.Mesh, support: octahedronSupport };
    expect(convexCollide(out, s1, s2, 0)).toBe(1);
    // discrete shapes: EPA converges exactly
    expect(Math.abs(out[DIST]! + 0.01)).toBeLessThan(1e-12);
    expect(Math.abs(out[FRAME + 2]! - 1)).toBeLessThan(1e-12); // from shape 1 (the box) up to the octahedron
    expect(Math.abs(out[POS]! - 0.03)).toBeLessThan(1e-12);
    expect(Math.abs(out[POS + 1]! + 0.02)).toBeLessThan(1e-12);
    expect(Math.abs(out[POS + 2]! - 0.095)).toBeLessThan(1e-12); // halfway between tip and face
  });

  test('apart: no contact; within the margin: one contact at the true distance', () => {
    const box = pose(0, 0, 0, [0.2, 0.2, 0.1]);
    const oct = pose(0, 0, 0.1 + 0.1 + 0.005, [0.1, 0, 0]);
    const s1: ConvexShape = { pose: box, type: GeomType.Box, support: boxSupport };
    const s2: ConvexShape = { pose: oct, type: GeomType.Mesh, support: octahedronSupport };
    expect(convexCollide(out, s1, s2, 0)).toBe(0);
    expect(convexCollide(out, s1, s2, 0.004)).toBe(0);
    expect(convexCollide(out, s1, s2, 0.01)).toBe(1);
    // the margin inflates both shapes, so EPA's depth is tolerance-limited (ccd_tolerance 1e-6)
    expect(Math.abs(out[DIST]! - 0.005)).toBeLessThan(1e-6);
  });
});
